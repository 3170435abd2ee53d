-- wrk script: GET /healthz, the HTTP stack alone (baseline). Prints one RESULT line at the end.
function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT requests_per_sec=%.1f events_per_sec=0 p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests / seconds, latency:percentile(99) / 1000, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
