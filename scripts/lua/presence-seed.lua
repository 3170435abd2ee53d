-- wrk script: POST /v1/activity for players 0..PLAYERS-1 in order, each thread taking every
-- THREADS-th id from its own start, so a short run with enough requests covers every player.
local players = tonumber(os.getenv("PLAYERS") or "10000")
local threads = tonumber(os.getenv("THREADS") or "4")
local counter = 0
local next_thread = 0

function setup(thread)
  thread:set("start", next_thread)
  next_thread = next_thread + 1
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-game-api-key"] = os.getenv("API_KEY")

function request()
  local player = (start + counter * threads) % players
  counter = counter + 1
  local body = string.format('{"player_id":"player-%d","activity":"Seeded","details":{"n":%d}}', player, player)
  return wrk.format(nil, "/v1/activity", nil, body)
end
