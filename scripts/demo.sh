#!/usr/bin/env bash
# Installs what Salvo needs, then serves it with a demo game on the embedded SQLite database.
source "$(dirname "$0")/_env.sh"
exec salvo serve --demo --port "${PORT:-8000}" "$@"
