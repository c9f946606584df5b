#!/bin/bash
# The one-game row against its ceiling on this machine, in the same minutes: per round, boardgame.io's raw
# socket.io client (the harness's bench_moves.js, in-memory server), the ideal server (bench/k1_ideal.py)
# answering at once, after an fdatasync, and after a SQLite WAL FULL commit, and Salvo itself; each a fresh
# server pinned to CPU 0, its client on CPU 1, 10 s windows, as the shared harness runs them; each round starts
# one run later than the last. Prints each run's rate, p99 and server CPU per command, and each rate over the
# same round's stronger boardgame.io rate.
#   ROUNDS=3 bash bench/k1_ideal.sh                                (this checkout as Salvo)
#   SALVO=/tmp/other bash bench/k1_ideal.sh                        (another checkout as Salvo)
#   GAMES=10 RUNS="bgio-official bgio-raw ideal-group salvo" bash bench/k1_ideal.sh
#       (the 10-game row: bgio's two clients, the group-committing ideal server and Salvo, 10 games each)
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
CLIENT=$HERE/bench/peer/salvo_client.py
SALVO=${SALVO:-$HERE}
BGIO_DIR=${BGIO_DIR:-$HERE/bench/peer/boardgameio}  # npm ci done there (bench/peer/README.md)
SECS=${SECS:-10}
OUT=${OUT:-/tmp/k1-ideal}
mkdir -p "$OUT"
PORT=18740
up() { for _ in $(seq 100); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done; echo "no server at $1"; return 1; }
field() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); r=d.get('perSec') or d.get('movesPerSec'); \
cpu=d['serverCpuPct'] if 'serverCpuPct' in d else d['server']['avgCpuPct']; print(r, d['latencyMs']['p99'], round(cpu*1e4/r), d.get('foreignCpuPct'))" "$1"; }
GAMES=${GAMES:-1}
read -r -a RUNS <<< "${RUNS:-bgio-raw ideal-none ideal-fdatasync ideal-sqlite salvo}"
for round in $(seq 1 "${ROUNDS:-3}"); do
  declare -A line=() rate=()
  for k in "${!RUNS[@]}"; do
    run=${RUNS[$(( (k + round - 1) % ${#RUNS[@]} ))]}  # each round starts one run later: no run always first
    PORT=$((PORT+1)); out=$OUT/$run-r$round.json; rm -f "$out"
    case $run in
      bgio-raw|bgio-official)
        (cd "$BGIO_DIR" && PORT=$PORT NODE_ENV=production BENCH_SERVER_MAX_S=120 exec taskset -c 0 node --expose-gc server.js) \
          > "$OUT/server-$run.log" 2>&1 &
        SP=$!; up "http://127.0.0.1:$PORT/games" || exit 1
        (cd "$BGIO_DIR" && PORT=$PORT NODE_ENV=production taskset -c 1 node bench_moves.js --matches "$GAMES" --duration "$SECS" \
          --max-moves-per-match 1000000 --client "$([[ $run == bgio-raw ]] && echo raw || echo bgio)" --server-pid $SP --label $run --out "$out") > /dev/null 2>&1 ;;
      ideal-*)
        taskset -c 0 "$PY" "$HERE/bench/k1_ideal.py" --port $PORT --sync "${run#ideal-}" --dir /tmp > "$OUT/server-$run.log" 2>&1 &
        SP=$!; up "http://127.0.0.1:$PORT/healthz" || exit 1
        taskset -c 1 "$PY" "$CLIENT" commands --transport ws --workload shoot --games "$GAMES" --seconds "$SECS" --warmup 2 \
          --port $PORT --server-pid $SP --label $run --out "$out" > /dev/null 2>&1 ;;
      salvo)
        db=/tmp/k1-ideal-salvo.sqlite; rm -f $db*
        (cd "$SALVO" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$SALVO" SALVO_RATE_COMMANDS_PER_TOKEN=off \
          SALVO_RATE_COMMANDS_PER_ADDRESS=off SALVO_RULESETS="tiny=tests.support.tiny:RULESET" exec taskset -c 0 "$PY" -m service \
          serve --host 127.0.0.1 --port $PORT --database-url sqlite:///$db --log-level warning) > "$OUT/server-$run.log" 2>&1 &
        SP=$!; up "http://127.0.0.1:$PORT/healthz" || exit 1
        taskset -c 1 "$PY" "$CLIENT" commands --transport ws --workload shoot --games "$GAMES" --seconds "$SECS" --warmup 2 \
          --port $PORT --server-pid $SP --label $run --out "$out" > /dev/null 2>&1 ;;
    esac
    kill $SP 2>/dev/null; wait $SP 2>/dev/null
    if [[ -f $out ]]; then
      read -r r p99 us foreign <<< "$(field "$out")"
      rate[$run]=$r
      line[$run]=$(printf "%6s/s  p99 %6s ms  server CPU %4s us/command  foreign %4s%%" "$r" "$p99" "$us" "$foreign")
    else
      line[$run]="no result (see $OUT/server-$run.log)"
    fi
  done
  # over the stronger of the round's boardgame.io runs, as bench/peer_table.py judges the rows
  best=$(awk -v a="${rate[bgio-raw]:-0}" -v b="${rate[bgio-official]:-0}" 'BEGIN{print (a > b ? a : b)}')
  for run in "${RUNS[@]}"; do
    ratio=$(awk -v a="${rate[$run]:-0}" -v b="$best" 'BEGIN{if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-"}')
    printf "round %d  %-16s %s  / bgio's best %s\n" "$round" "$run" "${line[$run]}" "$ratio"
  done
done
