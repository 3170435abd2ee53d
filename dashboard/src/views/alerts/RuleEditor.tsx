// The rule form, used to create a rule and to edit one: name, kind (with a sentence saying what
// it compares; the metric kinds with their metric), threshold, comparison window, environment, e-mail, webhook and enabled.
import { useId, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useSession } from '../../auth';
import { useGame } from '../../GameShell';
import { Async, Card, ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { useAction, useLoad } from '../../ui/useLoad';
import { KINDS, kindOf, METRICS, thresholdSentence, WINDOW_PRESETS, windowSentence, type KindId } from './kinds';

type Rule = Schemas['AlertRule'];
type Environment = '' | 'development' | 'production';

interface Draft {
  name: string;
  type: KindId;
  /** The metric of a metric kind. */
  metric: string;
  threshold: string;
  window: string;
  email: string;
  webhook: string;
  environment: Environment;
  enabled: boolean;
}

function draftOf(rule: Rule): Draft {
  return {
    name: rule.name,
    type: kindOf(rule.type).id,
    metric: rule.metric ?? 'new_users',
    threshold: String(rule.threshold),
    window: String(rule.comparison_window_hours),
    email: rule.email,
    webhook: rule.discord_webhook_url ?? '',
    environment: (rule.environment ?? '') as Environment,
    enabled: rule.enabled,
  };
}

export function NewRule() {
  const { game, canEdit } = useGame();
  const session = useSession();
  const navigate = useNavigate();
  const base = `/games/${game.game_id}/alerts`;
  const save = useAction();
  if (!canEdit) return <ViewerNotice base={base} />;

  async function submit(draft: Draft) {
    const rule = await save.run(() =>
      unwrap(
        api.POST('/v1/alerts', {
          body: {
            game_id: game.game_id,
            name: draft.name.trim(),
            type: draft.type,
            metric: kindOf(draft.type).takesMetric ? draft.metric : undefined,
            threshold: Number(draft.threshold),
            comparison_window_hours: Number(draft.window),
            email: draft.email.trim(),
            discord_webhook_url: draft.webhook.trim() || undefined,
            environment: draft.environment || undefined,
            enabled: draft.enabled,
          },
        }),
      ),
    );
    if (rule) navigate(base, { state: { flash: `Rule “${rule.name}” created.` } });
  }

  return (
    <Card title="New alert rule">
      <RuleForm
        initial={{
          name: '',
          type: 'crash_spike',
          metric: 'new_users',
          threshold: '2',
          window: '168',
          email: session.me?.email ?? '',
          webhook: '',
          environment: '',
          enabled: true,
        }}
        busy={save.busy}
        error={save.error}
        submitLabel="Create rule"
        cancelPath={base}
        onSubmit={submit}
      />
    </Card>
  );
}

export function EditRule() {
  const { game, canEdit } = useGame();
  const { ruleId = '' } = useParams();
  const navigate = useNavigate();
  const base = `/games/${game.game_id}/alerts`;
  const rule = useLoad(() => unwrap(api.GET('/v1/alerts/{rule_id}', { params: { path: { rule_id: ruleId } } })), [ruleId]);
  const save = useAction();
  if (!canEdit) return <ViewerNotice base={base} />;

  async function submit(before: Rule, draft: Draft) {
    const webhook = draft.webhook.trim();
    // The API reads a null environment as "both"; the generated type only knows strings.
    const environment = (draft.environment || null) as string | undefined;
    const updated = await save.run(() =>
      unwrap(
        api.PATCH('/v1/alerts/{rule_id}', {
          params: { path: { rule_id: before.rule_id } },
          body: {
            name: draft.name.trim(),
            type: draft.type,
            // A fixed kind's metric is cleared by the server.
            ...(kindOf(draft.type).takesMetric ? { metric: draft.metric } : {}),
            threshold: Number(draft.threshold),
            comparison_window_hours: Number(draft.window),
            email: draft.email.trim(),
            // Only a changed webhook is sent ("" removes it).
            ...(webhook !== (before.discord_webhook_url ?? '') ? { discord_webhook_url: webhook } : {}),
            ...(draft.environment !== (before.environment ?? '') ? { environment } : {}),
            enabled: draft.enabled,
          },
        }),
      ),
    );
    if (updated) navigate(base, { state: { flash: `Rule “${updated.name}” saved.` } });
  }

  return (
    <Async state={rule}>
      {(loaded) => (
        <Card title={`Edit “${loaded.name}”`}>
          <RuleForm
            key={loaded.rule_id}
            initial={draftOf(loaded)}
            busy={save.busy}
            error={save.error}
            submitLabel="Save rule"
            cancelPath={base}
            onSubmit={(draft) => submit(loaded, draft)}
          />
        </Card>
      )}
    </Async>
  );
}

function ViewerNotice({ base }: { base: string }) {
  return (
    <Card>
      <p className="notice">You have view access to this game: editors and owners create and change alert rules.</p>
      <Link to={base}>Back to the rules</Link>
    </Card>
  );
}

function RuleForm({
  initial,
  busy,
  error,
  submitLabel,
  cancelPath,
  onSubmit,
}: {
  initial: Draft;
  busy: boolean;
  error: string | null;
  submitLabel: string;
  cancelPath: string;
  onSubmit(draft: Draft): void;
}) {
  const [draft, setDraft] = useState<Draft>(initial);
  const explainId = useId();
  const kindId = useId();
  const metricId = useId();
  const kind = kindOf(draft.type);
  const threshold = Number(draft.threshold);
  const hours = Number(draft.window);

  function set<K extends keyof Draft>(key: K, value: Draft[K]) {
    setDraft((d) => ({ ...d, [key]: value }));
  }

  function changeKind(next: KindId) {
    setDraft((d) => {
      const was = kindOf(d.type);
      const now = kindOf(next);
      // Switching between a spike and a drop kind: a spike's ×2 makes no sense as a drop.
      const threshold = was.spike !== now.spike && Number(d.threshold) === was.defaultThreshold ? String(now.defaultThreshold) : d.threshold;
      return { ...d, type: next, threshold };
    });
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    onSubmit(draft);
  }

  return (
    <form className="form al-form" onSubmit={submit}>
      <fieldset>
        <legend>What to watch</legend>
        <Field label="Name">
          <input required maxLength={100} value={draft.name} onChange={(e) => set('name', e.target.value)} placeholder="Crash spike after release" />
        </Field>
        <div className="field">
          <label className="field-label" htmlFor={kindId}>
            Kind
          </label>
          <select id={kindId} value={draft.type} onChange={(e) => changeKind(e.target.value as KindId)} aria-describedby={explainId}>
            {KINDS.map((k) => (
              <option key={k.id} value={k.id}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        {kind.takesMetric && (
          <div className="field">
            <label className="field-label" htmlFor={metricId}>
              Metric
            </label>
            <select id={metricId} value={draft.metric} onChange={(e) => set('metric', e.target.value)}>
              {METRICS.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                </option>
              ))}
            </select>
          </div>
        )}
        <p className={`al-explain al-kind-border-${kind.id}`} id={explainId} aria-live="polite">
          <strong>{kind.label}:</strong> {kind.explain}
        </p>
        <div className="al-pair">
          <Field label="Threshold">
            <input
              type="number"
              required
              min="0.01"
              max="1000"
              step="any"
              inputMode="decimal"
              value={draft.threshold}
              onChange={(e) => set('threshold', e.target.value)}
            />
          </Field>
          <Field label="Comparison window (hours)">
            <input
              type="number"
              required
              min="1"
              max="2160"
              step="1"
              inputMode="numeric"
              value={draft.window}
              onChange={(e) => set('window', e.target.value)}
            />
          </Field>
        </div>
        <div className="al-sentences hint" aria-live="polite">
          <span>{thresholdSentence(draft.type, threshold)}</span>
          <span>{windowSentence(draft.type, hours)}</span>
        </div>
        <div className="al-presets" role="group" aria-label="Common windows">
          <span className="hint">Common windows:</span>
          {WINDOW_PRESETS.map((p) => (
            <button
              key={p.hours}
              type="button"
              className="small"
              aria-pressed={hours === p.hours}
              onClick={() => set('window', String(p.hours))}
            >
              {p.label}
            </button>
          ))}
        </div>
        <Field label="Environment">
          <select value={draft.environment} onChange={(e) => set('environment', e.target.value as Environment)}>
            <option value="">Both (development and production)</option>
            <option value="production">Production only</option>
            <option value="development">Development only</option>
          </select>
        </Field>
      </fieldset>
      <fieldset>
        <legend>Where to notify</legend>
        <Field label="E-mail">
          <input type="email" required autoComplete="email" value={draft.email} onChange={(e) => set('email', e.target.value)} />
        </Field>
        <Field label="Webhook URL" hint="Optional. Discord, or any service that takes Discord-style embeds. Use “Send test” after saving to check it.">
          <input
            type="url"
            value={draft.webhook}
            onChange={(e) => set('webhook', e.target.value)}
            placeholder="https://discord.com/api/webhooks/…"
            spellCheck={false}
          />
        </Field>
      </fieldset>
      <label className="field checkbox">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} />
        <span>Enabled</span>
        <span className="hint">— a disabled rule never fires.</span>
      </label>
      <ErrorMessage error={error} />
      <div className="row-actions">
        <SubmitButton busy={busy}>{submitLabel}</SubmitButton>
        <Link className="al-linkbutton" to={cancelPath}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
