// Leaderboards: the list of boards (and a new one), then one board's standings, moderation
// queue and bans.
import { Route, Routes } from 'react-router';
import { NotFound } from '../NotFound';
import { BoardList } from './BoardList';
import { BoardPage } from './BoardPage';
import './leaderboards.css';

export default function Leaderboards() {
  return (
    <Routes>
      <Route index element={<BoardList />} />
      <Route path=":board/*" element={<BoardPage />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
