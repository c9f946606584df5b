"""API docs pages served from the pinned swagger-ui-bundle package, never from a CDN (they work offline)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse, JSONResponse
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/docs/assets"

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Salvo API</title>
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
  <link rel="icon" href="{assets}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js" data-openapi="{openapi}"></script>
</body>
</html>
"""

# The initializer is a file, not an inline script, so a strict Content-Security-Policy can allow it.
INIT = """(function () {
  var me = document.currentScript;
  window.ui = SwaggerUIBundle({ url: me.dataset.openapi, dom_id: "#swagger-ui", deepLinking: true });
})();
"""


def for_swagger_ui_4(doc: dict[str, Any]) -> dict[str, Any]:
    """The pinned Swagger UI (4.15) renders only ``openapi: 3.0.n``; the document is 3.1. Its schemas
    render the same in 3.0 mode, so the docs page reads a copy labelled 3.0.3 (/openapi.json is untouched)."""
    return {**doc, "openapi": "3.0.3"}


def install(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) from the bundled assets; FastAPI's CDN pages are turned off."""
    openapi = "/docs/openapi.json"
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(PAGE.format(assets=ASSETS, openapi=openapi))

    @app.get("/docs/openapi.json", include_in_schema=False)
    async def docs_openapi() -> JSONResponse:
        return JSONResponse(for_swagger_ui_4(app.openapi()))

    @app.get("/docs/init.js", include_in_schema=False)
    async def docs_init() -> HTMLResponse:
        return HTMLResponse(INIT, media_type="text/javascript")
