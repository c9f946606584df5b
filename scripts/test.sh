#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite (lint, layer contracts, tests).
source "$(dirname "$0")/_env.sh"
ruff check service tests clients bench
lint-imports --no-cache pyproject.toml
exec python -m pytest -q "$@"
