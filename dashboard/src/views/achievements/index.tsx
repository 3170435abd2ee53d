// Achievements: the list (with unlock counts and rarity) and one achievement's edit page.
import { Route, Routes } from 'react-router';
import { NotFound } from '../NotFound';
import { AchievementEdit } from './AchievementEdit';
import { AchievementList } from './AchievementList';
import './achievements.css';

export default function Achievements() {
  return (
    <Routes>
      <Route index element={<AchievementList />} />
      <Route path=":key" element={<AchievementEdit />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
