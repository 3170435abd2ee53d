// The live players as a virtualised table: only the rows in view (plus a few) are in the DOM,
// each of one fixed height, so 10,000 players scroll as smoothly as 10.
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Badge } from '../../ui/components';
import type { LivePlayer } from './feed';

const ROW_DESKTOP = 44;
const ROW_PHONE = 64;
const HEADER = 36;
const PHONE_QUERY = '(max-width: 760px)';

export function statusTone(status: string): 'good' | 'warn' | 'neutral' | 'bad' {
  if (status === 'playing') return 'good';
  if (status === 'waiting') return 'warn';
  if (status === 'offline') return 'bad';
  return 'neutral';
}

export function ago(now: number, at: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  return `${Math.floor(m / 60)} h ago`;
}

function usePhone(): boolean {
  const [phone, setPhone] = useState(() => window.matchMedia(PHONE_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(PHONE_QUERY);
    const change = () => setPhone(query.matches);
    query.addEventListener('change', change);
    return () => query.removeEventListener('change', change);
  }, []);
  return phone;
}

const Row = memo(function Row({
  player,
  now,
  index,
  height,
  onOpen,
}: {
  player: LivePlayer;
  now: number;
  index: number;
  height: number;
  onOpen: (id: string) => void;
}) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className="presence-row"
      data-player={player.id}
      style={{ height }}
    >
      <div role="cell" className="presence-player">
        <button type="button" className="link" onClick={() => onOpen(player.id)} title={`Show ${player.id}`}>
          {player.id}
        </button>
      </div>
      <div role="cell" className="presence-status">
        <Badge tone={statusTone(player.status)}>{player.status}</Badge>
      </div>
      <div role="cell" className="presence-activity" title={player.activity}>
        {player.activity}
      </div>
      <div role="cell" className="presence-details" title={player.summary}>
        {player.summary || <span className="hint">—</span>}
      </div>
      <div role="cell" className="presence-ago">
        <time dateTime={new Date(player.updatedAt).toISOString()} title={new Date(player.updatedAt).toUTCString()}>
          {ago(now, player.updatedAt)}
        </time>
      </div>
    </div>
  );
});

export function PlayerList({ players, now, onOpen }: { players: LivePlayer[]; now: number; onOpen: (id: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const phone = usePhone();
  const rowHeight = phone ? ROW_PHONE : ROW_DESKTOP;
  // Stable callbacks: the virtualizer recomputes every row's position when these change.
  const getItemKey = useCallback((index: number) => players[index]?.id ?? index, [players]);
  const estimateSize = useCallback(() => rowHeight, [rowHeight]);
  const getScrollElement = useCallback(() => scroller.current, []);
  const virtualizer = useVirtualizer({
    count: players.length,
    getScrollElement,
    estimateSize,
    getItemKey,
    overscan: 6,
    scrollMargin: phone ? 0 : HEADER,
    useFlushSync: false,
  });

  useEffect(() => {
    virtualizer.measure();
  }, [rowHeight, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const offset = items.length > 0 ? items[0].start - virtualizer.options.scrollMargin : 0;
  return (
    <div
      ref={scroller}
      className="presence-scroll"
      tabIndex={0}
      role="table"
      aria-label="Live players"
      aria-rowcount={players.length + 1}
      data-testid="presence-scroll"
    >
      <div role="rowgroup" className="presence-head">
        <div role="row" aria-rowindex={1} className="presence-row presence-header">
          <div role="columnheader">Player</div>
          <div role="columnheader">Status</div>
          <div role="columnheader">Activity</div>
          <div role="columnheader">Details</div>
          <div role="columnheader">Updated</div>
        </div>
      </div>
      <div role="rowgroup" className="presence-body" style={{ height: virtualizer.getTotalSize() }}>
        {/* The rows in view sit in normal flow inside one moved block, so scrolling moves one
            element and re-renders no row that stays in view. */}
        <div className="presence-window" style={{ transform: `translateY(${offset}px)` }}>
          {items.map((item) => {
            const player = players[item.index];
            if (!player) return null;
            return <Row key={player.id} player={player} now={now} index={item.index} height={rowHeight} onOpen={onOpen} />;
          })}
        </div>
      </div>
    </div>
  );
}
