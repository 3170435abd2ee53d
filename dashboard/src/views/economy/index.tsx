// Economy: per currency of `resource` events, what players gained (sources) and spent (sinks)
// by item type, and the net flow per day, over a range of UTC days.
import { useMemo } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Chart } from '../../ui/Chart';
import { Async, Card, Empty, PageHeader } from '../../ui/components';
import { formatDay, formatNumber } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { Stat, useReportFilters } from '../progression/shared';
import '../progression/reports.css';

type Currency = Schemas['EconomyCurrency'];

/** Sources in green, sinks in red, the net in the accent colour. */
const FLOW_COLOURS = ['#16a34a', '#dc2626', '#4f46e5'];

const amount = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
function formatAmount(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : amount.format(value);
}

export default function Economy() {
  const { game } = useGame();
  const gameId = game.game_id;
  const { from, to, environment, toolbar } = useReportFilters();
  const report = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/economy', { params: { path: { game_id: gameId }, query: { from, to, environment } } })),
    [gameId, from, to, environment],
  );
  return (
    <div className="economy-area">
      <PageHeader title="Economy" />
      <p className="hint report-intro">
        Amounts of each currency that <code>resource</code> events report gained (<code>flow: source</code>) and spent (<code>flow: sink</code>), by{' '}
        <code>item_type</code>, and the net flow per day.
      </p>
      {toolbar}
      <Async state={report}>
        {(data) =>
          data.currencies.length === 0 ? (
            <Card title="Currencies">
              <Empty title="No resource events in this range">
                <div className="report-empty">
                  Send one when a player gains or spends a currency, e.g. with the SDK:
                  <pre>{`playtrace.trackResource('source', 'gold', 100, { itemType: 'reward', itemId: 'daily' });
playtrace.trackResource('sink', 'gold', 50, { itemType: 'shop', itemId: 'sword' });`}</pre>
                </div>
              </Empty>
            </Card>
          ) : (
            data.currencies.map((currency) => <CurrencyCard key={currency.currency} currency={currency} />)
          )
        }
      </Async>
    </div>
  );
}

function CurrencyCard({ currency }: { currency: Currency }) {
  const labels = useMemo(() => currency.days.map((d) => formatDay(d.day)), [currency]);
  const series = useMemo(
    () => [
      { label: 'Sources', values: currency.days.map((d) => d.source) },
      { label: 'Sinks', values: currency.days.map((d) => d.sink) },
      { label: 'Net', values: currency.days.map((d) => d.net) },
    ],
    [currency],
  );
  return (
    <section className="currency-card" aria-label={`Currency ${currency.currency}`}>
      <Card title={currency.currency}>
        <div className="stats">
          <Stat label="Sources" value={formatAmount(currency.source)} />
          <Stat label="Sinks" value={formatAmount(currency.sink)} />
          <Stat
            label="Net flow"
            value={`${currency.net > 0 ? '+' : ''}${formatAmount(currency.net)}`}
            tone={currency.net < 0 ? 'net-negative' : currency.net > 0 ? 'net-positive' : undefined}
          />
        </div>
        <Chart title={`${currency.currency} per day`} kind="bar" legend colours={FLOW_COLOURS} categoryLabel="Day" labels={labels} series={series} format={formatAmount} height={240} />
        <div className="currency-flows">
          <ItemTable title="Sources by item type" items={currency.sources} total={currency.source} currency={currency.currency} />
          <ItemTable title="Sinks by item type" items={currency.sinks} total={currency.sink} currency={currency.currency} />
        </div>
      </Card>
    </section>
  );
}

function ItemTable({ title, items, total, currency }: { title: string; items: Schemas['EconomyItem'][]; total: number; currency: string }) {
  return (
    <div>
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p className="hint">None in this range.</p>
      ) : (
        <div className="table-wrap">
          <table className="table report-table" aria-label={`${currency}: ${title}`}>
            <thead>
              <tr>
                <th scope="col">Item type</th>
                <th scope="col" className="num">Amount</th>
                <th scope="col" className="num">Events</th>
                <th scope="col" className="num">Share</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.item_type ?? ''}>
                  <th scope="row">{item.item_type ?? <span className="hint">(none)</span>}</th>
                  <td className="num">{formatAmount(item.amount)}</td>
                  <td className="num">{formatNumber(item.events)}</td>
                  <td className="num">{total ? `${((item.amount / total) * 100).toFixed(1)}%` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
