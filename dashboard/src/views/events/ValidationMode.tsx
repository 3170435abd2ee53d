// The game's event_validation mode, read-only here: what happens at ingest to an event that
// breaks its schema. Owners change it in the game's settings.
import { Link } from 'react-router';
import { useGame } from '../../GameShell';
import { Badge } from '../../ui/components';

const MODES: Record<string, { tone: 'neutral' | 'warn' | 'good'; label: string; text: string }> = {
  off: {
    tone: 'neutral',
    label: 'Off',
    text: 'Schemas are not checked when events arrive. Try them here on recent events; turn validation on when they fit.',
  },
  warn: {
    tone: 'warn',
    label: 'Warn',
    text: 'Every event is stored; /v1/track answers with warnings for the events that break their schema.',
  },
  enforce: {
    tone: 'good',
    label: 'Enforce',
    text: '/v1/track refuses (400) any request with an event that breaks its schema; nothing of it is stored.',
  },
};

export function ValidationMode() {
  const { game, isOwner } = useGame();
  const mode = MODES[game.event_validation] ?? { tone: 'neutral' as const, label: game.event_validation, text: '' };
  return (
    <div className="validation-mode" role="note" aria-label="Event validation">
      <span>
        <strong>Event validation:</strong> <Badge tone={mode.tone}>{mode.label}</Badge>
      </span>
      <span className="hint">{mode.text}</span>
      <Link to={`/games/${game.game_id}/settings`}>{isOwner ? 'Change in settings' : 'See settings'}</Link>
    </div>
  );
}
