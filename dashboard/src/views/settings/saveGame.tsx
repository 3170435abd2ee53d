// Saving a game's settings from any card of the General page: the PATCH, its error and a
// "Saved" note.
import { useState, type ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { useAction } from '../../ui/useLoad';
import { announceGamesChanged } from './shared';

type Game = Schemas['Game'];
export type Changes = Schemas['UpdateGame'];

/** PATCH the current game; the answer replaces the game every view of it reads. */
export function useSaveGame() {
  const { game, set } = useGame();
  const action = useAction();
  const [saved, setSaved] = useState(false);
  async function save(changes: Changes): Promise<Game | undefined> {
    setSaved(false);
    const updated = await action.run(() =>
      unwrap(api.PATCH('/v1/games/{game_id}', { params: { path: { game_id: game.game_id } }, body: changes })),
    );
    if (updated) {
      set(updated);
      setSaved(true);
      if (changes.name !== undefined) announceGamesChanged();
    }
    return updated;
  }
  return { ...action, save, saved, clearSaved: () => setSaved(false) };
}

export function Saved({ show, children = 'Saved.' }: { show: boolean; children?: ReactNode }) {
  if (!show) return null;
  return (
    <p className="success" role="status">
      {children}
    </p>
  );
}
