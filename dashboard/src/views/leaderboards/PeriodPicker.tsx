// Which period of a board to read: the current one or an archived one (newest first), kept in
// the address as `?period=` so a link shows the same standings.
import { useSearchParams } from 'react-router';
import { Field } from '../../ui/components';
import { formatNumber } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { loadPeriods } from './boardApi';
import { periodKeyLabel, type Board } from './shared';

/** The period in the address, or '' for the current one. */
export function usePeriod(): [string, (period: string) => void] {
  const [params, setParams] = useSearchParams();
  const period = params.get('period') ?? '';
  return [
    period,
    (next) => {
      const copy = new URLSearchParams(params);
      if (next) copy.set('period', next);
      else copy.delete('period');
      copy.delete('page');
      setParams(copy);
    },
  ];
}

export function PeriodPicker({
  gameId,
  board,
  version,
}: {
  gameId: string;
  board: Board;
  /** Changes when the board changed (a reload of the list). */
  version: number;
}) {
  const [period, setPeriod] = usePeriod();
  const periods = useLoad(() => loadPeriods({ gameId, board: board.board_name }), [gameId, board.board_name, version]);
  // The definition is read afresh after every change; the period list may lag behind it.
  const current = board.current_period;
  const archived = (periods.data?.periods ?? []).filter((p) => p.period !== current);
  const known = period === '' || period === current || archived.some((p) => p.period === period);

  return (
    <Field
      label="Period"
      hint={
        periods.error
          ? `Earlier periods could not be loaded: ${periods.error}`
          : archived.length === 0 && periods.data
            ? board.period === 'all_time' && !board.auto_reset_at && !board.reset_schedule
              ? 'An all-time board keeps one period; a one-time reset or a new period starts another.'
              : 'Earlier periods are listed here once the current one has ended.'
            : undefined
      }
    >
      <select value={period === current ? '' : period} onChange={(e) => setPeriod(e.target.value)} aria-busy={periods.loading}>
        <option value="">{periodKeyLabel(current)} (current)</option>
        {archived.map((p) => (
          <option key={p.period} value={p.period}>
            {periodKeyLabel(p.period)} · {p.archived_at ? 'archived' : 'finished'}
            {p.entries != null ? ` · ${formatNumber(p.entries)} ${p.entries === 1 ? 'entry' : 'entries'}` : ''}
          </option>
        ))}
        {!known && <option value={period}>{periodKeyLabel(period)}</option>}
      </select>
    </Field>
  );
}
