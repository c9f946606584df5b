# Installs the pinned JavaScript tools (clients/package-lock.json: axe-core, typescript, openapi-typescript, openapi-fetch,
# @redocly/cli, @asyncapi/parser).
if command -v npm >/dev/null 2>&1; then
  lock_stamp=clients/node_modules/.salvo-lock-$(sha256sum clients/package-lock.json | cut -c1-16)
  if [ ! -f "$lock_stamp" ]; then
    (cd clients && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || echo "npm ci failed: JS checks will skip" >&2
    touch "$lock_stamp" 2>/dev/null || true
  fi
else
  echo "npm not found: the axe-core and tsc checks will skip" >&2
fi
