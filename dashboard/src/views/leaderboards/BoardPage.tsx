// One leaderboard: its definition (edit, reset now, delete) and four tabs: the standings, the
// scores held for review, the banned players, and the results sent to its webhook.
import { useEffect, useState } from 'react';
import { Link, NavLink, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Card, ConfirmButton, Empty, ErrorMessage, Loading, PageHeader } from '../../ui/components';
import { formatNumber, formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { NotFound } from '../NotFound';
import { Bans } from './Bans';
import { loadBans, loadEntries } from './boardApi';
import { DefinitionForm, type DefinitionValues } from './DefinitionForm';
import { Moderation } from './Moderation';
import { Results } from './Results';
import { Standings } from './Standings';
import { boardPath, boundsText, operatorLabel, OPERATORS, orderLabel, PERIODS, periodKeyLabel, periodLabel, type Board } from './shared';

export function BoardPage() {
  const { board: name = '' } = useParams();
  const { game, canEdit } = useGame();
  const gameId = game.game_id;
  // An unknown board (never defined, or deleted) reads as null: a page of its own, not an error.
  const definition = useLoad(
    () =>
      unwrap(api.GET('/v1/games/{game_id}/leaderboards/{board_name}', { params: { path: { game_id: gameId, board_name: name } } })).catch(
        (error: unknown) => {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        },
      ),
    [gameId, name],
  );
  const back = (
    <p className="lb-back">
      <Link to={`/games/${gameId}/leaderboards`}>← All leaderboards</Link>
    </p>
  );

  if (definition.error) {
    return (
      <>
        {back}
        <PageHeader title={name} />
        <ErrorMessage error={definition.error} onRetry={definition.reload} />
      </>
    );
  }
  if (definition.data === null && !definition.loading) {
    return (
      <>
        {back}
        <PageHeader title={name} />
        <Empty title={`There is no leaderboard named ${name}`}>It may have been deleted. Pick one from the list of leaderboards.</Empty>
      </>
    );
  }
  if (!definition.data || definition.data.board_name !== name) {
    return (
      <>
        {back}
        <PageHeader title={name} />
        <Loading />
      </>
    );
  }
  return (
    <>
      {back}
      <BoardView gameId={gameId} board={definition.data} canEdit={canEdit} onSaved={definition.set} />
    </>
  );
}

function BoardView({ gameId, board, canEdit, onSaved }: { gameId: string; board: Board; canEdit: boolean; onSaved(board: Board): void }) {
  const navigate = useNavigate();
  const location = useLocation();
  const [editing, setEditing] = useState(false);
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState<string | null>((location.state as { created?: boolean } | null)?.created ? 'created' : null);
  // The "created" note is for the arrival only, not for a reload of the page.
  useEffect(() => {
    if (location.state) navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: null });
  }, [location, navigate]);
  const save = useAction();
  const remove = useAction();
  const resetting = useAction();
  const ref = { gameId, board: board.board_name };
  const held = useLoad(() => loadEntries(ref, { status: 'suspicious', limit: 1, offset: 0 }), [gameId, board.board_name, version]);
  const bans = useLoad(() => loadBans(ref), [gameId, board.board_name, version]);
  const changed = () => setVersion((v) => v + 1);
  const base = boardPath(gameId, board.board_name);
  const search = location.search;

  async function update(values: DefinitionValues) {
    // Only what changed is sent; null clears an optional setting (the API accepts null there,
    // although the generated type does not say so).
    const body: Record<string, string | number | boolean | null> = {};
    if (values.order !== board.order) body.order = values.order;
    if (values.operator !== board.operator) body.operator = values.operator;
    // A schedule replaces the period; a period (other than all-time) replaces the schedule.
    const scheduleBefore = board.reset_schedule ?? null;
    if (values.reset_schedule) {
      if (values.reset_schedule !== scheduleBefore) body.reset_schedule = values.reset_schedule;
    } else if (scheduleBefore && values.period === 'all_time') {
      body.reset_schedule = null;
    } else if (values.period !== board.period || scheduleBefore) {
      body.period = values.period;
    }
    const resetBefore = board.period === 'all_time' ? (board.auto_reset_at ?? null) : null;
    if (values.auto_reset_at !== resetBefore && !(values.auto_reset_at && resetBefore && Date.parse(values.auto_reset_at) === Date.parse(resetBefore))) {
      body.auto_reset_at = values.auto_reset_at;
    }
    if (values.min_score !== (board.min_score ?? null)) body.min_score = values.min_score;
    if (values.max_score !== (board.max_score ?? null)) body.max_score = values.max_score;
    const tournament = board.tournament ?? null;
    const sameInstant = (a: string | null, b: string | null) => a === b || (a !== null && b !== null && Date.parse(a) === Date.parse(b));
    if (!sameInstant(values.starts_at, tournament?.starts_at ?? null)) body.starts_at = values.starts_at;
    if (!sameInstant(values.ends_at, tournament?.ends_at ?? null)) body.ends_at = values.ends_at;
    if (values.max_players !== (tournament?.max_players ?? null)) body.max_players = values.max_players;
    if (values.join_required !== (tournament?.join_required ?? false)) body.join_required = values.join_required;
    if (values.results_webhook !== (board.results_webhook ?? null)) body.results_webhook = values.results_webhook;
    if (Object.keys(body).length === 0) {
      setEditing(false);
      return;
    }
    const next = await save.run(() =>
      unwrap(
        api.PATCH('/v1/games/{game_id}/leaderboards/{board_name}', {
          params: { path: { game_id: gameId, board_name: board.board_name } },
          body: body as Schemas['UpdateLeaderboard'],
        }),
      ),
    );
    if (!next) return;
    onSaved(next);
    setEditing(false);
    setSaved('saved');
    changed();
  }

  async function destroy() {
    const done = await remove.run(async () => {
      await unwrap(api.DELETE('/v1/games/{game_id}/leaderboards/{board_name}', { params: { path: { game_id: gameId, board_name: board.board_name } } }));
      return true;
    });
    if (done) navigate(`/games/${gameId}/leaderboards`, { replace: true });
  }

  async function resetNow() {
    const next = await resetting.run(() =>
      unwrap(
        api.POST('/v1/games/{game_id}/leaderboards/{board_name}/reset', { params: { path: { game_id: gameId, board_name: board.board_name } } }),
      ),
    );
    if (!next) return;
    onSaved(next);
    setSaved('reset');
    changed();
  }

  const heldCount = held.data?.total;
  const banCount = bans.data?.bans.length;
  const periodHint = PERIODS.find((p) => p.value === board.period)?.hint;

  return (
    <>
      <PageHeader title={board.board_name}>
        {canEdit && !editing && (
          <button type="button" onClick={() => (setEditing(true), setSaved(null))}>
            Edit
          </button>
        )}
        {canEdit && (
          <ConfirmButton
            label="Reset now"
            title={`Reset the leaderboard ${board.board_name} now?`}
            message={
              <p>
                The current standings ({periodKeyLabel(board.current_period)}) end now and stay readable as an archived period, as at a
                scheduled reset. A new, empty period runs until {board.resets_at ? formatTime(board.resets_at) : 'the next reset (none is scheduled)'}.
              </p>
            }
            confirmLabel="Reset leaderboard"
            onConfirm={resetNow}
          />
        )}
        {canEdit && (
          <ConfirmButton
            label="Delete"
            title={`Delete the leaderboard ${board.board_name}?`}
            message={
              <p>
                This deletes the board with every entry in every period, its archived periods and its bans. It cannot be undone. A later score
                from the game to this name creates a new, empty board with the default settings.
              </p>
            }
            confirmLabel="Delete leaderboard"
            onConfirm={destroy}
          />
        )}
      </PageHeader>
      <ErrorMessage error={remove.error ?? resetting.error} />
      {saved === 'created' && (
        <p className="success" role="status">
          Leaderboard created. The game can now submit scores to <code>POST /v1/leaderboards/{board.board_name}/entries</code>.
        </p>
      )}
      {saved === 'reset' && (
        <p className="success" role="status">
          Leaderboard reset: the previous standings are archived, and a new period began {board.period_start ? formatTime(board.period_start) : 'now'}.
        </p>
      )}
      {saved === 'saved' && (
        <p className="success" role="status">
          Changes saved.
        </p>
      )}
      {editing ? (
        <Card title="Edit leaderboard">
          <DefinitionForm
            gameId={gameId}
            board={board}
            busy={save.busy}
            error={save.error}
            submitLabel="Save changes"
            onSave={update}
            onCancel={() => {
              setEditing(false);
              save.setError(null);
            }}
          />
        </Card>
      ) : (
        <dl className="lb-facts" aria-label="Definition">
          <div>
            <dt>Better score</dt>
            <dd>{orderLabel(board.order)}</dd>
          </div>
          <div>
            <dt>Each score</dt>
            <dd title={OPERATORS.find((o) => o.value === board.operator)?.hint}>{operatorLabel(board.operator)}</dd>
          </div>
          <div>
            <dt>Period</dt>
            {board.reset_schedule ? (
              <dd title="The board starts over at every firing of this cron expression, read in UTC.">
                Reset schedule <code>{board.reset_schedule}</code> (cron, UTC)
              </dd>
            ) : (
              <dd title={periodHint}>{periodLabel(board.period)}</dd>
            )}
          </div>
          <div>
            <dt>Current period</dt>
            <dd>{periodKeyLabel(board.current_period)}</dd>
          </div>
          {board.period_start && (
            <div>
              <dt>Period began</dt>
              <dd>{formatTime(board.period_start)}</dd>
            </div>
          )}
          <div>
            <dt>Next reset</dt>
            <dd>{board.resets_at ? formatTime(board.resets_at) : 'None scheduled'}</dd>
          </div>
          <div>
            <dt>Score bounds</dt>
            <dd>{boundsText(board)}</dd>
          </div>
          {board.period === 'all_time' && !board.reset_schedule && (
            <div>
              <dt>One-time reset</dt>
              <dd>{board.auto_reset_at ? formatTime(board.auto_reset_at) : 'None'}</dd>
            </div>
          )}
          {board.tournament && <TournamentFacts tournament={board.tournament} />}
          <div>
            <dt>Created</dt>
            <dd>{formatTime(board.created_at)}</dd>
          </div>
        </dl>
      )}
      <nav className="lb-tabs" aria-label="Leaderboard sections">
        <NavLink end to={{ pathname: base, search: keepPeriod(search) }}>
          Standings
        </NavLink>
        <NavLink to={{ pathname: `${base}/moderation`, search: keepPeriod(search) }}>
          Moderation
          {heldCount !== undefined && heldCount > 0 && (
            <span className="lb-count lb-count-warn" aria-label={`${heldCount} held for review`}>
              {formatNumber(heldCount)}
            </span>
          )}
        </NavLink>
        <NavLink to={`${base}/bans`}>
          Bans
          {banCount !== undefined && banCount > 0 && (
            <span className="lb-count" aria-label={`${banCount} banned`}>
              {formatNumber(banCount)}
            </span>
          )}
        </NavLink>
        <NavLink to={`${base}/results`}>Results</NavLink>
      </nav>
      <Routes>
        <Route index element={<Standings gameId={gameId} board={board} canEdit={canEdit} version={version} onChanged={changed} />} />
        <Route path="moderation" element={<Moderation gameId={gameId} board={board} canEdit={canEdit} version={version} onChanged={changed} />} />
        <Route path="bans" element={<Bans gameId={gameId} board={board} canEdit={canEdit} version={version} onChanged={changed} />} />
        <Route path="results" element={<Results gameId={gameId} board={board} canEdit={canEdit} version={version} onChanged={changed} />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </>
  );
}

/** A tournament's state, window, players and joining, as facts of the definition. */
function TournamentFacts({ tournament }: { tournament: Schemas['TournamentView'] }) {
  const state = { upcoming: 'Upcoming', live: 'Live', ended: 'Ended' }[tournament.state];
  return (
    <>
      <div>
        <dt>Tournament</dt>
        <dd>
          <span className={`lb-state ${tournament.state}`}>{state}</span>
          {tournament.seconds_left != null && <span className="hint"> {timeLeft(tournament.seconds_left)} left</span>}
        </dd>
      </div>
      <div>
        <dt>Window</dt>
        <dd>
          {tournament.starts_at ? formatTime(tournament.starts_at) : 'From the start'} → {tournament.ends_at ? formatTime(tournament.ends_at) : 'no end'}
        </dd>
      </div>
      <div>
        <dt>Players</dt>
        <dd>
          {formatNumber(tournament.players)}
          {tournament.max_players != null ? ` of ${formatNumber(tournament.max_players)}` : ' (no limit)'}
          {tournament.join_required ? ' · must join' : ''}
        </dd>
      </div>
    </>
  );
}

/** "2 d 3 h", "3 h 20 min", "45 min" or "30 s". */
function timeLeft(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min`;
  return `${seconds} s`;
}

/** The `?period=` of the address (not the page, which belongs to one list). */
function keepPeriod(search: string): string {
  const period = new URLSearchParams(search).get('period');
  return period ? `?period=${encodeURIComponent(period)}` : '';
}
