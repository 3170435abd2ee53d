// The game's funnels, each linking to its report; editors get "New funnel".
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Card, Empty, PageHeader } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { ModeBadge, StepPath, windowText } from './shared';

export function FunnelList() {
  const { game, canEdit } = useGame();
  const funnels = useLoad(
    () => unwrap(api.GET('/v1/games/{game_id}/funnels', { params: { path: { game_id: game.game_id } } })),
    [game.game_id],
  );

  return (
    <>
      <PageHeader title="Funnels">
        {canEdit && (
          <Link to="new" className="funnel-link-button primary">
            New funnel
          </Link>
        )}
      </PageHeader>
      <p className="hint funnels-intro">
        A funnel follows players through a sequence of events, such as finishing the tutorial and then making a first
        purchase, and shows how many reach each step and where they drop off.
      </p>
      <Card title="Your funnels">
        <Async state={funnels}>
          {({ funnels: list }) =>
            list.length === 0 ? (
              <Empty title="No funnels yet">
                {canEdit ? (
                  <>
                    Build one from the event names your game already sends.{' '}
                    <Link to="new">Create your first funnel</Link>
                  </>
                ) : (
                  'An editor or owner of this game can create one.'
                )}
              </Empty>
            ) : (
              <div className="table-wrap">
                <table className="table funnel-list">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Steps</th>
                      <th scope="col">Mode</th>
                      <th scope="col">Window</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((funnel) => (
                      <tr key={funnel.funnel_id}>
                        <td className="funnel-name-cell">
                          <Link to={funnel.funnel_id}>{funnel.name}</Link>
                        </td>
                        <td className="funnel-steps-cell">
                          <span className="hint">{funnel.steps.length} steps: </span>
                          <StepPath steps={funnel.steps} />
                        </td>
                        <td>
                          <ModeBadge mode={funnel.mode} />
                        </td>
                        <td>{windowText(funnel.within_hours)}</td>
                        <td>{formatTime(funnel.updated_at)}</td>
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
