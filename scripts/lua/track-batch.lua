-- wrk script: POST /v1/track with a batch of 100 events per request.
-- Needs the API key in the environment variable PT_KEY. Prints one RESULT line at the end.
local key = os.getenv("PT_KEY")
local events = {}
for i = 1, 100 do
  events[i] = string.format(
    '{"event_name":"level_complete","session_id":"bench-session-%d","player_id":"player-%d",' ..
    '"properties":{"level":%d,"score":%d,"mode":"ranked"}}', i % 17, i % 53, i % 30, i * 37)
end
wrk.method = "POST"
wrk.path = "/v1/track"
wrk.body = "[" .. table.concat(events, ",") .. "]"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-game-api-key"] = key

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT requests_per_sec=%.1f events_per_sec=%.1f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests / seconds, summary.requests * 100 / seconds, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
