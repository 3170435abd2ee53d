// A line or bar chart (Chart.js, loaded on first use) with its numbers also in a table, so the
// figures are readable without the picture: by screen readers, keyboard users and the tests.
import { useEffect, useRef, useState } from 'react';
import type { Chart as ChartJs } from 'chart.js';

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface ChartProps {
  title: string;
  kind: 'line' | 'bar';
  labels: string[];
  series: Series[];
  /** How a value reads in the table, e.g. as money or percent. */
  format?: (value: number | null) => string;
  /** Horizontal bars (the funnel). */
  horizontal?: boolean;
  /** The heading of the figures table's first column (default: Step for horizontal bars, else Period). */
  categoryLabel?: string;
  height?: number;
  /** Each series' colour, in order (default: the dashboard's palette). */
  colours?: string[];
  /** Name the series in a legend above the chart (for charts of several series). */
  legend?: boolean;
}

const COLOURS = ['#4f46e5', '#0891b2', '#db2777', '#ca8a04', '#16a34a'];

/** Horizontal bars label every bar; a longer name is cut to this many characters (the tooltip and the table keep it whole). */
const BAR_LABEL_CHARS = 22;

function shorten(label: string): string {
  return label.length > BAR_LABEL_CHARS ? `${label.slice(0, BAR_LABEL_CHARS - 1)}…` : label;
}

let registered: Promise<typeof import('chart.js')> | null = null;
function chartJs() {
  registered ??= import('chart.js').then((module) => {
    const { Chart, LineController, BarController, LineElement, BarElement, PointElement, CategoryScale, LinearScale, Tooltip, Filler, Legend } = module;
    Chart.register(LineController, BarController, LineElement, BarElement, PointElement, CategoryScale, LinearScale, Tooltip, Filler, Legend);
    return module;
  });
  return registered;
}

export function Chart({ title, kind, labels, series, format = (v) => (v === null ? '—' : String(v)), horizontal, categoryLabel, height = 220, colours = COLOURS, legend = false }: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<ChartJs | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let cancelled = false;
    chartJs().then(
      ({ Chart: ChartClass }) => {
        if (cancelled || !canvas.current) return;
        chart.current?.destroy();
        chart.current = new ChartClass(canvas.current, {
          type: kind,
          data: {
            labels,
            datasets: series.map((s, i) => ({
              label: s.label,
              data: s.values,
              borderColor: colours[i % colours.length],
              backgroundColor: kind === 'bar' ? colours[i % colours.length] : `${colours[i % colours.length]}22`,
              fill: kind === 'line',
              tension: 0.25,
              pointRadius: labels.length > 40 ? 0 : 2,
              spanGaps: true,
            })),
          },
          options: {
            indexAxis: horizontal ? 'y' : 'x',
            responsive: true,
            maintainAspectRatio: false,
            animation: false,
            plugins: { legend: { display: legend, position: 'top', align: 'start', labels: { boxWidth: 12, boxHeight: 12 } }, tooltip: { intersect: false, mode: 'index' } },
            // Horizontal bars name every bar (shortened when long); elsewhere the category axis
            // thins its labels out, as dates and hours read fine with some skipped.
            scales: horizontal
              ? {
                  x: { beginAtZero: true, grid: { display: true }, ticks: { maxTicksLimit: 6 } },
                  y: {
                    grid: { display: false },
                    ticks: {
                      autoSkip: false,
                      callback(value) {
                        return shorten(this.getLabelForValue(Number(value)));
                      },
                    },
                  },
                }
              : {
                  x: { grid: { display: false }, ticks: { maxTicksLimit: 8 } },
                  y: { beginAtZero: true, ticks: { maxTicksLimit: 6 } },
                },
          },
        });
        // How many category labels were drawn, for the browser tests (the canvas has no text).
        const categories = chart.current.scales[horizontal ? 'y' : 'x'];
        canvas.current.dataset.labelsDrawn = String(categories?.ticks.length ?? 0);
      },
      () => setFailed(true),
    );
    return () => {
      cancelled = true;
    };
  }, [kind, labels, series, horizontal, colours, legend]);

  useEffect(() => () => chart.current?.destroy(), []);

  return (
    <figure className="chart">
      <div style={{ height }}>
        {failed ? <p className="hint">The chart could not be drawn; the figures are in the table below.</p> : <canvas ref={canvas} role="img" aria-label={title} />}
      </div>
      <details>
        <summary>Show figures</summary>
        <table className="table compact" aria-label={`${title} figures`}>
          <thead>
            <tr>
              <th scope="col">{categoryLabel ?? (horizontal ? 'Step' : 'Period')}</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, row) => (
              <tr key={label + row}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.label}>{format(s.values[row] ?? null)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
