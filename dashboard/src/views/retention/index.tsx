// The retention grid (cohort table): one row per day's new users, one column per day after
// it, each cell the share of the cohort active again that day, shaded like a heat map. A cell
// whose day has not ended is hatched, so the grid is a triangle.
import { useMemo } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Card, Empty, Field, PageHeader, RangePicker } from '../../ui/components';
import { formatDay, formatNumber, formatPercent, rangeBounds } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { EnvironmentPicker, environmentQuery, readEnvironment, readRange, useQueryState } from '../overview/shared';
import './retention.css';

type Grid = Schemas['RetentionGrid'];
type Cohort = Schemas['RetentionCohort'];

/** The return days a studio may show: the first week, two weeks, or all 30. */
const COLUMN_CHOICES = [7, 14, 30] as const;

function readColumns(value: string | null): number {
  const n = Number(value);
  return COLUMN_CHOICES.some((c) => c === n) ? n : 14;
}

export default function Retention() {
  const { game } = useGame();
  const gameId = game.game_id;
  const [params, setParams] = useQueryState();
  const range = readRange(params.get('range'), '30d');
  const environment = readEnvironment(params.get('environment'));
  const columns = readColumns(params.get('days'));
  const { from, to } = rangeBounds(range);
  const grid = useLoad(
    () =>
      unwrap(
        api.GET('/v1/games/{game_id}/retention', {
          params: { path: { game_id: gameId }, query: { from, to, environment: environmentQuery(environment) } },
        }),
      ),
    [gameId, from, to, environment],
  );
  return (
    <>
      <PageHeader title="Retention">
        <RangePicker value={range} onChange={(next) => setParams({ range: next === '30d' ? null : next })} />
        <Field label="Days shown">
          <select value={columns} onChange={(e) => setParams({ days: e.target.value === '14' ? null : e.target.value })}>
            {COLUMN_CHOICES.map((n) => (
              <option key={n} value={n}>
                Days 1 to {n}
              </option>
            ))}
          </select>
        </Field>
        <EnvironmentPicker value={environment} onChange={(next) => setParams({ environment: next })} />
      </PageHeader>
      <Card title="Retention by cohort">
        <p className="hint card-hint">
          Each row is a day's new players (first seen that day, UTC); each column the share of them active again that many days
          later. Hatched cells are days that have not ended yet.
        </p>
        <Async state={grid}>{(data) => <CohortTable grid={data} columns={columns} />}</Async>
      </Card>
    </>
  );
}

/** Of the complete cells of day n, the share of those cohorts' users back: null when none. */
function averageOfDay(cohorts: Cohort[], index: number): { share: number | null; users: number; back: number } {
  let users = 0;
  let back = 0;
  for (const c of cohorts) {
    const returned = c.returned[index];
    if (returned === null || returned === undefined || c.cohort_size === 0) continue;
    users += c.cohort_size;
    back += returned;
  }
  return { share: users === 0 ? null : (back / users) * 100, users, back };
}

/** The heat of a share, 0 to 1, against the grid's highest share (so a game whose day-1
 * retention is 30% still shows its range of shades). */
function heat(share: number, highest: number): number {
  return highest <= 0 ? 0 : Math.min(1, share / highest);
}

function CohortTable({ grid, columns }: { grid: Grid; columns: number }) {
  const days = Array.from({ length: Math.min(columns, grid.return_days) }, (_, i) => i + 1);
  const highest = useMemo(
    () => Math.max(0, ...grid.cohorts.flatMap((c) => c.retention.slice(0, columns).map((v) => v ?? 0))),
    [grid, columns],
  );
  const newUsers = grid.cohorts.reduce((total, c) => total + c.cohort_size, 0);
  if (newUsers === 0) {
    return (
      <Empty title="No new players in this range">
        A player joins the cohort of the day of their first event. Choose a longer range, or send events with a player_id.
      </Empty>
    );
  }
  return (
    <div className="table-wrap cohort-wrap">
      <table className="table compact cohort-table" aria-label="Retention by cohort">
        <thead>
          <tr>
            <th scope="col" className="cohort-day">
              Cohort
            </th>
            <th scope="col" className="num cohort-size">
              New players
            </th>
            {days.map((n) => (
              <th key={n} scope="col" className="num">
                Day {n}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr className="cohort-average">
            <th scope="row" className="cohort-day">
              All cohorts
            </th>
            <td className="num cohort-size">{formatNumber(newUsers)}</td>
            {days.map((n) => {
              const { share, users, back } = averageOfDay(grid.cohorts, n - 1);
              return share === null ? (
                <td key={n} className="num cell-incomplete" title={`Day ${n} has not ended for any cohort yet`}>
                  <span className="cohort-sr-only">not complete</span>
                </td>
              ) : (
                <HeatCell key={n} share={share} highest={highest} title={`${formatNumber(back)} of ${formatNumber(users)} players back on day ${n}`} />
              );
            })}
          </tr>
          {grid.cohorts.map((c) => (
            <tr key={c.day}>
              <th scope="row" className="cohort-day">
                {formatDay(c.day)}
              </th>
              <td className="num cohort-size">{formatNumber(c.cohort_size)}</td>
              {days.map((n) => (
                <CohortCell key={n} cohort={c} day={n} highest={highest} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CohortCell({ cohort, day, highest }: { cohort: Cohort; day: number; highest: number }) {
  const returned = cohort.returned[day - 1];
  if (returned === null || returned === undefined) {
    const ends = new Date(Date.parse(`${cohort.day}T00:00:00Z`) + (day + 1) * 86_400_000).toISOString();
    return (
      <td className="num cell-incomplete" title={`Not complete: day ${day} of this cohort ends at midnight UTC on ${formatDay(ends)}`}>
        <span className="cohort-sr-only">not complete</span>
      </td>
    );
  }
  if (cohort.cohort_size === 0) {
    return (
      <td className="num cell-empty" title="No new players this day">
        —
      </td>
    );
  }
  const share = cohort.retention[day - 1] ?? 0;
  return (
    <HeatCell
      share={share}
      highest={highest}
      title={`${formatNumber(returned)} of ${formatNumber(cohort.cohort_size)} players back on day ${day}`}
    />
  );
}

function HeatCell({ share, highest, title }: { share: number; highest: number; title: string }) {
  const level = heat(share, highest);
  // The accent colour, from a pale wash to full strength; dark cells take white text.
  const style = { background: `rgba(79, 70, 229, ${(0.06 + level * 0.84).toFixed(3)})`, color: level > 0.55 ? '#fff' : undefined };
  return (
    <td className="num cell-heat" style={style} title={title}>
      {formatPercent(Math.round(share * 10) / 10)}
    </td>
  );
}
