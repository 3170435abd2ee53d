# Shared helpers for the benchmark scripts (sourced, not run).
# Each benchmark starts the release binary on a fresh backend, seeds data over HTTP, drives it
# with wrk and prints figures next to a baseline measured in the same run.

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_DURATION="${BENCH_DURATION:-10s}"
BENCH_CONNECTIONS="${BENCH_CONNECTIONS:-64}"
PG_URL="${PLAYTRACE_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
REDIS_URL="${PLAYTRACE_BENCH_REDIS_URL:-redis://127.0.0.1:6379}"

bench_require_tools() {
  if ! command -v wrk >/dev/null; then
    echo "installing wrk" >&2
    (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null
  fi
  for tool in curl jq; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
  done
}

bench_build() {
  (cd "$BENCH_ROOT" && cargo build --release -q)
  BENCH_BIN="${CARGO_TARGET_DIR:-$BENCH_ROOT/target}/release/playtrace"
}

bench_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# bench_start_server <embedded|services> <name>: sets BENCH_URL, BENCH_PID, BENCH_DB
bench_start_server() {
  local backend="$1" name="$2" port
  port="$(bench_free_port)"
  BENCH_URL="http://127.0.0.1:$port"
  BENCH_TMP="$(mktemp -d)"
  local env=(PLAYTRACE_LISTEN="127.0.0.1:$port" PLAYTRACE_RATE_LIMIT_PER_MINUTE=1000000000000
             PLAYTRACE_REDIS_PREFIX="pt-bench-$name-$$:" RUST_LOG=warn)
  if [[ "$backend" == services ]]; then
    BENCH_DB="pt_bench_${name}_$$"
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $BENCH_DB" >/dev/null
    psql "$PG_URL/postgres" -qc "CREATE DATABASE $BENCH_DB" >/dev/null
    env+=(PLAYTRACE_DATABASE_URL="$PG_URL/$BENCH_DB" PLAYTRACE_REDIS_URL="$REDIS_URL")
  else
    BENCH_DB=""
    env+=(PLAYTRACE_DATABASE_URL="sqlite://$BENCH_TMP/bench.db?mode=rwc")
  fi
  env "${env[@]}" "$BENCH_BIN" serve >"$BENCH_TMP/server.log" 2>&1 &
  BENCH_PID=$!
  for _ in $(seq 1 100); do
    curl -sf "$BENCH_URL/healthz" >/dev/null && return 0
    sleep 0.1
  done
  echo "server did not start; log:" >&2
  cat "$BENCH_TMP/server.log" >&2
  exit 1
}

bench_stop_server() {
  [[ -n "${BENCH_PID:-}" ]] && kill "$BENCH_PID" 2>/dev/null && wait "$BENCH_PID" 2>/dev/null
  BENCH_PID=""
  if [[ -n "${BENCH_DB:-}" ]]; then
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $BENCH_DB" >/dev/null 2>&1 || true
  fi
  rm -rf "${BENCH_TMP:-/nonexistent}"
}

# bench_setup_game: registers a user, creates a game and a production key.
# Sets BENCH_TOKEN, BENCH_GAME, BENCH_KEY.
bench_setup_game() {
  local email="bench-$RANDOM$RANDOM@bench.test"
  BENCH_TOKEN="$(curl -sf -X POST "$BENCH_URL/v1/auth/register" -H 'content-type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"benchmark password\"}" | jq -r .token)"
  BENCH_GAME="$(curl -sf -X POST "$BENCH_URL/v1/games" -H 'content-type: application/json' \
    -H "authorization: Bearer $BENCH_TOKEN" -d '{"name":"Bench","tier":"studio"}' | jq -r .game_id)"
  BENCH_KEY="$(curl -sf -X POST "$BENCH_URL/v1/games/$BENCH_GAME/api-keys" -H 'content-type: application/json' \
    -H "authorization: Bearer $BENCH_TOKEN" -d '{"environment":"production"}' | jq -r .key)"
  [[ -n "$BENCH_KEY" && "$BENCH_KEY" != null ]] || { echo "setup failed" >&2; exit 1; }
}

# bench_wrk <url> [lua script] -> prints "<requests/s> <p99 ms>"
bench_wrk() {
  local url="$1" script="${2:-}" args=(-t2 -c"$BENCH_CONNECTIONS" -d"$BENCH_DURATION" --latency)
  [[ -n "$script" ]] && args+=(-s "$script")
  local out
  out="$(wrk "${args[@]}" "$url")"
  local rps p99
  rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  echo "$rps $(bench_to_ms "$p99")"
}

bench_to_ms() { # wrk latency like 1.23ms / 850.00us / 1.02s -> milliseconds
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
    else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f", v * 1000 }
    else print v }'
}

bench_median() { # numbers... -> median
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}
