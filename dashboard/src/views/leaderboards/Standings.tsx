// A board's public standings in one period: a ranked, paged table, a period selector and a
// player search that finds a player's rank and the page it is on.
import { useEffect, useState, type FormEvent } from 'react';
import { type Schemas } from '../../api/client';
import { Async, Card, Empty, ErrorMessage, Field } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { BanButton } from './BanButton';
import { banPlayer, loadEntries } from './boardApi';
import { Pager, usePage } from './Pager';
import { PeriodPicker, usePeriod } from './PeriodPicker';
import { formatScore, PAGE_SIZE, periodKeyLabel, type BoardTabProps } from './shared';

type Entry = Schemas['ModeratedEntry'];

export function Rank({ rank }: { rank: number | null | undefined }) {
  if (rank == null) return <span className="hint">—</span>;
  return <span className={`lb-rank${rank <= 3 ? ` lb-rank-${rank}` : ''}`}>{formatNumber(rank)}</span>;
}

export function Standings({
  gameId,
  board,
  canEdit,
  version,
  onChanged,
}: BoardTabProps) {
  const ref = { gameId, board: board.board_name };
  const [period] = usePeriod();
  const [page, setPage] = usePage();
  const entries = useLoad(
    () => loadEntries(ref, { status: 'ok', period, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [gameId, board.board_name, period, page, version],
  );
  const shownPeriod = entries.data?.period ?? (period || board.current_period);
  const isCurrent = shownPeriod === board.current_period;

  const [query, setQuery] = useState('');
  const search = useAction();
  const [found, setFound] = useState<{ playerId: string; entry: Entry | null; total: number } | null>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
  const ban = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  // A search answers for one period: a new period (or a change to the board) asks again.
  useEffect(() => {
    setFound(null);
    setHighlight(null);
  }, [period, version]);

  // "Show on the board": bring the found player's row into view once its page is shown.
  useEffect(() => {
    if (highlight && entries.data?.entries.some((e) => e.player_id === highlight)) {
      document.querySelector('.lb-highlight')?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    }
  }, [highlight, entries.data]);

  async function find(e: FormEvent) {
    e.preventDefault();
    const playerId = query.trim();
    if (!playerId) return;
    const answer = await search.run(() => loadEntries(ref, { status: 'ok', period, limit: 1, offset: 0, player_id: playerId }));
    if (!answer) return;
    const entry = answer.entries.find((x) => x.player_id === playerId) ?? null;
    setFound({ playerId, entry, total: entries.data?.total ?? answer.total });
    setHighlight(entry ? playerId : null);
  }

  async function banFromBoard(entry: Entry) {
    const answer = await ban.run(() => banPlayer(ref, entry.player_id));
    if (!answer) return;
    setNotice(
      `${entry.player_id} is banned from ${board.board_name}: ${formatNumber(answer.removed_entries)} ${answer.removed_entries === 1 ? 'entry' : 'entries'} removed.`,
    );
    onChanged();
  }

  return (
    <Card
      title={`Standings · ${periodKeyLabel(shownPeriod)}`}
      actions={isCurrent ? <span className="badge badge-good">Live</span> : <span className="badge">Archived</span>}
    >
      <div className="lb-toolbar">
        <PeriodPicker gameId={gameId} board={board} version={version} />
        <form className="form inline lb-search" onSubmit={find} role="search" aria-label="Player search">
          <Field label="Find a player">
            <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Player ID" autoComplete="off" spellCheck={false} />
          </Field>
          <button type="submit" disabled={search.busy || !query.trim()} aria-busy={search.busy}>
            {search.busy ? 'Finding…' : 'Find'}
          </button>
        </form>
      </div>
      <ErrorMessage error={search.error} />
      {found && (
        <div className={found.entry ? 'lb-found' : 'notice'} role="status">
          {found.entry ? (
            <>
              <span>
                <strong>{found.entry.player_name ?? found.entry.player_id}</strong>
                {found.entry.player_name && <> (<code>{found.entry.player_id}</code>)</>} is ranked{' '}
                <strong>#{formatNumber(found.entry.rank)}</strong> of {formatNumber(found.total)} with a score of{' '}
                <strong>{formatScore(found.entry.score)}</strong>.
              </span>
              {found.entry.rank != null && (
                <button
                  type="button"
                  className="small"
                  onClick={() => {
                    setHighlight(found.playerId);
                    setPage(Math.ceil((found.entry?.rank ?? 1) / PAGE_SIZE));
                  }}
                >
                  Show on the board
                </button>
              )}
            </>
          ) : (
            <span>
              <code>{found.playerId}</code> has no entry on the board in {periodKeyLabel(shownPeriod)}. A score outside the bounds waits in
              Moderation; a banned player has no entries.
            </span>
          )}
          <button type="button" className="link" onClick={() => (setFound(null), setHighlight(null))}>
            Clear
          </button>
        </div>
      )}
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <ErrorMessage error={ban.error} />
      <Async state={entries}>
        {(data) =>
          data.total === 0 ? (
            isCurrent ? (
              <Empty title="No scores in this period yet">
                The game submits scores with its API key: <code>POST /v1/leaderboards/{board.board_name}/entries</code> with{' '}
                <code>{'{"player_id", "score", "player_name"}'}</code>.
              </Empty>
            ) : (
              <Empty title="No entries in this period" />
            )
          ) : (
            <>
              <div className="table-wrap lb-table-wrap">
                <table className="table lb-standings" aria-label={`Standings of ${board.board_name}`}>
                  <thead>
                    <tr>
                      <th scope="col" className="num">
                        Rank
                      </th>
                      <th scope="col">Player</th>
                      <th scope="col" className="lb-wide-only">
                        Name
                      </th>
                      <th scope="col" className="num">
                        Score
                      </th>
                      <th scope="col" className="lb-wide-only">
                        Updated
                      </th>
                      {canEdit && (
                        <th scope="col">
                          <span className="lb-sr-only">Actions</span>
                        </th>
                      )}
                    </tr>
                  </thead>
                  <tbody>
                    {data.entries.map((entry) => (
                      <tr key={entry.player_id} className={entry.player_id === highlight ? 'lb-highlight' : undefined}>
                        <td className="num">
                          <Rank rank={entry.rank} />
                        </td>
                        <td>
                          <code>{entry.player_id}</code>
                          {entry.player_name && <div className="lb-phone-only">{entry.player_name}</div>}
                        </td>
                        <td className="lb-wide-only">{entry.player_name ?? <span className="hint">—</span>}</td>
                        <td className="num lb-score">{formatScore(entry.score)}</td>
                        <td className="lb-time lb-wide-only">{formatTime(entry.updated_at)}</td>
                        {canEdit && (
                          <td className="lb-actions">
                            <BanButton board={board.board_name} playerId={entry.player_id} playerName={entry.player_name} onConfirm={() => banFromBoard(entry)} />
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={Math.floor(data.offset / PAGE_SIZE) + 1} pageSize={PAGE_SIZE} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Async>
    </Card>
  );
}
