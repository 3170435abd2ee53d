// One achievement on a page of its own: its figures and the form that changes it.
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Badge, Card, Empty, ErrorMessage, Loading, PageHeader } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { AchievementForm, type AchievementValues } from './AchievementForm';
import { AchievementIcon } from './AchievementIcon';
import { DeleteAchievement } from './AchievementList';
import { Rarity } from './Rarity';

export function AchievementEdit() {
  const { key = '' } = useParams();
  const { game, canEdit } = useGame();
  const gameId = game.game_id;
  const navigate = useNavigate();
  const listPath = `/games/${gameId}/achievements`;
  const achievement = useLoad(
    () =>
      unwrap(api.GET('/v1/games/{game_id}/achievements/{key}', { params: { path: { game_id: gameId, key } } })).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    [gameId, key],
  );
  const save = useAction();
  const remove = useAction();

  async function update(current: Schemas['AchievementDefinition'], values: AchievementValues) {
    const body: Schemas['UpdateAchievement'] = {};
    if (values.name !== current.name) body.name = values.name;
    if (values.description !== current.description) body.description = values.description;
    if (values.icon_url !== current.icon_url) body.icon_url = values.icon_url;
    if (values.points !== current.points) body.points = values.points;
    if (values.hidden !== current.hidden) body.hidden = values.hidden;
    if (Object.keys(body).length > 0) {
      const next = await save.run(() => unwrap(api.PATCH('/v1/games/{game_id}/achievements/{key}', { params: { path: { game_id: gameId, key } }, body })));
      if (!next) return;
      navigate(listPath, { state: { notice: `“${next.name}” saved.` } });
    } else {
      navigate(listPath);
    }
  }

  async function destroy(current: Schemas['AchievementDefinition']) {
    const done = await remove.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/achievements/{key}', { params: { path: { game_id: gameId, key } } }));
      return true;
    });
    if (done) navigate(listPath, { replace: true, state: { notice: `“${current.name}” deleted.` } });
  }

  const back = (
    <p className="ach-back">
      <Link to={listPath}>← All achievements</Link>
    </p>
  );
  const data = achievement.data;
  if (achievement.error) {
    return (
      <>
        {back}
        <PageHeader title={key} />
        <ErrorMessage error={achievement.error} onRetry={achievement.reload} />
      </>
    );
  }
  if (data === null && !achievement.loading) {
    return (
      <>
        {back}
        <PageHeader title={key} />
        <Empty title={`There is no achievement with the key ${key}`}>It may have been deleted.</Empty>
      </>
    );
  }
  if (!data || data.key !== key) {
    return (
      <>
        {back}
        <PageHeader title={key} />
        <Loading />
      </>
    );
  }
  return (
    <>
      {back}
      <PageHeader title={data.name}>{canEdit && <DeleteAchievement achievement={data} onConfirm={() => destroy(data)} />}</PageHeader>
      <ErrorMessage error={remove.error} />
      <div className="ach-summary">
        <AchievementIcon url={data.icon_url} name={data.name} />
        <div>
          <code>{data.key}</code> {data.hidden && <Badge tone="warn">Hidden</Badge>}
          <div className="hint">
            {formatNumber(data.points)} points · created {formatTime(data.created_at)} · changed {formatTime(data.updated_at)}
          </div>
        </div>
        <div className="ach-summary-figures">
          <div>
            <div className="hint">Unlocked by</div>
            <strong>
              {formatNumber(data.unlock_count)} {data.unlock_count === 1 ? 'player' : 'players'}
            </strong>
          </div>
          <Rarity percent={data.rarity} />
        </div>
      </div>
      {canEdit ? (
        <Card title="Edit achievement">
          <AchievementForm achievement={data} busy={save.busy} error={save.error} submitLabel="Save changes" onSave={(values) => update(data, values)} onCancel={() => navigate(listPath)} />
        </Card>
      ) : (
        <Card title="Description">
          <p>{data.description || <span className="hint">No description.</span>}</p>
        </Card>
      )}
    </>
  );
}
