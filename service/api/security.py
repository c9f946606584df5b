"""Browser-facing protections: security headers on the page, the websocket Origin allow-list, CORS."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from service.settings import Settings

from .allowed import every_method

# the page loads only its own ES modules and stylesheet; style *attributes* (bar widths, side colours)
# are set by the page's scripts, hence style-src-attr
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = [
    (b"content-security-policy", PAGE_CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
EVERY_RESPONSE = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def _is_page(path: str) -> bool:
    return path == "/" or path.startswith("/static/")


class SecurityHeaders:
    """Pure ASGI middleware: nosniff and no-referrer everywhere, the CSP and framing ban on the page."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = EVERY_RESPONSE + (PAGE_HEADERS if _is_page(scope.get("path", "")) else [])

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """A websocket's Origin: absent (not a browser), the page's own host, or listed in SALVO_WS_ORIGINS."""
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()


def install_cors(app: FastAPI, settings: Settings) -> None:
    """CORS for the origins in SALVO_CORS_ORIGINS, allowing every method some operation takes (DELETE
    included): called once all routes are added."""
    if settings.cors_origins:
        methods = every_method(app)
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=methods,
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "X-Request-Id"],
            expose_headers=["Retry-After", "X-Request-Id"],
            max_age=600,
        )
