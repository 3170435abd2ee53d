// A game's API keys: create one (the raw key is shown once), list them, revoke (owners only).
import { useState, type FormEvent } from 'react';
import { useLocation } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, CopyButton, Empty, ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useAction, useLoad, type Loaded } from '../../ui/useLoad';
import { formatDate } from './shared';

type CreatedKey = Schemas['CreatedKey'];
type KeyList = Schemas['KeyList'];
type KeySummary = Schemas['KeySummary'];

const ENVIRONMENTS = [
  { value: 'development', label: 'Development' },
  { value: 'production', label: 'Production' },
];

export function ApiKeys() {
  const { game, isOwner } = useGame();
  const location = useLocation();
  const justCreated = (location.state as { created?: boolean } | null)?.created === true;
  const keys = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/api-keys', { params: { path: { game_id: game.game_id } } })),
    [game.game_id],
  );
  return (
    <>
      {justCreated && (
        <p className="success" role="status">
          {game.name} is ready. Create its first API key below and put it in your game client.
        </p>
      )}
      {isOwner ? (
        <CreateKeyCard keys={keys} />
      ) : (
        <p className="notice">Only the owners of {game.name} can create or revoke API keys.</p>
      )}
      <Card title="API keys">
        <p className="hint card-intro">
          Game clients send their key in the <code>x-game-api-key</code> header. Events sent with a development key are marked{' '}
          <em>development</em>, so reports and alerts can leave your test sessions out.
        </p>
        <Async state={keys}>
          {({ api_keys: list }) =>
            list.length === 0 ? (
              <Empty title="No API keys yet">
                {isOwner ? 'Create one above and put it in your game client.' : 'An owner of the game can create one.'}
              </Empty>
            ) : (
              <KeyTable list={list} keys={keys} />
            )
          }
        </Async>
      </Card>
    </>
  );
}

function CreateKeyCard({ keys }: { keys: Loaded<KeyList> }) {
  const { game } = useGame();
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Schemas['Environment']>('development');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const create = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    const key = await create.run(() =>
      unwrap(
        api.POST('/v1/games/{game_id}/api-keys', {
          params: { path: { game_id: game.game_id } },
          body: { name: name.trim() || undefined, environment },
        }),
      ),
    );
    if (key) {
      setCreated(key);
      setName('');
      keys.reload();
    }
  }

  return (
    <Card title="Create an API key">
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      <form onSubmit={submit} className="form inline">
        <Field label="Key name">
          <input maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="iOS build" />
        </Field>
        <Field label="Environment">
          <select value={environment} onChange={(e) => setEnvironment(e.target.value as Schemas['Environment'])}>
            {ENVIRONMENTS.map((env) => (
              <option key={env.value} value={env.value}>
                {env.label}
              </option>
            ))}
          </select>
        </Field>
        <SubmitButton busy={create.busy}>Create key</SubmitButton>
      </form>
      <ErrorMessage error={create.error} />
    </Card>
  );
}

/** The raw key, in the one answer that carries it. */
function NewKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const label = created.name ? `key “${created.name}”` : 'key';
  return (
    <div className="new-key" role="status">
      <p>
        <strong>
          Your new {created.environment} {label} is ready.
        </strong>{' '}
        Copy it now and keep it somewhere safe: it will not be shown again.
      </p>
      <div className="secret">
        <code aria-label="New API key">{created.key}</code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <details className="snippet">
        <summary>Try it</summary>
        <pre>{`curl -X POST ${window.location.origin}/v1/track \\
  -H 'content-type: application/json' \\
  -H 'x-game-api-key: ${created.key}' \\
  -d '{"event_name": "session_start", "session_id": "test-1"}'`}</pre>
      </details>
      <button type="button" className="small" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}

function KeyTable({ list, keys }: { list: KeySummary[]; keys: Loaded<KeyList> }) {
  const { isOwner } = useGame();
  return (
    <div className="table-wrap">
      <table className="table keys-table stack-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Environment</th>
            <th scope="col">Created</th>
            {isOwner && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {list.map((key) => (
            <KeyRow key={key.key_id} apiKey={key} keys={keys} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ apiKey, keys }: { apiKey: KeySummary; keys: Loaded<KeyList> }) {
  const { game, isOwner } = useGame();
  const revoke = useAction();
  const label = apiKey.name || 'Unnamed key';

  async function confirm() {
    const done = await revoke.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/api-keys/{key_id}', { params: { path: { game_id: game.game_id, key_id: apiKey.key_id } } }));
      return true;
    });
    if (done && keys.data) keys.set({ api_keys: keys.data.api_keys.filter((k) => k.key_id !== apiKey.key_id) });
  }

  return (
    <tr>
      <td className="lead">
        {apiKey.name ? apiKey.name : <span className="hint">Unnamed key</span>}
        <ErrorMessage error={revoke.error} />
      </td>
      <td data-label="Key">
        <code>{apiKey.prefix}…</code>
      </td>
      <td data-label="Environment">
        <Badge tone={apiKey.environment === 'production' ? 'good' : 'neutral'}>{apiKey.environment}</Badge>
      </td>
      <td className="nowrap" data-label="Created" title={formatTime(apiKey.created_at)}>
        {formatDate(apiKey.created_at)}
      </td>
      {isOwner && (
        <td className="row-actions wide">
          <ConfirmButton
            className="danger small"
            label="Revoke"
            title={`Revoke ${label}?`}
            message={
              <>
                Game clients using the {apiKey.environment} key <code>{apiKey.prefix}…</code> are refused from now on. Events they
                already sent stay. This cannot be undone.
              </>
            }
            confirmLabel="Revoke key"
            onConfirm={confirm}
          />
        </td>
      )}
    </tr>
  );
}
