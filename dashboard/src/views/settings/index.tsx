// A game's settings: general (name, event validation, web origins, retention, plan, deletion),
// members, API keys and player data (export, erasure, audit log), each a sub-page behind a tab bar.
import { NavLink, Route, Routes } from 'react-router';
import { useGame } from '../../GameShell';
import { PageHeader } from '../../ui/components';
import { NotFound } from '../NotFound';
import { General } from './General';
import { Members } from './Members';
import { ApiKeys } from './ApiKeys';
import { PlayerData } from './PlayerData';
import './settings.css';

export default function Settings() {
  const { game } = useGame();
  const base = `/games/${game.game_id}/settings`;
  const tabs = [
    { to: base, label: 'General', end: true },
    { to: `${base}/members`, label: 'Members', end: false },
    { to: `${base}/keys`, label: 'API keys', end: false },
    { to: `${base}/player-data`, label: 'Player data', end: false },
  ];
  return (
    <>
      <PageHeader title="Settings">
        <span className="settings-game" title={game.game_id}>
          {game.name}
        </span>
      </PageHeader>
      <nav className="tabs" aria-label="Settings sections">
        {tabs.map((tab) => (
          <NavLink key={tab.to} to={tab.to} end={tab.end} className="tab">
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Routes>
        <Route index element={<General />} />
        <Route path="members" element={<Members />} />
        <Route path="keys" element={<ApiKeys />} />
        <Route path="player-data" element={<PlayerData />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </>
  );
}
