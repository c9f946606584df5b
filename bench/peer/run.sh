#!/usr/bin/env bash
# Salvo vs boardgame.io 0.50.2, side by side on one machine in one run. Loopback only.
#
# Every scenario gets a FRESH server (Salvo: a fresh SQLite file, WAL, synchronous=FULL, group commit;
# boardgame.io: default in-memory storage), pinned to CPU $SERVER_CPU; the load generator is pinned to
# CPU $CLIENT_CPU. For each row the boardgame.io scenario and the Salvo scenario run back to back.
# Foreign CPU (every other process) is recorded in every measured window; a scenario whose foreign load
# exceeds $FOREIGN_MAX % of a core is rerun (up to $ATTEMPTS times) and the quietest attempt is kept.
#
# Environment (the defaults run this checkout against the harness beside this script):
#   SALVO_DIR    a Salvo checkout (default: this one; read-only use, PYTHONDONTWRITEBYTECODE=1)
#   SALVO_VENV   a virtualenv with Salvo's dependencies (default: $SALVO_DIR/.venv)
#   BGIO_DIR     the boardgame.io side (default: bench/peer/boardgameio, after `npm ci` there)
# Optional:
#   WORK (work dir, default $TMPDIR/perf), PORT_BASE (18500), MEASURE_S (measured seconds, 10), WARMUP (2), ATTEMPTS (3),
#   FOREIGN_MAX (10), OUT (default: $WORK/side-by-side/results), ONLY (all|commands|fanout|catchup|profile),
#   PYSPY (path of a py-spy binary, for ONLY=profile/all; skipped if absent), SPECTATORS ("100 1000 5000")
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SALVO_DIR="${SALVO_DIR:-$(cd "$HERE/../.." && pwd)}"
SALVO_VENV="${SALVO_VENV:-$SALVO_DIR/.venv}"
BGIO_DIR="${BGIO_DIR:-$HERE/boardgameio}"
[[ -d "$BGIO_DIR/node_modules/boardgame.io" ]] || { echo "run 'npm ci' in $BGIO_DIR first"; exit 2; }
WORK="${WORK:-${TMPDIR:-/tmp}/perf}"
PORT_BASE="${PORT_BASE:-18500}"
SECONDS_MEASURED="${MEASURE_S:-10}"
WARMUP="${WARMUP:-2}"
ATTEMPTS="${ATTEMPTS:-3}"
FOREIGN_MAX="${FOREIGN_MAX:-10}"
OUT="${OUT:-$WORK/side-by-side/results}"
ONLY="${ONLY:-all}"
SPECTATORS="${SPECTATORS:-100 1000 5000}"
SERVER_CPU="${SERVER_CPU:-0}"
CLIENT_CPU="${CLIENT_CPU:-1}"
PY="$SALVO_VENV/bin/python"
LOGS="$WORK/side-by-side/logs"
mkdir -p "$OUT" "$LOGS" "$WORK/side-by-side/db"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "fd limit: $(ulimit -n); out: $OUT"

PORT_N=0
next_port() { PORT=$((PORT_BASE + (PORT_N % 100))); PORT_N=$((PORT_N + 1)); }
SERVER_PID=""
port_busy() { ss -ltn 2>/dev/null | grep -q "127.0.0.1:$1 "; }

stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    # SIGTERM: a background job of a non-interactive shell starts with SIGINT ignored (node keeps it so)
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    local st
    for _ in $(seq 1 100); do
      st="$(awk '{print $3}' "/proc/$SERVER_PID/stat" 2>/dev/null || true)"
      [[ -z "$st" || "$st" == Z ]] && break
      sleep 0.1
    done
    kill -0 "$SERVER_PID" 2>/dev/null && { echo "server $SERVER_PID still up 10 s after SIGTERM; SIGKILL"; kill -9 "$SERVER_PID" 2>/dev/null || true; }
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap stop_server EXIT

wait_http() {  # wait_http URL LOG
  for _ in $(seq 1 150); do
    curl -s -o /dev/null --max-time 1 "$1" && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "server did not come up: $1"; tail -20 "$2"; return 1
}

start_bgio() {  # start_bgio NAME
  next_port
  for _ in $(seq 1 50); do port_busy "$PORT" || break; next_port; done
  (cd "$BGIO_DIR" && PORT=$PORT NODE_ENV=production BENCH_SERVER_MAX_S=900 exec taskset -c "$SERVER_CPU" \
     node --expose-gc server.js) >"$LOGS/server-$1.log" 2>&1 &
  SERVER_PID=$!
  wait_http "http://127.0.0.1:$PORT/games" "$LOGS/server-$1.log"
}

start_salvo() {  # start_salvo NAME [profiler command, run on the client CPU, ending in --]
  local name="$1"; shift
  local wrap=()
  [[ $# -gt 0 ]] && wrap=(taskset -c "$CLIENT_CPU" "$@")
  next_port
  for _ in $(seq 1 50); do port_busy "$PORT" || break; next_port; done
  local db="$WORK/side-by-side/db/$name.sqlite"
  rm -f "$db" "$db-wal" "$db-shm"
  (cd "$SALVO_DIR" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$SALVO_DIR" SALVO_RULESETS="tiny=tests.support.tiny:RULESET" SALVO_RATE_COMMANDS_PER_TOKEN=off SALVO_RATE_COMMANDS_PER_ADDRESS=off \
     exec "${wrap[@]}" taskset -c "$SERVER_CPU" "$PY" -m service serve --host 127.0.0.1 --port "$PORT" \
     --database-url "sqlite:///$db" --log-level warning) >"$LOGS/server-$name.log" 2>&1 &
  SERVER_PID=$!
  wait_http "http://127.0.0.1:$PORT/healthz" "$LOGS/server-$name.log"
  # the pid whose CPU counts: the python process (under py-spy it is the child)
  SERVER_MEASURE_PID=$SERVER_PID
  if [[ $# -gt 0 ]]; then SERVER_MEASURE_PID="$(pgrep -P "$SERVER_PID" | head -1)"; fi
}

foreign_of() { "$PY" -c "import json,sys; print(json.load(open(sys.argv[1])).get('foreignCpuPct', 0))" "$1"; }

# scn SYSTEM NAME CLIENT-ARGS...   (SYSTEM = bgio|salvo; the client command follows)
scn() {
  local system="$1" name="$2"; shift 2
  if [[ -n "${MATCH:-}" && ! "$name" =~ $MATCH ]]; then return 0; fi
  local attempt best="" best_f=100000 f
  for attempt in $(seq 1 "$ATTEMPTS"); do
    rm -f "$OUT/$name.json"
    # bounded wait for a quiet machine: 20 s before a first attempt, 90 s before a rerun
    "$PY" "$HERE/salvo_client.py" quiet "$([[ $attempt == 1 ]] && echo 20 || echo 90)" "$FOREIGN_MAX" || true
    if [[ $system == bgio ]]; then start_bgio "$name"; else start_salvo "$name"; fi
    echo ">>> $name (attempt $attempt, port $PORT, server pid $SERVER_PID)"
    if [[ $system == bgio ]]; then
      (cd "$BGIO_DIR" && PORT=$PORT NODE_ENV=production timeout 600 taskset -c "$CLIENT_CPU" node "$@" \
        --server-pid "$SERVER_PID" --label "$name" --out "$OUT/$name.json") 2>"$LOGS/client-$name.err" | cut -c1-300 \
        || echo "!!! $name failed (see $LOGS/client-$name.err)"
    else
      PYTHONDONTWRITEBYTECODE=1 timeout 600 taskset -c "$CLIENT_CPU" "$PY" "$HERE/salvo_client.py" "$@" --port "$PORT" \
        --server-pid "$SERVER_PID" --label "$name" --out "$OUT/$name.json" 2>"$LOGS/client-$name.err" | cut -c1-300 \
        || echo "!!! $name failed (see $LOGS/client-$name.err)"
    fi
    stop_server
    [[ -f "$OUT/$name.json" ]] || break
    cp "$OUT/$name.json" "$OUT/$name.try$attempt.json"
    f=$(foreign_of "$OUT/$name.json")
    if awk "BEGIN{exit !($f < $best_f)}"; then best_f=$f; best=$attempt; fi
    if awk "BEGIN{exit !($f <= $FOREIGN_MAX)}"; then break; fi
    echo "    foreign CPU ${f}% > ${FOREIGN_MAX}% during $name (attempt $attempt/$ATTEMPTS)"
  done
  if [[ -n "$best" ]]; then
    cp "$OUT/$name.try$best.json" "$OUT/$name.json"
    echo "    kept attempt $best (foreign CPU ${best_f}%)"
  fi
  return 0
}

# versions and machine
(cd "$BGIO_DIR" && node -e '
const v = (p) => { try { return require(p + "/package.json").version } catch (e) { return null } };
const os = require("os");
console.log(JSON.stringify({ node: process.version, "boardgame.io": v("boardgame.io"),
  "socket.io (server, via koa-socket-2)": v("koa-socket-2/node_modules/socket.io") || v("socket.io"),
  "socket.io-client": v("socket.io-client"), "koa-compose": v("koa-compose"),
  cpus: os.cpus().length, cpuModel: os.cpus()[0].model, memGB: Math.round(os.totalmem() / 2 ** 30), kernel: os.release() }))'
) > "$OUT/versions-bgio.json"
"$PY" -c 'import sys, json, importlib.metadata as m
print(json.dumps({"python": sys.version.split()[0], **{p: m.version(p) for p in ("uvicorn", "websockets", "uvloop", "httptools", "fastapi", "starlette", "msgspec", "SQLAlchemy")}}))' > "$OUT/versions-salvo.json"
(cd "$SALVO_DIR" && git rev-parse HEAD 2>/dev/null || echo unknown) > "$OUT/salvo-commit.txt"
cat "$OUT/versions-bgio.json" "$OUT/versions-salvo.json" "$OUT/salvo-commit.txt"

if [[ "$ONLY" == all || "$ONLY" == commands ]]; then
  # bench_moves.js: 50 warm-up moves per client, then $SECONDS_MEASURED s; the per-match cap is lifted so
  # that every level measures the full window.
  for K in 1 10 50; do
    for kind in bgio raw; do
      scn bgio "moves-$kind-K$K" bench_moves.js --matches "$K" --duration "$SECONDS_MEASURED" --max-moves-per-match 1000000 --client "$kind"
    done
    for tr in ws http; do
      scn salvo "salvo-$tr-shoot-K$K" commands --transport "$tr" --workload shoot --games "$K" --seconds "$SECONDS_MEASURED" --warmup "$WARMUP"
    done
    for tr in ws http; do
      scn salvo "salvo-$tr-cycle-K$K" commands --transport "$tr" --workload cycle --games "$K" --seconds "$SECONDS_MEASURED" --warmup "$WARMUP"
    done
  done
fi

if [[ "$ONLY" == all || "$ONLY" == fanout ]]; then
  bgio_ok=1
  for S in $SPECTATORS; do
    if [[ $bgio_ok == 1 ]]; then
      scn bgio "fanout-bgio-S$S" bench_fanout.js --spectators "$S" --moves 200 --rate 20
      if [[ ! -f "$OUT/fanout-bgio-S$S.json" ]] || "$PY" -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get('struggled') else 1)" "$OUT/fanout-bgio-S$S.json"; then
        echo "boardgame.io struggled at S=$S; not going higher"; bgio_ok=0
      fi
    fi
    scn salvo "fanout-salvo-S$S" fanout --spectators "$S" --moves 200 --rate 20
  done
fi

if [[ "$ONLY" == all || "$ONLY" == catchup ]]; then
  scn bgio "catchup-bgio-N10000" bench_catchup.js --moves 10000 --reps 5
  scn salvo "catchup-salvo-N10000" catchup --events 10000 --reps 5
fi

if [[ "$ONLY" == all || "$ONLY" == profile ]]; then
  if [[ -n "${PYSPY:-}" && -x "${PYSPY:-}" ]]; then
    for prof in ws50 spec1000; do
      name="profile-salvo-$prof"
      start_salvo "$name" "$PYSPY" record --rate 250 --format raw --nonblocking --gil --threads --output "$OUT/$name.folded" --
      echo ">>> $name (py-spy on server, pid $SERVER_MEASURE_PID)"
      if [[ $prof == ws50 ]]; then
        args=(commands --transport ws --workload shoot --games 50 --seconds "$SECONDS_MEASURED" --warmup "$WARMUP")
      else
        args=(fanout --spectators 1000 --moves 200 --rate 20)
      fi
      PYTHONDONTWRITEBYTECODE=1 timeout 600 taskset -c "$CLIENT_CPU" "$PY" "$HERE/salvo_client.py" "${args[@]}" --port "$PORT" \
        --server-pid "$SERVER_MEASURE_PID" --label "$name" --out "$OUT/$name.json" 2>"$LOGS/client-$name.err" | cut -c1-300 || true
      kill -TERM "$SERVER_MEASURE_PID" 2>/dev/null || true   # py-spy writes its file when the child exits
      for _ in $(seq 1 150); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
      stop_server
      [[ -f "$OUT/$name.folded" ]] && "$PY" "$HERE/folded_top.py" "$OUT/$name.folded" > "$OUT/$name.top.txt" && head -60 "$OUT/$name.top.txt"
    done
  else
    echo "PYSPY not set: profile skipped"
  fi
fi

"$PY" "$HERE/summarize.py" "$OUT" > "$OUT/RESULTS.table.md" && cat "$OUT/RESULTS.table.md"
echo "done; results in $OUT/"
