// Presence: who is in the game right now, live. The list is read once (paged, in the
// background) and then kept current by the WebSocket feed; counts, the status filter and the
// search work on the whole list, while the table only renders the rows in view.
import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import { useGame } from '../../GameShell';
import { Badge, Card, Empty, ErrorMessage, Field, Loading, PageHeader } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { ACTIVE_WITHIN_MS, usePresenceFeed, useNow, type Connection, type LivePlayer } from './feed';
import { PlayerList, statusTone } from './PlayerList';
import './presence.css';

const STATUSES = ['playing', 'waiting', 'idle'];
const ACTIVE = 'active';
const ALL = 'all';

type Sort = 'recent' | 'player';

function ConnectionBadge({ connection }: { connection: Connection }) {
  const text: Record<Connection, string> = {
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    closed: 'Disconnected',
  };
  const tone = connection === 'live' ? 'good' : connection === 'closed' ? 'bad' : 'warn';
  return (
    <span className={`presence-connection presence-connection-${connection}`} role="status" aria-live="polite">
      <Badge tone={tone}>
        <span className="presence-dot" aria-hidden="true" />
        {text[connection]}
      </Badge>
    </span>
  );
}

function PlayerDialog({ player, id, onClose }: { player: LivePlayer | undefined; id: string | null; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const open = id !== null;
  // Open and close the native dialog as the selection changes.
  const setRef = useCallback(
    (node: HTMLDialogElement | null) => {
      dialog.current = node;
      if (node && open && !node.open) node.showModal();
      if (node && !open && node.open) node.close();
    },
    [open],
  );
  if (!open) return null;
  return (
    <dialog ref={setRef} className="dialog presence-dialog" aria-labelledby="presence-dialog-title" onClose={onClose}>
      <h2 id="presence-dialog-title">{id}</h2>
      {player ? (
        <dl className="presence-facts">
          <dt>Status</dt>
          <dd>
            <Badge tone={statusTone(player.status)}>{player.status}</Badge>
          </dd>
          <dt>Activity</dt>
          <dd>{player.activity}</dd>
          <dt>Updated</dt>
          <dd>{formatTime(new Date(player.updatedAt).toISOString())}</dd>
          {player.sessionId && (
            <>
              <dt>Session</dt>
              <dd>
                <code>{player.sessionId}</code>
              </dd>
            </>
          )}
          <dt>Details</dt>
          <dd>
            <pre className="presence-json">{JSON.stringify(player.details ?? {}, null, 2)}</pre>
          </dd>
        </dl>
      ) : (
        <p>This player is no longer online.</p>
      )}
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={() => dialog.current?.close()} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}

export default function Presence() {
  const { game } = useGame();
  const feed = usePresenceFeed(game.game_id);
  const [status, setStatus] = useState<string>(ALL);
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>('recent');
  const [selected, setSelected] = useState<string | null>(null);
  const query = useDeferredValue(search.trim().toLowerCase());
  // "N s ago" moves every second (only the rows in view re-render); the 5-minute window and
  // the counts are recomputed every 5 seconds, or when the feed publishes a batch.
  const now = useNow(1000);
  const windowNow = useNow(5000);

  const { version } = feed;
  const all = useMemo(() => {
    void version;
    return Array.from(feed.players.current.values());
  }, [feed.players, version]);

  const counts = useMemo(() => {
    const cutoff = windowNow - ACTIVE_WITHIN_MS;
    const byStatus: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    let active = 0;
    for (const player of all) {
      byStatus[player.status] = (byStatus[player.status] ?? 0) + 1;
      if (player.updatedAt > cutoff) active += 1;
    }
    return { byStatus, active, online: all.length };
  }, [all, windowNow]);

  const shown = useMemo(() => {
    const cutoff = windowNow - ACTIVE_WITHIN_MS;
    const list = all.filter(
      (p) =>
        (status === ALL || (status === ACTIVE ? p.updatedAt > cutoff : p.status === status)) &&
        (query === '' || p.id.toLowerCase().includes(query)),
    );
    if (sort === 'recent') list.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    else list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return list;
  }, [all, status, query, sort, windowNow]);

  const statuses = useMemo(
    () => [...STATUSES, ...Object.keys(counts.byStatus).filter((s) => !STATUSES.includes(s))],
    [counts.byStatus],
  );

  const { progress } = feed;
  const firstLoad = !progress.ready && all.length === 0;

  return (
    <>
      <PageHeader title="Presence">
        <ConnectionBadge connection={feed.connection} />
      </PageHeader>
      {feed.closedReason && (
        <div className="error" role="alert">
          {feed.closedReason} The live feed stopped.
        </div>
      )}
      {feed.connection === 'reconnecting' && progress.ready && (
        <p className="notice">The live feed dropped; reconnecting. The list may be behind until it is back.</p>
      )}

      <div className="stats presence-stats" role="group" aria-label="Counts">
        <div className="stat stat-accent">
          <div className="label">All Active</div>
          <div className="value" data-testid="count-active">
            {firstLoad ? '…' : formatNumber(counts.active)}
          </div>
          <div className="hint">Updated in the last 5 minutes</div>
        </div>
        <div className="stat">
          <div className="label">Online</div>
          <div className="value" data-testid="count-online">
            {firstLoad ? '…' : formatNumber(counts.online)}
          </div>
          <div className="hint">Seen in the last 10 minutes</div>
        </div>
        {statuses.map((s) => (
          <div className="stat" key={s}>
            <div className="label">{s}</div>
            <div className="value" data-testid={`count-${s}`}>
              {firstLoad ? '…' : formatNumber(counts.byStatus[s] ?? 0)}
            </div>
          </div>
        ))}
      </div>

      <Card
        title="Players"
        actions={
          progress.syncing && !firstLoad ? (
            <Loading label={`Loading players… ${formatNumber(progress.loaded)} so far`} />
          ) : (
            <span className="hint" aria-live="polite">
              Showing {formatNumber(shown.length)} of {formatNumber(all.length)}
            </span>
          )
        }
      >
        <form className="form inline presence-filters" onSubmit={(e) => e.preventDefault()} role="search">
          <Field label="Status">
            <select value={status} onChange={(e) => setStatus(e.target.value)}>
              <option value={ALL}>All online ({formatNumber(counts.online)})</option>
              <option value={ACTIVE}>All Active, last 5 min ({formatNumber(counts.active)})</option>
              {statuses.map((s) => (
                <option key={s} value={s}>
                  {s[0].toUpperCase() + s.slice(1)} ({formatNumber(counts.byStatus[s] ?? 0)})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Search player ID">
            <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="e.g. player-42" />
          </Field>
          <Field label="Sort">
            <select value={sort} onChange={(e) => setSort(e.target.value as Sort)}>
              <option value="recent">Most recently updated</option>
              <option value="player">Player ID (A–Z)</option>
            </select>
          </Field>
        </form>

        {progress.error && <ErrorMessage error={progress.error} onRetry={feed.reload} />}
        {firstLoad ? (
          progress.error ? null : <Loading label="Loading players…" />
        ) : all.length === 0 ? (
          <Empty title="Nobody is online right now">
            Players appear here the moment your game reports what they are doing with <code>POST /v1/activity</code>{' '}
            (API key). A player silent for 10 minutes goes offline.
          </Empty>
        ) : shown.length === 0 ? (
          <Empty title="No players match">
            Try another status or a shorter search.{' '}
            <button
              type="button"
              className="link"
              onClick={() => {
                setStatus(ALL);
                setSearch('');
              }}
            >
              Clear filters
            </button>
          </Empty>
        ) : (
          <PlayerList players={shown} now={now} onOpen={setSelected} />
        )}
      </Card>
      <PlayerDialog id={selected} player={selected ? feed.players.current.get(selected) : undefined} onClose={() => setSelected(null)} />
    </>
  );
}
