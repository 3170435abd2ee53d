// A player's data (owners): download everything stored about one player, or erase it, to
// answer an access or erasure request; and the game's audit log of both.
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, Empty, ErrorMessage, Field } from '../../ui/components';
import { download, formatBytes } from '../../ui/download';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';

type Counts = Schemas['PlayerDataCounts'];
type AuditEntry = Schemas['AuditEntry'];

/** The longest player id any route takes. */
const MAX_PLAYER_ID = 128;
const AUDIT_PAGE = 25;

/** Each kind of record with its words for one and for many, in the order the API lists them. */
const KINDS: { key: keyof Counts; one: string; many: string }[] = [
  { key: 'events', one: 'event', many: 'events' },
  { key: 'leaderboard_entries', one: 'leaderboard entry', many: 'leaderboard entries' },
  { key: 'leaderboard_bans', one: 'leaderboard ban', many: 'leaderboard bans' },
  { key: 'tournaments', one: 'tournament place', many: 'tournament places' },
  { key: 'leaderboard_results', one: 'leaderboard result', many: 'leaderboard results' },
  { key: 'achievement_unlocks', one: 'achievement unlock', many: 'achievement unlocks' },
  { key: 'saves', one: 'cloud save', many: 'cloud saves' },
  { key: 'presence', one: 'presence entry', many: 'presence entries' },
  { key: 'player_identities', one: 'sign-in identity', many: 'sign-in identities' },
];

/** "14 events, 1 cloud save", or null when every count is zero. */
export function countsText(counts: Counts): string | null {
  const parts = KINDS.filter((k) => counts[k.key] > 0).map((k) => `${formatNumber(counts[k.key])} ${counts[k.key] === 1 ? k.one : k.many}`);
  return parts.length === 0 ? null : parts.join(', ');
}

/** The counts an export file states near its start, without reading the whole (maybe large) file. */
async function exportedCounts(blob: Blob): Promise<Counts | null> {
  const head = await blob.slice(0, 8192).text();
  const found = /"counts":(\{[^{}]*\})/.exec(head);
  if (!found) return null;
  try {
    return JSON.parse(found[1]) as Counts;
  } catch {
    return null;
  }
}

type Outcome = { tone: 'success' | 'notice'; text: string };

export function PlayerData() {
  const { game, isOwner } = useGame();
  const [auditVersion, setAuditVersion] = useState(0);
  if (!isOwner) {
    return (
      <p className="notice">
        Only the owners of {game.name} can download or erase a player's data and read the audit log of both.
      </p>
    );
  }
  return (
    <>
      <PlayerRequest onDone={() => setAuditVersion((v) => v + 1)} />
      <AuditLog key={auditVersion} />
    </>
  );
}

function PlayerRequest({ onDone }: { onDone(): void }) {
  const { game } = useGame();
  const [playerId, setPlayerId] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const exporting = useAction();
  const erasing = useAction();
  const player = playerId.trim() === '' ? '' : playerId;
  const path = { game_id: game.game_id, player_id: player };

  async function exportData(e: FormEvent) {
    e.preventDefault();
    if (!player) return;
    setOutcome(null);
    erasing.setError(null);
    const file = await exporting.run(() =>
      download(api.GET('/v1/games/{game_id}/players/{player_id}/data', { params: { path }, parseAs: 'blob' }), `player-${player}.json`),
    );
    if (!file) return;
    const counts = await exportedCounts(file.blob);
    const found = counts && countsText(counts);
    setOutcome({
      tone: found || !counts ? 'success' : 'notice',
      text: found
        ? `Downloaded ${file.fileName} (${formatBytes(file.blob.size)}): ${found}.`
        : counts
          ? `Downloaded ${file.fileName}, but nothing is stored about ${player}: check the player ID is exactly the one your game sends.`
          : `Downloaded ${file.fileName} (${formatBytes(file.blob.size)}).`,
    });
    onDone();
  }

  async function erase() {
    setOutcome(null);
    exporting.setError(null);
    const erased = await erasing.run(() => unwrap(api.DELETE('/v1/games/{game_id}/players/{player_id}/data', { params: { path } })));
    if (!erased) return;
    const deleted = countsText(erased.deleted);
    setOutcome(
      deleted
        ? { tone: 'success', text: `Erased ${erased.player_id}: ${deleted} deleted.` }
        : { tone: 'notice', text: `Nothing was stored about ${erased.player_id}, so nothing was deleted. Check the player ID is exactly the one your game sends.` },
    );
    onDone();
  }

  return (
    <Card title="A player's data">
      <p className="hint card-intro">
        When a player asks for a copy of their data or for it to be deleted (GDPR articles 15 and 17), enter the player ID your
        game sends as <code>player_id</code>. The download is one JSON file with their events, leaderboard entries of every period,
        bans, achievement unlocks, cloud saves, presence and sign-in identities. Both are recorded in the audit log below.
      </p>
      <form className="form player-data-form" onSubmit={exportData}>
        <Field label="Player ID" hint="Exactly as the game sends it: 1 to 128 characters, case matters.">
          <input
            value={playerId}
            maxLength={MAX_PLAYER_ID}
            spellCheck={false}
            autoComplete="off"
            placeholder="player-42"
            onChange={(e) => {
              setPlayerId(e.target.value);
              setOutcome(null);
            }}
          />
        </Field>
        <div className="player-data-actions">
          <button type="submit" className="primary" disabled={!player || exporting.busy} aria-busy={exporting.busy}>
            {exporting.busy ? 'Preparing…' : 'Download data'}
          </button>
          <ConfirmButton
            label="Erase data…"
            disabled={!player || erasing.busy}
            title={`Erase everything about ${player}?`}
            message={
              <>
                <p>
                  Every event, leaderboard entry (of every period, and the live rankings), ban, achievement unlock, cloud save,
                  presence entry and sign-in identity of <strong>{player}</strong> in {game.name} is deleted for good. Other
                  players' data is untouched.
                </p>
                <p className="hint">This cannot be undone. If the player also asked for a copy, download it first.</p>
              </>
            }
            confirmLabel="Erase for good"
            onConfirm={erase}
          />
        </div>
      </form>
      <ErrorMessage error={exporting.error ?? erasing.error} />
      {outcome && (
        <p className={outcome.tone} role="status">
          {outcome.text}
        </p>
      )}
    </Card>
  );
}

function AuditLog() {
  const { game } = useGame();
  const [more, setMore] = useState<AuditEntry[]>([]);
  const [nextOffset, setNextOffset] = useState<number | null | undefined>(undefined);
  const page = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/audit', { params: { path: { game_id: game.game_id }, query: { limit: AUDIT_PAGE } } })),
    [game.game_id],
  );
  const loadMore = useAction();

  async function showMore(offset: number) {
    const next = await loadMore.run(() =>
      unwrap(api.GET('/v1/games/{game_id}/audit', { params: { path: { game_id: game.game_id }, query: { limit: AUDIT_PAGE, offset } } })),
    );
    if (next) {
      setMore((list) => [...list, ...next.entries]);
      setNextOffset(next.next_offset ?? null);
    }
  }

  function refresh() {
    setMore([]);
    setNextOffset(undefined);
    page.reload();
  }

  return (
    <Card
      title="Audit log"
      actions={
        <button type="button" onClick={refresh} disabled={page.loading}>
          Refresh
        </button>
      }
    >
      <Async state={page}>
        {(first) => {
          const entries = [...first.entries, ...more];
          const offset = nextOffset === undefined ? first.next_offset : nextOffset;
          return entries.length === 0 ? (
            <Empty title="No player data has been downloaded or erased yet">
              Every download and erasure of a player's data, from here or through the API, is listed here with who did it and when.
            </Empty>
          ) : (
            <>
              <div className="table-wrap">
                <table className="table stack-table audit-table" aria-label="Audit log">
                  <thead>
                    <tr>
                      <th scope="col">When (UTC)</th>
                      <th scope="col">Action</th>
                      <th scope="col">Player</th>
                      <th scope="col">By</th>
                      <th scope="col">Records</th>
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((entry) => (
                      <tr key={entry.audit_id}>
                        <td className="nowrap" data-label="When">
                          {formatTime(entry.at).replace(' UTC', '')}
                        </td>
                        <td data-label="Action">
                          <Badge tone={entry.action === 'erase' ? 'bad' : 'neutral'}>{entry.action === 'erase' ? 'Erased' : 'Downloaded'}</Badge>
                        </td>
                        <td data-label="Player" className="audit-player wide">
                          <code>{entry.player_id}</code>
                        </td>
                        <td data-label="By" className="audit-by wide">
                          {entry.user_email}
                          {entry.user_id == null && <span className="hint"> (account deleted)</span>}
                        </td>
                        <td data-label="Records" className="wide">
                          {countsText(entry.counts) ?? <span className="hint">Nothing stored</span>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <ErrorMessage error={loadMore.error} />
              {offset != null && (
                <button type="button" className="audit-more" disabled={loadMore.busy} aria-busy={loadMore.busy} onClick={() => void showMore(offset)}>
                  {loadMore.busy ? 'Loading…' : 'Show older entries'}
                </button>
              )}
            </>
          );
        }}
      </Async>
    </Card>
  );
}
