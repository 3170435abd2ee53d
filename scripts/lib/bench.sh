# Shared parts of the benchmark scripts and the soak test (sourced, not run).
# Each script builds the release binary (bench_build), starts it on a fresh backend
# (bench_start_server), seeds data over HTTP, drives it with wrk (bench_wrk) and prints medians
# (bench_median) next to a baseline measured in the same run (bench_table_row, bench_ratio).
# Sourcing it moves to the repository's root.
#
# One name per URL in every script:
#   BENCH_URL   the server under test, e.g. http://127.0.0.1:40123 (set by bench_start_server)
#   PG_URL      PostgreSQL, without a database name (env PLAYTRACE_BENCH_POSTGRES_URL,
#               default postgres://postgres@127.0.0.1:5432)
#   REDIS_URL   Redis (env PLAYTRACE_BENCH_REDIS_URL, default redis://127.0.0.1:6379)
# Common env (a script may set other defaults before sourcing this file): BENCH_RUNS (3),
# BENCH_DURATION (10s), BENCH_CONNECTIONS (64), BENCH_THREADS (2), CARGO_TARGET_DIR (where the
# release binary is built), BENCH_NO_BUILD=1 (use the release binary already built),
# BENCH_KEEP=1 (leave the data where it is at the end, to query it by hand: the PostgreSQL
# database, the Redis keys and the SQLite file; their names are printed).
# Only loopback addresses are used; every server a script starts is stopped by bench_stop_server.

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH_LUA="$BENCH_ROOT/scripts/lua"
cd "$BENCH_ROOT"
# shellcheck source-path=SCRIPTDIR source=steal.sh
source "$BENCH_ROOT/scripts/lib/steal.sh"

BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_DURATION="${BENCH_DURATION:-10s}"
BENCH_CONNECTIONS="${BENCH_CONNECTIONS:-64}"
BENCH_THREADS="${BENCH_THREADS:-2}"
PG_URL="${PLAYTRACE_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
REDIS_URL="${PLAYTRACE_BENCH_REDIS_URL:-redis://127.0.0.1:6379}"
BENCH_PID=""
BENCH_DB=""
BENCH_TMP=""
BENCH_REDIS_PREFIX=""

# bench_require_tools [tool...]: wrk, curl and jq, plus the tools named; installs the missing
# ones that Debian packages (wrk, redis-tools, postgresql-client, bc), fails on the others.
bench_require_tools() {
  local tool package updated=0
  for tool in wrk curl jq "$@"; do
    command -v "$tool" >/dev/null && continue
    case "$tool" in
      redis-cli | redis-benchmark) package=redis-tools ;;
      psql | pgbench | createdb | dropdb) package=postgresql-client ;;
      wrk | jq | curl | bc) package="$tool" ;;
      *) echo "missing $tool" >&2; exit 1 ;;
    esac
    echo "installing $package" >&2
    if ((!updated)); then apt-get update -qq >/dev/null; updated=1; fi
    apt-get install -y -qq "$package" >/dev/null
  done
}

# bench_build: builds the release binary (unless BENCH_NO_BUILD=1); sets BENCH_BIN.
bench_build() {
  BENCH_BIN="${CARGO_TARGET_DIR:-$BENCH_ROOT/target}/release/playtrace"
  if [[ "${BENCH_NO_BUILD:-0}" == 1 ]]; then
    [[ -x "$BENCH_BIN" ]] || { echo "BENCH_NO_BUILD=1 but $BENCH_BIN does not exist" >&2; exit 1; }
    return 0
  fi
  echo "== building the release binary (${CARGO_TARGET_DIR:-target/})" >&2
  (cd "$BENCH_ROOT" && cargo build --release -q)
}

bench_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# bench_start_server <embedded|services> <name> [VAR=value...]: starts the release binary on a
# fresh backend (a new SQLite file, or a new PostgreSQL database and Redis key prefix), with the
# rate limiter on but never tripping and any extra settings given; waits for /healthz.
# Sets BENCH_URL, BENCH_PID, BENCH_TMP (its log is $BENCH_TMP/server.log), BENCH_DB (the
# PostgreSQL database, empty on embedded) and BENCH_REDIS_PREFIX.
bench_start_server() {
  local backend="$1" name="$2" port
  shift 2
  port="$(bench_free_port)"
  BENCH_URL="http://127.0.0.1:$port"
  BENCH_TMP="$(mktemp -d)"
  BENCH_REDIS_PREFIX="pt-bench-$name-$$:"
  local env=(PLAYTRACE_LISTEN="127.0.0.1:$port" PLAYTRACE_RATE_LIMIT_PER_MINUTE=1000000000000
             PLAYTRACE_REDIS_PREFIX="$BENCH_REDIS_PREFIX" RUST_LOG=warn)
  if [[ "$backend" == services ]]; then
    BENCH_DB="pt_bench_${name}_$$"
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $BENCH_DB" >/dev/null 2>&1
    psql "$PG_URL/postgres" -qc "CREATE DATABASE $BENCH_DB" >/dev/null
    env+=(PLAYTRACE_DATABASE_URL="$PG_URL/$BENCH_DB" PLAYTRACE_REDIS_URL="$REDIS_URL")
  else
    BENCH_DB=""
    env+=(PLAYTRACE_DATABASE_URL="sqlite://$BENCH_TMP/bench.db?mode=rwc")
  fi
  env -u PLAYTRACE_REDIS_URL "${env[@]}" "$@" "$BENCH_BIN" serve >"$BENCH_TMP/server.log" 2>&1 &
  BENCH_PID=$!
  for _ in $(seq 1 200); do
    curl -sf "$BENCH_URL/healthz" >/dev/null && return 0
    sleep 0.1
  done
  echo "server did not start; log:" >&2
  cat "$BENCH_TMP/server.log" >&2
  exit 1
}

# bench_stop_server: stops the server started last and removes its database, its Redis keys
# and its files (safe to call twice, and from an EXIT trap).
bench_stop_server() {
  if [[ -n "${BENCH_PID:-}" ]]; then
    kill "$BENCH_PID" 2>/dev/null || true
    wait "$BENCH_PID" 2>/dev/null || true
  fi
  BENCH_PID=""
  if [[ -n "${BENCH_KEEP:-}" ]]; then
    echo "kept (BENCH_KEEP): database ${BENCH_DB:-none}, Redis prefix ${BENCH_REDIS_PREFIX:-none}, files ${BENCH_TMP:-none}" >&2
    BENCH_DB="" BENCH_TMP=""
  fi
  if [[ -n "${BENCH_DB:-}" ]]; then
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $BENCH_DB" >/dev/null 2>&1 || true
    if command -v redis-cli >/dev/null; then
      redis-cli -u "$REDIS_URL" --scan --pattern "${BENCH_REDIS_PREFIX}*" 2>/dev/null |
        xargs -r -n 500 redis-cli -u "$REDIS_URL" del >/dev/null 2>&1 || true
    fi
  fi
  BENCH_DB=""
  [[ -n "${BENCH_TMP:-}" ]] && rm -rf "$BENCH_TMP"
  BENCH_TMP=""
}

# bench_json <method> <path> <header> [json body]: one request to the server (the header is
# the credential, or empty); prints the answer, fails on an error status.
bench_json() {
  local method="$1" path="$2" header="$3" body="${4:-}"
  local args=(-fsS -X "$method")
  [[ -n "$header" ]] && args+=(-H "$header")
  [[ -n "$body" ]] && args+=(-H 'content-type: application/json' --data-binary "$body")
  curl "${args[@]}" "$BENCH_URL$path"
}

# bench_dashboard <method> <path> [json body]: bench_json with the account's token.
bench_dashboard() { bench_json "$1" "$2" "authorization: Bearer $BENCH_TOKEN" "${3:-}"; }

# bench_game <method> <path> [json body]: bench_json with the game's API key.
bench_game() { bench_json "$1" "$2" "x-game-api-key: $BENCH_KEY" "${3:-}"; }

# bench_setup_game: registers an account (the instance's admin) and bench_new_game.
# Sets BENCH_TOKEN, BENCH_GAME, BENCH_KEY and BENCH_KEY_ID.
bench_setup_game() {
  BENCH_TOKEN="$(bench_json POST /v1/auth/register "" \
    "{\"email\":\"bench-$RANDOM$RANDOM@bench.test\",\"password\":\"benchmark password\"}" | jq -r .token)"
  bench_new_game
}

# bench_new_game: another studio-tier game (10,000,000 events a month) of the account, with a
# production key. Sets BENCH_GAME, BENCH_KEY and BENCH_KEY_ID.
bench_new_game() {
  local key
  BENCH_GAME="$(bench_dashboard POST /v1/games '{"name":"Bench","tier":"studio"}' | jq -r .game_id)"
  key="$(bench_dashboard POST "/v1/games/$BENCH_GAME/api-keys" '{"environment":"production"}')"
  BENCH_KEY="$(jq -r .key <<<"$key")"
  BENCH_KEY_ID="$(jq -r .key_id <<<"$key")"
  [[ -n "$BENCH_KEY" && "$BENCH_KEY" != null ]] || { echo "setup failed" >&2; exit 1; }
}

# bench_wrk_run [wrk arguments]: one wrk run with the common options (BENCH_THREADS threads,
# BENCH_CONNECTIONS connections for BENCH_DURATION, 10 s timeout, latency percentiles); prints
# wrk's report. Set the variables on the call to change them for one run.
bench_wrk_run() {
  wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"$BENCH_DURATION" --timeout 10s --latency "$@"
}

# bench_wrk_figures: a wrk report on stdin -> "<requests/s> <p99 ms> <non-2xx/3xx answers>"
bench_wrk_figures() {
  local report rps p99 bad
  report="$(cat)"
  rps="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$report")"
  p99="$(bench_latency 99 <<<"$report")"
  bad="$(awk '/Non-2xx or 3xx responses/ { print $NF }' <<<"$report")"
  echo "${rps:-0} ${p99:-NA} ${bad:-0}"
}

# bench_wrk [wrk arguments] -> "<requests/s> <p99 ms> <non-2xx/3xx answers>" of one run.
bench_wrk() { bench_wrk_run "$@" | bench_wrk_figures; }

# bench_latency <percentile>: a wrk --latency report on stdin -> that percentile in ms.
bench_latency() {
  local value
  value="$(awk -v p="$1%" '$1 == p { print $2 }')"
  bench_to_ms "$value"
}

bench_to_ms() { # wrk latency like 1.23ms / 850.00us / 1.02s -> milliseconds
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
    else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f", v * 1000 }
    else print v }'
}

# bench_field <RESULT line> <name>: the value of name=value in a Lua script's RESULT line.
bench_field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

bench_median() { # numbers... -> median
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

bench_ratio() { # a b -> a / b with two decimals
  awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "NA"; else printf "%.2f", a / b }'
}

bench_percent() { # a b -> a / b as a whole percentage
  awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "NA"; else printf "%.0f%%", 100 * a / b }'
}

# bench_redis_benchmark <connections> <keyspace> <command...>: redis-benchmark's requests/s
# for the command against REDIS_URL (200,000 requests), the raw Redis baseline.
bench_redis_benchmark() {
  local connections="$1" keyspace="$2" hostport host port
  shift 2
  hostport="${REDIS_URL#redis://}"; hostport="${hostport##*@}"; hostport="${hostport%%/*}"
  host="${hostport%%:*}"; port="${hostport##*:}"
  [[ "$port" == "$hostport" ]] && port=6379
  redis-benchmark -h "$host" -p "$port" -c "$connections" -n 200000 -r "$keyspace" -q "$@" |
    tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | awk '{ print $1 }'
}

# bench_table_header [first column] / bench_table_row <name> <req/s> <p99 ms> [note]: the
# results table every benchmark prints, baselines as rows of their own.
bench_table_header() { printf '%-36s %12s %10s  %s\n' "${1:-measurement}" "req/s" "p99 ms" "${2:-}"; }
bench_table_row() { printf '%-36s %12s %10s  %s\n' "$1" "$2" "$3" "${4:-}"; }

# bench_footer [what]: how the figures were taken, and the CPU time the hypervisor stole.
bench_footer() {
  echo "medians of $BENCH_RUNS runs; ${1:-$BENCH_CONNECTIONS connections, $BENCH_DURATION each}; $(nproc) cores"
  steal_report
}
