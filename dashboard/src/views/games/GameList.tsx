// Every game the user is a member of (the admin sees every game), and a form to create one.
// A new game opens on its API keys, so the studio gets its first key at once.
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useSession } from '../../auth';
import { Async, Badge, Card, Empty, ErrorMessage, Field, PageHeader, SubmitButton } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { announceGamesChanged, formatDate, roleLabel, TIERS, tierLabel } from '../settings/shared';
import '../settings/settings.css';

export default function GameList() {
  const games = useLoad(() => unwrap(api.GET('/v1/games')), []);
  const { me } = useSession();
  const admin = me?.is_admin === true;
  const navigate = useNavigate();
  const location = useLocation();
  const deleted = (location.state as { deleted?: string } | null)?.deleted;
  const [name, setName] = useState('');
  const [tier, setTier] = useState<Schemas['Tier']>('free');
  const create = useAction();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const body = admin ? { name: name.trim(), tier } : { name: name.trim() };
    const game = await create.run(() => unwrap(api.POST('/v1/games', { body })));
    if (game) {
      announceGamesChanged();
      navigate(`/games/${game.game_id}/settings/keys`, { state: { created: true } });
    }
  }

  return (
    <>
      <PageHeader title="Games" />
      {deleted && (
        <p className="success" role="status">
          {deleted} was deleted, with everything stored for it.
        </p>
      )}
      <Card title="Create a game">
        <form onSubmit={submit} className="form inline">
          <Field label="Game name">
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="Space Miners" />
          </Field>
          {admin && (
            <Field label="Tier">
              <select value={tier} onChange={(e) => setTier(e.target.value as Schemas['Tier'])}>
                {TIERS.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label} ({formatNumber(t.quota)} events a month)
                  </option>
                ))}
              </select>
            </Field>
          )}
          <SubmitButton busy={create.busy}>Create game</SubmitButton>
        </form>
        <p className="hint">You become its owner. Next you get its first API key to put in your game client.</p>
        <ErrorMessage error={create.error} />
      </Card>
      <Card title={admin ? 'Every game on this server' : 'Your games'}>
        <Async state={games}>
          {({ games: list }) =>
            list.length === 0 ? (
              <Empty title="No games yet">Create your first game above, then give its API key to your game client.</Empty>
            ) : (
              <div className="table-wrap">
                <table className="table games-table stack-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Your role</th>
                      <th scope="col">Tier</th>
                      <th scope="col" className="num">
                        Monthly events
                      </th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((game) => (
                      <tr key={game.game_id}>
                        <td className="game-name lead">
                          <Link to={`/games/${game.game_id}`}>{game.name}</Link>
                        </td>
                        <td data-label="Your role">
                          <Badge>{roleLabel(game.role)}</Badge>
                        </td>
                        <td data-label="Tier">{tierLabel(game.tier)}</td>
                        <td className="num" data-label="Monthly events">
                          {formatNumber(game.monthly_event_quota)}
                        </td>
                        <td data-label="Created" title={formatTime(game.created_at)}>
                          {formatDate(game.created_at)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Async>
      </Card>
    </>
  );
}
