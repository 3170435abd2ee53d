// What the funnel pages share: the modes in words, and how a definition reads in one line.
import { Badge } from '../../ui/components';
import type { Schemas } from '../../api/client';

export type Funnel = Schemas['Funnel'];

export const MODES: { value: 'loose' | 'strict'; label: string; hint: string }[] = [
  {
    value: 'loose',
    label: 'Loose',
    hint: 'A player counts at a step once they did it and every earlier step in the date range, in any order. Repeats count once.',
  },
  {
    value: 'strict',
    label: 'Strict',
    hint: 'Steps must happen in this exact order, each after the previous one. Use it for a flow players cannot skip around in.',
  },
];

export function ModeBadge({ mode }: { mode: string }) {
  return <Badge tone={mode === 'strict' ? 'warn' : 'neutral'}>{mode === 'strict' ? 'Strict order' : 'Any order'}</Badge>;
}

export function windowText(hours: number | null | undefined): string {
  if (!hours) return 'No time limit';
  if (hours % 24 === 0) return `Within ${hours / 24} day${hours === 24 ? '' : 's'}`;
  return `Within ${hours} hour${hours === 1 ? '' : 's'}`;
}

/** The steps as a path: `a → b → c`. */
export function StepPath({ steps }: { steps: string[] }) {
  return (
    <span className="funnel-path">
      {steps.map((step, i) => (
        <span key={i}>
          {i > 0 && (
            <span className="funnel-arrow" aria-hidden="true">
              {' '}→{' '}
            </span>
          )}
          <code>{step}</code>
        </span>
      ))}
    </span>
  );
}
