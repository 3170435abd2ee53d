// A game's front page: this month's quota, the KPI tiles (each against the previous period),
// the range's totals and charts of events, active users, revenue, crashes and errors and
// day-7 retention. Every read starts at once, in parallel, and each card shows its own
// loading state, so the frame paints immediately.
import { useMemo, useState, type ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Chart, type Series } from '../../ui/Chart';
import { Async, Card, ErrorMessage, Field, PageHeader, RangePicker } from '../../ui/components';
import { formatDay, formatHour, formatMoney, formatNumber, formatPercent, rangeBounds, RANGES, type RangeKey } from '../../ui/format';
import { useLoad, type Loaded } from '../../ui/useLoad';
import { EnvironmentPicker, environmentQuery, readEnvironment, readRange, useQueryState, type Environment } from './shared';
import { GettingStarted } from './GettingStarted';
import { KpiTiles, useKpis } from './KpiTiles';
import { QuotaCard } from './QuotaCard';
import './overview.css';

type Bucket = 'hour' | 'day';
type MetricName = 'events' | 'active_users' | 'revenue' | 'crashes' | 'log_errors' | 'retention_d7' | 'arpdau' | 'arppu';
type Series_ = Schemas['MetricSeries'];

/** Hourly buckets are offered for ranges of up to 31 days (the API's limit). */
function hourAllowed(range: RangeKey): boolean {
  return (RANGES.find((r) => r.key === range)?.days ?? 0) <= 31;
}

function defaultBucket(range: RangeKey): Bucket {
  return range === '1d' ? 'hour' : 'day';
}

function useMetric(
  gameId: string,
  metric: MetricName,
  bounds: { from: string; to: string },
  bucket: Bucket,
  environment: Environment,
  round: number,
): Loaded<Series_> {
  return useLoad(
    () =>
      unwrap(
        api.GET('/v1/games/{game_id}/metrics', {
          params: {
            path: { game_id: gameId },
            query: { metric, from: bounds.from, to: bounds.to, bucket, environment: environmentQuery(environment) },
          },
        }),
      ),
    [gameId, metric, bounds.from, bounds.to, bucket, environment, round],
  );
}

/** The labels of an answer's buckets, read from the answer (not the filters it may lag behind). */
function labelsOf(data: Series_): string[] {
  const oneDay = data.from === data.to;
  return data.points.map((p) => (data.bucket === 'day' ? formatDay(p.start) : oneDay ? `${p.start.slice(11, 13)}:00` : formatHour(p.start)));
}

export default function Overview() {
  const { game } = useGame();
  const gameId = game.game_id;
  const [params, setParams] = useQueryState();
  const range = readRange(params.get('range'), '7d');
  const requested = params.get('bucket');
  const bucket: Bucket = requested === 'hour' && hourAllowed(range) ? 'hour' : requested === 'day' ? 'day' : defaultBucket(range);
  const environment = readEnvironment(params.get('environment'));
  const [round, setRound] = useState(0);

  // Today's date is read once per render; the bounds only change when the range does.
  const { from, to } = rangeBounds(range);
  const bounds = useMemo(() => ({ from, to }), [from, to]);
  const oneDay = from === to;

  // Every read of the page, fired together on the first render.
  const usage = useLoad(() => unwrap(api.GET('/v1/games/{game_id}/usage', { params: { path: { game_id: gameId } } })), [gameId, round]);
  const anyEvent = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/events', { params: { path: { game_id: gameId }, query: { limit: 1 } } })),
    [gameId, round],
  );
  const events = useMetric(gameId, 'events', bounds, bucket, environment, round);
  const active = useMetric(gameId, 'active_users', bounds, bucket, environment, round);
  const revenue = useMetric(gameId, 'revenue', bounds, bucket, environment, round);
  const crashes = useMetric(gameId, 'crashes', bounds, bucket, environment, round);
  const logErrors = useMetric(gameId, 'log_errors', bounds, bucket, environment, round);
  const retention = useMetric(gameId, 'retention_d7', bounds, 'day', environment, round);
  const days = RANGES.find((r) => r.key === range)?.days ?? 7;
  const kpis = useKpis(gameId, to, days, environment, round);
  const arpdau = useMetric(gameId, 'arpdau', bounds, 'day', environment, round);
  const arppu = useMetric(gameId, 'arppu', bounds, 'day', environment, round);
  const money = (value: number | null) => formatMoney(value, game.currency);

  const noEventsEver = anyEvent.data !== undefined && anyEvent.data.events.length === 0;
  const refreshing = [usage, anyEvent, events, active, revenue, crashes, logErrors, retention, kpis, arpdau, arppu].some((s) => s.loading);

  return (
    <>
      <PageHeader title={game.name}>
        <RangePicker
          value={range}
          onChange={(next) => setParams({ range: next === '7d' ? null : next, bucket: null })}
        />
        <Field label="Interval">
          <select value={bucket} onChange={(e) => setParams({ bucket: e.target.value === defaultBucket(range) ? null : e.target.value })}>
            <option value="hour" disabled={!hourAllowed(range)}>
              {hourAllowed(range) ? 'By hour' : 'By hour (ranges up to 31 days)'}
            </option>
            <option value="day">By day</option>
          </select>
        </Field>
        <EnvironmentPicker value={environment} onChange={(next) => setParams({ environment: next })} />
        <button type="button" onClick={() => !refreshing && setRound((r) => r + 1)} aria-busy={refreshing}>
          {refreshing && round > 0 ? 'Refreshing…' : 'Refresh'}
        </button>
      </PageHeader>

      <p className="overview-subtitle hint">
        Overview · {oneDay ? `today, ${formatDay(from)}` : `${formatDay(from)} to ${formatDay(to)}`} (UTC)
        {environment && ` · ${environment} only`}
      </p>

      <QuotaCard usage={usage} gameId={gameId} />

      {anyEvent.error && <ErrorMessage error={anyEvent.error} onRetry={anyEvent.reload} />}
      {noEventsEver ? (
        <GettingStarted gameId={gameId} />
      ) : (
        <>
          <KpiTiles kpis={kpis} days={days} to={to} currency={game.currency} />
          <div className="stats overview-stats overview-totals" role="group" aria-label="Totals">
            <Stat label="Events" state={events}>
              {(s) => formatNumber(s.total ?? sum(s))}
            </Stat>
            <Stat label="Crashes" state={crashes}>
              {(s) => formatNumber(s.total ?? sum(s))}
            </Stat>
            <Stat label="Log errors" state={logErrors}>
              {(s) => formatNumber(s.total ?? sum(s))}
            </Stat>
          </div>

          <div className="grid overview-charts">
            <MetricCard title="Events" state={events} series={(s) => [{ label: 'Events', values: values(s) }]} />
            <MetricCard
              title={bucket === 'hour' ? 'Active users per hour' : 'Daily active users'}
              state={active}
              series={(s) => [{ label: 'Active users', values: values(s) }]}
            />
            <MetricCard
              title="Revenue"
              state={revenue}
              kind="bar"
              format={money}
              hint={`Sum of the amount property of purchase events, in ${game.currency} (set under Settings).`}
              series={(s) => [{ label: 'Revenue', values: values(s) }]}
            />
            <MetricCard
              title="ARPDAU"
              state={arpdau}
              format={money}
              hint="Average revenue per daily active user: the day's revenue divided by its active users."
              series={(s) => [{ label: 'ARPDAU', values: ratios(s) }]}
            />
            <MetricCard
              title="ARPPU"
              state={arppu}
              format={money}
              hint="Average revenue per paying user: the day's revenue divided by the users who bought something that day."
              series={(s) => [{ label: 'ARPPU', values: ratios(s) }]}
            />
            <CrashesCard crashes={crashes} logErrors={logErrors} />
            <RetentionCard state={retention} />
          </div>
        </>
      )}
    </>
  );
}

function values(s: Series_): (number | null)[] {
  return s.points.map((p) => p.value ?? 0);
}

/** A ratio's points: a day without anyone to divide by stays a gap, not a false zero. */
function ratios(s: Series_): (number | null)[] {
  return s.points.map((p) => p.value ?? null);
}

function sum(s: Series_): number {
  return s.points.reduce((total, p) => total + (p.value ?? 0), 0);
}

function Stat({ label, state, children }: { label: string; state: Loaded<Series_>; children: (data: Series_) => ReactNode }) {
  return (
    <div className={`stat${state.loading && state.data !== undefined ? ' stale' : ''}`} aria-busy={state.loading}>
      <div className="label">{label}</div>
      <div className="value">
        {state.error ? (
          <span className="stat-error" title={state.error}>
            Unavailable
          </span>
        ) : state.data === undefined ? (
          <span className="stat-loading" aria-label="Loading">
            <span className="spinner" aria-hidden="true" />
          </span>
        ) : (
          children(state.data)
        )}
      </div>
    </div>
  );
}

function MetricCard({
  title,
  state,
  series,
  kind = 'line',
  format = formatNumber,
  hint,
}: {
  title: string;
  state: Loaded<Series_>;
  series: (data: Series_) => Series[];
  kind?: 'line' | 'bar';
  format?: (value: number | null) => string;
  hint?: string;
}) {
  return (
    <Card title={title}>
      {hint && <p className="hint card-hint">{hint}</p>}
      <Async state={state}>{(data) => <MetricFigure title={title} data={data} series={series} kind={kind} format={format} />}</Async>
    </Card>
  );
}

function MetricFigure({
  title,
  data,
  series,
  kind,
  format,
}: {
  title: string;
  data: Series_;
  series: (data: Series_) => Series[];
  kind: 'line' | 'bar';
  format: (value: number | null) => string;
}) {
  // The chart redraws only when the answer changes.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const labels = useMemo(() => labelsOf(data), [data]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const all = useMemo(() => series(data), [data]);
  return <Chart title={title} kind={kind} labels={labels} series={all} format={format} />;
}

function CrashesCard({ crashes, logErrors }: { crashes: Loaded<Series_>; logErrors: Loaded<Series_> }) {
  const both = useMemo(
    () => (crashes.data && logErrors.data ? { crashes: crashes.data, logErrors: logErrors.data } : undefined),
    [crashes.data, logErrors.data],
  );
  const state = {
    data: both,
    error: crashes.error ?? logErrors.error,
    loading: crashes.loading || logErrors.loading,
    reload() {
      crashes.reload();
      logErrors.reload();
    },
  };
  return (
    <Card title="Crashes and errors">
      <p className="hint card-hint">Crash events, and log events whose level is error or warning.</p>
      <Async state={state}>{(data) => <CrashesFigure data={data} />}</Async>
    </Card>
  );
}

function CrashesFigure({ data }: { data: { crashes: Series_; logErrors: Series_ } }) {
  const labels = useMemo(() => labelsOf(data.crashes), [data]);
  const series = useMemo(
    () => [
      { label: 'Crashes', values: values(data.crashes) },
      { label: 'Log errors', values: values(data.logErrors) },
    ],
    [data],
  );
  return (
    <>
      <Legend labels={['Crashes', 'Log errors']} />
      <Chart title="Crashes and errors" kind="line" labels={labels} series={series} format={formatNumber} />
    </>
  );
}

/** The colours ui/Chart gives its first series, in order. */
const SERIES_COLOURS = ['#4f46e5', '#0891b2'];

function Legend({ labels }: { labels: string[] }) {
  return (
    <ul className="legend" aria-hidden="true">
      {labels.map((label, i) => (
        <li key={label}>
          <span className="swatch" style={{ background: SERIES_COLOURS[i % SERIES_COLOURS.length] }} />
          {label}
        </li>
      ))}
    </ul>
  );
}

function RetentionCard({ state }: { state: Loaded<Series_> }) {
  return (
    <Card title="Day-7 retention">
      <p className="hint card-hint">Share of each day's new players who were active again 7 days later.</p>
      <Async state={state}>{(data) => <RetentionFigure data={data} />}</Async>
    </Card>
  );
}

function RetentionFigure({ data }: { data: Series_ }) {
  const labels = useMemo(() => data.points.map((p) => formatDay(p.start)), [data]);
  const series = useMemo(() => [{ label: 'Retained', values: data.points.map((p) => p.value ?? null) }], [data]);
  const complete = data.points.filter((p) => p.value !== undefined && p.value !== null).length;
  return (
    <>
      {complete > 0 ? (
        <Chart title="Day-7 retention" kind="line" labels={labels} series={series} format={formatPercent} />
      ) : (
        <div className="retention-wait">
          <strong>No complete cohort in this range yet</strong>
          <span className="hint">
            A day's new players count as retained when they come back on day 7, so each day's figure is ready 8 days later. Choose
            a longer range to see earlier cohorts.
          </span>
        </div>
      )}
      <details className="cohorts">
        <summary>Cohorts</summary>
        <table className="table compact" aria-label="Day-7 retention cohorts">
          <thead>
            <tr>
              <th scope="col">First seen</th>
              <th scope="col" className="num">
                New players
              </th>
              <th scope="col" className="num">
                Back on day 7
              </th>
            </tr>
          </thead>
          <tbody>
            {data.points.map((p) => (
              <tr key={p.start}>
                <th scope="row">{formatDay(p.start)}</th>
                <td className="num">{formatNumber(p.cohort_size ?? 0)}</td>
                <td className="num">{formatPercent(p.value ?? null)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}
