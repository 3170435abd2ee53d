// Banning a player from a board, asked first: it removes every entry of theirs and refuses
// their later scores.
import { ConfirmButton } from '../../ui/components';

export function BanButton({
  board,
  playerId,
  playerName,
  onConfirm,
  label = 'Ban',
  small = true,
}: {
  board: string;
  playerId: string;
  playerName?: string | null;
  onConfirm(): Promise<unknown>;
  label?: string;
  small?: boolean;
}) {
  const who = playerName ? `${playerName} (${playerId})` : playerId;
  return (
    <ConfirmButton
      label={label}
      className={small ? 'danger small' : 'danger'}
      title={`Ban ${who}?`}
      message={
        <>
          <p>
            This removes <strong>every entry</strong> of {who} on <strong>{board}</strong>, in every period (public and held for review), and
            blocks their future submissions to this board: the game gets 403 until you lift the ban in the Bans tab.
          </p>
          <p className="hint">Lifting the ban later does not bring the removed entries back.</p>
        </>
      }
      confirmLabel="Ban player"
      onConfirm={onConfirm}
    />
  );
}
