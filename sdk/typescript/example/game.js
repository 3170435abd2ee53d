// Star Catcher: catch stars for 20 seconds. Every catch is an event; the score goes to the
// "stars" board through the SDK's 5-second throttle; the best is kept in a cloud save; the
// first catch unlocks an achievement (when the game defines `first_star`); remote config may
// set `star_lifetime_ms`; presence says what the player is doing.
import { init } from '/sdk/index.js';

const $ = (id) => document.getElementById(id);
const STAR_SVG =
  '<svg viewBox="0 0 24 24" width="32" height="32" aria-hidden="true"><path fill="#ffd23f" stroke="#f5a300" stroke-width="1" ' +
  'd="M12 2.5l2.9 6.1 6.6.8-4.9 4.6 1.3 6.6L12 17.3l-5.9 3.3 1.3-6.6-4.9-4.6 6.6-.8z"/></svg>';
const params = new URLSearchParams(location.search);
const form = $('connect');
for (const name of ['baseUrl', 'apiKey', 'player']) {
  const value = params.get(name) ?? localStorage.getItem(`example.${name}`);
  if (value) form.elements[name].value = value;
}

let playtrace;
let score = 0;
let best = 0;
let running = false;
let clock;

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const { baseUrl, apiKey, player } = Object.fromEntries(new FormData(form));
  for (const [name, value] of Object.entries({ baseUrl, apiKey, player })) localStorage.setItem(`example.${name}`, value);
  playtrace = init({
    baseUrl,
    apiKey,
    playerId: player,
    onError: (problem) => say(`playtrace: ${problem.kind}${problem.error ? ` (${problem.error.message})` : ''}`),
  });
  form.hidden = true;
  $('game').hidden = false;
  playtrace.track('game_opened', { screen: `${innerWidth}x${innerHeight}` });
  const save = await playtrace.loadSave('progress').catch(() => null);
  best = save?.data?.best ?? 0;
  $('best').textContent = best;
  await playtrace.setActivity('In the menu', { status: 'idle' }).catch(() => {});
  await showBoard();
  setInterval(showStats, 500);
});

$('start').addEventListener('click', async () => {
  const config = await playtrace.getConfig().catch(() => ({}));
  const lifetime = Number(config.star_lifetime_ms) || 1_200;
  score = 0;
  running = true;
  $('score').textContent = '0';
  $('start').disabled = true;
  $('end').disabled = false;
  say('');
  playtrace.track('run_started', { star_lifetime_ms: lifetime });
  playtrace.setActivity('Catching stars', { status: 'playing', details: { score: 0 } }).catch(() => {});
  let left = 20;
  $('time').textContent = left;
  clock = setInterval(() => {
    left -= 1;
    $('time').textContent = left;
    if (left <= 0) endRun();
  }, 1_000);
  spawn(lifetime);
});

$('end').addEventListener('click', () => endRun());

function spawn(lifetime) {
  if (!running) return;
  const field = $('field');
  const star = document.createElement('button');
  star.className = 'star';
  star.type = 'button';
  star.innerHTML = STAR_SVG;
  star.setAttribute('aria-label', 'Star');
  star.style.left = `${Math.random() * (field.clientWidth - 36)}px`;
  star.style.top = `${Math.random() * (field.clientHeight - 36)}px`;
  star.addEventListener('click', () => {
    star.remove();
    score += 1;
    $('score').textContent = score;
    playtrace.track('star_caught', { score });
    if (score === 1) playtrace.unlockAchievement('first_star').catch(() => {});
    // Throttled by the SDK: the first at once, then at most one request per 5 seconds.
    playtrace.submitScore('stars', score).then(showBoard, () => {});
  });
  field.append(star);
  setTimeout(() => star.remove(), lifetime);
  setTimeout(() => spawn(lifetime), 450);
}

async function endRun() {
  if (!running) return;
  running = false;
  clearInterval(clock);
  $('start').disabled = false;
  $('end').disabled = true;
  playtrace.track('run_ended', { score });
  playtrace.setActivity('In the menu', { status: 'idle', details: { last_score: score } }).catch(() => {});
  if (score > best) {
    best = score;
    $('best').textContent = best;
    await playtrace
      .writeSave('progress', { best }, { onConflict: ({ stored, mine }) => ({ best: Math.max(stored?.data?.best ?? 0, mine.best) }) })
      .catch(() => {});
  }
  say(`Run over: ${score} stars.`);
  await showBoard();
}

async function showBoard() {
  const page = await playtrace.getLeaderboard('stars', { limit: 10 }).catch(() => null);
  const list = $('board');
  list.replaceChildren(
    ...(page?.entries ?? []).map((entry) => {
      const item = document.createElement('li');
      item.textContent = `${entry.player_name ?? entry.player_id}: ${entry.score}`;
      if (entry.player_id === playtrace.playerId) item.className = 'me';
      return item;
    }),
  );
}

function showStats() {
  const stats = playtrace.stats();
  const rows = { queued: stats.queued, sent: stats.sent, dropped: stats.dropped, 'scores waiting': stats.scoresWaiting };
  $('stats').replaceChildren(
    ...Object.entries(rows).flatMap(([name, value]) => {
      const term = document.createElement('dt');
      term.textContent = name;
      const detail = document.createElement('dd');
      detail.textContent = value;
      return [term, detail];
    }),
  );
}

function say(text) {
  $('message').textContent = text;
}
