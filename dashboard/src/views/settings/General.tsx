// General settings of a game: name, event validation, the web origins of browser builds, how
// long events are kept, the plan (tier, quota, rate limit; changed by the instance admin),
// player identity and deleting the game.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../auth';
import { useGame } from '../../GameShell';
import { Badge, Card, CopyButton, ErrorMessage, Field, SubmitButton } from '../../ui/components';
import { formatMoney, formatNumber, formatTime } from '../../ui/format';
import { useAction } from '../../ui/useLoad';
import { PlayerIdentity } from './PlayerIdentity';
import { Saved, useSaveGame, type Changes } from './saveGame';
import { announceGamesChanged, roleLabel, TIERS, tierLabel, VALIDATION_MODES } from './shared';

export function General() {
  const { game, isOwner } = useGame();
  return (
    <>
      {!isOwner && (
        <p className="notice">
          You are {/^[aeiou]/i.test(game.role) ? 'an' : 'a'} <strong>{roleLabel(game.role).toLowerCase()}</strong> of {game.name}: only
          its owners can change these settings.
        </p>
      )}
      <div className="settings-grid">
        <DetailsCard />
        <PlanCard />
        <ValidationCard />
        <OriginsCard />
        <RetentionCard />
        <CurrencyCard />
      </div>
      <PlayerIdentity />
      {isOwner && <DangerZone />}
    </>
  );
}

function DetailsCard() {
  const { game, isOwner } = useGame();
  const { me } = useSession();
  const [name, setName] = useState(game.name);
  const save = useSaveGame();

  async function submit(e: FormEvent) {
    e.preventDefault();
    await save.save({ name: name.trim() });
  }

  return (
    <Card title="Game">
      {isOwner ? (
        <form onSubmit={submit} className="form">
          <Field label="Game name" hint="Shown to your team in the dashboard; players never see it.">
            <input
              required
              maxLength={100}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                save.clearSaved();
              }}
            />
          </Field>
          <ErrorMessage error={save.error} />
          <Saved show={save.saved}>The game is now called {game.name}.</Saved>
          <div>
            <SubmitButton busy={save.busy}>Save name</SubmitButton>
          </div>
        </form>
      ) : null}
      <dl className="facts">
        {!isOwner && (
          <>
            <dt>Name</dt>
            <dd>{game.name}</dd>
          </>
        )}
        <dt>Game ID</dt>
        <dd className="with-copy">
          <code>{game.game_id}</code>
          <CopyButton text={game.game_id} label="Copy ID" />
        </dd>
        <dt>Created</dt>
        <dd>{formatTime(game.created_at)}</dd>
        <dt>Your role</dt>
        <dd>
          <Badge>{roleLabel(game.role)}</Badge>
          {me?.is_admin && <span className="hint"> as the instance admin</span>}
        </dd>
      </dl>
    </Card>
  );
}

function ValidationCard() {
  const { game, isOwner } = useGame();
  const [mode, setMode] = useState(game.event_validation);
  const save = useSaveGame();
  const legend = useId();
  const current = VALIDATION_MODES.find((m) => m.value === game.event_validation);

  async function submit(e: FormEvent) {
    e.preventDefault();
    await save.save({ event_validation: mode });
  }

  return (
    <Card title="Event validation">
      <p className="hint card-intro">
        What happens to events that break the JSON Schema of their event name (schemas are set under Events). Changes reach
        every node within a few seconds.
      </p>
      {isOwner ? (
        <form onSubmit={submit} className="form">
          <fieldset className="choices" aria-labelledby={legend}>
            <legend id={legend} className="field-label">
              Validation mode
            </legend>
            {VALIDATION_MODES.map((m) => (
              <label key={m.value} className={`choice${mode === m.value ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="event_validation"
                  value={m.value}
                  checked={mode === m.value}
                  onChange={() => {
                    setMode(m.value as typeof mode);
                    save.clearSaved();
                  }}
                />
                <span>
                  <span className="choice-title">
                    <strong>{m.label}</strong>
                    {m.value === game.event_validation && <Badge>Current</Badge>}
                  </span>
                  <span className="hint">{m.description}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <ErrorMessage error={save.error} />
          <Saved show={save.saved}>Event validation is now {current?.label.toLowerCase()}.</Saved>
          <div>
            <SubmitButton busy={save.busy}>Save validation</SubmitButton>
          </div>
        </form>
      ) : (
        <dl className="facts">
          <dt>Mode</dt>
          <dd>
            <strong>{current?.label ?? game.event_validation}</strong>
            {current && <div className="hint">{current.description}</div>}
          </dd>
        </dl>
      )}
    </Card>
  );
}

/** One origin a line; blank lines and surrounding spaces dropped. */
function parseOrigins(text: string): string[] {
  return text
    .split(/[\n,]+/)
    .map((line) => line.trim())
    .filter(Boolean);
}

function OriginsCard() {
  const { game, isOwner } = useGame();
  const [text, setText] = useState(game.allowed_origins.join('\n'));
  const save = useSaveGame();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const updated = await save.save({ allowed_origins: parseOrigins(text) });
    if (updated) setText(updated.allowed_origins.join('\n'));
  }

  return (
    <Card title="Browser games (CORS)">
      <p className="hint card-intro">
        A web build of your game calls playtrace from its own site. List the origins it is served from; requests with an API key
        from any other origin are refused. Native and server builds are not affected.
      </p>
      {isOwner ? (
        <form onSubmit={submit} className="form">
          <Field
            label="Allowed origins"
            hint="One a line, exactly as the browser sends it: https://mygame.example.com or http://localhost:5173 (no path, no trailing slash). * allows any site. At most 20; empty allows none."
          >
            <textarea
              className="code origins"
              value={text}
              spellCheck={false}
              placeholder={'https://mygame.example.com\nhttp://localhost:5173'}
              onChange={(e) => {
                setText(e.target.value);
                save.clearSaved();
              }}
            />
          </Field>
          <ErrorMessage error={save.error} />
          <Saved show={save.saved}>
            {game.allowed_origins.length === 0
              ? 'Saved: no web origin is allowed.'
              : `Saved: ${game.allowed_origins.length} allowed origin${game.allowed_origins.length === 1 ? '' : 's'}.`}
          </Saved>
          <div>
            <SubmitButton busy={save.busy}>Save origins</SubmitButton>
          </div>
        </form>
      ) : game.allowed_origins.length === 0 ? (
        <p>No web origin is allowed: only native and server builds can send events.</p>
      ) : (
        <ul className="origin-list">
          {game.allowed_origins.map((origin) => (
            <li key={origin}>
              <code>{origin}</code>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** The longest retention the API takes: ten years. */
const MAX_RETENTION_DAYS = 3650;

function retentionText(days: number | null | undefined): string {
  return days == null ? 'Events are kept for good.' : `Events older than ${formatNumber(days)} day${days === 1 ? '' : 's'} are deleted.`;
}

/** Currencies offered as suggestions; any ISO 4217 code is accepted. */
const COMMON_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'KRW', 'CAD', 'AUD', 'BRL', 'INR', 'RUB', 'CHF', 'SEK', 'PLN', 'MXN'];

function CurrencyCard() {
  const { game, isOwner } = useGame();
  const [currency, setCurrency] = useState(game.currency);
  const save = useSaveGame();
  const listId = useId();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const code = currency.trim();
    if (!/^[A-Z]{3}$/.test(code)) {
      save.setError('Enter an ISO 4217 currency code: three capital letters, e.g. USD or EUR.');
      return;
    }
    await save.save({ currency: code });
  }

  return (
    <Card title="Currency">
      <p className="hint card-intro">
        The currency of the <code>amount</code> your <code>purchase</code> events send. Revenue, ARPDAU and ARPPU are shown in
        it, e.g. {formatMoney(1234.5, game.currency)}. Amounts are never converted.
      </p>
      {isOwner ? (
        <form onSubmit={submit} className="form" noValidate>
          <Field label="Currency code (ISO 4217)">
            <input
              className="currency-code"
              list={listId}
              maxLength={3}
              autoCapitalize="characters"
              spellCheck={false}
              value={currency}
              onChange={(e) => {
                setCurrency(e.target.value.toUpperCase());
                save.clearSaved();
                save.setError(null);
              }}
            />
            <datalist id={listId}>
              {COMMON_CURRENCIES.map((code) => (
                <option key={code} value={code} />
              ))}
            </datalist>
          </Field>
          <ErrorMessage error={save.error} />
          <Saved show={save.saved}>Saved: revenue is now shown in {game.currency}.</Saved>
          <div>
            <SubmitButton busy={save.busy}>Save currency</SubmitButton>
          </div>
        </form>
      ) : (
        <dl className="facts">
          <dt>Currency</dt>
          <dd>{game.currency}</dd>
        </dl>
      )}
    </Card>
  );
}

function RetentionCard() {
  const { game, isOwner } = useGame();
  const current = game.retention_days ?? null;
  const [keep, setKeep] = useState(current === null);
  const [days, setDays] = useState(current?.toString() ?? '90');
  const save = useSaveGame();
  const legend = useId();

  async function submit(e: FormEvent) {
    e.preventDefault();
    let wanted: number | null = null;
    if (!keep) {
      wanted = Number(days);
      if (!Number.isInteger(wanted) || wanted < 1 || wanted > MAX_RETENTION_DAYS) {
        save.setError(`Enter a whole number of days from 1 to ${formatNumber(MAX_RETENTION_DAYS)}.`);
        return;
      }
    }
    await save.save({ retention_days: wanted });
  }

  const changed = () => save.clearSaved();
  return (
    <Card title="Event retention">
      <p className="hint card-intro">
        How long raw events are kept. Once an hour the server deletes events older than this, whole UTC days at a time, with the
        reports of those days. The monthly event count stays as it was. Download events you want to keep first (Events, Export).
      </p>
      {isOwner ? (
        <form onSubmit={submit} className="form" noValidate>
          <fieldset className="choices" aria-labelledby={legend}>
            <legend id={legend} className="field-label">
              Keep events
            </legend>
            <label className={`choice${keep ? ' selected' : ''}`}>
              <input
                type="radio"
                name="retention"
                checked={keep}
                onChange={() => {
                  setKeep(true);
                  changed();
                }}
              />
              <span>
                <span className="choice-title">
                  <strong>For good</strong>
                  {current === null && <Badge>Current</Badge>}
                </span>
                <span className="hint">Nothing is deleted unless you delete the game or erase a player.</span>
              </span>
            </label>
            <label className={`choice${keep ? '' : ' selected'}`}>
              <input
                type="radio"
                name="retention"
                checked={!keep}
                onChange={() => {
                  setKeep(false);
                  changed();
                }}
              />
              <span>
                <span className="choice-title">
                  <strong>For a number of days</strong>
                  {current !== null && <Badge>Current</Badge>}
                </span>
                <span className="hint">From 1 to 3,650 days (ten years).</span>
              </span>
            </label>
          </fieldset>
          {!keep && (
            <Field label="Days to keep events">
              <span className="retention-days">
                <input
                  type="number"
                  min={1}
                  max={MAX_RETENTION_DAYS}
                  step={1}
                  inputMode="numeric"
                  required
                  value={days}
                  onChange={(e) => {
                    setDays(e.target.value);
                    changed();
                  }}
                />
                <span className="hint">days</span>
              </span>
            </Field>
          )}
          <ErrorMessage error={save.error} />
          <Saved show={save.saved}>Saved. {retentionText(game.retention_days)}</Saved>
          <div>
            <SubmitButton busy={save.busy}>Save retention</SubmitButton>
          </div>
        </form>
      ) : (
        <p>{retentionText(current)}</p>
      )}
    </Card>
  );
}

function PlanCard() {
  const { game } = useGame();
  const { me } = useSession();
  const admin = me?.is_admin === true;
  const [tier, setTier] = useState(game.tier);
  const [limit, setLimit] = useState(game.rate_limit_per_minute?.toString() ?? '');
  const save = useSaveGame();

  useEffect(() => {
    setTier(game.tier);
    setLimit(game.rate_limit_per_minute?.toString() ?? '');
  }, [game.tier, game.rate_limit_per_minute]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const changes: Changes = {};
    if (tier !== game.tier) changes.tier = tier;
    const wanted = limit.trim() === '' ? null : Number(limit);
    if (wanted !== null && (!Number.isInteger(wanted) || wanted < 1)) {
      save.setError('Enter a whole number of requests per minute, or leave it empty for the server default.');
      return;
    }
    if (wanted !== (game.rate_limit_per_minute ?? null)) changes.rate_limit_per_minute = wanted;
    if (Object.keys(changes).length === 0) {
      save.setError('Nothing changed: pick another tier or rate limit first.');
      return;
    }
    await save.save(changes);
  }

  return (
    <Card title="Plan and limits">
      <dl className="facts">
        <dt>Tier</dt>
        <dd>
          <Badge tone="good">{tierLabel(game.tier)}</Badge>
        </dd>
        <dt>Monthly events</dt>
        <dd>
          <span className="quota">{formatNumber(game.monthly_event_quota)}</span> events a month
        </dd>
        <dt>Rate limit</dt>
        <dd>
          {game.rate_limit_per_minute == null
            ? 'Server default (normally 1,000 requests a minute per API key)'
            : `${formatNumber(game.rate_limit_per_minute)} requests a minute per API key`}
        </dd>
      </dl>
      {admin ? (
        <form onSubmit={submit} className="form admin-plan">
          <p className="hint">As the instance admin you can change the tier and the rate limit of any game.</p>
          <div className="form inline">
            <Field label="Tier">
              <select
                value={tier}
                onChange={(e) => {
                  setTier(e.target.value as typeof tier);
                  save.clearSaved();
                }}
              >
                {TIERS.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label} ({formatNumber(t.quota)} events a month)
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Rate limit per minute">
              <input
                type="number"
                min={1}
                step={1}
                inputMode="numeric"
                placeholder="Server default"
                value={limit}
                onChange={(e) => {
                  setLimit(e.target.value);
                  save.clearSaved();
                }}
              />
            </Field>
            <SubmitButton busy={save.busy}>Save plan</SubmitButton>
          </div>
          <ErrorMessage error={save.error} />
          <Saved show={save.saved}>
            Saved: {tierLabel(game.tier)} tier,{' '}
            {game.rate_limit_per_minute == null
              ? 'the server default rate limit'
              : `${formatNumber(game.rate_limit_per_minute)} requests a minute per API key`}
            .
          </Saved>
        </form>
      ) : (
        <p className="hint">
          The tier is set by the admin of this playtrace server. Owners may change the per-key rate limit up to the cap
          the admin allows, with <code>rate_limit_per_minute</code> on <code>PATCH /v1/games/{'{id}'}</code>.
        </p>
      )}
    </Card>
  );
}

function DangerZone() {
  const { game } = useGame();
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const action = useAction();
  const titleId = useId();
  const matches = typed.trim() === game.name.trim();

  async function remove(e: FormEvent) {
    e.preventDefault();
    if (!matches) return;
    const done = await action.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}', { params: { path: { game_id: game.game_id } } }));
      return true;
    });
    if (done) {
      dialog.current?.close();
      announceGamesChanged();
      navigate('/games', { replace: true, state: { deleted: game.name } });
    }
  }

  return (
    <section className="card danger-zone" aria-label="Danger zone">
      <div className="card-header">
        <h2>Danger zone</h2>
      </div>
      <div className="danger-row">
        <div>
          <strong>Delete this game</strong>
          <p className="hint">
            Deletes {game.name} and everything stored for it: events, reports, leaderboards, achievements, config, saves, members
            and API keys. Its keys stop working at once. This cannot be undone.
          </p>
        </div>
        <button
          type="button"
          className="danger"
          onClick={() => {
            setTyped('');
            action.setError(null);
            dialog.current?.showModal();
          }}
        >
          Delete game…
        </button>
      </div>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <form onSubmit={remove} className="form">
          <h2 id={titleId}>Delete {game.name}?</h2>
          <p>
            Everything stored for <strong>{game.name}</strong> is deleted for good, and every game client using its API keys stops
            being able to send data.
          </p>
          <Field label={`Type ${game.name} to confirm`}>
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} />
          </Field>
          <ErrorMessage error={action.error} />
          <div className="dialog-actions">
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className="danger solid" disabled={!matches || action.busy} aria-busy={action.busy}>
              {action.busy ? 'Deleting…' : 'Delete game'}
            </button>
          </div>
        </form>
      </dialog>
    </section>
  );
}
