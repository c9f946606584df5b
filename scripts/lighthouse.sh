#!/usr/bin/env bash
# Lighthouse on the page (issue 38): the lobby and one game per ruleset on an emulated phone, with Debian's
# Chromium. Installs the pinned Lighthouse (bench/lighthouse/package-lock.json) once, then runs
# bench/lighthouse.py (which starts its own server unless given --url). Figures: docs/benchmarks.md,
# "Page (issue 38)".   Usage: scripts/lighthouse.sh [--url http://host:port] [--json out.json]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_browser.sh
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
lock_stamp=bench/lighthouse/node_modules/.salvo-lock-$(sha256sum bench/lighthouse/package-lock.json | cut -c1-16)
if [ ! -f "$lock_stamp" ]; then
  (cd bench/lighthouse && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$lock_stamp"
fi
PY=.venv/bin/python
[ -x "$PY" ] || PY=python3
exec "$PY" bench/lighthouse.py "$@"
