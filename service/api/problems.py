"""application/problem+json for every failure, naming the rule or the field."""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from service.domain.core import RuleViolation
from service.events.errors import AppError

PROBLEM = "application/problem+json"


def problem(status: int, title: str, detail: str, type_: str = "about:blank", **extra: Any) -> Response:
    body = {"type": type_, "title": title, "status": status, "detail": detail}
    body.update({k: v for k, v in extra.items() if v is not None})
    return Response(msgspec.json.encode(body), status_code=status, media_type=PROBLEM)


def install(app: FastAPI) -> None:
    @app.exception_handler(RuleViolation)
    async def rule_violation(_request: Request, exc: RuleViolation) -> Response:
        title = "Not your piece" if exc.status == 403 else "Rule violation"
        return problem(exc.status, title, exc.detail, f"/problems/rule/{exc.rule}", rule=exc.rule)

    @app.exception_handler(AppError)
    async def app_error(_request: Request, exc: AppError) -> Response:
        slug = type(exc).__name__
        return problem(exc.status, exc.title, exc.detail, f"/problems/{slug}", field=exc.field)

    @app.exception_handler(RequestValidationError)
    async def validation(_request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        first = errors[0] if errors else {}
        field = ".".join(str(p) for p in first.get("loc", ()))
        detail = f"{field}: {first.get('msg', 'invalid')}" if first else "invalid request"
        return problem(422, "Invalid request", detail, "/problems/InvalidRequest", field=field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> Response:
        return problem(exc.status_code, str(exc.detail), str(exc.detail))


class BodyLimit:
    """Pure ASGI middleware: bodies above ``limit`` bytes get 413 before any handler runs."""

    def __init__(self, app: Any, limit: int, large: dict[str, int] | None = None) -> None:
        self.app = app
        self.default_limit = limit
        self.large = large or {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.large.get(scope.get("path", ""), self.default_limit)
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > limit:
                await self._reject(scope, receive, send, limit)
                return
        seen = 0
        too_big = False

        async def limited_receive() -> Any:
            nonlocal seen, too_big
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    too_big = True
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._reject(scope, receive, send, limit)

    async def _reject(self, scope: Any, receive: Any, send: Any, limit: int) -> None:
        response = problem(413, "Request body too large", f"bodies are limited to {limit} bytes",
                           "/problems/TooLarge")
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass
