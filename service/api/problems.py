"""application/problem+json for every failure, naming the rule or the field.

``problem_of`` is the one error mapper: HTTP handlers render it as problem+json, the websocket sends
the same fields in an ``{"kind": "error"}`` message.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from service.domain.core import RuleViolation
from service.events.errors import AppError
from service.events.storage_faults import as_storage_error

PROBLEM = "application/problem+json"
log = logging.getLogger("salvo.errors")


class TooManyRequests(AppError):
    status = 429
    title = "Too many requests"

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


def problem_of(exc: BaseException) -> dict[str, Any]:
    """The problem fields for any failure (an unexpected one is a 500 that says nothing internal)."""
    if isinstance(exc, RuleViolation):
        title = "Not your piece" if exc.status == 403 else "Rule violation"
        return _body(exc.status, title, exc.detail, f"/problems/rule/{exc.rule}", rule=exc.rule, code=exc.code)
    if isinstance(exc, AppError):
        return _body(exc.status, exc.title, exc.detail, f"/problems/{type(exc).__name__}", field=exc.field)
    if isinstance(exc, RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {}
        field = ".".join(str(p) for p in first.get("loc", ()))
        detail = f"{field}: {first.get('msg', 'invalid')}" if first else "invalid request"
        return _body(422, "Invalid request", detail, "/problems/InvalidRequest", field=field)
    if isinstance(exc, StarletteHTTPException):
        return _body(exc.status_code, str(exc.detail), str(exc.detail))
    storage = as_storage_error(exc)  # a driver's error met outside the store: still the storage's 503 / 507
    if storage is not exc:
        return problem_of(storage)
    return _body(500, "Internal error", "the server failed on this request; it has been logged", "/problems/Internal")


def retry_headers(exc: BaseException) -> dict[str, str] | None:
    """Retry-After for a failure that says when to try again (429, the storage's 503 and 507)."""
    retry_after = getattr(exc, "retry_after", None)
    return {"Retry-After": str(retry_after)} if isinstance(retry_after, int) else None


def _body(status: int, title: str, detail: str, type_: str = "about:blank", **extra: Any) -> dict[str, Any]:
    body = {"type": type_, "title": title, "status": status, "detail": detail}
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def problem(status: int, title: str, detail: str, type_: str = "about:blank", **extra: Any) -> Response:
    return problem_response(_body(status, title, detail, type_, **extra))


def problem_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(msgspec.json.encode(body), status_code=body["status"], media_type=PROBLEM, headers=headers)


def install(app: FastAPI) -> None:
    async def handle(_request: Request, exc: Exception) -> Response:
        return problem_response(problem_of(exc), retry_headers(exc))

    for kind in (RuleViolation, AppError, RequestValidationError, StarletteHTTPException):
        app.add_exception_handler(kind, handle)

    async def unexpected(_request: Request, exc: Exception) -> Response:
        storage = as_storage_error(exc)  # the database away or full, met outside the store: 503 / 507
        if storage is not exc:  # (logged once per kind per interval there, not a traceback per request)
            return problem_response(problem_of(storage), retry_headers(storage))
        log.exception("unhandled error", exc_info=exc)
        return problem_response(problem_of(exc))

    app.add_exception_handler(Exception, unexpected)


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
            if name == b"content-length" and (not value.isdigit() or int(value[:20]) > limit):
                await self._reject(scope, receive, send, limit)
                return
        seen = 0

        async def limited_receive() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._reject(scope, receive, send, limit)

    async def _reject(self, scope: Any, receive: Any, send: Any, limit: int) -> None:
        response = problem(413, "Request body too large", f"bodies are limited to {limit} bytes", "/problems/TooLarge")
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass
