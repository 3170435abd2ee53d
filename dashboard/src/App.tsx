// Routes of the dashboard. The signed-out pages are in the first bundle; every signed-in area
// is its own chunk, loaded when first opened.
import { lazy, Suspense, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { SessionProvider, useSession } from './auth';
import { Loading } from './ui/components';
import { Shell } from './Shell';
import { GameShell } from './GameShell';
import { SignIn } from './views/auth/SignIn';
import { Register } from './views/auth/Register';
import { ForgotPassword } from './views/auth/ForgotPassword';
import { ResetPassword } from './views/auth/ResetPassword';
import { NotFound } from './views/NotFound';

const loadOverview = () => import('./views/overview');
// Opened straight on a game's overview (the usual first view), fetch its code at once, beside
// the session and game reads, instead of after them.
if (/^\/games\/[^/]+\/?$/.test(window.location.pathname)) void loadOverview();

const Games = lazy(() => import('./views/games/GameList'));
const Overview = lazy(loadOverview);
const Retention = lazy(() => import('./views/retention'));
const Events = lazy(() => import('./views/events'));
const Leaderboards = lazy(() => import('./views/leaderboards'));
const Achievements = lazy(() => import('./views/achievements'));
const Presence = lazy(() => import('./views/presence'));
const Funnels = lazy(() => import('./views/funnels'));
const Progression = lazy(() => import('./views/progression'));
const Economy = lazy(() => import('./views/economy'));
const Alerts = lazy(() => import('./views/alerts'));
const RemoteConfig = lazy(() => import('./views/config'));
const Saves = lazy(() => import('./views/saves'));
const Settings = lazy(() => import('./views/settings'));
const Admin = lazy(() => import('./views/admin'));

function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (!session.token) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/sign-in?next=${next}`} replace />;
  }
  if (session.checking || !session.me) return <Loading label="Signing in…" />;
  return <>{children}</>;
}

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}

export function App() {
  return (
    <SessionProvider>
      <BrowserRouter>
        <Routes>
          <Route path="/sign-in" element={<SignIn />} />
          <Route path="/register" element={<Register />} />
          <Route path="/forgot-password" element={<ForgotPassword />} />
          <Route path="/reset-password" element={<ResetPassword mode="reset" />} />
          <Route path="/activate" element={<ResetPassword mode="activate" />} />
          <Route
            element={
              <RequireSession>
                <Shell />
              </RequireSession>
            }
          >
            <Route index element={<Navigate to="/games" replace />} />
            <Route path="games" element={<Page><Games /></Page>} />
            <Route path="admin" element={<Page><Admin /></Page>} />
            <Route path="games/:gameId" element={<GameShell />}>
              <Route index element={<Page><Overview /></Page>} />
              <Route path="retention" element={<Page><Retention /></Page>} />
              <Route path="events/*" element={<Page><Events /></Page>} />
              <Route path="leaderboards/*" element={<Page><Leaderboards /></Page>} />
              <Route path="achievements/*" element={<Page><Achievements /></Page>} />
              <Route path="presence" element={<Page><Presence /></Page>} />
              <Route path="funnels/*" element={<Page><Funnels /></Page>} />
              <Route path="progression" element={<Page><Progression /></Page>} />
              <Route path="economy" element={<Page><Economy /></Page>} />
              <Route path="alerts/*" element={<Page><Alerts /></Page>} />
              <Route path="config" element={<Page><RemoteConfig /></Page>} />
              <Route path="saves" element={<Page><Saves /></Page>} />
              <Route path="settings/*" element={<Page><Settings /></Page>} />
              <Route path="*" element={<NotFound />} />
            </Route>
            <Route path="*" element={<NotFound />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </SessionProvider>
  );
}
