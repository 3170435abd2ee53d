// How rare an achievement is: the percent of the game's players who have it, as text and a bar.
import { formatPercent } from '../../ui/format';

function tier(percent: number): string {
  if (percent <= 0) return 'Not unlocked yet';
  if (percent < 5) return 'Ultra rare';
  if (percent < 20) return 'Rare';
  if (percent < 50) return 'Uncommon';
  return 'Common';
}

export function Rarity({ percent }: { percent: number }) {
  const width = Math.max(0, Math.min(100, percent));
  return (
    <div className="ach-rarity">
      <div className="ach-rarity-line">
        <strong>{formatPercent(percent)}</strong>
        <span className="hint">{tier(percent)}</span>
      </div>
      <div className="ach-bar" role="presentation">
        <span style={{ width: `${width}%` }} />
      </div>
    </div>
  );
}
