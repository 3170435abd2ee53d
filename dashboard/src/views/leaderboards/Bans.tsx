// Players banned from a board: lift a ban, or ban a player by ID before they submit again.
import { useState } from 'react';
import { Async, Card, Empty, ErrorMessage, Field } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { BanButton } from './BanButton';
import { banPlayer, loadBans, unbanPlayer } from './boardApi';
import { type BoardTabProps } from './shared';

export function Bans({
  gameId,
  board,
  canEdit,
  version,
  onChanged,
}: BoardTabProps) {
  const ref = { gameId, board: board.board_name };
  const bans = useLoad(() => loadBans(ref), [gameId, board.board_name, version]);
  const action = useAction();
  const [working, setWorking] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [playerId, setPlayerId] = useState('');

  async function unban(player: string) {
    setWorking(player);
    setNotice(null);
    const done = await action.run(async () => {
      await unbanPlayer(ref, player);
      return true;
    });
    setWorking(null);
    if (!done) return;
    setNotice(`${player} may submit scores to ${board.board_name} again.`);
    onChanged();
  }

  async function ban() {
    const player = playerId.trim();
    setNotice(null);
    const answer = await action.run(() => banPlayer(ref, player));
    if (!answer) return;
    setPlayerId('');
    setNotice(`${player} is banned from ${board.board_name}: ${formatNumber(answer.removed_entries)} ${answer.removed_entries === 1 ? 'entry' : 'entries'} removed.`);
    onChanged();
  }

  return (
    <Card title="Banned players">
      <p className="hint">
        A banned player has no entries on this board and every score they submit to it is refused (403). Bans apply to this board only.
      </p>
      {canEdit && (
        <div className="form inline lb-ban-form">
          <Field label="Player ID to ban">
            <input value={playerId} onChange={(e) => setPlayerId(e.target.value)} placeholder="e.g. cheater-42" autoComplete="off" spellCheck={false} />
          </Field>
          {playerId.trim() ? (
            <BanButton board={board.board_name} playerId={playerId.trim()} label="Ban player…" small={false} onConfirm={ban} />
          ) : (
            <button type="button" className="danger" disabled>
              Ban player…
            </button>
          )}
        </div>
      )}
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <ErrorMessage error={action.error} />
      <Async state={bans}>
        {(data) =>
          data.bans.length === 0 ? (
            <Empty title="No banned players">Ban a cheater from the Standings or Moderation tab; they will be listed here.</Empty>
          ) : (
            <div className="table-wrap lb-table-wrap">
              <table className="table" aria-label="Banned players">
                <thead>
                  <tr>
                    <th scope="col">Player</th>
                    <th scope="col">Banned</th>
                    {canEdit && (
                      <th scope="col">
                        <span className="lb-sr-only">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {data.bans.map((b) => (
                    <tr key={b.player_id}>
                      <td>
                        <code>{b.player_id}</code>
                      </td>
                      <td>{formatTime(b.banned_at)}</td>
                      {canEdit && (
                        <td className="lb-actions">
                          <button
                            type="button"
                            className="small"
                            disabled={working === b.player_id}
                            aria-busy={working === b.player_id}
                            onClick={() => unban(b.player_id)}
                          >
                            {working === b.player_id ? 'Lifting…' : 'Unban'}
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Async>
    </Card>
  );
}
