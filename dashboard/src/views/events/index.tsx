// The events area: counts by name, a live tail of the newest events, event schemas and the raw
// event export.
import { NavLink, Route, Routes } from 'react-router';
import { useGame } from '../../GameShell';
import { Empty, PageHeader } from '../../ui/components';
import { Counts } from './Counts';
import { Export } from './Export';
import { Live } from './Live';
import { SchemaEditor } from './SchemaEditor';
import { SchemaList } from './SchemaList';
import './events.css';

const TABS = [
  { to: '', label: 'Counts', end: true },
  { to: 'live', label: 'Live', end: true },
  { to: 'schemas', label: 'Schemas', end: false },
  { to: 'export', label: 'Export', end: true },
];

export default function Events() {
  const { game } = useGame();
  const base = `/games/${game.game_id}/events`;
  return (
    <div className="events-area">
      <PageHeader title="Events" />
      <nav className="tabs" aria-label="Events pages">
        {TABS.map((tab) => (
          <NavLink key={tab.label} to={tab.to ? `${base}/${tab.to}` : base} end={tab.end}>
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Routes>
        <Route index element={<Counts />} />
        <Route path="live" element={<Live />} />
        <Route path="schemas" element={<SchemaList />} />
        <Route path="schemas/new" element={<SchemaEditor key="new" />} />
        <Route path="schemas/:eventName" element={<SchemaEditor />} />
        <Route path="export" element={<Export />} />
        <Route
          path="*"
          element={
            <Empty title="There is nothing at this address.">
              <NavLink to={base}>Back to the event counts</NavLink>
            </Empty>
          }
        />
      </Routes>
    </div>
  );
}
