// Remote config: the game's one JSON object, edited as text with live validation (where and
// what is wrong), formatting, the size against the API's limit, and an unsaved-changes mark.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, ErrorMessage, PageHeader } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { canonical, checkJson, kindOfValue } from './jsonCheck';
import './config.css';

/** The API's limit: 256 KiB of the values as compact JSON. */
const LIMIT_BYTES = 262_144;

type Loaded = Schemas['ConfigValues'];

export default function RemoteConfig() {
  const { game } = useGame();
  const config = useLoad(() => unwrap(api.GET('/v1/games/{game_id}/config', { params: { path: { game_id: game.game_id } } })), [game.game_id]);
  return (
    <>
      <PageHeader title="Remote config" />
      <Async state={config}>{(loaded) => <Editor key={game.game_id} loaded={loaded} onSaved={config.set} />}</Async>
      <HowGamesReadIt />
    </>
  );
}

function pretty(values: unknown): string {
  return JSON.stringify(values ?? {}, null, 2);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
}

type Validation =
  | { state: 'valid'; value: Record<string, unknown>; bytes: number }
  | { state: 'invalid'; message: string; offset?: number };

function validate(text: string): Validation {
  const check = checkJson(text);
  if (!check.ok) {
    return { state: 'invalid', message: `Line ${check.line}, column ${check.column}: ${check.message}.`, offset: check.offset };
  }
  const value = check.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { state: 'invalid', message: `The config must be a JSON object ({ … }), not ${kindOfValue(value)}.` };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > LIMIT_BYTES) {
    return { state: 'invalid', message: `The config is ${formatBytes(bytes)} as compact JSON; the limit is 256 KB.` };
  }
  return { state: 'valid', value: value as Record<string, unknown>, bytes };
}

function Editor({ loaded, onSaved }: { loaded: Loaded; onSaved(next: Loaded): void }) {
  const { game, canEdit } = useGame();
  const [saved, setSaved] = useState<Loaded>(loaded);
  const [text, setText] = useState(() => pretty(loaded.values));
  const [justSaved, setJustSaved] = useState(false);
  const save = useAction();
  const area = useRef<HTMLTextAreaElement>(null);
  const statusId = useId();
  const validation = useMemo(() => validate(text), [text]);
  const savedCanonical = useMemo(() => canonical(saved.values ?? {}), [saved]);
  const dirty = validation.state === 'valid' ? canonical(validation.value) !== savedCanonical : text !== pretty(saved.values);
  const canSave = canEdit && dirty && validation.state === 'valid' && !save.busy;
  const keys = validation.state === 'valid' ? Object.keys(validation.value).length : null;

  // Leaving the page with unsaved changes asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  async function submit() {
    if (!canSave || validation.state !== 'valid') return;
    const answer = await save.run(() =>
      unwrap(api.PUT('/v1/games/{game_id}/config', { params: { path: { game_id: game.game_id } }, body: { values: validation.value } })),
    );
    if (answer) {
      setSaved(answer);
      onSaved(answer);
      setJustSaved(true);
    }
  }

  function format() {
    if (validation.state === 'valid') setText(pretty(validation.value));
  }

  function goToError() {
    if (validation.state !== 'invalid' || validation.offset === undefined || !area.current) return;
    area.current.focus();
    area.current.setSelectionRange(validation.offset, validation.offset + 1);
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void submit();
    }
  }

  const lines = text.split('\n').length;

  return (
    <Card
      title="Values"
      actions={
        <div className="cfg-state" aria-live="polite">
          {dirty ? (
            <Badge tone="warn">Unsaved changes</Badge>
          ) : justSaved ? (
            <Badge tone="good">Saved</Badge>
          ) : (
            <Badge>No unsaved changes</Badge>
          )}
        </div>
      }
    >
      <p className="hint cfg-intro">
        One JSON object that every build of your game reads with its API key. Saving replaces the whole object.
        {saved.updated_at ? (
          <>
            {' '}
            <span className="cfg-updated">Last updated {formatTime(saved.updated_at)}.</span>
          </>
        ) : (
          <>
            {' '}
            <span className="cfg-updated">Never saved: games receive an empty object until you save.</span>
          </>
        )}
      </p>
      {!canEdit && <p className="notice">You have view access: editors and owners can change the config.</p>}
      <label className="field cfg-field">
        <span className="field-label">Config values (JSON)</span>
        <textarea
          ref={area}
          className="code cfg-editor"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setJustSaved(false);
          }}
          onKeyDown={onKeyDown}
          readOnly={!canEdit}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          autoComplete="off"
          wrap="off"
          rows={Math.min(28, Math.max(12, lines + 2))}
          aria-invalid={validation.state === 'invalid'}
          aria-describedby={statusId}
        />
      </label>
      <div id={statusId} className={`cfg-status ${validation.state === 'valid' ? 'cfg-valid' : 'cfg-invalid'}`} role="status">
        {validation.state === 'valid' ? (
          <>
            <span aria-hidden="true">✓ </span>
            <strong>Valid JSON</strong>
            <span className="hint">
              {keys} {keys === 1 ? 'key' : 'keys'} · {formatBytes(validation.bytes)} of 256 KB · {lines} {lines === 1 ? 'line' : 'lines'}
            </span>
          </>
        ) : (
          <>
            <span aria-hidden="true">✕ </span>
            <span>{validation.message}</span>
            {validation.offset !== undefined && (
              <button type="button" className="link" onClick={goToError}>
                Go to the error
              </button>
            )}
          </>
        )}
      </div>
      <ErrorMessage error={save.error} />
      {canEdit && (
        <div className="cfg-actions">
          <button type="button" className="primary" onClick={() => void submit()} disabled={!canSave} aria-busy={save.busy}>
            {save.busy ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={format} disabled={validation.state !== 'valid'}>
            Format
          </button>
          {dirty && (
            <ConfirmButton
              label="Discard changes"
              title="Discard your changes?"
              message="The editor goes back to the values last saved. Your edits are lost."
              confirmLabel="Discard changes"
              onConfirm={() => {
                setText(pretty(saved.values));
                save.setError(null);
              }}
            />
          )}
          <span className="hint cfg-shortcut">Ctrl+S (⌘S) saves.</span>
        </div>
      )}
    </Card>
  );
}

function HowGamesReadIt() {
  return (
    <Card title="How games read it">
      <p>
        Games fetch the config with their API key; development and production keys read the same values. Poll with{' '}
        <code>If-None-Match</code>: while nothing changes the answer is an empty <code>304</code>.
      </p>
      <pre className="cfg-snippet">
        {`GET /v1/config
X-Game-API-Key: <your key>
If-None-Match: "<ETag of the last answer>"

200 {"config": { …the values above… }, "updated_at": "…"}`}
      </pre>
    </Card>
  );
}
