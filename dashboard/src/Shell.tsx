// The signed-in frame: the sidebar (brand, game switcher, the current game's sections, admin,
// account) and the page beside it. At phone width the sidebar becomes a bar above the page.
import { NavLink, Outlet, useMatch, useNavigate } from 'react-router';
import { useEffect, useState } from 'react';
import { useSession } from './auth';
import { api, unwrap } from './api/client';
import { useLoad } from './ui/useLoad';

/** The window event a view fires after creating, renaming or deleting a game. */
export const GAMES_CHANGED = 'playtrace:games-changed';

export const GAME_SECTIONS: { path: string; label: string }[] = [
  { path: '', label: 'Overview' },
  { path: 'retention', label: 'Retention' },
  { path: 'events', label: 'Events' },
  { path: 'leaderboards', label: 'Leaderboards' },
  { path: 'achievements', label: 'Achievements' },
  { path: 'presence', label: 'Presence' },
  { path: 'funnels', label: 'Funnels' },
  { path: 'progression', label: 'Progression' },
  { path: 'economy', label: 'Economy' },
  { path: 'alerts', label: 'Alerts' },
  { path: 'config', label: 'Remote config' },
  { path: 'saves', label: 'Cloud saves' },
  { path: 'settings', label: 'Settings' },
];

export function Shell() {
  const session = useSession();
  const navigate = useNavigate();
  const match = useMatch('/games/:gameId/*');
  const gameId = match?.params.gameId;
  // Views announce a created, renamed or deleted game so the switcher follows at once.
  const [gamesRound, setGamesRound] = useState(0);
  useEffect(() => {
    const changed = () => setGamesRound((round) => round + 1);
    window.addEventListener(GAMES_CHANGED, changed);
    return () => window.removeEventListener(GAMES_CHANGED, changed);
  }, []);
  const games = useLoad(() => unwrap(api.GET('/v1/games')), [gameId, gamesRound]);
  const [menuOpen, setMenuOpen] = useState(false);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className={`sidebar${menuOpen ? ' open' : ''}`}>
        <div className="brand-row">
          <NavLink to="/games" className="brand">
            <img src="/favicon.svg" alt="" width={24} height={24} />
            playtrace
          </NavLink>
          <button type="button" className="menu-toggle" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)}>
            Menu
          </button>
        </div>
        <nav aria-label="Main" onClick={() => setMenuOpen(false)}>
          {games.data && games.data.games.length > 0 && (
            <label className="field game-switcher">
              <span className="field-label">Game</span>
              <select
                value={gameId ?? ''}
                onChange={(e) => e.target.value && navigate(`/games/${e.target.value}`)}
                onClick={(e) => e.stopPropagation()}
              >
                <option value="">Choose a game…</option>
                {games.data.games.map((g) => (
                  <option key={g.game_id} value={g.game_id}>
                    {g.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {gameId && (
            <ul className="nav-list">
              {GAME_SECTIONS.map((s) => (
                <li key={s.path}>
                  <NavLink end={s.path === ''} to={`/games/${gameId}${s.path ? `/${s.path}` : ''}`}>
                    {s.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          )}
          <ul className="nav-list secondary">
            <li>
              <NavLink end to="/games">
                All games
              </NavLink>
            </li>
            {session.me?.is_admin && (
              <li>
                <NavLink to="/admin">Admin</NavLink>
              </li>
            )}
          </ul>
        </nav>
        <div className="account">
          <span className="hint" title={session.me?.email}>
            {session.me?.email}
          </span>
          <button
            type="button"
            className="link"
            onClick={() => {
              session.signOut();
              navigate('/sign-in');
            }}
          >
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
