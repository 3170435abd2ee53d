// The history tab: every firing, newest first, with the figures that made it fire and what
// became of the e-mail and the webhook.
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, Empty } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { changeText, isBadChange, kindOf, ruleLabel, shortTime, valueText } from './kinds';

const LIMITS = [50, 100, 200];

export function HistoryTab() {
  const { game } = useGame();
  const [limit, setLimit] = useState(50);
  const history = useLoad(
    () => unwrap(api.GET('/v1/alerts/history', { params: { query: { game_id: game.game_id, limit } } })),
    [game.game_id, limit],
  );

  return (
    <Card
      title="Alert history"
      actions={
        <div className="al-history-actions">
          <label className="al-inline-field">
            <span className="field-label">Show</span>
            <select value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
              {LIMITS.map((n) => (
                <option key={n} value={n}>
                  Last {n} firings
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={history.reload} disabled={history.loading}>
            Refresh
          </button>
        </div>
      }
    >
      <Async state={history}>
        {({ history: items }) =>
          items.length === 0 ? (
            <Empty title="No alerts have fired yet">
              <p className="al-empty-text">
                A spike rule fires when the last hour reaches its threshold times the hourly average of its window; a
                drop rule fires when the last 24 hours (or the newest cohort’s retention) fall below its threshold times
                the baseline. Enabled rules are checked every minute and fire at most once an hour. Use “Evaluate now” on
                a rule to check it at once.
              </p>
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table al-stack al-history">
                <thead>
                  <tr>
                    <th scope="col">Rule</th>
                    <th scope="col">Kind</th>
                    <th scope="col" className="num">
                      Current
                    </th>
                    <th scope="col" className="num">
                      Baseline
                    </th>
                    <th scope="col" className="num">
                      Change
                    </th>
                    <th scope="col">E-mail</th>
                    <th scope="col">Webhook</th>
                    <th scope="col">Error</th>
                    <th scope="col">Fired at (UTC)</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((item) => {
                    const kind = kindOf(item.type);
                    const bad = isBadChange(item.type, item.change_percent);
                    return (
                      <tr key={item.id}>
                        <th scope="row" data-label="Rule" className="al-name">
                          {item.name}
                        </th>
                        <td data-label="Kind">
                          <span className={`al-kind al-kind-${kind.id}`}>{ruleLabel(kind.id, item.metric)}</span>
                        </td>
                        <td data-label="Current" className="num">
                          {valueText(item.type, item.current_value, item.metric, game.currency)}
                        </td>
                        <td data-label="Baseline" className="num">
                          {valueText(item.type, item.baseline_value, item.metric, game.currency)}
                        </td>
                        <td data-label="Change" className="num">
                          <span className={`al-change ${item.change_percent === 0 ? '' : bad ? 'al-bad' : 'al-good'}`}>
                            <span aria-hidden="true">{item.change_percent > 0 ? '▲ ' : item.change_percent < 0 ? '▼ ' : ''}</span>
                            {changeText(item.change_percent)}
                          </span>
                        </td>
                        <td data-label="E-mail">
                          <Delivery channel="E-mail" status={item.email_status} />
                        </td>
                        <td data-label="Webhook">
                          <Delivery channel="Webhook" status={item.webhook_status} />
                        </td>
                        <td data-label="Error" className={item.error ? 'al-error-text' : 'al-no-error'}>
                          {item.error ? item.error : <span className="hint">—</span>}
                        </td>
                        <td data-label="Fired at (UTC)" className="al-nowrap" title={formatTime(item.triggered_at)}>
                          {shortTime(item.triggered_at)}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Async>
    </Card>
  );
}

const SKIPPED: Record<string, string> = {
  'E-mail': 'No SMTP server is configured on this playtrace instance.',
  Webhook: 'The rule has no webhook.',
};

function Delivery({ channel, status }: { channel: 'E-mail' | 'Webhook'; status: string }) {
  const tone = status === 'sent' ? 'good' : status === 'failed' ? 'bad' : 'neutral';
  const word = status === 'sent' ? 'Sent' : status === 'failed' ? 'Failed' : status === 'skipped' ? 'Skipped' : status;
  return (
    <span title={status === 'skipped' ? SKIPPED[channel] : undefined}>
      <Badge tone={tone}>{word}</Badge>
    </span>
  );
}
