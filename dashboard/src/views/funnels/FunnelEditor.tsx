// The funnel builder: a name, a mode, an optional conversion window and 2 to 20 ordered
// steps (event names), which can be added, removed and moved, by mouse or keyboard.
import { useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Card, ErrorMessage, Field, PageHeader, SubmitButton } from '../../ui/components';
import { formatNumber, rangeBounds } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { MODES, StepPath, type Funnel } from './shared';

const MIN_STEPS = 2;
const MAX_STEPS = 20;

interface StepRow {
  key: number;
  event: string;
}

export function FunnelEditor() {
  const { funnelId } = useParams();
  const { game, canEdit } = useGame();
  const existing = useLoad<Funnel | null>(
    () =>
      funnelId
        ? unwrap(api.GET('/v1/games/{game_id}/funnels/{funnel_id}', { params: { path: { game_id: game.game_id, funnel_id: funnelId } } }))
        : Promise.resolve(null),
    [game.game_id, funnelId],
  );
  const title = funnelId ? 'Edit funnel' : 'New funnel';
  const back = funnelId ? `/games/${game.game_id}/funnels/${funnelId}` : `/games/${game.game_id}/funnels`;

  if (!canEdit) {
    return (
      <>
        <PageHeader title={title} />
        <p className="notice">
          Only editors and owners can change funnels. <Link to={back}>Back</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeader title={title} />
      <Async state={existing}>{(funnel) => <EditorForm key={funnel?.funnel_id ?? 'new'} funnel={funnel} back={back} />}</Async>
    </>
  );
}

function EditorForm({ funnel, back }: { funnel: Funnel | null; back: string }) {
  const { game } = useGame();
  const navigate = useNavigate();
  const save = useAction();
  const nextKey = useRef(0);
  const row = (event = ''): StepRow => ({ key: ++nextKey.current, event });
  const [name, setName] = useState(funnel?.name ?? '');
  const [mode, setMode] = useState(funnel?.mode ?? 'loose');
  const [hours, setHours] = useState(funnel?.within_hours ? String(funnel.within_hours) : '');
  const [steps, setSteps] = useState<StepRow[]>(() => (funnel ? funnel.steps.map((s) => row(s)) : [row(), row()]));
  const listId = useId();
  const modeName = useId();

  // Event names the game sent in the last 90 days, offered as suggestions (best effort).
  const known = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/events/counts', { params: { path: { game_id: game.game_id }, query: rangeBounds('90d') } })),
    [game.game_id],
  );

  // Focus follows the row a keyboard action touched.
  const inputs = useRef(new Map<number, HTMLInputElement>());
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  const [focus, setFocus] = useState<{ key: number; target: 'input' | 'up' | 'down' } | null>(null);
  useLayoutEffect(() => {
    if (!focus) return;
    const element =
      focus.target === 'input'
        ? inputs.current.get(focus.key)
        : (buttons.current.get(`${focus.key}:${focus.target}`) ?? null);
    const fallback = buttons.current.get(`${focus.key}:${focus.target === 'up' ? 'down' : 'up'}`);
    if (element && !(element as HTMLButtonElement).disabled) element.focus();
    else if (fallback && !fallback.disabled) fallback.focus();
    else inputs.current.get(focus.key)?.focus();
    setFocus(null);
  }, [focus]);

  function setEvent(key: number, event: string) {
    setSteps((list) => list.map((s) => (s.key === key ? { ...s, event } : s)));
  }

  function move(index: number, by: -1 | 1, target: 'input' | 'up' | 'down') {
    const to = index + by;
    if (to < 0 || to >= steps.length) return;
    const next = steps.slice();
    const [moved] = next.splice(index, 1);
    next.splice(to, 0, moved);
    setSteps(next);
    setFocus({ key: moved.key, target });
  }

  function remove(index: number) {
    if (steps.length <= MIN_STEPS) return;
    const next = steps.filter((_, i) => i !== index);
    setSteps(next);
    setFocus({ key: next[Math.min(index, next.length - 1)].key, target: 'input' });
  }

  function add(after = steps.length - 1) {
    if (steps.length >= MAX_STEPS) return;
    const added = row();
    const next = steps.slice();
    next.splice(after + 1, 0, added);
    setSteps(next);
    setFocus({ key: added.key, target: 'input' });
  }

  function onStepKey(e: KeyboardEvent<HTMLInputElement>, index: number) {
    if (e.altKey && e.key === 'ArrowUp') {
      e.preventDefault();
      move(index, -1, 'input');
    } else if (e.altKey && e.key === 'ArrowDown') {
      e.preventDefault();
      move(index, 1, 'input');
    } else if (e.key === 'Enter' && e.currentTarget.value.trim() !== '' && index === steps.length - 1 && steps.length < MAX_STEPS) {
      // Enter on a filled last step starts the next one instead of submitting.
      e.preventDefault();
      add(index);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const names = steps.map((s) => s.event.trim());
    const empty = names.findIndex((n) => n === '');
    if (empty >= 0) {
      save.setError(`Step ${empty + 1} needs an event name.`);
      inputs.current.get(steps[empty].key)?.focus();
      return;
    }
    const within = hours.trim() === '' ? null : Number(hours);
    const saved = await save.run(() =>
      funnel
        ? unwrap(
            api.PATCH('/v1/games/{game_id}/funnels/{funnel_id}', {
              params: { path: { game_id: game.game_id, funnel_id: funnel.funnel_id } },
              // `null` removes the window; the generated type only knows the number.
              body: { name: name.trim(), mode, steps: names, within_hours: within as number },
            }),
          )
        : unwrap(
            api.POST('/v1/games/{game_id}/funnels', {
              params: { path: { game_id: game.game_id } },
              body: { name: name.trim(), mode, steps: names, ...(within === null ? {} : { within_hours: within }) },
            }),
          ),
    );
    if (saved) navigate(`/games/${game.game_id}/funnels/${saved.funnel_id}`);
  }

  const filled = steps.map((s) => s.event.trim()).filter(Boolean);
  return (
    <form className="funnel-editor" onSubmit={submit} aria-label={funnel ? 'Edit funnel' : 'New funnel'}>
      <Card title="Funnel">
        <div className="form">
          <Field label="Name" hint="1 to 100 characters, e.g. Onboarding or First purchase.">
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="Onboarding" />
          </Field>
          <fieldset className="funnel-modes">
            <legend className="field-label">Mode</legend>
            {MODES.map((m) => (
              <label key={m.value} className={`funnel-mode${mode === m.value ? ' selected' : ''}`}>
                <input type="radio" name={modeName} value={m.value} checked={mode === m.value} onChange={() => setMode(m.value)} />
                <span>
                  <strong>{m.label}</strong>
                  <span className="hint">{m.hint}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <Field
            label="Conversion window (hours)"
            hint="Optional, 1 to 8760. Players must reach each step within this many hours of their first step-1 event. Empty: no limit beyond the report's date range."
          >
            <input type="number" inputMode="numeric" min={1} max={8760} step={1} value={hours} onChange={(e) => setHours(e.target.value)} placeholder="No limit" />
          </Field>
        </div>
      </Card>

      <Card title="Steps">
        <p className="hint funnel-steps-hint">
          The event names players go through, in order ({MIN_STEPS} to {MAX_STEPS}). Alt+↑ and Alt+↓ move the step you are typing in;
          Enter on the last step adds another.
        </p>
        <ol className="funnel-step-list">
          {steps.map((step, index) => (
            <li key={step.key} className="funnel-step-row">
              <span className="funnel-step-number" aria-hidden="true">
                {index + 1}
              </span>
              <label className="field funnel-step-field">
                <span className="field-label">Step {index + 1} event</span>
                <input
                  ref={(el) => {
                    if (el) inputs.current.set(step.key, el);
                    else inputs.current.delete(step.key);
                  }}
                  required
                  maxLength={128}
                  list={listId}
                  value={step.event}
                  onChange={(e) => setEvent(step.key, e.target.value)}
                  onKeyDown={(e) => onStepKey(e, index)}
                  placeholder={index === 0 ? 'tutorial_start' : index === 1 ? 'tutorial_complete' : 'event_name'}
                  autoComplete="off"
                  spellCheck={false}
                />
              </label>
              <div className="row-actions funnel-step-actions">
                {(['up', 'down'] as const).map((direction) => (
                  <button
                    key={direction}
                    type="button"
                    className="small"
                    ref={(el) => {
                      if (el) buttons.current.set(`${step.key}:${direction}`, el);
                      else buttons.current.delete(`${step.key}:${direction}`);
                    }}
                    aria-label={`Move step ${index + 1} ${direction}`}
                    title={`Move ${direction}`}
                    disabled={direction === 'up' ? index === 0 : index === steps.length - 1}
                    onClick={() => move(index, direction === 'up' ? -1 : 1, direction)}
                  >
                    {direction === 'up' ? '↑' : '↓'}
                  </button>
                ))}
                <button
                  type="button"
                  className="small danger"
                  aria-label={`Remove step ${index + 1}`}
                  title="Remove"
                  disabled={steps.length <= MIN_STEPS}
                  onClick={() => remove(index)}
                >
                  ✕
                </button>
              </div>
            </li>
          ))}
        </ol>
        <datalist id={listId}>
          {known.data?.counts.map((c) => (
            <option key={c.event_name} value={c.event_name}>
              {formatNumber(c.count)} events
            </option>
          ))}
        </datalist>
        <button type="button" onClick={() => add()} disabled={steps.length >= MAX_STEPS}>
          + Add step
        </button>
        {steps.length >= MAX_STEPS && <span className="hint"> A funnel has at most {MAX_STEPS} steps.</span>}
        {filled.length >= 2 && (
          <p className="funnel-preview">
            <span className="hint">Reads as: </span>
            <StepPath steps={filled} />
          </p>
        )}
      </Card>

      <ErrorMessage error={save.error} />
      <div className="funnel-editor-actions">
        <SubmitButton busy={save.busy}>{funnel ? 'Save changes' : 'Create funnel'}</SubmitButton>
        <Link to={back}>Cancel</Link>
      </div>
    </form>
  );
}
