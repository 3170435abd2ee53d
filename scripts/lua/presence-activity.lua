-- wrk script: POST /v1/activity for random players out of PLAYERS (env, default 50000).
-- The API key comes from the API_KEY environment variable.
local players = tonumber(os.getenv("PLAYERS") or "50000")
local statuses = { "playing", "playing", "playing", "waiting", "idle" }

local next_thread = 0

function setup(thread)
  thread:set("seed", os.time() * 16 + next_thread)
  next_thread = next_thread + 1
end

function init(args)
  math.randomseed(seed)
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-game-api-key"] = os.getenv("API_KEY")

function request()
  local player = math.random(0, players - 1)
  local body = string.format(
    '{"player_id":"player-%d","session_id":"s-%d","activity":"In match %d","status":"%s","details":{"map":"harbor","score":%d}}',
    player, player, player % 97, statuses[math.random(#statuses)], math.random(0, 100000))
  return wrk.format(nil, "/v1/activity", nil, body)
end
