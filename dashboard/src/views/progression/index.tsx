// Progression: every step of the game (the level path of `progression` events) with its
// starts, completes, fails, fail rate and attempts to complete, over a range of UTC days.
import { useMemo } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Chart } from '../../ui/Chart';
import { Async, Card, Empty, PageHeader } from '../../ui/components';
import { formatNumber, formatPercent } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { Stat, useReportFilters } from './shared';
import './reports.css';

type Step = Schemas['ProgressionStep'];

/** The chart shows the steps with the most fails; the table lists every step. */
const CHART_STEPS = 12;
/** Completes in green, fails in red. */
const OUTCOME_COLOURS = ['#16a34a', '#dc2626'];

export function stepName(step: Step): string {
  return step.levels.join(' / ');
}

/** A percent with a small meter, coloured by how bad it is (green, amber from 25%, red from 50%). */
export function RateMeter({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="hint">—</span>;
  const tone = value >= 50 ? 'bad' : value >= 25 ? 'warn' : 'good';
  return (
    <span className="rate">
      <span className={`rate-bar ${tone}`} aria-hidden="true">
        <span style={{ width: `${Math.min(100, value)}%` }} />
      </span>
      {formatPercent(value)}
    </span>
  );
}

export default function Progression() {
  const { game } = useGame();
  const gameId = game.game_id;
  const { from, to, environment, toolbar } = useReportFilters();
  const report = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/progression', { params: { path: { game_id: gameId }, query: { from, to, environment } } })),
    [gameId, from, to, environment],
  );
  return (
    <div className="progression-area">
      <PageHeader title="Progression" />
      <p className="hint report-intro">
        Each step is the path of levels a <code>progression</code> event names (<code>level1</code> / <code>level2</code> / <code>level3</code>). The fail
        rate is the share of finished attempts (completes and fails) that failed.
      </p>
      {toolbar}
      <Async state={report}>
        {(data) =>
          data.steps.length === 0 ? (
            <Card title="Steps">
              <Empty title="No progression events in this range">
                <div className="report-empty">
                  Send one when a player starts, completes or fails a level, e.g. with the SDK:
                  <pre>{`playtrace.trackProgression('start', ['world 1', 'level 3']);
playtrace.trackProgression('complete', ['world 1', 'level 3'], { attempt: 2, score: 1200 });`}</pre>
                </div>
              </Empty>
            </Card>
          ) : (
            <ProgressionView steps={data.steps} />
          )
        }
      </Async>
    </div>
  );
}

function ProgressionView({ steps }: { steps: Step[] }) {
  const totals = steps.reduce((sum, s) => ({ starts: sum.starts + s.starts, completes: sum.completes + s.completes, fails: sum.fails + s.fails }), {
    starts: 0,
    completes: 0,
    fails: 0,
  });
  const finished = totals.completes + totals.fails;
  const hardest = useMemo(
    () =>
      [...steps]
        .filter((s) => s.fails > 0)
        .sort((a, b) => b.fails - a.fails)
        .slice(0, CHART_STEPS),
    [steps],
  );
  const labels = useMemo(() => hardest.map(stepName), [hardest]);
  const series = useMemo(
    () => [
      { label: 'Completes', values: hardest.map((s) => s.completes) },
      { label: 'Fails', values: hardest.map((s) => s.fails) },
    ],
    [hardest],
  );
  return (
    <>
      <div className="stats">
        <Stat label="Steps" value={formatNumber(steps.length)} />
        <Stat label="Starts" value={formatNumber(totals.starts)} />
        <Stat label="Completes" value={formatNumber(totals.completes)} />
        <Stat label="Fail rate" value={finished ? formatPercent(Math.round((10_000 * totals.fails) / finished) / 100) : '—'} />
      </div>
      {hardest.length > 0 && (
        <Card title={hardest.length === CHART_STEPS ? `The ${CHART_STEPS} steps failed most` : 'Steps with fails'}>
          <Chart title="Completes and fails by step" kind="bar" horizontal legend colours={OUTCOME_COLOURS} categoryLabel="Step" labels={labels} series={series} format={formatNumber} height={Math.max(160, hardest.length * 36 + 40)} />
        </Card>
      )}
      <Card title="All steps">
        <div className="table-wrap">
          <table className="table report-table" aria-label="Progression steps">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col" className="num">Starts</th>
                <th scope="col" className="num phone-hide">Completes</th>
                <th scope="col" className="num">Fails</th>
                <th scope="col" className="num">Fail rate</th>
                <th scope="col" className="num phone-hide" title="Average attempt number of the completes that sent one">
                  Attempts
                </th>
              </tr>
            </thead>
            <tbody>
              {steps.map((step) => (
                <tr key={stepName(step)}>
                  <th scope="row" className={`step-depth-${step.levels.length}`}>
                    <span className="step-path">
                      {step.levels.map((level, index) => (
                        <span key={index}>
                          {index > 0 && <span className="step-sep">/ </span>}
                          <span className={index === step.levels.length - 1 ? 'step-level' : undefined}>{level}</span>
                        </span>
                      ))}
                    </span>
                  </th>
                  <td className="num">{formatNumber(step.starts)}</td>
                  <td className="num phone-hide">{formatNumber(step.completes)}</td>
                  <td className="num">{formatNumber(step.fails)}</td>
                  <td className="num">
                    <RateMeter value={step.fail_rate} />
                  </td>
                  <td className="num phone-hide">{step.average_attempts == null ? '—' : step.average_attempts.toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
    </>
  );
}
