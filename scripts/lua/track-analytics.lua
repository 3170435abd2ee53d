-- wrk script for scripts/bench-analytics: POST /v1/track with batches of 100 events shaped like
-- a live game's, client_timestamp spread over the 29 days before now. A tenth of each day's
-- events come from players new that day, a quarter from players who were new in the week
-- before, the rest from a fixed base of regulars. Since issue 26, 7% are `progression` events (about
-- 300 steps) and 5% `resource` events (2 currencies, 4 item types), taken from `ad_view`. Each thread stops sending after its share
-- of PT_REQUESTS requests (wrk itself runs until its duration ends). Needs PT_KEY (the API key), PT_REQUESTS and PT_THREADS (wrk's -t).
-- PT_SHAPE=player makes each request one player's session instead: 100 events of one player, 20 seconds apart, on one of
-- the 29 days (what a game's SDK sends, an offline session uploaded late included); the default mixes players and days in
-- every request.
local key = os.getenv("PT_KEY")
local total = tonumber(os.getenv("PT_REQUESTS"))
local threads = tonumber(os.getenv("PT_THREADS") or "2")
local one_player = os.getenv("PT_SHAPE") == "player"
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + id)
  limit = math.ceil(total / threads)
  responses = 0
end

local names = {
  {0.25, "session_start"}, {0.45, "level_start"}, {0.60, "level_complete"},
  {0.70, "store_open"}, {0.73, "purchase"}, {0.75, "crash"}, {0.85, "log"},
  {0.92, "progression"}, {0.97, "resource"}, {1.01, "ad_view"},
}
local levels = {"error", "warning", "info", "info"}
local statuses = {"start", "start", "complete", "fail"}
local flows = {"source", "sink"}
local currencies = {"gold", "gems"}
local item_types = {"shop", "reward", "quest", "ad"}

local function player_of(day)
  local roll = math.random()
  if roll < 0.10 then
    return string.format("n%d-%d", day, math.random(1, 500))
  elseif roll < 0.35 and day > 0 then
    return string.format("n%d-%d", math.max(0, day - math.random(1, 7)), math.random(1, 500))
  end
  return string.format("b%d", math.random(1, 4000))
end

local function one_event(days_ago, at, player)
  local pick, name = math.random(), "ad_view"
  for _, entry in ipairs(names) do
    if pick < entry[1] then name = entry[2]; break end
  end
  local properties = "{}"
  if name == "purchase" then
    properties = string.format('{"amount":%.2f}', ({0.99, 4.99, 9.99})[math.random(1, 3)])
  elseif name == "log" then
    properties = string.format('{"level":"%s"}', levels[math.random(1, 4)])
  elseif name == "progression" then
    -- 10 worlds of 20 levels, some with a boss stage: about 300 steps.
    local stage = math.random() < 0.2 and ',"level3":"boss"' or ""
    properties = string.format('{"status":"%s","level1":"world %d","level2":"level %d"%s,"attempt":%d}',
      statuses[math.random(1, 4)], math.random(1, 10), math.random(1, 20), stage, math.random(1, 4))
  elseif name == "resource" then
    properties = string.format('{"flow":"%s","currency":"%s","amount":%d,"item_type":"%s","item_id":"i%d"}',
      flows[math.random(1, 2)], currencies[math.random(1, 2)], math.random(1, 500),
      item_types[math.random(1, 4)], math.random(1, 50))
  end
  return string.format(
    '{"event_name":"%s","session_id":"s-%s-%d","player_id":"%s","properties":%s,"client_timestamp":"%s"}',
    name, player, days_ago, player, properties, os.date("!%Y-%m-%dT%H:%M:%SZ", at))
end

function request()
  local now = os.time()
  local events = {}
  if one_player then
    local days_ago = math.random(1, 29)
    local start = now - days_ago * 86400 + math.random(0, 86399 - 99 * 20)
    local player = player_of(29 - days_ago)
    for i = 1, 100 do events[i] = one_event(days_ago, start + (i - 1) * 20, player) end
  else
    for i = 1, 100 do
      local days_ago = math.random(1, 29)
      local at = now - days_ago * 86400 + math.random(0, 86399)
      events[i] = one_event(days_ago, at, player_of(29 - days_ago))
    end
  end
  return wrk.format("POST", "/v1/track",
    {["Content-Type"] = "application/json", ["x-game-api-key"] = key},
    "[" .. table.concat(events, ",") .. "]")
end

function response(status, headers, body)
  responses = responses + 1
  if responses >= limit then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT requests=%d events_per_sec=%.1f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests, summary.requests * 100 / seconds, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
