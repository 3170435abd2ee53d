// The game's achievements in creation order, with how many players unlocked each and how rare
// it is; editors define, edit, hide and delete them.
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Badge, Card, ConfirmButton, Empty, ErrorMessage, PageHeader } from '../../ui/components';
import { formatNumber } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { AchievementForm, type AchievementValues } from './AchievementForm';
import { AchievementIcon } from './AchievementIcon';
import { Rarity } from './Rarity';

type Achievement = Schemas['AchievementDefinition'];

export function AchievementList() {
  const { game, canEdit } = useGame();
  const gameId = game.game_id;
  const location = useLocation();
  const navigate = useNavigate();
  const list = useLoad(() => unwrap(api.GET('/v1/games/{game_id}/achievements', { params: { path: { game_id: gameId } } })), [gameId]);
  const [creating, setCreating] = useState(false);
  const create = useAction();
  const change = useAction();
  const [working, setWorking] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>((location.state as { notice?: string } | null)?.notice ?? null);
  // A note brought from the edit page is for the arrival only, not for a reload.
  useEffect(() => {
    if (location.state) navigate(location.pathname, { replace: true, state: null });
  }, [location, navigate]);

  function replace(next: Achievement) {
    if (list.data) list.set({ achievements: list.data.achievements.map((a) => (a.key === next.key ? next : a)) });
  }

  async function save(values: AchievementValues) {
    const body: Schemas['CreateAchievement'] = {
      key: values.key,
      name: values.name,
      description: values.description,
      points: values.points,
      hidden: values.hidden,
    };
    if (values.icon_url) body.icon_url = values.icon_url;
    const made = await create.run(() => unwrap(api.POST('/v1/games/{game_id}/achievements', { params: { path: { game_id: gameId } }, body })));
    if (!made) return;
    setCreating(false);
    setNotice(`Achievement “${made.name}” created. The game unlocks it with POST /v1/achievements/unlock and achievement_key “${made.key}”.`);
    if (list.data) list.set({ achievements: [...list.data.achievements, made] });
    else list.reload();
  }

  async function toggleHidden(achievement: Achievement) {
    setWorking(achievement.key);
    setNotice(null);
    const next = await change.run(() =>
      unwrap(
        api.PATCH('/v1/games/{game_id}/achievements/{key}', {
          params: { path: { game_id: gameId, key: achievement.key } },
          body: { hidden: !achievement.hidden },
        }),
      ),
    );
    setWorking(null);
    if (next) {
      replace(next);
      setNotice(next.hidden ? `“${next.name}” is hidden: players see ??? until they unlock it.` : `“${next.name}” is visible to every player.`);
    }
  }

  async function remove(achievement: Achievement) {
    setNotice(null);
    const done = await change.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/achievements/{key}', { params: { path: { game_id: gameId, key: achievement.key } } }));
      return true;
    });
    if (done && list.data) {
      list.set({ achievements: list.data.achievements.filter((a) => a.key !== achievement.key) });
      setNotice(`“${achievement.name}” deleted.`);
    }
  }

  return (
    <>
      <PageHeader title="Achievements">
        {canEdit && !creating && (
          <button type="button" className="primary" onClick={() => (setCreating(true), setNotice(null))}>
            New achievement
          </button>
        )}
      </PageHeader>
      {creating && (
        <Card title="New achievement">
          <AchievementForm
            busy={create.busy}
            error={create.error}
            submitLabel="Create achievement"
            onSave={save}
            onCancel={() => {
              setCreating(false);
              create.setError(null);
            }}
          />
        </Card>
      )}
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <ErrorMessage error={change.error} />
      <Async state={list}>
        {({ achievements }) => (
          <>
            {achievements.length > 0 && (
              <div className="stats">
                <div className="stat">
                  <div className="label">Achievements</div>
                  <div className="value">{formatNumber(achievements.length)}</div>
                </div>
                <div className="stat">
                  <div className="label">Total points</div>
                  <div className="value">{formatNumber(achievements.reduce((sum, a) => sum + a.points, 0))}</div>
                </div>
                <div className="stat">
                  <div className="label">Hidden</div>
                  <div className="value">{formatNumber(achievements.filter((a) => a.hidden).length)}</div>
                </div>
                <div className="stat">
                  <div className="label">Unlocks</div>
                  <div className="value">{formatNumber(achievements.reduce((sum, a) => sum + a.unlock_count, 0))}</div>
                </div>
              </div>
            )}
            <Card title="All achievements">
              {achievements.length === 0 ? (
                <Empty title="No achievements yet">
                  {canEdit ? 'Define the first one with New achievement.' : 'An editor or owner can define them here.'} The game then unlocks
                  them for its players with <code>POST /v1/achievements/unlock</code>.
                </Empty>
              ) : (
                <>
                  <div className="table-wrap ach-table-wrap">
                    <table className="table ach-table" aria-label="Achievements">
                      <thead>
                        <tr>
                          <th scope="col">Achievement</th>
                          <th scope="col" className="num">
                            Points
                          </th>
                          <th scope="col" className="num">
                            Unlocked by
                          </th>
                          <th scope="col">Rarity</th>
                          {canEdit && (
                            <th scope="col">
                              <span className="ach-sr-only">Actions</span>
                            </th>
                          )}
                        </tr>
                      </thead>
                      <tbody>
                        {achievements.map((a) => (
                          <tr key={a.key}>
                            <td className="ach-td-main">
                              <div className="ach-cell">
                                <AchievementIcon url={a.icon_url} name={a.name} />
                                <div className="ach-text">
                                  <div className="ach-name">
                                    <strong>{a.name}</strong>
                                    {a.hidden && <Badge tone="warn">Hidden</Badge>}
                                  </div>
                                  <code className="ach-key">{a.key}</code>
                                  {a.description && <div className="ach-description-text">{a.description}</div>}
                                </div>
                              </div>
                            </td>
                            <td className="num ach-td-points" data-label="Points">
                              {formatNumber(a.points)}
                            </td>
                            <td className="num ach-td-unlocks" data-label="Unlocked by">
                              {formatNumber(a.unlock_count)} <span className="hint">{a.unlock_count === 1 ? 'player' : 'players'}</span>
                            </td>
                            <td className="ach-td-rarity">
                              <Rarity percent={a.rarity} />
                            </td>
                            {canEdit && (
                              <td className="ach-actions">
                                <div className="row-actions">
                                  <Link className="ach-button-link" to={`/games/${gameId}/achievements/${encodeURIComponent(a.key)}`} aria-label={`Edit ${a.name}`}>
                                    Edit
                                  </Link>
                                  <button
                                    type="button"
                                    className="small"
                                    disabled={working === a.key}
                                    aria-busy={working === a.key}
                                    aria-label={`${a.hidden ? 'Show' : 'Hide'} ${a.name}`}
                                    onClick={() => toggleHidden(a)}
                                  >
                                    {a.hidden ? 'Show' : 'Hide'}
                                  </button>
                                  <DeleteAchievement achievement={a} onConfirm={() => remove(a)} />
                                </div>
                              </td>
                            )}
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <p className="hint ach-footnote">
                    Rarity is the share of the game's players who unlocked it: everyone who sent an event or unlocked any achievement. It may lag
                    by up to a minute; unlock counts are exact.
                  </p>
                </>
              )}
            </Card>
          </>
        )}
      </Async>
    </>
  );
}

export function DeleteAchievement({ achievement, onConfirm }: { achievement: Achievement; onConfirm(): Promise<unknown> }) {
  const players = achievement.unlock_count;
  return (
    <ConfirmButton
      label="Delete"
      className="danger small"
      title={`Delete “${achievement.name}”?`}
      message={
        <p>
          This deletes the achievement <code>{achievement.key}</code> and every player's unlock of it
          {players > 0 ? ` (${formatNumber(players)} ${players === 1 ? 'player loses' : 'players lose'} it and its ${formatNumber(achievement.points)} points)` : ''}. It
          cannot be undone; the game gets 404 when unlocking this key.
        </p>
      }
      confirmLabel="Delete achievement"
      onConfirm={onConfirm}
    />
  );
}
