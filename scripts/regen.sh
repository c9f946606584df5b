#!/usr/bin/env bash
# Regenerates the committed contract documents from the code: OpenAPI, AsyncAPI and the TypeScript types.
source "$(dirname "$0")/_env.sh"
source scripts/_node.sh
python -m service openapi --output openapi/openapi.json
python -m service asyncapi --output openapi/asyncapi.json
(cd clients && npm run --silent types >/dev/null)
