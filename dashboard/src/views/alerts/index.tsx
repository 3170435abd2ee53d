// Alerts: the game's rules (list, new, edit, send a test, evaluate now) and the history of
// firings, as two tabs with their own addresses.
import { Link, Route, Routes, useLocation } from 'react-router';
import { Empty, PageHeader } from '../../ui/components';
import { useGame } from '../../GameShell';
import { RulesTab } from './RulesTab';
import { EditRule, NewRule } from './RuleEditor';
import { HistoryTab } from './HistoryTab';
import './alerts.css';

export default function Alerts() {
  const { game } = useGame();
  const location = useLocation();
  const onHistory = /\/alerts\/history\/?$/.test(location.pathname);
  const base = `/games/${game.game_id}/alerts`;
  return (
    <>
      <PageHeader title="Alerts" />
      <nav className="al-tabs" aria-label="Alerts sections">
        <Link to={base} aria-current={onHistory ? undefined : 'page'}>
          Rules
        </Link>
        <Link to={`${base}/history`} aria-current={onHistory ? 'page' : undefined}>
          History
        </Link>
      </nav>
      <Routes>
        <Route index element={<RulesTab />} />
        <Route path="new" element={<NewRule />} />
        <Route path=":ruleId/edit" element={<EditRule />} />
        <Route path="history" element={<HistoryTab />} />
        <Route
          path="*"
          element={
            <Empty title="There is nothing at this address.">
              <Link to={base}>Back to the alert rules</Link>
            </Empty>
          }
        />
      </Routes>
    </>
  );
}
