// Scores held for review (outside the board's bounds): approve one onto the public board, or
// ban the player.
import { useState } from 'react';
import { type Schemas } from '../../api/client';
import { Async, Card, Empty, ErrorMessage } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { BanButton } from './BanButton';
import { approveEntry, banPlayer, loadEntries } from './boardApi';
import { Pager, usePage } from './Pager';
import { PeriodPicker, usePeriod } from './PeriodPicker';
import { boundsText, formatScore, hasBounds, PAGE_SIZE, periodKeyLabel, suspicionReason, type BoardTabProps } from './shared';

type Entry = Schemas['ModeratedEntry'];

export function Moderation({
  gameId,
  board,
  canEdit,
  version,
  onChanged,
}: BoardTabProps) {
  const ref = { gameId, board: board.board_name };
  const [period] = usePeriod();
  const [page, setPage] = usePage();
  const held = useLoad(
    () => loadEntries(ref, { status: 'suspicious', period, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [gameId, board.board_name, period, page, version],
  );
  const action = useAction();
  const [working, setWorking] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const shownPeriod = held.data?.period ?? (period || board.current_period);

  async function approve(entry: Entry) {
    setWorking(entry.player_id);
    setNotice(null);
    const answer = await action.run(() => approveEntry(ref, entry.player_id, held.data?.period ?? period));
    setWorking(null);
    if (!answer) return;
    setNotice(
      answer.rank != null
        ? `Approved: ${entry.player_id} is on the board at rank #${formatNumber(answer.rank)} with ${formatScore(answer.score)}.`
        : `Approved ${entry.player_id}'s score.`,
    );
    onChanged();
  }

  async function ban(entry: Entry) {
    setNotice(null);
    const answer = await action.run(() => banPlayer(ref, entry.player_id));
    if (!answer) return;
    setNotice(
      `${entry.player_id} is banned from ${board.board_name}: ${formatNumber(answer.removed_entries)} ${answer.removed_entries === 1 ? 'entry' : 'entries'} removed.`,
    );
    onChanged();
  }

  return (
    <Card title={`Held for review · ${periodKeyLabel(shownPeriod)}`}>
      <div className="lb-toolbar">
        <PeriodPicker gameId={gameId} board={board} version={version} />
        <p className="hint lb-toolbar-text">
          Scores outside the bounds ({boundsText(board)}) wait here, off the public board. <strong>Approve</strong> puts a score on the board
          (if it beats the player's own); <strong>Ban</strong> removes the player from this board.
        </p>
      </div>
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <ErrorMessage error={action.error} />
      <Async state={held}>
        {(data) =>
          data.total === 0 ? (
            hasBounds(board) ? (
              <Empty title="Nothing to review">No score outside the bounds ({boundsText(board)}) was submitted in this period.</Empty>
            ) : (
              <Empty title="Nothing to review">
                This board has no score bounds, so every score goes straight to the board.
                {canEdit && ' Set a minimum or maximum score with Edit to hold unlikely scores for review.'}
              </Empty>
            )
          ) : (
            <>
              <div className="table-wrap lb-table-wrap">
                <table className="table" aria-label="Entries held for review">
                  <thead>
                    <tr>
                      <th scope="col">Player</th>
                      <th scope="col">Name</th>
                      <th scope="col" className="num">
                        Score
                      </th>
                      <th scope="col">Why</th>
                      <th scope="col">Submitted</th>
                      {canEdit && <th scope="col">Decision</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {data.entries.map((entry) => (
                      <tr key={entry.player_id}>
                        <td>
                          <code>{entry.player_id}</code>
                        </td>
                        <td>{entry.player_name ?? <span className="hint">—</span>}</td>
                        <td className="num lb-score">{formatScore(entry.score)}</td>
                        <td>
                          <span className="badge badge-warn">{suspicionReason(board, entry.score)}</span>
                        </td>
                        <td className="lb-time">{formatTime(entry.updated_at)}</td>
                        {canEdit && (
                          <td>
                            <div className="row-actions">
                              <button
                                type="button"
                                className="small primary"
                                disabled={working === entry.player_id}
                                aria-busy={working === entry.player_id}
                                onClick={() => approve(entry)}
                              >
                                {working === entry.player_id ? 'Approving…' : 'Approve'}
                              </button>
                              <BanButton board={board.board_name} playerId={entry.player_id} playerName={entry.player_name} onConfirm={() => ban(entry)} />
                            </div>
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
