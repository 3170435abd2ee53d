// The game's leaderboards (those defined here and those a first score created), a page at a
// time and searchable by name, and the form that defines a new one. Long names are cut, with
// the full name on hover.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { useGame } from '../../GameShell';
import { Async, Card, Empty, Field, PageHeader } from '../../ui/components';
import { Pager, usePage } from './Pager';
import { formatTime } from '../../ui/format';
import { useAction, useLoad } from '../../ui/useLoad';
import { DefinitionForm, type DefinitionValues } from './DefinitionForm';
import { boardPath, boundsText, hasBounds, orderLabel, periodKeyLabel, periodLabel } from './shared';

/** Boards per page of the list. */
const PAGE_SIZE = 50;

export function BoardList() {
  const { game, canEdit } = useGame();
  const gameId = game.game_id;
  const [page, setPage] = usePage();
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const boards = useLoad(
    () =>
      unwrap(
        api.GET('/v1/games/{game_id}/leaderboards', {
          params: { path: { game_id: gameId }, query: { search: search || undefined, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE } },
        }),
      ),
    [gameId, search, page],
  );
  const [creating, setCreating] = useState(false);
  const create = useAction();
  const navigate = useNavigate();

  async function save(values: DefinitionValues) {
    const body: Schemas['CreateLeaderboard'] = { board_name: values.board_name, order: values.order, operator: values.operator };
    // A schedule replaces the period (the API refuses both).
    if (values.reset_schedule) body.reset_schedule = values.reset_schedule;
    else body.period = values.period;
    if (values.auto_reset_at) body.auto_reset_at = values.auto_reset_at;
    if (values.min_score !== null) body.min_score = values.min_score;
    if (values.max_score !== null) body.max_score = values.max_score;
    if (values.starts_at) body.starts_at = values.starts_at;
    if (values.ends_at) body.ends_at = values.ends_at;
    if (values.max_players !== null) body.max_players = values.max_players;
    if (values.join_required) body.join_required = true;
    if (values.results_webhook) body.results_webhook = values.results_webhook;
    const board = await create.run(() => unwrap(api.POST('/v1/games/{game_id}/leaderboards', { params: { path: { game_id: gameId } }, body })));
    if (board) navigate(boardPath(gameId, board.board_name), { state: { created: true } });
  }

  return (
    <>
      <PageHeader title="Leaderboards">
        {canEdit && !creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New leaderboard
          </button>
        )}
      </PageHeader>
      {creating && (
        <Card title="New leaderboard">
          <DefinitionForm
            gameId={gameId}
            busy={create.busy}
            error={create.error}
            submitLabel="Create leaderboard"
            onSave={save}
            onCancel={() => {
              setCreating(false);
              create.setError(null);
            }}
          />
        </Card>
      )}
      <Card title="Boards">
        <form
          className="form inline lb-search"
          role="search"
          aria-label="Board search"
          onSubmit={(e) => {
            e.preventDefault();
            setSearch(query.trim());
            setPage(1);
          }}
        >
          <Field label="Find a board">
            <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Part of a name" autoComplete="off" spellCheck={false} />
          </Field>
          <button type="submit">Find</button>
        </form>
        <Async state={boards}>
          {({ leaderboards, total }) =>
            leaderboards.length === 0 && search ? (
              <Empty title="No board matches">No board name contains “{search}”.</Empty>
            ) : leaderboards.length === 0 ? (
              <Empty title="No leaderboards yet">
                {canEdit ? 'Define one with New leaderboard, or' : 'An editor can define one here, or'} let the game submit a score: the first score to{' '}
                <code>POST /v1/leaderboards/&#123;board&#125;/entries</code> creates a board (higher is better, all time).
              </Empty>
            ) : (
              <div className="table-wrap lb-table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Better score</th>
                      <th scope="col">Period</th>
                      <th scope="col">Current period</th>
                      <th scope="col">Score bounds</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {leaderboards.map((board) => (
                      <tr key={board.board_name}>
                        <td>
                          <Link to={boardPath(gameId, board.board_name)} className="lb-board-link lb-board-name" title={board.board_name}>
                            {board.board_name}
                          </Link>
                        </td>
                        <td>{orderLabel(board.order)}</td>
                        <td>
                          {board.reset_schedule ? (
                            <>
                              Schedule <code>{board.reset_schedule}</code>
                            </>
                          ) : (
                            periodLabel(board.period)
                          )}
                          {board.auto_reset_at && <div className="hint">Resets once at {formatTime(board.auto_reset_at)}</div>}
                        </td>
                        <td>{periodKeyLabel(board.current_period)}</td>
                        <td>{hasBounds(board) ? boundsText(board) : <span className="hint">None</span>}</td>
                        <td>{formatTime(board.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <Pager page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} noun="boards" />
              </div>
            )
          }
        </Async>
      </Card>
    </>
  );
}
