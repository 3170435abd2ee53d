// Tournament boards through the SDK against the real service: joining, scores on a board that
// needs joining, a full tournament, and the `tournament` object on what the reads answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PlaytraceError } from '../../dist/node.js';
import { call, gameWithClient, serverFor } from './setup.mjs';

const HOUR = 3_600_000;
const at = (offsetMs) => new Date(Date.now() + offsetMs).toISOString();

/** A tournament board made in the dashboard by the game's owner. */
function tournament(env, gameId, board_name, settings) {
  return call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, { token: env.studio.token, body: { board_name, ...settings } });
}

/** The service's code of each refusal the SDK names. */
const CODES = { not_started: 'TOURNAMENT_NOT_STARTED', ended: 'TOURNAMENT_ENDED', full: 'TOURNAMENT_FULL', not_a_tournament: 'NOT_A_TOURNAMENT', join_required: 'TOURNAMENT_JOIN_REQUIRED' };

const refusedWith = (status, refusal, message) => (error) => {
  assert.ok(error instanceof PlaytraceError, String(error));
  assert.equal(error.status, status);
  assert.equal(error.tournamentRefusal, refusal);
  assert.equal(error.body.code, CODES[refusal], 'read from the code the service sent');
  assert.match(error.message, message);
  return true;
};

describe('tournaments', () => {
  const env = serverFor({ before, after });

  it('joins, then submits; a score before joining is refused with the typed 403', async () => {
    const { gameId, client } = await gameWithClient(env);
    await tournament(env, gameId, 'cup', { starts_at: at(-HOUR), ends_at: at(HOUR), max_players: 10, join_required: true });

    await assert.rejects(client.submitScore('cup', 50, { playerId: 'bob' }), refusedWith(403, 'join_required', /join the tournament first/));

    const joined = await client.joinTournament('cup');
    assert.deepEqual([joined.board_name, joined.player_id, joined.joined, joined.players], ['cup', 'ann', true, 1]);
    assert.equal(joined.tournament.state, 'live');
    assert.deepEqual([joined.tournament.players, joined.tournament.max_players, joined.tournament.join_required], [1, 10, true]);
    const again = await client.joinTournament('cup');
    assert.deepEqual([again.joined, again.players], [true, 1], 'joining again counts once');

    const entry = await client.submitScore('cup', 120, { playerName: 'Ann' });
    assert.deepEqual([entry.player_id, entry.score, entry.rank], ['ann', 120, 1]);
    assert.equal(entry.tournament.state, 'live');
    assert.equal(entry.tournament.players, 1);

    // Bob joins after his refusal (another player named in the call) and his score goes in,
    // once the 5-second throttle window of the refused score has passed.
    assert.equal((await client.joinTournament('cup', { playerId: 'bob' })).players, 2);
    const started = Date.now();
    const bobs = await client.submitScore('cup', 80, { playerId: 'bob' });
    assert.ok(Date.now() - started >= 3_000, 'the refused score counted as a send of the window');
    assert.deepEqual([bobs.rank, bobs.tournament.players], [2, 2]);

    const page = await client.getLeaderboard('cup');
    assert.deepEqual(page.entries.map((e) => [e.player_id, e.score]), [['ann', 120], ['bob', 80]]);
    const t = page.tournament;
    assert.deepEqual([t.state, t.players, t.max_players, t.join_required], ['live', 2, 10, true]);
    assert.ok(t.seconds_left > 3_000 && t.seconds_left <= 3_600, `seconds_left ${t.seconds_left}`);
    assert.equal(Date.parse(t.ends_at) > Date.now(), true);
    const standing = await client.getStanding('cup', { playerId: 'bob' });
    assert.deepEqual([standing.rank, standing.tournament.state, standing.tournament.players], [2, 'live', 2]);
    await client.close();
  });

  it('refuses a newcomer to a full tournament with 409, and keeps those already in', async () => {
    const { gameId, client } = await gameWithClient(env);
    await tournament(env, gameId, 'duel', { ends_at: at(HOUR), max_players: 2 });
    await client.joinTournament('duel');
    await client.joinTournament('duel', { playerId: 'bob' });
    await assert.rejects(client.joinTournament('duel', { playerId: 'cat' }), refusedWith(409, 'full', /tournament is full: it takes at most 2 players/));
    await assert.rejects(client.submitScore('duel', 10, { playerId: 'cat' }), refusedWith(409, 'full', /tournament is full/));
    assert.equal((await client.joinTournament('duel', { playerId: 'bob' })).players, 2, 'a player already in may join again');
    assert.equal((await client.submitScore('duel', 10)).tournament.players, 2);
    const page = await client.getLeaderboard('duel');
    assert.deepEqual([page.tournament.state, page.tournament.players, page.tournament.join_required], ['live', 2, false]);
    await client.close();
  });

  it('tells upcoming, ended, ordinary and unknown boards apart', async () => {
    const { gameId, client } = await gameWithClient(env);
    await tournament(env, gameId, 'later', { starts_at: at(HOUR), ends_at: at(2 * HOUR) });
    await tournament(env, gameId, 'over', { starts_at: at(-2 * HOUR), ends_at: at(-HOUR) });
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, { token: env.studio.token, body: { board_name: 'plain' } });

    const early = await client.joinTournament('later');
    assert.deepEqual([early.tournament.state, early.tournament.seconds_left ?? null, early.players], ['upcoming', null, 1], 'joining opens before the start');
    await assert.rejects(client.submitScore('later', 5), refusedWith(409, 'not_started', /has not started/));
    await assert.rejects(client.joinTournament('over'), refusedWith(409, 'ended', /has ended/));
    assert.equal((await client.getLeaderboard('over')).tournament.state, 'ended');
    await assert.rejects(client.joinTournament('plain'), refusedWith(409, 'not_a_tournament', /not a tournament/));
    assert.equal((await client.getLeaderboard('plain')).tournament, null);
    await assert.rejects(client.joinTournament('nowhere'), (e) => e instanceof PlaytraceError && e.status === 404 && e.tournamentRefusal === undefined);
    await client.close();
  });
});
