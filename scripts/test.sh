#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite (lint, layer contracts, tests).
source "$(dirname "$0")/_env.sh"
source scripts/_browser.sh
source scripts/_nginx.sh
source scripts/_node.sh
ruff check service tests clients bench
ruff format --check service tests clients bench scripts
mypy
# the page's JavaScript against the types generated from the OpenAPI document (no build step)
if [ -x clients/node_modules/.bin/tsc ]; then
  (cd clients && node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tsconfig.typed.json)
else
  echo "tsc not installed: the clients/web type check is skipped" >&2
fi
# two workers, one per core: the browser and server tests mostly wait (suite ~7 min instead of ~11)
if [ $# -gt 0 ]; then  # a chosen selection: once, on the transport SALVO_FAST_PATH says (default on)
  exec python -m pytest -q -n 2 "$@"
fi
python -m pytest -q -n 2
# the plain FastAPI/Starlette/uvicorn path is the reference: the tests that exercise the transport (HTTP
# endpoints, the stream in process and on real servers, the Python client) again with the fast path off.
# Tests of a fast piece itself skip (tests/support/fast.py). 185 tests, 2 min with -n 2 on a loaded machine.
TRANSPORT_TESTS=(
  tests/api/test_http.py tests/api/test_http_semantics.py tests/api/test_idempotency.py
  tests/api/test_concurrency.py tests/api/test_observability.py tests/api/test_robustness.py
  tests/api/test_degrade_integers.py tests/api/test_stream.py tests/api/test_stream_results.py
  tests/api/test_stream_compact.py tests/api/test_socket_message.py tests/api/test_table_talk.py
  tests/api/test_robustness_ws.py tests/api/test_robustness_server.py tests/api/test_degrade_fanout.py
  tests/clients/test_python_client.py
)
SALVO_FAST_PATH=off exec python -m pytest -q -n 2 "${TRANSPORT_TESTS[@]}"
