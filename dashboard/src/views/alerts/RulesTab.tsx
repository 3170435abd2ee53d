// The rules tab: every rule of the game with its kind, threshold, window, channels, an enabled
// switch and when it last fired; editors can send a test message, evaluate a rule now, edit
// and delete it.
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, Empty, ErrorMessage } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { changeText, isBadChange, kindOf, ruleLabel, shortTime, thresholdText, valueText, webhookHost, windowParts } from './kinds';

type Rule = Schemas['AlertRule'];

type Outcome =
  | { kind: 'test'; result: Schemas['WebhookTestResult'] }
  | { kind: 'evaluate'; result: Schemas['EvaluationResult'] };

/** How each channel of a firing went, as "Evaluate now" answers it. */
type Delivery = { email: string; webhook: string; emailError?: string; webhookError?: string };

const COOLDOWN_MS = 60 * 60 * 1000;

export function RulesTab() {
  const { game, canEdit } = useGame();
  const navigate = useNavigate();
  const location = useLocation();
  // A message from the form that led here ("Rule … created"), shown once: the history entry's
  // state is cleared so that a reload does not repeat it.
  const [flash] = useState(() => (location.state as { flash?: string } | null)?.flash);
  useEffect(() => {
    if (location.state) navigate(location.pathname, { replace: true, state: null });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const rules = useLoad(
    () => unwrap(api.GET('/v1/alerts', { params: { query: { game_id: game.game_id } } })),
    [game.game_id],
  );
  const base = `/games/${game.game_id}/alerts`;

  return (
    <>
      {flash && (
        <p className="success" role="status">
          {flash}
        </p>
      )}
      <Card
        title="Alert rules"
        actions={
          canEdit && (
            <button type="button" className="primary" onClick={() => navigate(`${base}/new`)}>
              New rule
            </button>
          )
        }
      >
        <p className="hint al-intro">
          A rule compares a metric with its baseline and notifies by e-mail and, when it has one, a
          Discord-compatible webhook. Every enabled rule is checked each minute, and a rule fires at
          most once an hour.
        </p>
        {!canEdit && <p className="notice">You have view access: editors and owners can change rules.</p>}
        <Async state={rules}>
          {({ rules: list }) =>
            list.length === 0 ? (
              <Empty title="No alert rules yet">
                {canEdit
                  ? 'Create a rule to hear about crash or error spikes and drops in revenue, active users or retention.'
                  : 'Nobody has set up an alert rule for this game yet.'}
              </Empty>
            ) : (
              <div className="table-wrap">
                <table className="table al-stack">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Threshold</th>
                      <th scope="col">Window</th>
                      <th scope="col">Channels</th>
                      <th scope="col">Enabled</th>
                      <th scope="col">Last fired (UTC)</th>
                    </tr>
                  </thead>
                  {list.map((rule) => (
                    <RuleRow
                      key={rule.rule_id}
                      rule={rule}
                      canEdit={canEdit}
                      editPath={`${base}/${rule.rule_id}/edit`}
                      historyPath={`${base}/history`}
                      onChanged={(next) => rules.set({ rules: list.map((r) => (r.rule_id === next.rule_id ? next : r)) })}
                      onDeleted={() => rules.set({ rules: list.filter((r) => r.rule_id !== rule.rule_id) })}
                      onFired={rules.reload}
                    />
                  ))}
                </table>
              </div>
            )
          }
        </Async>
      </Card>
    </>
  );
}

function RuleRow({
  rule,
  canEdit,
  editPath,
  historyPath,
  onChanged,
  onDeleted,
  onFired,
}: {
  rule: Rule;
  canEdit: boolean;
  editPath: string;
  historyPath: string;
  onChanged(rule: Rule): void;
  onDeleted(): void;
  onFired(): void;
}) {
  const kind = kindOf(rule.type);
  const host = webhookHost(rule.discord_webhook_url);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const toggle = useAction();
  const test = useAction();
  const evaluate = useAction();
  const remove = useAction();
  const error = toggle.error ?? test.error ?? evaluate.error ?? remove.error;
  const lastFired = rule.last_fired_at ? new Date(rule.last_fired_at).getTime() : null;
  const coolingDown = lastFired !== null && Date.now() - lastFired < COOLDOWN_MS;

  // The switch moves at once; it moves back if the API refuses.
  const [pendingEnabled, setPendingEnabled] = useState<boolean | null>(null);
  const enabled = pendingEnabled ?? rule.enabled;

  async function setEnabled(value: boolean) {
    setPendingEnabled(value);
    const next = await toggle.run(() =>
      unwrap(api.PATCH('/v1/alerts/{rule_id}', { params: { path: { rule_id: rule.rule_id } }, body: { enabled: value } })),
    );
    if (next) onChanged(next);
    setPendingEnabled(null);
  }

  async function sendTest() {
    setOutcome(null);
    const result = await test.run(() =>
      unwrap(api.POST('/v1/alerts/{rule_id}/test-webhook', { params: { path: { rule_id: rule.rule_id } } })),
    );
    if (result) setOutcome({ kind: 'test', result });
  }

  async function evaluateNow() {
    setOutcome(null);
    const result = await evaluate.run(() =>
      unwrap(api.POST('/v1/alerts/{rule_id}/evaluate', { params: { path: { rule_id: rule.rule_id } } })),
    );
    if (!result) return;
    // The answer says whether the rule fired and, when it did, how its e-mail and webhook went.
    setOutcome({ kind: 'evaluate', result });
    if (result.fired) onFired();
  }

  async function deleteRule() {
    const done = await remove.run(async () => {
      await unwrap(api.DELETE('/v1/alerts/{rule_id}', { params: { path: { rule_id: rule.rule_id } } }));
      return true;
    });
    if (done) onDeleted();
  }

  return (
    <tbody className={`al-rule${enabled ? '' : ' al-disabled'}`}>
      <tr>
        <th scope="row" data-label="Name" className="al-name">
          {rule.name}
        </th>
        <td data-label="Kind">
          <span className={`al-kind al-kind-${kind.id}`}>{ruleLabel(kind.id, rule.metric)}</span>
        </td>
        <td data-label="Threshold" title={`Threshold ${rule.threshold}`}>
          <span className="al-nowrap">{thresholdText(rule.type, rule.threshold)}</span> <span className="al-sub">of baseline</span>
        </td>
        <td data-label="Window">
          <span className="al-nowrap">{windowParts(rule.comparison_window_hours)[0]}</span>{' '}
          {windowParts(rule.comparison_window_hours)[1] && <span className="al-sub">{windowParts(rule.comparison_window_hours)[1]}</span>}
        </td>
        <td data-label="Channels">
          <div className="al-channels">
            <span title="E-mail">
              <span aria-hidden="true">✉︎ </span>
              <span className="al-sr">E-mail: </span>
              {rule.email}
            </span>
            {host ? (
              <span title="Webhook">
                <span aria-hidden="true">⇢ </span>Webhook: {host}
              </span>
            ) : (
              <span className="hint">No webhook</span>
            )}
          </div>
        </td>
        <td data-label="Enabled">
          {canEdit ? (
            <label className="al-switch">
              <input
                type="checkbox"
                role="switch"
                checked={enabled}
                aria-busy={toggle.busy}
                aria-label={`Enabled: ${rule.name}`}
                onChange={(e) => {
                  if (!toggle.busy) void setEnabled(e.target.checked);
                }}
              />
              <span aria-hidden="true" className="al-switch-track" />
              <span className="al-switch-text">{enabled ? 'On' : 'Off'}</span>
            </label>
          ) : (
            <Badge tone={rule.enabled ? 'good' : 'neutral'}>{rule.enabled ? 'On' : 'Off'}</Badge>
          )}
        </td>
        <td data-label="Last fired">
          {rule.last_fired_at ? (
            <>
              <span title={formatTime(rule.last_fired_at)}>{shortTime(rule.last_fired_at)}</span>
              {coolingDown && (
                <div>
                  <Badge tone="warn">Cooling down</Badge>
                </div>
              )}
            </>
          ) : (
            <span className="hint">Never</span>
          )}
        </td>
      </tr>
      {(canEdit || outcome || error) && (
        <tr className="al-rule-foot">
          <td colSpan={7}>
            {canEdit && (
              <div className="al-actions">
                <Link className="al-linkbutton small" to={editPath}>
                  Edit<span className="al-sr"> {rule.name}</span>
                </Link>
                <button
                  type="button"
                  className="small"
                  onClick={() => void sendTest()}
                  disabled={test.busy || !host}
                  aria-busy={test.busy}
                  title={host ? 'Send a test message to the webhook' : 'This rule has no webhook: add one to send a test'}
                >
                  {test.busy ? 'Sending…' : 'Send test'}
                  <span className="al-sr"> for {rule.name}</span>
                </button>
                <button type="button" className="small" onClick={() => void evaluateNow()} disabled={evaluate.busy} aria-busy={evaluate.busy}>
                  {evaluate.busy ? 'Evaluating…' : 'Evaluate now'}
                  <span className="al-sr">: {rule.name}</span>
                </button>
                <ConfirmButton
                  className="danger small"
                  label={
                    <>
                      Delete<span className="al-sr"> {rule.name}</span>
                    </>
                  }
                  title={`Delete “${rule.name}”?`}
                  message="The rule stops watching at once. Its past firings stay in the history."
                  confirmLabel="Delete rule"
                  onConfirm={deleteRule}
                />
              </div>
            )}
            <ErrorMessage error={error} />
            {outcome && <OutcomeView rule={rule} outcome={outcome} host={host} historyPath={historyPath} onDismiss={() => setOutcome(null)} />}
          </td>
        </tr>
      )}
    </tbody>
  );
}

function OutcomeView({
  rule,
  outcome,
  host,
  historyPath,
  onDismiss,
}: {
  rule: Rule;
  outcome: Outcome;
  host: string | null;
  historyPath: string;
  onDismiss(): void;
}) {
  const { game } = useGame();
  const dismiss = (
    <button type="button" className="link al-dismiss" onClick={onDismiss} aria-label={`Dismiss the result for ${rule.name}`}>
      Dismiss
    </button>
  );
  if (outcome.kind === 'test') {
    const { result } = outcome;
    return result.webhook_status === 'sent' ? (
      <div className="success al-result" role="status">
        <span>
          <strong>Test message delivered.</strong> The webhook at {host} accepted it; check the channel it posts to.
        </span>
        {dismiss}
      </div>
    ) : (
      <div className="error al-result" role="alert">
        <span>
          <strong>The test message was not delivered.</strong> {result.error ?? 'The webhook refused it.'}
        </span>
        {dismiss}
      </div>
    );
  }
  const { result } = outcome;
  const delivery = deliveryOf(result);
  const summary = result.fired ? firedSummary(delivery) : null;
  const failed = delivery?.email === 'failed' || delivery?.webhook === 'failed';
  const tone = result.fired ? (failed ? 'error' : summary?.allWent ? 'al-fired' : 'notice') : result.triggered ? 'notice' : 'success';
  const headline = summary ? summary.headline : result.triggered ? 'Triggered, but not sent.' : 'Not fired.';
  const bad = isBadChange(rule.type, result.change_percent);
  return (
    <div className={`${tone} al-result`} role="status">
      <div className="al-result-body">
        <strong>{headline}</strong>
        <dl className="al-figures">
          <div>
            <dt>Current</dt>
            <dd>{valueText(rule.type, result.current_value, rule.metric, game.currency)}</dd>
          </div>
          <div>
            <dt>Baseline</dt>
            <dd>{valueText(rule.type, result.baseline_value, rule.metric, game.currency)}</dd>
          </div>
          <div>
            <dt>Change</dt>
            <dd className={result.change_percent === 0 ? undefined : bad ? 'al-bad' : 'al-good'}>{changeText(result.change_percent)}</dd>
          </div>
        </dl>
        <span className="al-reason">{result.reason}</span>
        {result.fired && delivery && (
          <ul className="al-delivery" aria-label="Notifications">
            <li>
              <DeliveryBadge status={delivery.email} /> <span>{emailText(delivery.email, rule.email)}</span>
              {delivery.emailError && <span className="al-delivery-error"> {delivery.emailError}</span>}
            </li>
            <li>
              <DeliveryBadge status={delivery.webhook} /> <span>{webhookText(delivery.webhook, host)}</span>
              {delivery.webhookError && <span className="al-delivery-error"> {delivery.webhookError}</span>}
            </li>
          </ul>
        )}
        {result.fired && (
          <span>
            <Link to={historyPath}>See it in the history</Link>
          </span>
        )}
      </div>
      {dismiss}
    </div>
  );
}

/** How each channel went, from the answer; null when it did not fire (nothing was tried). */
function deliveryOf(result: Schemas['EvaluationResult']): Delivery | null {
  if (!result.fired || !result.email_status || !result.webhook_status) return null;
  return {
    email: result.email_status,
    webhook: result.webhook_status,
    emailError: result.email_error,
    webhookError: result.webhook_error,
  };
}

/** The headline of a firing, from how its channels went. */
function firedSummary(delivery: Delivery | null): { headline: string; allWent: boolean } {
  if (!delivery) return { headline: 'Fired. How the notifications went is in the history.', allWent: false };
  const email = delivery.email;
  const webhook = delivery.webhook;
  if (email === 'failed' || webhook === 'failed') {
    const sent = email === 'sent' || webhook === 'sent';
    return { headline: sent ? 'Fired, but a notification failed.' : 'Fired, but no notification went out.', allWent: false };
  }
  if (email === 'sent' && webhook === 'sent') return { headline: 'Fired: e-mail and webhook message sent.', allWent: true };
  if (email === 'sent') return { headline: 'Fired: e-mail sent.', allWent: webhook === 'skipped' };
  if (webhook === 'sent') return { headline: 'Fired: webhook message sent, e-mail not sent.', allWent: false };
  return { headline: 'Fired, but no notification went out.', allWent: false };
}

function emailText(status: string, to: string): string {
  if (status === 'sent') return `E-mail to ${to} sent.`;
  if (status === 'skipped') return `E-mail to ${to} not sent: this playtrace server has no SMTP server set, so it only wrote the message to its log.`;
  if (status === 'failed') return `E-mail to ${to} failed.`;
  return `E-mail to ${to}: ${status}.`;
}

function webhookText(status: string, host: string | null): string {
  if (status === 'sent') return `Webhook message to ${host ?? 'the webhook'} sent.`;
  if (status === 'skipped') return 'No webhook message: the rule has no webhook.';
  if (status === 'failed') return `Webhook message to ${host ?? 'the webhook'} failed.`;
  return `Webhook: ${status}.`;
}

function DeliveryBadge({ status }: { status: string }) {
  const tone = status === 'sent' ? 'good' : status === 'failed' ? 'bad' : 'neutral';
  const word = status === 'sent' ? 'Sent' : status === 'failed' ? 'Failed' : status === 'skipped' ? 'Skipped' : status;
  return <Badge tone={tone}>{word}</Badge>;
}
