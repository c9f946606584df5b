#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite (lint, layer contracts, tests).
source "$(dirname "$0")/_env.sh"
source scripts/_browser.sh
source scripts/_node.sh
ruff check service tests clients bench
mypy
exec python -m pytest -q "$@"
