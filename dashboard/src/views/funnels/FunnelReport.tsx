// One funnel's report: how many players reached each step over a range of days, the share lost
// at each step and the overall conversion, as a horizontal bar chart and a table.
import { Fragment, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Chart } from '../../ui/Chart';
import { Async, Card, ConfirmButton, Empty, ErrorMessage, Field, PageHeader, RangePicker } from '../../ui/components';
import { formatDay, formatNumber, formatPercent, rangeBounds, type RangeKey } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { ModeBadge, StepPath, windowText, type Funnel } from './shared';

type Report = Schemas['FunnelReport'];

export function FunnelReport() {
  const { funnelId = '' } = useParams();
  const { game, canEdit } = useGame();
  const navigate = useNavigate();
  const [range, setRange] = useState<RangeKey>('30d');
  const [environment, setEnvironment] = useState('');
  const remove = useAction();
  const path = { game_id: game.game_id, funnel_id: funnelId };

  const funnel = useLoad(() => unwrap(api.GET('/v1/games/{game_id}/funnels/{funnel_id}', { params: { path } })), [game.game_id, funnelId]);
  const report = useLoad(
    () =>
      unwrap(
        api.GET('/v1/games/{game_id}/funnels/{funnel_id}/report', {
          params: { path, query: { ...rangeBounds(range), ...(environment ? { environment } : {}) } },
        }),
      ),
    [game.game_id, funnelId, range, environment],
  );

  async function destroy() {
    const done = await remove.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/funnels/{funnel_id}', { params: { path } }));
      return true;
    });
    if (done) navigate(`/games/${game.game_id}/funnels`);
  }

  const name = funnel.data?.name ?? report.data?.name ?? 'Funnel';
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link to={`/games/${game.game_id}/funnels`}>Funnels</Link> <span aria-hidden="true">/</span>
      </nav>
      <PageHeader title={name}>
        {canEdit && funnel.data && (
          <>
            <Link to="edit" className="funnel-link-button">
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              title={`Delete “${name}”?`}
              message="The funnel definition is removed. Your events stay; you can build the funnel again at any time."
              confirmLabel="Delete funnel"
              onConfirm={destroy}
            />
          </>
        )}
      </PageHeader>
      <ErrorMessage error={remove.error} />
      {funnel.error ? (
        <>
          <ErrorMessage error={funnel.error} onRetry={funnel.reload} />
          <p>
            <Link to={`/games/${game.game_id}/funnels`}>Back to the funnels</Link>
          </p>
        </>
      ) : (
        <>
          {funnel.data && <Definition funnel={funnel.data} />}
          <form className="form inline funnel-controls" onSubmit={(e) => e.preventDefault()} aria-label="Report options">
            <RangePicker value={range} onChange={setRange} />
            <Field label="Environment">
              <select value={environment} onChange={(e) => setEnvironment(e.target.value)}>
                <option value="">Development and production</option>
                <option value="production">Production only</option>
                <option value="development">Development only</option>
              </select>
            </Field>
          </form>
          <Async state={report}>{(data) => <ReportBody report={data} />}</Async>
        </>
      )}
    </>
  );
}

function Definition({ funnel }: { funnel: Funnel }) {
  return (
    <p className="funnel-definition">
      <ModeBadge mode={funnel.mode} /> <span className="hint">{windowText(funnel.within_hours)}</span>
      <span className="funnel-definition-path">
        <StepPath steps={funnel.steps} />
      </span>
    </p>
  );
}

/** An event name that may wrap after `_`, `.`, `-` or `:` (narrow screens), never mid-word. */
function breakable(name: string) {
  return name.split(/(?<=[_.:-])/).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

/** Percent of the first step's players who reached each step, rounded to two decimals. */
function conversionFromFirst(steps: Report['steps']): (number | null)[] {
  const first = steps[0]?.count ?? 0;
  return steps.map((s) => (first === 0 ? null : Math.round((s.count / first) * 10_000) / 100));
}

function ReportBody({ report }: { report: Report }) {
  const labels = useMemo(() => report.steps.map((s) => `${s.step}. ${s.event}`), [report]);
  const series = useMemo(() => [{ label: 'Players', values: report.steps.map((s) => s.count) }], [report]);
  const conversion = conversionFromFirst(report.steps);
  const started = report.steps[0]?.count ?? 0;
  const completed = report.steps[report.steps.length - 1]?.count ?? 0;
  const biggest = report.steps.slice(1).reduce<Report['steps'][number] | null>((worst, s) => ((s.dropoff ?? 0) > (worst?.dropoff ?? 0) ? s : worst), null);
  const period = `${formatDay(report.from)} – ${formatDay(report.to)}`;

  return (
    <>
      <div className="stats funnel-stats" role="group" aria-label="Summary">
        <div className="stat">
          <div className="label">Started</div>
          <div className="value" data-testid="funnel-started">
            {formatNumber(started)}
          </div>
        </div>
        <div className="stat">
          <div className="label">Completed</div>
          <div className="value" data-testid="funnel-completed">
            {formatNumber(completed)}
          </div>
        </div>
        <div className="stat stat-accent">
          <div className="label">Overall conversion</div>
          <div className="value" data-testid="funnel-conversion">
            {formatPercent(report.overall_conversion)}
          </div>
        </div>
        <div className="stat">
          <div className="label">Biggest dropoff</div>
          <div className="value funnel-biggest">{biggest && started > 0 ? formatPercent(biggest.dropoff) : '—'}</div>
          {biggest && started > 0 && <div className="hint">at step {biggest.step}, {biggest.event}</div>}
        </div>
      </div>

      <Card title="Players per step" actions={<span className="hint">{period} (UTC)</span>}>
        {started === 0 ? (
          <Empty title="Nobody started this funnel in this range">
            No player sent <code>{report.steps[0]?.event}</code> between {period}. Try a longer range or another environment, and check
            that your game tracks these event names exactly.
          </Empty>
        ) : (
          <Chart title={`${report.name}: players per step`} kind="bar" horizontal labels={labels} series={series} format={(v) => formatNumber(v)} height={Math.max(160, 48 * report.steps.length + 40)} />
        )}
      </Card>

      <Card title="Steps">
        <div className="table-wrap">
          <table className="table funnel-table" aria-label="Funnel steps">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col" className="num">
                  Players
                </th>
                <th scope="col" className="num">
                  Dropoff
                </th>
                <th scope="col" className="num">
                  Of step 1
                </th>
              </tr>
            </thead>
            <tbody>
              {report.steps.map((s, i) => (
                <tr key={s.step}>
                  <th scope="row" className="funnel-step-cell">
                    <span className="funnel-step-index">{s.step}</span> <code>{breakable(s.event)}</code>
                  </th>
                  <td className="num">{formatNumber(s.count)}</td>
                  <td className="num">{s.dropoff === undefined || s.dropoff === null ? '—' : formatPercent(s.dropoff)}</td>
                  <td className="num">
                    <span className="funnel-meter" aria-hidden="true">
                      <span style={{ width: `${conversion[i] ?? 0}%` }} />
                    </span>
                    {formatPercent(conversion[i])}
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  Overall conversion
                </th>
                <td className="num">
                  <strong>{formatPercent(report.overall_conversion)}</strong>
                </td>
              </tr>
            </tfoot>
          </table>
        </div>
        <p className="hint">
          Dropoff is the share of the previous step's players who did not reach this step; “of step 1” is the share of the players who started. Counted by player (or session without a player
          ID) over UTC days.
        </p>
      </Card>
    </>
  );
}
