// Events per name over a range of UTC days: a bar chart and a table, each name leading to its
// live events and its schema.
import { useMemo } from 'react';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Chart } from '../../ui/Chart';
import { Async, Card, Empty, RangePicker, WrappingName } from '../../ui/components';
import { formatDay, formatNumber, rangeBounds } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { EnvironmentPicker, environmentQuery, readEnvironment, readRange, useQueryState } from '../overview/shared';

/** The chart shows the most frequent names; the table lists them all. */
const CHART_NAMES = 15;

export function Counts() {
  const { game, canEdit } = useGame();
  const gameId = game.game_id;
  const [params, setParams] = useQueryState();
  const range = readRange(params.get('range'), '7d');
  const environment = readEnvironment(params.get('environment'));
  const { from, to } = rangeBounds(range);

  const counts = useLoad(
    () =>
      unwrap(
        api.GET('/v1/games/{game_id}/events/counts', {
          params: { path: { game_id: gameId }, query: { from, to, environment: environmentQuery(environment) } },
        }),
      ),
    [gameId, from, to, environment],
  );
  const schemas = useLoad(() => unwrap(api.GET('/v1/games/{game_id}/event-schemas', { params: { path: { game_id: gameId } } })), [gameId]);
  const withSchema = useMemo(() => new Set((schemas.data?.event_schemas ?? []).map((s) => s.event_name)), [schemas.data]);

  return (
    <>
      <div className="toolbar">
        <RangePicker value={range} onChange={(next) => setParams({ range: next === '7d' ? null : next })} />
        <EnvironmentPicker value={environment} onChange={(next) => setParams({ environment: next })} />
        <p className="hint toolbar-note">
          {from === to ? `Today, ${formatDay(from)}` : `${formatDay(from)} to ${formatDay(to)}`} (UTC days, by the time each event happened)
        </p>
      </div>
      <Async state={counts}>
        {(data) =>
          data.counts.length === 0 ? (
            <Card title="Events by name">
              <Empty title="No events in this range">
                {environment ? 'Try another environment or a longer range. ' : 'Try a longer range. '}
                New games: see the <Link to={`/games/${gameId}`}>overview</Link> for how to send the first event.
              </Empty>
            </Card>
          ) : (
            <CountsView data={data} gameId={gameId} withSchema={withSchema} schemasKnown={schemas.data !== undefined} canEdit={canEdit} />
          )
        }
      </Async>
    </>
  );
}

function CountsView({
  data,
  gameId,
  withSchema,
  schemasKnown,
  canEdit,
}: {
  data: Schemas['EventCounts'];
  gameId: string;
  withSchema: Set<string>;
  schemasKnown: boolean;
  canEdit: boolean;
}) {
  const top = data.counts.slice(0, CHART_NAMES);
  const labels = useMemo(() => top.map((c) => c.event_name), [data]); // eslint-disable-line react-hooks/exhaustive-deps
  const series = useMemo(() => [{ label: 'Events', values: top.map((c) => c.count) }], [data]); // eslint-disable-line react-hooks/exhaustive-deps
  const base = `/games/${gameId}/events`;
  return (
    <>
      <div className="stats">
        <div className="stat">
          <div className="label">Events</div>
          <div className="value">{formatNumber(data.total)}</div>
        </div>
        <div className="stat">
          <div className="label">Event names</div>
          <div className="value">{formatNumber(data.counts.length)}</div>
        </div>
        <div className="stat">
          <div className="label">Most frequent</div>
          <div className="value stat-text" title={data.counts[0]?.event_name}>
            {data.counts[0]?.event_name ?? '—'}
          </div>
        </div>
      </div>
      <div className="counts-layout">
        <Card title={data.counts.length > CHART_NAMES ? `Top ${CHART_NAMES} event names` : 'Events by name'}>
          <Chart title="Events by name" kind="bar" horizontal categoryLabel="Event" labels={labels} series={series} format={formatNumber} height={Math.max(160, top.length * 30 + 40)} />
        </Card>
        <Card title="All event names">
          <div className="table-wrap">
            <table className="table" aria-label="Event counts">
              <thead>
                <tr>
                  <th scope="col">Event name</th>
                  <th scope="col" className="num">
                    Events
                  </th>
                  <th scope="col" className="num">
                    Share
                  </th>
                  <th scope="col">Schema</th>
                </tr>
              </thead>
              <tbody>
                {data.counts.map((c) => (
                  <tr key={c.event_name}>
                    <th scope="row" className="event-name-cell">
                      <Link to={`${base}/live?event_name=${encodeURIComponent(c.event_name)}`} title={`Live ${c.event_name} events`}>
                        <WrappingName name={c.event_name} />
                      </Link>
                    </th>
                    <td className="num">{formatNumber(c.count)}</td>
                    <td className="num">
                      <span className="share">
                        <span className="share-bar" aria-hidden="true">
                          <span style={{ width: `${data.total ? (c.count / data.total) * 100 : 0}%` }} />
                        </span>
                        {data.total ? `${((c.count / data.total) * 100).toFixed(1)}%` : '—'}
                      </span>
                    </td>
                    <td className="schema-link-cell">
                      {!schemasKnown ? (
                        '…'
                      ) : withSchema.has(c.event_name) ? (
                        <Link to={`${base}/schemas/${encodeURIComponent(c.event_name)}`}>View schema</Link>
                      ) : canEdit ? (
                        <Link className="muted-link" to={`${base}/schemas/new?event_name=${encodeURIComponent(c.event_name)}`}>
                          Add schema
                        </Link>
                      ) : (
                        <span className="hint">None</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Total</th>
                  <td className="num">
                    <strong>{formatNumber(data.total)}</strong>
                  </td>
                  <td className="num">100%</td>
                  <td />
                </tr>
              </tfoot>
            </table>
          </div>
        </Card>
      </div>
    </>
  );
}
