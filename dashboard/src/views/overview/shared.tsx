// Pieces the overview and the events area share: the environment filter and reading the
// report filters from the address, so a filtered page can be bookmarked or shared.
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { Field } from '../../ui/components';
import { RANGES, type RangeKey } from '../../ui/format';

export type Environment = '' | 'development' | 'production';

export function EnvironmentPicker({ value, onChange }: { value: Environment; onChange: (value: Environment) => void }) {
  return (
    <Field label="Environment">
      <select value={value} onChange={(e) => onChange(e.target.value as Environment)}>
        <option value="">All environments</option>
        <option value="development">Development</option>
        <option value="production">Production</option>
      </select>
    </Field>
  );
}

export function readEnvironment(value: string | null): Environment {
  return value === 'development' || value === 'production' ? value : '';
}

export function readRange(value: string | null, fallback: RangeKey): RangeKey {
  return RANGES.some((r) => r.key === value) ? (value as RangeKey) : fallback;
}

/** Query parameters as state: `set({name: value})` replaces them (empty values removed). */
export function useQueryState() {
  const [params, setParams] = useSearchParams();
  const set = useCallback(
    (changes: Record<string, string | null | undefined>) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [name, value] of Object.entries(changes)) {
            if (value) next.set(name, value);
            else next.delete(name);
          }
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [params, set] as const;
}

/** The `environment` query value of a filter: absent for both. */
export function environmentQuery(environment: Environment): 'development' | 'production' | undefined {
  return environment || undefined;
}
