// The KPI tiles a studio reads first: DAU, new users, D1/D7/D30 retention, sessions and their
// average length, revenue, ARPDAU, paying users and conversion, each with its change against
// the previous period of the same length. One daily read per metric covers both periods.
import { useMemo } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { formatDay, formatMoney, formatNumber, formatPercent, isoDay } from '../../ui/format';
import { useLoad, type Loaded } from '../../ui/useLoad';
import { environmentQuery, type Environment } from './shared';

type Series_ = Schemas['MetricSeries'];
type Point = Series_['points'][number];

const KPI_METRICS = [
  'active_users',
  'new_users',
  'retention_d1',
  'retention_d7',
  'retention_d30',
  'sessions',
  'session_length',
  'revenue',
  'paying_users',
] as const;
type KpiMetric = (typeof KPI_METRICS)[number];

/** A period's points of every KPI metric. */
type Period = Record<KpiMetric, Point[]>;

const average = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

function formatAverage(value: number | null): string {
  return value === null ? '—' : average.format(value);
}

/** Seconds as "45s", "4m 05s" or "1h 02m". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function total(points: Point[]): number {
  return points.reduce((sum, p) => sum + (p.value ?? 0), 0);
}

function perDay(points: Point[]): number | null {
  return points.length === 0 ? null : total(points) / points.length;
}

function ratio(numerator: number, denominator: number, scale = 1): number | null {
  return denominator === 0 ? null : (numerator / denominator) * scale;
}

/** Retention over the period's complete cohorts, weighted by their size; null when none. */
function retention(points: Point[]): number | null {
  let back = 0;
  let users = 0;
  for (const p of points) {
    if (p.value === null || p.value === undefined || !p.cohort_size) continue;
    back += (p.value * p.cohort_size) / 100;
    users += p.cohort_size;
  }
  return ratio(back, users, 100);
}

/** Average session length over all of the period's sessions (each day's average weighted by
 * its sessions). */
function sessionLength(period: Period): number | null {
  let seconds = 0;
  let sessions = 0;
  period.session_length.forEach((p, i) => {
    const count = period.sessions[i]?.value ?? 0;
    if (p.value === null || p.value === undefined || count === 0) return;
    seconds += p.value * count;
    sessions += count;
  });
  return ratio(seconds, sessions);
}

interface Kpi {
  label: string;
  hint: string;
  value: (period: Period) => number | null;
  format: (value: number | null) => string;
  /** An amount of money, shown in the game's currency. */
  money?: boolean;
}

/** What each tile shows for a period (see docs/dashboard.md, "KPI tiles"). */
const KPIS: Kpi[] = [
  { label: 'DAU', hint: 'Daily active users, averaged over the days', value: (p) => perDay(p.active_users), format: formatAverage },
  { label: 'New users', hint: 'Users first seen in the period', value: (p) => total(p.new_users), format: formatNumber },
  { label: 'D1 retention', hint: "Share of the period's new users back the next day (complete cohorts)", value: (p) => retention(p.retention_d1), format: formatPercent },
  { label: 'D7 retention', hint: "Share of the period's new users back on day 7 (complete cohorts)", value: (p) => retention(p.retention_d7), format: formatPercent },
  { label: 'D30 retention', hint: "Share of the period's new users back on day 30 (complete cohorts)", value: (p) => retention(p.retention_d30), format: formatPercent },
  { label: 'Sessions', hint: 'Sessions that began in the period', value: (p) => total(p.sessions), format: formatNumber },
  { label: 'Avg session', hint: 'Average session length over all of its sessions', value: sessionLength, format: formatDuration },
  { label: 'Revenue', hint: 'Sum of purchase amounts', value: (p) => total(p.revenue), format: formatMoney, money: true },
  { label: 'ARPDAU', hint: 'Revenue per daily active user: revenue / the sum of daily active users', value: (p) => ratio(total(p.revenue), total(p.active_users)), format: formatMoney, money: true },
  { label: 'Paying users', hint: 'Users with a purchase, per day, averaged over the days', value: (p) => perDay(p.paying_users), format: formatAverage },
  { label: 'Conversion', hint: 'Paying users as a share of active users, over the days', value: (p) => ratio(total(p.paying_users), total(p.active_users), 100), format: formatPercent },
];

/** The two periods' bounds: `days` days ending `to`, and the `days` before them. */
export function kpiBounds(to: string, days: number): { from: string; to: string } {
  const end = Date.parse(`${to}T00:00:00Z`);
  return { from: isoDay(new Date(end - (2 * days - 1) * 86_400_000)), to };
}

export function useKpis(gameId: string, to: string, days: number, environment: Environment, round: number): Loaded<Period[]> {
  const bounds = kpiBounds(to, days);
  return useLoad(async () => {
    const series = await Promise.all(
      KPI_METRICS.map((metric) =>
        unwrap(
          api.GET('/v1/games/{game_id}/metrics', {
            params: {
              path: { game_id: gameId },
              query: { metric, from: bounds.from, to: bounds.to, bucket: 'day', environment: environmentQuery(environment) },
            },
          }),
        ),
      ),
    );
    const split = (start: number) =>
      Object.fromEntries(KPI_METRICS.map((metric, i) => [metric, series[i].points.slice(start, start + days)])) as Period;
    return [split(days), split(0)];
  }, [gameId, bounds.from, bounds.to, environment, round]);
}

/** The change from `previous` to `current` in percent; null when there is nothing to compare. */
function change(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  return ((current - previous) / Math.abs(previous)) * 100;
}

function show(kpi: Kpi, value: number | null, currency: string): string {
  return kpi.money ? formatMoney(value, currency) : kpi.format(value);
}

export function KpiTiles({ kpis, days, to, currency }: { kpis: Loaded<Period[]>; days: number; to: string; currency: string }) {
  const before = kpiBounds(to, days).from;
  const beforeEnd = isoDay(new Date(Date.parse(`${to}T00:00:00Z`) - days * 86_400_000));
  const versus =
    days === 1 ? `yesterday (${formatDay(before)})` : `the previous ${days} days (${formatDay(before)} to ${formatDay(beforeEnd)})`;
  const rows = useMemo(
    () =>
      kpis.data &&
      KPIS.map((kpi) => {
        const [current, previous] = kpis.data!.map(kpi.value);
        return { kpi, current, previous, change: change(current, previous) };
      }),
    [kpis.data],
  );
  return (
    <>
      <p className="hint kpi-period">Changes against {versus}. Users, sessions and revenue are summed over the days; DAU and paying users are daily averages.</p>
      <div className="stats kpi-tiles" role="group" aria-label="Key figures">
        {KPIS.map((kpi, i) => {
          const row = rows?.[i];
          return (
            <div key={kpi.label} className={`stat kpi${kpis.loading && row ? ' stale' : ''}`} aria-busy={kpis.loading} title={kpi.hint}>
              <div className="label">{kpi.label}</div>
              <div className="value">
                {kpis.error ? (
                  <span className="stat-error" title={kpis.error}>
                    Unavailable
                  </span>
                ) : !row ? (
                  <span className="stat-loading" aria-label="Loading">
                    <span className="spinner" aria-hidden="true" />
                  </span>
                ) : (
                  show(kpi, row.current, currency)
                )}
              </div>
              {row && <Change change={row.change} previous={show(kpi, row.previous, currency)} />}
            </div>
          );
        })}
      </div>
    </>
  );
}

function Change({ change, previous }: { change: number | null; previous: string }) {
  const before = previous === '—' ? 'no data before' : `was ${previous}`;
  if (change === null) {
    return (
      <div className="kpi-change flat">
        <span className="kpi-delta">–</span> <span className="kpi-versus">{before}</span>
      </div>
    );
  }
  const rounded = Math.round(change * 10) / 10;
  const direction = rounded > 0 ? 'up' : rounded < 0 ? 'down' : 'flat';
  const arrow = direction === 'up' ? '▲' : direction === 'down' ? '▼' : '■';
  return (
    <div className={`kpi-change ${direction}`}>
      <span className="kpi-delta">
        <span aria-hidden="true">{arrow}</span>
        <span className="kpi-sr-only">{direction === 'up' ? 'up' : direction === 'down' ? 'down' : 'unchanged'}</span>{' '}
        {formatPercent(Math.abs(rounded))}
      </span>{' '}
      <span className="kpi-versus">{before}</span>
    </div>
  );
}
