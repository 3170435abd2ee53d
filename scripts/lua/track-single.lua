-- wrk script: POST /v1/track with one event per request.
-- Needs the API key in the environment variable PT_KEY. Prints one RESULT line at the end.
local key = os.getenv("PT_KEY")
wrk.method = "POST"
wrk.path = "/v1/track"
wrk.body = '{"event_name":"level_start","session_id":"bench-session","player_id":"player-1",' ..
  '"properties":{"level":7,"mode":"ranked"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-game-api-key"] = key

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT requests_per_sec=%.1f events_per_sec=%.1f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests / seconds, summary.requests / seconds, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
