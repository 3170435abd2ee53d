// A game's pages: loads the game once (name, tier, the caller's role) for all of its sections.
import { createContext, useContext } from 'react';
import { Outlet, useParams } from 'react-router';
import { api, unwrap, type Schemas } from './api/client';
import { useLoad } from './ui/useLoad';
import { ErrorMessage, Loading } from './ui/components';

interface GameContextValue {
  game: Schemas['Game'];
  reload(): void;
  set(game: Schemas['Game']): void;
  /** The caller may change things (editor, owner or the instance admin). */
  canEdit: boolean;
  /** The caller owns the game (or is the instance admin). */
  isOwner: boolean;
}

const GameContext = createContext<GameContextValue | null>(null);

export function useGame(): GameContextValue {
  const value = useContext(GameContext);
  if (!value) throw new Error('useGame outside a game page');
  return value;
}

export function GameShell() {
  const { gameId = '' } = useParams();
  const game = useLoad(() => unwrap(api.GET('/v1/games/{game_id}', { params: { path: { game_id: gameId } } })), [gameId]);
  if (game.error) return <ErrorMessage error={game.error} onRetry={game.reload} />;
  if (!game.data || game.data.game_id !== gameId) return <Loading />;
  const role = game.data.role;
  return (
    <GameContext.Provider
      value={{
        game: game.data,
        reload: game.reload,
        set: game.set,
        canEdit: role === 'owner' || role === 'editor',
        isOwner: role === 'owner',
      }}
    >
      <Outlet />
    </GameContext.Provider>
  );
}
