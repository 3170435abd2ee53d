// What a game with no events yet shows instead of empty charts: how to send the first one.
import { Link } from 'react-router';
import { Card, CopyButton } from '../../ui/components';

export function GettingStarted({ gameId }: { gameId: string }) {
  const origin = window.location.origin;
  const example = [
    `curl -X POST ${origin}/v1/track \\`,
    `  -H 'x-game-api-key: YOUR_KEY' \\`,
    `  -H 'content-type: application/json' \\`,
    `  -d '{"event_name":"session_start","session_id":"s1","player_id":"p1"}'`,
  ].join('\n');
  return (
    <Card title="No events yet">
      <div className="getting-started">
        <p>
          This game has not received any event. Charts of events, active users, revenue, crashes and retention appear here as soon as
          your game sends its first one.
        </p>
        <ol className="steps">
          <li>
            <strong>Get an API key.</strong> Create one on the <Link to={`/games/${gameId}/settings/keys`}>API keys page</Link> (a
            development key for testing, a production key for your release builds).
          </li>
          <li>
            <strong>Send an event.</strong> From your game, or from a terminal to try it now:
            <div className="code-block">
              <pre aria-label="Example request">
                <code>{example}</code>
              </pre>
              <CopyButton text={example} label="Copy command" />
            </div>
            <span className="hint">
              <code>event_name</code> and <code>session_id</code> are required; add <code>player_id</code> to count players, and{' '}
              <code>properties</code> for anything else (a <code>purchase</code> with <code>properties.amount</code> counts as revenue, a{' '}
              <code>crash</code> as a crash).
            </span>
          </li>
          <li>
            <strong>Watch it arrive</strong> on the <Link to={`/games/${gameId}/events/live`}>live events page</Link>, then come back here.
          </li>
        </ol>
      </div>
    </Card>
  );
}
