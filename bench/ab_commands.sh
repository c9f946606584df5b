#!/bin/bash
# Interleaved A/B of websocket commands (shoot) at 1 and 10 games between checkouts, as the shared harness
# runs them: a fresh server per run pinned to CPU 0 (rate limits off, the tiny ruleset, SQLite WAL FULL),
# the harness client (bench/peer/salvo_client.py) on CPU 1, 8 s windows after 2 s warm-up, two rounds
# alternating checkouts so that each sees the same machine. Prints rate, server CPU per command, p99, foreign CPU,
# and the hypervisor's steal time over the run (/proc/stat: CPU time the host gave to others; a run with
# more than a few per cent of it measured the host, not the code).
#   bash bench/ab_commands.sh /tmp/before .        (each DIR a checkout; this checkout's venv runs them all)
#   KS="1 10 50" ROUNDS=3 bash bench/ab_commands.sh /tmp/before .   (games per run, rounds; defaults "1 10", 2)
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
CLIENT=$HERE/bench/peer/salvo_client.py
PORT=18720
for round in $(seq 1 "${ROUNDS:-2}"); do
 for K in ${KS:-1 10}; do
  for D in "$@"; do
   PORT=$((PORT+1)); db=/tmp/ab-$PORT.sqlite; rm -f $db*
   (cd "$D" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$PWD" SALVO_RATE_COMMANDS_PER_TOKEN=off SALVO_RATE_COMMANDS_PER_ADDRESS=off SALVO_RULESETS="tiny=tests.support.tiny:RULESET" exec taskset -c 0 "$PY" -m service serve --host 127.0.0.1 --port $PORT --database-url sqlite:///$db --log-level warning > /tmp/ab-$PORT.log 2>&1) &
   SP=$!
   for i in $(seq 50); do curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.2; done
   steal0=$(awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
   out=$(taskset -c 1 "$PY" "$CLIENT" commands --transport ws --workload shoot --games $K --seconds 8 --warmup 2 --port $PORT --server-pid $SP --out /tmp/ab-$PORT.json 2>/dev/null >/dev/null; python3 -c "import json; d=json.load(open('/tmp/ab-$PORT.json')); print(d['perSec'], round(d['serverCpuPct']*1e4/d['perSec']), 'us', 'p99', d['latencyMs']['p99'], 'foreign', d.get('foreignCpuPct'))")
   steal=$(awk -v a="$steal0" '/^cpu /{split(a, s, " "); printf "%.1f", 100 * ($9 - s[1]) / ($2+$3+$4+$5+$6+$7+$8+$9 - s[2])}' /proc/stat)
   echo "round $round K=$K $(basename $D): $out steal $steal%"
   kill $SP; wait $SP 2>/dev/null
  done
 done
done
