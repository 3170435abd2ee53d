-- wrk script for scripts/soak: a mixed game-side load at a fixed total rate.
--
-- Each thread sends its share of SOAK_RATE on a schedule (one slot every threads*1000/rate ms,
-- kept with the monotonic clock through LuaJIT's FFI): delay() hands every connection the next
-- free slot, so the rate does not depend on the latency as long as the connections suffice
-- (latency below about connections/rate). A thread that falls more than a second behind (the
-- server stalled) drops the missed slots instead of bursting, so the achieved rate tells.
-- The requests rotate among six game-side calls, bodies as in docs/ and openapi/openapi.json:
--   POST /v1/track                           one event, unique event_id            -> 202
--   POST /v1/leaderboards/{board}/entries    score submission                      -> 200
--   GET  /v1/leaderboards/{board}?limit=50   top 50                                -> 200
--   POST /v1/activity                        presence                              -> 200
--   POST /v1/achievements/unlock             unlock (idempotent after the first)   -> 200
--   GET  /v1/config                          remote config                         -> 200
-- Env: API_KEY, SOAK_RATE (total req/s), SOAK_THREADS (= wrk -t), SOAK_TAG (unique per run,
-- keeps event ids unique), SOAK_BOARD, SOAK_ACHIEVEMENT, SOAK_PLAYERS, SOAK_MIX (the kinds to
-- rotate among, comma-separated, default track,submit,board,activity,unlock,config).
-- done() prints `RESULT key=value...`, then `STATUS <code> <count>` for each non-2xx status and
-- `SAMPLE <code> <body>` for the first few non-2xx answers of each thread.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } soak_timespec;
int clock_gettime(int clock_id, soak_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("soak_timespec")
local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local key = os.getenv("API_KEY") or ""
local rate = tonumber(os.getenv("SOAK_RATE") or "1000")
local thread_count = tonumber(os.getenv("SOAK_THREADS") or "2")
local tag = os.getenv("SOAK_TAG") or tostring(os.time())
local board = os.getenv("SOAK_BOARD") or "soak"
local achievement = os.getenv("SOAK_ACHIEVEMENT") or "soak_unlock"
local players = tonumber(os.getenv("SOAK_PLAYERS") or "10000")
local statuses = { "playing", "playing", "playing", "waiting", "idle" }
local known = { track = true, submit = true, board = true, activity = true, unlock = true, config = true }
local mix = {}
for kind in (os.getenv("SOAK_MIX") or "track,submit,board,activity,unlock,config"):gmatch("[^,%s]+") do
  if not known[kind] then error("SOAK_MIX: unknown kind " .. kind) end
  table.insert(mix, kind)
end
if #mix == 0 then error("SOAK_MIX names no kind") end

-- Main state: the threads, for done().
local threads = {}
function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

-- Thread state.
local interval, next_slot, counter, post_headers, get_headers
local board_entries = "/v1/leaderboards/" .. board .. "/entries"
local board_page = "/v1/leaderboards/" .. board .. "?limit=50"
responses, non2xx, by_status, samples, sample_count = 0, 0, {}, "", 0

function init(args)
  math.randomseed(os.time() * 1000 + id * 7919)
  interval = thread_count * 1000 / rate
  next_slot = now_ms()
  counter = 0
  -- wrk.format adds Host and Content-Length to these tables itself.
  post_headers = { ["x-game-api-key"] = key, ["Content-Type"] = "application/json" }
  get_headers = { ["x-game-api-key"] = key }
end

function delay()
  local now = now_ms()
  if next_slot < now - 1000 then
    next_slot = now
  end
  local wait = next_slot - now
  next_slot = next_slot + interval
  if wait <= 0 then
    return 0
  end
  return math.floor(wait)
end

function request()
  counter = counter + 1
  local p = math.random(0, players - 1)
  local kind = mix[counter % #mix + 1]
  if kind == "track" then
    local body = string.format(
      '{"event_name":"soak_tick","session_id":"soak-session-%d","player_id":"soak-player-%d",' ..
      '"event_id":"%s-%d-%d","properties":{"level":%d,"mode":"soak"}}',
      p, p, tag, id, counter, p % 30)
    return wrk.format("POST", "/v1/track", post_headers, body)
  elseif kind == "submit" then
    local body = string.format(
      '{"player_id":"soak-player-%d","player_name":"Player %d","score":%d,"metadata":{"mode":"soak"}}',
      p, p, math.random(0, 1000000))
    return wrk.format("POST", board_entries, post_headers, body)
  elseif kind == "board" then
    return wrk.format("GET", board_page, get_headers)
  elseif kind == "activity" then
    local body = string.format(
      '{"player_id":"soak-player-%d","session_id":"soak-session-%d","activity":"Soak level %d",' ..
      '"status":"%s","details":{"level":%d}}',
      p, p, p % 30, statuses[math.random(#statuses)], p % 30)
    return wrk.format("POST", "/v1/activity", post_headers, body)
  elseif kind == "unlock" then
    local body = string.format('{"achievement_key":"%s","player_id":"soak-player-%d"}', achievement, p)
    return wrk.format("POST", "/v1/achievements/unlock", post_headers, body)
  else
    return wrk.format("GET", "/v1/config", get_headers)
  end
end

function response(status, headers, body)
  responses = responses + 1
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    by_status[status] = (by_status[status] or 0) + 1
    if sample_count < 3 then
      sample_count = sample_count + 1
      local text = (body or ""):sub(1, 300):gsub("[\r\n]", " ")
      samples = samples .. "SAMPLE " .. status .. " " .. text .. "\n"
    end
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local socket = e.connect + e.read + e.write + e.timeout
  local total_non2xx, statuses_seen, sample_text = 0, {}, ""
  for _, thread in ipairs(threads) do
    total_non2xx = total_non2xx + (thread:get("non2xx") or 0)
    for status, count in pairs(thread:get("by_status") or {}) do
      statuses_seen[status] = (statuses_seen[status] or 0) + count
    end
    sample_text = sample_text .. (thread:get("samples") or "")
  end
  io.write(string.format(
    "RESULT requests=%d seconds=%.1f rate=%.1f non2xx=%d socket_errors=%d connect=%d read=%d " ..
    "write=%d timeout=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
    summary.requests, seconds, summary.requests / seconds, total_non2xx, socket, e.connect, e.read,
    e.write, e.timeout, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
  local codes = {}
  for status in pairs(statuses_seen) do table.insert(codes, status) end
  table.sort(codes)
  for _, status in ipairs(codes) do
    io.write(string.format("STATUS %d %d\n", status, statuses_seen[status]))
  end
  io.write(sample_text)
end
