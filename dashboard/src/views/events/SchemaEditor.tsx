// One event name's schema: edit it as JSON (checked as you type), try it on the newest stored
// events of that name, save it or delete it. `schemas/new` starts a schema for a new name.
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Card, ConfirmButton, Empty, ErrorMessage, Field } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { draftFromEvents } from './infer';
import { ValidationMode } from './ValidationMode';

const STARTER = `{
  "type": "object",
  "properties": {},
  "required": []
}`;

const CHECK_SIZES = [100, 500, 1000];

export function SchemaEditor() {
  const { eventName } = useParams();
  const { game } = useGame();
  const gameId = game.game_id;
  const isNew = eventName === undefined;
  const existing = useLoad(async () => {
    if (isNew) return null;
    try {
      return await unwrap(api.GET('/v1/games/{game_id}/event-schemas/{event_name}', { params: { path: { game_id: gameId, event_name: eventName } } }));
    } catch (e) {
      // No schema yet for this name: offer to create it.
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }, [gameId, eventName]);
  const back = `/games/${gameId}/events/schemas`;

  return (
    <>
      <p className="breadcrumb">
        <Link to={back}>Event schemas</Link> <span aria-hidden="true">/</span> <span>{isNew ? 'New schema' : eventName}</span>
      </p>
      <ValidationMode />
      <Async state={existing}>
        {(schema) =>
          !isNew && schema === null ? (
            <Card title={eventName}>
              <Empty title={`No schema for ${eventName}`}>
                Events named {eventName} are not checked. <Link to={`${back}/new?event_name=${encodeURIComponent(eventName ?? '')}`}>Create a schema for it</Link>.
              </Empty>
            </Card>
          ) : (
            <EditorForm key={schema?.updated_at ?? 'new'} gameId={gameId} saved={schema} />
          )
        }
      </Async>
    </>
  );
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parse(text: string): Parsed {
  if (!text.trim()) return { ok: false, message: 'The schema is empty.' };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'boolean' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      return { ok: false, message: 'Valid JSON, but a schema must be a JSON object (or true / false).' };
    }
    return { ok: true, value };
  } catch (e) {
    return { ok: false, message: `Not valid JSON: ${(e as Error).message}` };
  }
}

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function EditorForm({ gameId, saved }: { gameId: string; saved: Schemas['EventSchema'] | null }) {
  const { canEdit } = useGame();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const isNew = saved === null;
  const location = useLocation();
  // "Adapt" on a ready schema (the list) starts from it.
  const start = (location.state as { start?: unknown } | null)?.start;
  const [name, setName] = useState(saved?.event_name ?? params.get('event_name') ?? '');
  const [text, setText] = useState(saved ? pretty(saved.schema) : start !== undefined ? pretty(start) : STARTER);
  const [savedText, setSavedText] = useState(saved ? pretty(saved.schema) : null);
  const [savedAt, setSavedAt] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>((location.state as { created?: boolean } | null)?.created ? 'Schema created.' : null);
  const [checkSize, setCheckSize] = useState(100);
  const [check, setCheck] = useState<{ result: Schemas['SchemaCheck']; text: string } | null>(null);
  const [draftNote, setDraftNote] = useState<string | null>(null);
  const saving = useAction();
  const checking = useAction();
  const drafting = useAction();
  const removing = useAction();
  const statusId = useId();

  const parsed = useMemo(() => parse(text), [text]);
  const trimmedName = name.trim();
  const nameOk = trimmedName.length >= 1 && trimmedName.length <= 128;
  const dirty = savedText === null || text !== savedText;
  const unsaved = canEdit && text !== (savedText ?? STARTER);

  // Closing or reloading the tab with unsaved edits asks first.
  useEffect(() => {
    if (!unsaved) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [unsaved]);


  async function save(e: FormEvent) {
    e.preventDefault();
    if (!parsed.ok || !nameOk) return;
    const answer = await saving.run(() =>
      unwrap(api.PUT('/v1/games/{game_id}/event-schemas/{event_name}', { params: { path: { game_id: gameId, event_name: trimmedName } }, body: parsed.value })),
    );
    if (!answer) return;
    if (isNew) {
      navigate(`/games/${gameId}/events/schemas/${encodeURIComponent(answer.event_name)}`, { replace: true, state: { created: true } });
      return;
    }
    const formatted = pretty(answer.schema);
    setText(formatted);
    setSavedText(formatted);
    setSavedAt(answer.updated_at);
    setMessage('Schema saved.');
  }

  async function runCheck() {
    if (!parsed.ok || !nameOk) return;
    const checkedText = text;
    const result = await checking.run(() =>
      unwrap(
        api.POST('/v1/games/{game_id}/event-schemas/{event_name}/check', {
          params: { path: { game_id: gameId, event_name: trimmedName } },
          body: { schema: parsed.value, limit: checkSize },
        }),
      ),
    );
    if (result) setCheck({ result, text: checkedText });
  }

  async function draft() {
    if (!nameOk) return;
    const page = await drafting.run(() =>
      unwrap(api.GET('/v1/games/{game_id}/events', { params: { path: { game_id: gameId }, query: { event_name: trimmedName, limit: 100 } } })),
    );
    if (!page) return;
    if (page.events.length === 0) {
      drafting.setError(`No stored events are named ${trimmedName} yet, so there is nothing to draft from.`);
      return;
    }
    setText(pretty(draftFromEvents(page.events.map((e) => e.properties))));
    setDraftNote(`Drafted from the ${formatNumber(page.events.length)} newest ${trimmedName} events. Review it (add limits such as minimum or enum) before saving.`);
  }

  async function remove() {
    const done = await removing.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/event-schemas/{event_name}', { params: { path: { game_id: gameId, event_name: trimmedName } } }));
      return true;
    });
    if (done) navigate(`/games/${gameId}/events/schemas`);
  }

  return (
    <>
      <Card title={isNew ? 'New event schema' : `Schema of ${saved.event_name}`}>
        <form className="form schema-form" onSubmit={save}>
          {isNew ? (
            <Field label="Event name" hint="The event_name this schema checks, exactly as your game sends it (1 to 128 characters).">
              <input required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} placeholder="purchase" autoFocus={!name} />
            </Field>
          ) : (
            <p className="schema-meta hint">
              Created {formatTime(saved.created_at)} · last changed {formatTime(savedAt ?? saved.updated_at)}
            </p>
          )}
          <label className="field">
            <span className="field-label">JSON Schema of the event's properties</span>
            <textarea
              className="code"
              spellCheck={false}
              value={text}
              readOnly={!canEdit}
              aria-invalid={!parsed.ok}
              aria-describedby={statusId}
              onChange={(e) => {
                setText(e.target.value);
                setMessage(null);
              }}
            />
          </label>
          <p id={statusId} className={`json-status ${parsed.ok ? 'ok' : 'bad'}`} aria-live="polite">
            {parsed.ok ? (
              <>
                <span aria-hidden="true">✓ </span>Valid JSON{canEdit && (dirty ? (isNew ? '' : ' · unsaved changes') : ' · saved')}
              </>
            ) : (
              <>
                <span aria-hidden="true">✗ </span>
                {parsed.message}
              </>
            )}
          </p>
          {draftNote && <p className="notice">{draftNote}</p>}
          {message && <p className="success">{message}</p>}
          <ErrorMessage error={saving.error} />
          <ErrorMessage error={drafting.error} />
          <ErrorMessage error={removing.error} />
          <div className="schema-actions">
            {canEdit && (
              <button type="submit" className="primary" disabled={saving.busy || !parsed.ok || !nameOk} aria-busy={saving.busy}>
                {saving.busy ? 'Saving…' : isNew ? 'Create schema' : 'Save schema'}
              </button>
            )}
            {canEdit && (
              <button type="button" onClick={draft} disabled={drafting.busy || !nameOk} aria-busy={drafting.busy}>
                {drafting.busy ? 'Drafting…' : 'Draft from recent events'}
              </button>
            )}
            {canEdit && !isNew && (
              <ConfirmButton
                label="Delete schema"
                title={`Delete the schema of ${saved.event_name}?`}
                message={`Events named ${saved.event_name} will no longer be checked. Their stored events stay.`}
                confirmLabel="Delete schema"
                onConfirm={remove}
              />
            )}
          </div>
        </form>
      </Card>

      <Card title="Try it on recent events">
        <div className="form inline check-form">
          <Field label="Events to check">
            <select value={checkSize} onChange={(e) => setCheckSize(Number(e.target.value))}>
              {CHECK_SIZES.map((n) => (
                <option key={n} value={n}>
                  The newest {formatNumber(n)}
                </option>
              ))}
            </select>
          </Field>
          <button type="button" className="primary" onClick={runCheck} disabled={checking.busy || !parsed.ok || !nameOk} aria-busy={checking.busy}>
            {checking.busy ? 'Checking…' : 'Check against recent events'}
          </button>
        </div>
        <p className="hint card-hint check-hint">
          Runs the schema in the editor (saved or not) on the stored events named {trimmedName || '…'} exactly as /v1/track would. Nothing
          is saved.
        </p>
        <ErrorMessage error={checking.error} />
        {checking.busy && !check && <p className="hint">Checking…</p>}
        {check && <CheckResult result={check.result} stale={check.text !== text} />}
      </Card>
    </>
  );
}

function CheckResult({ result, stale }: { result: Schemas['SchemaCheck']; stale: boolean }) {
  const broken = new Set(result.violations.map((v) => v.id)).size;
  // The client's event ids, when it sends them, tell the events apart in its own logs.
  const withIds = result.violations.some((v) => v.event_id);
  return (
    <div className="check-result" aria-live="polite">
      {stale && <p className="notice">The schema changed since this check. Check again to see the current result.</p>}
      {result.checked === 0 ? (
        <Empty title={`No stored ${result.event_name} events yet`}>There is nothing to check the schema against.</Empty>
      ) : result.violations.length === 0 ? (
        <p className="success">
          All {formatNumber(result.checked)} recent {result.event_name} {result.checked === 1 ? 'event matches' : 'events match'}.
        </p>
      ) : (
        <>
          <p className="error" role="status">
            {formatNumber(broken)} of {formatNumber(result.checked)} recent {result.event_name} {result.checked === 1 ? 'event breaks' : 'events break'} this schema.
          </p>
          <div className="table-wrap">
            <table className="table compact" aria-label="Violations">
              <thead>
                <tr>
                  <th scope="col">Time (UTC)</th>
                  <th scope="col">Player</th>
                  {withIds && <th scope="col">Event ID</th>}
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {result.violations.map((v, i) => (
                  <tr key={`${v.id}-${i}`}>
                    <td className="nowrap">{formatTime(v.occurred_at)}</td>
                    <td className="mono-cell">{v.player_id ?? <span className="hint">anonymous</span>}</td>
                    {withIds && <td className="mono-cell">{v.event_id ?? <span className="hint">—</span>}</td>}
                    <td>
                      <code className="violation">{v.message}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
