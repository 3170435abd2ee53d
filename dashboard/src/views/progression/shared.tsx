// What the progression and economy pages share: their filters (range and environment, kept in
// the address so a filtered page can be bookmarked) and the days they cover.
import { RangePicker } from '../../ui/components';
import { formatDay, rangeBounds } from '../../ui/format';
import { EnvironmentPicker, environmentQuery, readEnvironment, readRange, useQueryState } from '../overview/shared';

/** The filters of a report page, kept in the address, and the days they cover. */
export function useReportFilters() {
  const [params, setParams] = useQueryState();
  const range = readRange(params.get('range'), '30d');
  const environment = readEnvironment(params.get('environment'));
  const { from, to } = rangeBounds(range);
  const toolbar = (
    <div className="report-toolbar">
      <RangePicker value={range} onChange={(next) => setParams({ range: next === '30d' ? null : next })} />
      <EnvironmentPicker value={environment} onChange={(next) => setParams({ environment: next })} />
      <p className="hint">
        {from === to ? `Today, ${formatDay(from)}` : `${formatDay(from)} to ${formatDay(to)}`} (UTC days, by the time each event happened)
      </p>
    </div>
  );
  return { from, to, environment: environmentQuery(environment), toolbar };
}


/** A figure of a report's summary row: what it is and its value (`tone` colours the value). */
export function Stat({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <div className="stat">
      <div className="label">{label}</div>
      <div className={tone ? `value ${tone}` : 'value'}>{value}</div>
    </div>
  );
}
