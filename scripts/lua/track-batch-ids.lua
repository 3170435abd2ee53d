-- wrk script: POST /v1/track with a batch of 100 events per request, each with its own
-- event_id and a client_timestamp, as the SDK sends them (the service then stores each id
-- once, which costs more than events without ids). Needs PT_KEY. Prints one RESULT line.
local key = os.getenv("PT_KEY")
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local prefix
local counter = 0

function init(args)
  math.randomseed(os.time() * 1000 + (thread_number or 0))
  prefix = string.format("%d-%d-%d", os.time(), thread_number or 0, math.random(1, 1000000000))
end

function request()
  counter = counter + 1
  local events = {}
  for i = 1, 100 do
    events[i] = string.format(
      '{"event_name":"level_complete","session_id":"bench-session","player_id":"bench-player",' ..
      '"event_id":"%s-%d-%d","client_timestamp":"2026-11-23T12:00:00.000Z",' ..
      '"properties":{"level":%d,"score":%d,"mode":"ranked"}}', prefix, counter, i, i % 30, i * 37)
  end
  return wrk.format("POST", "/v1/track",
    { ["Content-Type"] = "application/json", ["x-game-api-key"] = key },
    "[" .. table.concat(events, ",") .. "]")
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT requests_per_sec=%.1f events_per_sec=%.1f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests / seconds, summary.requests * 100 / seconds, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
