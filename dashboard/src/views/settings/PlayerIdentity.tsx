// Player identity of a game: whether requests must carry a player token (player_auth), whether
// game keys may read what is not about one player (key_reads), the per-player rate limit, and
// the secret the studio's backend signs custom player ids with (made and shown once).
import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../auth';
import { useGame } from '../../GameShell';
import { Badge, Card, ConfirmButton, CopyButton, ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { formatNumber } from '../../ui/format';
import { useAction } from '../../ui/useLoad';
import { Saved, useSaveGame, type Changes } from './saveGame';
import { DEFAULT_PLAYER_RATE_LIMIT, PLAYER_AUTH_MODES } from './shared';

function modeOf(value: string) {
  return PLAYER_AUTH_MODES.find((m) => m.value === value);
}

export function PlayerIdentity() {
  const { isOwner } = useGame();
  return (
    <Card title="Player identity">
      <p className="hint card-intro">
        Your API key ships inside every copy of the game, so anyone can extract it and, with the key alone, act as any player.
        Player tokens tell players apart: the game signs its player in (the SDK’s <code>playerAuth</code> option) and sends the
        token with every call.
      </p>
      <div className="identity-layout">
        {isOwner ? <IdentityForm /> : <IdentityFacts />}
        <PlayerSecret />
      </div>
    </Card>
  );
}

function limitText(limit: number | null | undefined): string {
  return limit == null
    ? `${formatNumber(DEFAULT_PLAYER_RATE_LIMIT)} requests a minute per player (the default)`
    : `${formatNumber(limit)} requests a minute per player`;
}

/** What viewers and editors see: the settings, without controls. */
function IdentityFacts() {
  const { game } = useGame();
  const mode = modeOf(game.player_auth);
  return (
    <dl className="facts identity-main">
      <dt>Player sign-in</dt>
      <dd>
        <strong>{mode?.label ?? game.player_auth}</strong>
        {mode && <div className="hint">{mode.description}</div>}
      </dd>
      <dt>Game key reads</dt>
      <dd>
        {game.key_reads
          ? 'Game keys may read funnel reports and the presence list.'
          : 'Game keys may not read funnel reports or the presence list; they are read here in the dashboard.'}
      </dd>
      <dt>Rate limit</dt>
      <dd>{limitText(game.player_rate_limit_per_minute)}</dd>
    </dl>
  );
}

function IdentityForm() {
  const { game } = useGame();
  const { me } = useSession();
  const admin = me?.is_admin === true;
  const [mode, setMode] = useState(game.player_auth);
  const [keyReads, setKeyReads] = useState(game.key_reads);
  const [limit, setLimit] = useState(game.player_rate_limit_per_minute?.toString() ?? '');
  const save = useSaveGame();

  useEffect(() => {
    setMode(game.player_auth);
    setKeyReads(game.key_reads);
    setLimit(game.player_rate_limit_per_minute?.toString() ?? '');
  }, [game.player_auth, game.key_reads, game.player_rate_limit_per_minute]);

  const chosen = modeOf(mode);
  const saved = modeOf(game.player_auth);
  const cap = game.max_rate_limit_per_minute;
  const capText = admin
    ? 'As the instance admin you may set any value.'
    : cap != null
      ? `At most ${formatNumber(cap)}, the cap the server’s admin set for this game.`
      : 'At most the server’s limit per key (normally 1,000).';

  function edited() {
    save.clearSaved();
    save.setError(null);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    save.clearSaved();
    const changes: Changes = {};
    if (mode !== game.player_auth) changes.player_auth = mode;
    if (keyReads !== game.key_reads) changes.key_reads = keyReads;
    const wanted = limit.trim() === '' ? undefined : Number(limit);
    if (wanted === undefined && game.player_rate_limit_per_minute != null) {
      save.setError(
        admin
          ? 'The limit per player cannot be set back to the default from here yet; enter a number of requests a minute.'
          : `Only the admin of this server can set the limit per player back to the default (${DEFAULT_PLAYER_RATE_LIMIT}); enter a number of requests a minute.`,
      );
      return;
    }
    if (wanted !== undefined && wanted !== game.player_rate_limit_per_minute) changes.player_rate_limit_per_minute = wanted;
    if (Object.keys(changes).length === 0) {
      save.setError('Nothing changed.');
      return;
    }
    await save.save(changes);
  }

  return (
    <form onSubmit={submit} className="form identity-main">
      <Field label="Player sign-in" hint={chosen?.description}>
        <select
          value={mode}
          onChange={(e) => {
            setMode(e.target.value as typeof mode);
            edited();
          }}
        >
          {PLAYER_AUTH_MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
              {m.value === game.player_auth ? ' (current)' : ''}
            </option>
          ))}
        </select>
      </Field>
      {mode === 'required' && game.player_auth !== 'required' && (
        <p className="notice warn-note">
          Builds of your game that do not sign their players in yet will have their saves, scores, unlocks, presence and events
          refused (401) once you save.
        </p>
      )}
      <label className="field checkbox">
        <input
          type="checkbox"
          checked={keyReads}
          onChange={(e) => {
            setKeyReads(e.target.checked);
            edited();
          }}
        />
        <span>Game keys may read funnel reports and the presence list</span>
      </label>
      <p className="hint checkbox-hint">
        Turn it off when the game itself does not show them: anyone holding the key could otherwise read them. The dashboard
        always can.
      </p>
      <Field
        label="Rate limit per player (requests a minute)"
        hint={`Each player token’s own window, counted beside the key’s. Default ${DEFAULT_PLAYER_RATE_LIMIT}. ${capText}`}
      >
        <input
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          placeholder={`${DEFAULT_PLAYER_RATE_LIMIT} (default)`}
          value={limit}
          onChange={(e) => {
            setLimit(e.target.value);
            edited();
          }}
        />
      </Field>
      <ErrorMessage error={save.error} />
      <Saved show={save.saved}>
        Saved: player sign-in is {saved?.label.toLowerCase() ?? game.player_auth}; game keys{' '}
        {game.key_reads ? 'may' : 'may not'} read funnel reports and the presence list;{' '}
        {limitText(game.player_rate_limit_per_minute)}.
      </Saved>
      <div>
        <SubmitButton busy={save.busy}>Save player identity</SubmitButton>
      </div>
    </form>
  );
}

const SIGNING_EXAMPLE = `// On your server (Node.js), after your own login:
import { createHmac } from 'node:crypto';
const timestamp = Math.floor(Date.now() / 1000);
const signature = createHmac('sha256', process.env.PLAYTRACE_PLAYER_SECRET)
  .update(\`\${customId}:\${timestamp}\`)
  .digest('hex');
// The game sends { custom_id: customId, timestamp, signature }
// to POST /v1/players/auth within 10 minutes.`;

/** The secret for custom player ids: whether one is set, and (owners) making a new one. */
function PlayerSecret() {
  const { game, set, isOwner } = useGame();
  const [secret, setSecret] = useState<string | null>(null);
  const make = useAction();
  const titleId = useId();

  async function rotate() {
    setSecret(null);
    const made = await make.run(() =>
      unwrap(api.POST('/v1/games/{game_id}/player-secret', { params: { path: { game_id: game.game_id } } })),
    );
    if (made) {
      setSecret(made.secret);
      set({ ...game, player_secret_set: true });
    }
  }

  return (
    <section className="identity-secret" aria-labelledby={titleId}>
      <h3 id={titleId}>
        Player secret{' '}
        {game.player_secret_set ? <Badge tone="good">Set</Badge> : <Badge>Not made yet</Badge>}
      </h3>
      <p className="hint">
        Only needed to sign players in with your own account ids: your backend signs each id with this secret (HMAC-SHA256).
        Device ids need no secret.
      </p>
      {secret && (
        <div className="new-key" role="status">
          <p>
            <strong>Your new player secret is ready.</strong> Copy it now: it will not be shown again. Keep it on your studio’s
            servers, never in the game.
          </p>
          <div className="secret">
            <code aria-label="New player secret">{secret}</code>
            <CopyButton text={secret} label="Copy secret" />
          </div>
          <button type="button" className="small" onClick={() => setSecret(null)}>
            I have stored it
          </button>
        </div>
      )}
      {isOwner && (
        <>
          {game.player_secret_set ? (
            <ConfirmButton
              label="Replace the player secret"
              title="Replace the player secret?"
              message={
                <>
                  The current secret stops working at once: custom ids signed with it are refused until your backend uses the new
                  one. Players already signed in keep their tokens, and device sign-ins are not affected.
                </>
              }
              confirmLabel="Replace secret"
              onConfirm={rotate}
            />
          ) : (
            <div>
              <button type="button" className="primary" disabled={make.busy} aria-busy={make.busy} onClick={() => void rotate()}>
                {make.busy ? 'Working…' : 'Make a player secret'}
              </button>
            </div>
          )}
          <ErrorMessage error={make.error} />
          <details className="snippet">
            <summary>How your backend signs a player id</summary>
            <pre>{SIGNING_EXAMPLE}</pre>
          </details>
        </>
      )}
    </section>
  );
}
