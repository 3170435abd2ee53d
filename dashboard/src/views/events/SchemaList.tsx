// The game's event schemas, and how the game applies them (its event_validation mode).
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Card, Empty } from '../../ui/components';
import { formatTime } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { ValidationMode } from './ValidationMode';

export function SchemaList() {
  const { game, canEdit } = useGame();
  const gameId = game.game_id;
  const schemas = useLoad(() => unwrap(api.GET('/v1/games/{game_id}/event-schemas', { params: { path: { game_id: gameId } } })), [gameId]);
  const base = `/games/${gameId}/events/schemas`;
  return (
    <>
      <ValidationMode />
      <Card
        title="Event schemas"
        actions={
          canEdit && (
            <Link className="button-link primary" to={`${base}/new`}>
              New schema
            </Link>
          )
        }
      >
        <p className="hint card-hint">
          A schema is a JSON Schema (draft 2020-12) for the <code>properties</code> of one event name. Events whose name has no schema
          are never checked, except the standard kinds below, which have a ready one.
        </p>
        <Async state={schemas}>
          {({ event_schemas: list }) =>
            list.length === 0 ? (
              <Empty title="No event schemas yet">
                {canEdit
                  ? 'Create one to describe the properties an event must carry, then try it on recent events before saving.'
                  : 'An editor of this game can add schemas for its event names.'}
              </Empty>
            ) : (
              <div className="table-wrap">
                <table className="table" aria-label="Event schemas">
                  <thead>
                    <tr>
                      <th scope="col">Event name</th>
                      <th scope="col">Checks</th>
                      <th scope="col">Last changed</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((s) => (
                      <tr key={s.event_name}>
                        <th scope="row" className="event-name-cell">
                          <Link to={`${base}/${encodeURIComponent(s.event_name)}`}>{s.event_name}</Link>
                        </th>
                        <td className="hint">{summarise(s.schema)}</td>
                        <td className="nowrap">{formatTime(s.updated_at)}</td>
                        <td className="num">
                          <Link to={`${base}/${encodeURIComponent(s.event_name)}`} aria-label={`${canEdit ? 'Edit' : 'View'} the schema of ${s.event_name}`}>
                            {canEdit ? 'Edit' : 'View'}
                          </Link>
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
      <Card title="Ready schemas">
        <p className="hint card-hint">
          The standard event kinds (<code>progression</code> and <code>resource</code>, see the Progression and Economy views) are checked
          against these under the validation mode above, until the game saves a schema of its own for the name.
        </p>
        <Async state={schemas}>
          {({ ready_schemas: ready }) => (
            <div className="table-wrap">
              <table className="table" aria-label="Ready schemas">
                <thead>
                  <tr>
                    <th scope="col">Event name</th>
                    <th scope="col">Checks</th>
                    <th scope="col">In use</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {ready.map((s) => (
                    <tr key={s.event_name} data-ready={s.event_name}>
                      <th scope="row" className="event-name-cell">
                        {s.event_name}
                      </th>
                      <td className="hint">
                        {summarise(s.schema)}
                        <details className="ready-schema">
                          <summary>Show the schema</summary>
                          <pre>{JSON.stringify(s.schema, null, 2)}</pre>
                        </details>
                      </td>
                      <td>{s.in_use ? 'Yes' : "No: the game's own schema applies"}</td>
                      <td className="num">
                        {canEdit && s.in_use && (
                          <Link
                            to={`${base}/new?event_name=${encodeURIComponent(s.event_name)}`}
                            state={{ start: s.schema }}
                            aria-label={`Adapt the ready schema of ${s.event_name}`}
                          >
                            Adapt
                          </Link>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Async>
      </Card>
    </>
  );
}

/** A few words on what a schema asks for: its properties and which are required. */
function summarise(schema: unknown): string {
  if (schema === true) return 'Anything';
  if (schema === false) return 'Nothing (every event is refused)';
  if (!schema || typeof schema !== 'object') return '—';
  const record = schema as { properties?: Record<string, unknown>; required?: unknown };
  const names = record.properties ? Object.keys(record.properties) : [];
  const required = Array.isArray(record.required) ? record.required.length : 0;
  if (names.length === 0) return required ? `${required} required` : 'Custom rules';
  const listed = names.slice(0, 4).join(', ') + (names.length > 4 ? `, +${names.length - 4}` : '');
  return `${listed}${required ? ` (${required} required)` : ''}`;
}
