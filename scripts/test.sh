#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite (lint, layer contracts, tests).
source "$(dirname "$0")/_env.sh"
source scripts/_browser.sh
source scripts/_nginx.sh
source scripts/_node.sh
ruff check service tests clients bench
mypy
# the page's JavaScript against the types generated from the OpenAPI document (no build step)
if [ -x clients/node_modules/.bin/tsc ]; then
  (cd clients && node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tsconfig.typed.json)
else
  echo "tsc not installed: the clients/web type check is skipped" >&2
fi
# two workers, one per core: the browser and server tests mostly wait (suite ~7 min instead of ~11)
exec python -m pytest -q -n 2 "$@"
