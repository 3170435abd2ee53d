// Funnels: the game's funnel definitions, a builder to create and edit them, and each
// funnel's report (a bar per step, dropoffs and the overall conversion over a date range).
import { Route, Routes } from 'react-router';
import { NotFound } from '../NotFound';
import { FunnelList } from './FunnelList';
import { FunnelEditor } from './FunnelEditor';
import { FunnelReport } from './FunnelReport';
import './funnels.css';

export default function Funnels() {
  return (
    <Routes>
      <Route index element={<FunnelList />} />
      <Route path="new" element={<FunnelEditor />} />
      <Route path=":funnelId" element={<FunnelReport />} />
      <Route path=":funnelId/edit" element={<FunnelEditor />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
