// Where a board's final standings go when a period or tournament ends: its results webhook
// (set in the definition) and the history of deliveries, newest first.
import { Async, Card, Empty } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { loadDeliveries } from './boardApi';
import { periodKeyLabel, type BoardTabProps } from './shared';

const REASONS = { period_end: 'Period ended', manual_reset: 'Reset by hand', tournament_end: 'Tournament ended' } as const;

export function Results({ gameId, board, version }: BoardTabProps) {
  const deliveries = useLoad(() => loadDeliveries({ gameId, board: board.board_name }), [gameId, board.board_name, version]);
  return (
    <Card title="Results deliveries">
      <p className="hint">
        {board.results_webhook ? (
          <>
            When a period or the tournament ends, its final standings (top 100) are sent once to <code>{board.results_webhook}</code>, retried
            with backoff until it answers 2xx; each attempt carries the same <code>Idempotency-Key</code>.
          </>
        ) : (
          'This board has no results webhook: set one under Edit to have the final standings of each period sent to your server.'
        )}
      </p>
      <Async state={deliveries}>
        {({ deliveries: list }) =>
          list.length === 0 ? (
            <Empty title="No deliveries yet">A delivery appears here when a period that received scores ends while a webhook is set.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table" aria-label="Results deliveries">
                <thead>
                  <tr>
                    <th scope="col">Period</th>
                    <th scope="col">Why</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Attempts
                    </th>
                    <th scope="col">When</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id}>
                      <th scope="row">{periodKeyLabel(d.period)}</th>
                      <td>{REASONS[d.reason]}</td>
                      <td>
                        <span className={`lb-delivery ${d.status}`}>{d.status === 'delivered' ? 'Delivered' : d.status === 'failed' ? 'Failed' : 'Pending'}</span>
                        {d.last_error && d.status !== 'delivered' && <div className="hint">{d.last_error}</div>}
                      </td>
                      <td className="num">{formatNumber(d.attempts)}</td>
                      <td className="nowrap">
                        {d.delivered_at
                          ? `Delivered ${formatTime(d.delivered_at)}`
                          : d.next_attempt_at
                            ? `Next try ${formatTime(d.next_attempt_at)}`
                            : `Since ${formatTime(d.created_at)}`}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Async>
    </Card>
  );
}
