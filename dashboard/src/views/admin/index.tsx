// The instance admin's page: every game on this playtrace server, with its tier, rate limit
// and monthly quota (the tier's, or one of its own for a big game), all changeable here; each
// game's events this month against its quota; every account with its games. Anyone else is
// told the page is the admin's.
import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useSession } from '../../auth';
import { Async, Badge, Card, Empty, ErrorMessage, Field, PageHeader } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad, type Loaded } from '../../ui/useLoad';
import { formatDate, tierLabel, TIERS } from '../settings/shared';
import '../settings/settings.css';

type Game = Schemas['Game'];
type GameList = Schemas['GameList'];

export default function Admin() {
  const { me } = useSession();
  if (!me?.is_admin) {
    return (
      <>
        <PageHeader title="Admin" />
        <Card>
          <div className="admin-denied" role="status">
            <p>
              <strong>Only the instance admin can see this page.</strong>
            </p>
            <p className="hint">
              The admin is the first account registered on this playtrace server. Ask them to change the tier or rate limit of one
              of your games.
            </p>
            <p>
              <Link to="/games">Back to your games</Link>
            </p>
          </div>
        </Card>
      </>
    );
  }
  return <AdminGames />;
}

function AdminGames() {
  const games = useLoad(() => unwrap(api.GET('/v1/games')), []);
  const [filter, setFilter] = useState('');
  return (
    <>
      <PageHeader title="Admin" />
      <Async state={games}>
        {({ games: list }) => (
          <>
            <div className="stats">
              <div className="stat">
                <div className="label">Games</div>
                <div className="value">{formatNumber(list.length)}</div>
              </div>
              {TIERS.map((tier) => (
                <div className="stat" key={tier.value}>
                  <div className="label">{tier.label} tier</div>
                  <div className="value">{formatNumber(list.filter((g) => g.tier === tier.value).length)}</div>
                </div>
              ))}
            </div>
            <Card title="Every game on this server">
              {list.length === 0 ? (
                <Empty title="No games on this server yet">Games appear here as soon as anyone creates one.</Empty>
              ) : (
                <>
                  <div className="admin-filter">
                    <Field label="Find a game">
                      <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Name or game ID" />
                    </Field>
                  </div>
                  <GameTable list={list} filter={filter} games={games} />
                </>
              )}
            </Card>
          </>
        )}
      </Async>
      <UsageCard />
      <UsersCard />
      <Card title="Tiers">
        <div className="table-wrap">
          <table className="table compact tiers-table">
            <thead>
              <tr>
                <th scope="col">Tier</th>
                <th scope="col" className="num">
                  Events a month
                </th>
              </tr>
            </thead>
            <tbody>
              {TIERS.map((tier) => (
                <tr key={tier.value}>
                  <td>{tier.label}</td>
                  <td className="num">{formatNumber(tier.quota)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="hint">
          Development and production keys of a game share its monthly count; the rate limit applies to each API key of the game
          (empty: the server default, 1,000 requests a minute unless set with <code>--rate-limit-per-minute</code>). A new game
          starts on the free tier. A big game can get a monthly quota of its own beyond its tier, or an unlimited one.
        </p>
      </Card>
    </>
  );
}

function GameTable({ list, filter, games }: { list: Game[]; filter: string; games: Loaded<GameList> }) {
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return needle ? list.filter((g) => g.name.toLowerCase().includes(needle) || g.game_id.includes(needle)) : list;
  }, [list, filter]);

  function replace(updated: Game) {
    if (!games.data) return;
    games.set({ games: games.data.games.map((g) => (g.game_id === updated.game_id ? updated : g)) });
  }

  if (shown.length === 0) return <Empty title={`No game matches “${filter}”`}>Try another name, or clear the search.</Empty>;
  return (
    <div className="table-wrap">
      <table className="table admin-games stack-table">
        <thead>
          <tr>
            <th scope="col">Game</th>
            <th scope="col">Tier</th>
            <th scope="col">Monthly quota</th>
            <th scope="col">Rate limit per minute</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((game) => (
            <GameRow key={game.game_id} game={game} onChange={replace} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What `"unlimited"` is stored as (the largest whole number JavaScript holds exactly). */
const UNLIMITED = 9007199254740991;

function quotaText(game: Game) {
  return game.monthly_event_quota === UNLIMITED ? 'Unlimited' : formatNumber(game.monthly_event_quota);
}

/** The game's monthly event quota: its tier's, or one the admin sets (a number or "unlimited"). */
function QuotaForm({ game, onChange }: { game: Game; onChange(game: Game): void }) {
  const action = useAction();
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState('');

  async function save(quota: number | 'unlimited' | null) {
    setSaved('');
    const body = { monthly_event_quota: quota } as Schemas['UpdateGame'];
    const updated = await action.run(() => unwrap(api.PATCH('/v1/games/{game_id}', { params: { path: { game_id: game.game_id } }, body })));
    if (updated) {
      onChange(updated);
      setValue('');
      setSaved(quota === null ? "Back to the tier's quota" : 'Saved');
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const text = value.trim().toLowerCase().replace(/[\s,_]/g, '');
    if (text === 'unlimited') return void save('unlimited');
    const number = Number(text);
    if (text === '' || !Number.isInteger(number) || number < 1) {
      action.setError('Enter a whole number of events a month, or “unlimited”.');
      return;
    }
    void save(number);
  }

  return (
    <>
      <div className="quota-now">
        <strong>{quotaText(game)}</strong>{' '}
        <span className="hint">{game.event_quota_set ? 'set by the admin' : "the tier's"}</span>
      </div>
      <form className="limit-form" onSubmit={submit}>
        <input
          type="text"
          inputMode="numeric"
          aria-label={`Monthly event quota of ${game.name}`}
          placeholder="Number or unlimited"
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            setSaved('');
          }}
        />
        <button type="submit" className="small" disabled={action.busy} aria-busy={action.busy}>
          Set
        </button>
        {game.event_quota_set && (
          <button type="button" className="small" disabled={action.busy} onClick={() => void save(null)}>
            Use the tier's
          </button>
        )}
        <span className="hint saved-note" role="status">
          {saved}
        </span>
      </form>
      <ErrorMessage error={action.error} />
    </>
  );
}

function GameRow({ game, onChange }: { game: Game; onChange(game: Game): void }) {
  const tierAction = useAction();
  const limitAction = useAction();
  const [tier, setTier] = useState<string>(game.tier);
  const [limit, setLimit] = useState(game.rate_limit_per_minute?.toString() ?? '');
  const [tierSaved, setTierSaved] = useState('');
  const [limitSaved, setLimitSaved] = useState('');

  async function patch(action: typeof tierAction, body: Schemas['UpdateGame']) {
    const updated = await action.run(() => unwrap(api.PATCH('/v1/games/{game_id}', { params: { path: { game_id: game.game_id } }, body })));
    if (updated) onChange(updated);
    return updated;
  }

  // The tier and the rate limit work alike: change, then Save, then a note of what was saved.
  async function saveTier(e: FormEvent) {
    e.preventDefault();
    setTierSaved('');
    const updated = await patch(tierAction, { tier: tier as Schemas['Tier'] });
    if (updated) {
      setTier(updated.tier);
      setTierSaved(`Saved: ${tierLabel(updated.tier)} tier`);
    }
  }

  async function saveLimit(e: FormEvent) {
    e.preventDefault();
    setLimitSaved('');
    const text = limit.trim();
    const wanted = text === '' ? null : Number(text);
    if (wanted !== null && (!Number.isInteger(wanted) || wanted < 1)) {
      limitAction.setError('Enter a whole number of requests per minute, or leave it empty for the server default.');
      return;
    }
    const updated = await patch(limitAction, { rate_limit_per_minute: wanted });
    if (updated) {
      setLimit(updated.rate_limit_per_minute?.toString() ?? '');
      setLimitSaved(updated.rate_limit_per_minute == null ? 'Saved: the server default' : `Saved: ${formatNumber(updated.rate_limit_per_minute)} a minute`);
    }
  }

  return (
    <tr>
      <th scope="row" className="lead">
        <Link to={`/games/${game.game_id}/settings`}>{game.name}</Link>
        <div className="hint">
          <code>{game.game_id}</code>
        </div>
      </th>
      <td className="tier-cell wide" data-label="Tier">
        <form className="limit-form" onSubmit={saveTier}>
          <select
            aria-label={`Tier of ${game.name}`}
            value={tier}
            onChange={(e) => {
              setTier(e.target.value);
              setTierSaved('');
              tierAction.setError(null);
            }}
          >
            {TIERS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
          <button type="submit" className="small" disabled={tierAction.busy || tier === game.tier} aria-busy={tierAction.busy}>
            {tierAction.busy ? 'Saving…' : 'Save'}
            <span className="visually-hidden"> tier</span>
          </button>
          <span className="hint saved-note" role="status">
            {tierSaved}
          </span>
        </form>
        <ErrorMessage error={tierAction.error} />
      </td>
      <td className="wide" data-label="Monthly quota">
        <QuotaForm game={game} onChange={onChange} />
      </td>
      <td className="wide" data-label="Rate limit per minute">
        <form className="limit-form" onSubmit={saveLimit}>
          <input
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            aria-label={`Rate limit per minute of ${game.name}`}
            placeholder="Default"
            value={limit}
            onChange={(e) => {
              setLimit(e.target.value);
              setLimitSaved('');
              limitAction.setError(null);
            }}
          />
          <button
            type="submit"
            className="small"
            disabled={limitAction.busy || limit.trim() === (game.rate_limit_per_minute?.toString() ?? '')}
            aria-busy={limitAction.busy}
          >
            {limitAction.busy ? 'Saving…' : 'Save'}
            <span className="visually-hidden"> rate limit</span>
          </button>
          <span className="hint saved-note" role="status">
            {limitSaved}
          </span>
        </form>
        <ErrorMessage error={limitAction.error} />
      </td>
      <td className="nowrap" data-label="Created" title={formatTime(game.created_at)}>
        {formatDate(game.created_at)}
      </td>
    </tr>
  );
}

const PAGE = 20;

/** Previous / next buttons of a paged admin list, and where in the list the page is. */
function Pager({ offset, shown, total, onPage }: { offset: number; shown: number; total: number; onPage(offset: number): void }) {
  if (total <= PAGE) return null;
  return (
    <div className="admin-pager">
      <button type="button" className="small" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - PAGE))}>
        Previous
      </button>
      <span className="hint">
        {formatNumber(offset + 1)}–{formatNumber(offset + shown)} of {formatNumber(total)}
      </span>
      <button type="button" className="small" disabled={offset + shown >= total} onClick={() => onPage(offset + PAGE)}>
        Next
      </button>
    </div>
  );
}

/** Each game's events this UTC month against its quota, the busiest first. */
function UsageCard() {
  const [offset, setOffset] = useState(0);
  const usage = useLoad(() => unwrap(api.GET('/v1/admin/usage', { params: { query: { limit: PAGE, offset } } })), [offset]);
  return (
    <Card title="Usage this month">
      <Async state={usage}>
        {(page) =>
          page.games.length === 0 ? (
            <Empty title="No games on this server yet" />
          ) : (
            <>
              <p className="hint card-intro">
                Events counted in {page.month} (UTC) by each game, development and production keys together, the busiest first. A
                game over its quota gets 429 until the month ends or its quota is raised above.
              </p>
              <div className="table-wrap">
                <table className="table admin-usage stack-table">
                  <thead>
                    <tr>
                      <th scope="col">Game</th>
                      <th scope="col">Tier</th>
                      <th scope="col" className="num">
                        Events this month
                      </th>
                      <th scope="col" className="num">
                        Quota
                      </th>
                      <th scope="col">Used</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.games.map((game) => {
                      const unlimited = game.limit === UNLIMITED;
                      const share = unlimited || game.limit === 0 ? 0 : Math.min(100, (game.used / game.limit) * 100);
                      return (
                        <tr key={game.game_id}>
                          <th scope="row" className="lead">
                            <Link to={`/games/${game.game_id}`}>{game.name}</Link>
                          </th>
                          <td data-label="Tier">{tierLabel(game.tier)}</td>
                          <td className="num" data-label="Events this month">
                            {formatNumber(game.used)}
                          </td>
                          <td className="num" data-label="Quota">
                            {unlimited ? 'Unlimited' : formatNumber(game.limit)}
                            {game.quota_set && <span className="hint"> (set)</span>}
                          </td>
                          <td data-label="Used">
                            {unlimited ? (
                              <span className="hint">no limit</span>
                            ) : (
                              <span className="usage-cell">
                                <meter min={0} max={100} high={80} optimum={0} value={share} aria-label={`Quota used by ${game.name}`} />
                                <span className={share >= 100 ? 'usage-over' : undefined}>{formatPercentShare(share)}</span>
                              </span>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
              <Pager offset={offset} shown={page.games.length} total={page.total} onPage={setOffset} />
            </>
          )
        }
      </Async>
    </Card>
  );
}

function formatPercentShare(share: number): string {
  return share > 0 && share < 1 ? '<1%' : `${Math.floor(share)}%`;
}

/** Every account on the server, oldest first: the admin leads. */
function UsersCard() {
  const [offset, setOffset] = useState(0);
  const users = useLoad(() => unwrap(api.GET('/v1/admin/users', { params: { query: { limit: PAGE, offset } } })), [offset]);
  return (
    <Card title="Accounts">
      <Async state={users}>
        {(page) => (
          <>
            <div className="table-wrap">
              <table className="table admin-users stack-table">
                <thead>
                  <tr>
                    <th scope="col">E-mail</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Games
                    </th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.users.map((user) => (
                    <tr key={user.user_id}>
                      <th scope="row" className="lead">
                        <span className="member-email">{user.email}</span>
                        {user.is_admin && (
                          <>
                            {' '}
                            <Badge>admin</Badge>
                          </>
                        )}
                      </th>
                      <td data-label="Status">
                        {user.status === 'pending' ? (
                          <span title="Invited; has not set a password yet">
                            <Badge tone="warn">Invited</Badge>
                          </span>
                        ) : (
                          <Badge tone="good">Active</Badge>
                        )}
                      </td>
                      <td className="num" data-label="Games">
                        {formatNumber(user.games)}
                        {user.owned_games > 0 && <span className="hint"> ({formatNumber(user.owned_games)} owned)</span>}
                      </td>
                      <td className="nowrap" data-label="Created" title={formatTime(user.created_at)}>
                        {formatDate(user.created_at)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager offset={offset} shown={page.users.length} total={page.total} onPage={setOffset} />
          </>
        )}
      </Async>
    </Card>
  );
}
