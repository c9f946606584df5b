"""POST /v1/games/{game_id}/commands as a bare ASGI endpoint, ahead of the FastAPI router.

The hot HTTP path: no dependency solving, no Request object, no response class; headers are read
straight from the ASGI scope. Everything else is what the FastAPI route in routes/games.py does (that
route stays registered behind this one, and describes the endpoint in the OpenAPI document): the same
gate (authentication, failed-authentication and command rate limits, metrics), the same header checks
and the same problem+json answers.

Two ways in. Behind the router (``CommandEndpoint``), the app's middleware (body size limit, request
id and metrics, security headers, CORS) wraps it as it wraps every route. With the app's own middleware
stack, and no other, ``LeanCommands`` takes the request straight from the server instead: it does what
that stack does for this one path in a single call (one pass over the headers, the response headers
built once, no wrapped ``send`` or ``receive`` on the way to a 201), and answers byte for byte as the
routed endpoint does (tests/api/test_command_endpoint.py sends the same requests to both).
``SalvoApp``, the app class of the fast path (``create_app`` with SALVO_FAST_PATH on), makes that choice
per request; it reads Starlette's and FastAPI's internals (the middleware list, the built stack, the
exception handlers), so it lives here with the rest of the fast path, not in app.py.
"""

from __future__ import annotations

import re
import time
from typing import Any

from fastapi import FastAPI
from starlette._utils import get_route_path
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.domain.core import RuleViolation
from service.events.errors import AppError, InvalidRequest

from .. import logs
from ..deps import bearer
from ..encoding import command_body
from ..problems import BodyLimit, problem, problem_of, problem_response, retry_headers
from ..routes.games import expected_version
from ..security import EVERY_RESPONSE, SecurityHeaders
from .rawsocket import RawSocketMiddleware

PATH = "/v1/games/{game_id}/commands"
_PATH = re.compile(r"^/v1/games/(?P<game_id>[^/]+)/commands$")  # as Starlette compiles PATH
_JSON = b"application/json"


class CommandEndpoint:
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        authorization = key = if_match = None
        for name, value in scope["headers"]:  # the first of each, as Starlette's Headers.get
            if name == b"authorization" and authorization is None:
                authorization = value
            elif name == b"idempotency-key" and key is None:
                key = value
            elif name == b"if-match" and if_match is None:
                if_match = value
        outcome = await decide(scope, receive, scope["path_params"]["game_id"], authorization, key, if_match)
        await respond(outcome, scope, receive, send)


async def decide(
    scope: Any,
    receive: Any,
    game_id: str,
    authorization: bytes | None,
    key: bytes | None,
    if_match: bytes | None,
    limit: int | None = None,
) -> Any:
    """The command's result, or the problem response that answers it. With ``limit``, a body above it
    is answered 413 here (behind the router, BodyLimit does that)."""
    gate = scope["app"].state.gate
    client = scope.get("client")
    address = client[0] if client else "unknown"
    try:
        token = bearer(None if authorization is None else authorization.decode("latin-1"))
        viewer = await gate.viewer(game_id, token, address)
        idempotency = None if key is None else key.decode("latin-1")
        if idempotency is not None and len(idempotency) > 200:
            raise InvalidRequest("Idempotency-Key is limited to 200 characters", field="Idempotency-Key")
        expected = expected_version(None if if_match is None else if_match.decode("latin-1"))
        body = await _read_body(receive, limit)
        if body is None:
            return too_large(limit or 0)
        return await gate.command(game_id, viewer, token, address, body, idempotency, expected)
    except (RuleViolation, AppError, StarletteHTTPException) as exc:  # as problems.install answers them
        return problem_response(problem_of(exc), retry_headers(exc))  # 429, the storage's 503 / 507


def status_of(outcome: Any) -> int:
    return int(outcome.status_code if isinstance(outcome, Response) else outcome.status)


async def respond(
    outcome: Any, scope: Any, receive: Any, send: Any, tail: tuple[tuple[bytes, bytes], ...] = (), write: Any = None
) -> None:
    """Send a result or a problem; ``tail`` goes after the response's own headers. ``write``, when
    given, may put a result on the wire itself (the server's direct path, http_protocol.DirectCycle):
    the same head and body as the two messages below; when it declines, they are sent."""
    if isinstance(outcome, Response):
        if tail:
            outcome.raw_headers = [*outcome.raw_headers, *tail]
        await outcome(scope, receive, send)
        return
    payload = command_body(outcome)
    if write is not None and write(outcome.status, payload, tail):
        return
    await send(
        {
            "type": "http.response.start",
            "status": outcome.status,
            "headers": [(b"content-length", str(len(payload)).encode()), (b"content-type", _JSON), *tail],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def too_large(limit: int) -> Response:
    return problem(413, "Request body too large", f"bodies are limited to {limit} bytes", "/problems/TooLarge")


async def _read_body(receive: Any, limit: int | None) -> bytes | None:
    """The whole body; None when it grows past ``limit``."""
    chunks = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise StarletteHTTPException(400, "the client went away before sending the whole body")
        chunk = message.get("body", b"")
        if limit is not None:
            seen += len(chunk)
            if seen > limit:
                return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class LeanCommands:
    """The app's whole HTTP stack for POST /commands, in one call: what ServerErrorMiddleware,
    RequestContext, SecurityHeaders and BodyLimit do around the router, then the endpoint."""

    def __init__(self, context: logs.RequestContext, limit: int, on_error: Any) -> None:
        self.context = context  # its access line and metrics
        self.limit = limit
        self.on_error = on_error  # the app's handler for an unexpected exception (a 500)

    @staticmethod
    def game_of(scope: Any) -> str | None:
        match = _PATH.match(get_route_path(scope))
        return match.group(1) if match else None

    async def __call__(self, scope: Any, receive: Any, send: Any, game_id: str, write: Any = None) -> None:
        """``write``: see ``respond``."""
        limit = self.limit
        authorization, key, if_match, given, oversized = _read_headers(scope["headers"], limit)
        rid = logs.request_id_from(given)
        tail = (*EVERY_RESPONSE, (b"x-request-id", rid.encode()))
        tokens = (logs.request_id.set(rid), logs.game_id.set(logs.game_of(scope["path"])))
        started = time.perf_counter()
        status = None  # set once the response starts
        try:
            try:
                if oversized:
                    outcome: Any = too_large(limit)
                else:
                    outcome = await decide(scope, receive, game_id, authorization, key, if_match, limit)
                status = status_of(outcome)
                await respond(outcome, scope, receive, send, tail, write)
            finally:
                self.context.finished(scope, 500 if status is None else status, started, PATH)
                logs.request_id.reset(tokens[0])
                logs.game_id.reset(tokens[1])
        except Exception as exc:
            # as ServerErrorMiddleware: the app's 500 (without the headers above, as there), then re-raise
            if status is None:
                await (await self.on_error(Request(scope), exc))(scope, receive, send)
            raise


def _read_headers(headers: Any, limit: int) -> tuple[bytes | None, bytes | None, bytes | None, bytes | None, bool]:
    """A command's headers in one pass: the first Authorization, Idempotency-Key and If-Match (as
    Starlette's Headers.get), the last X-Request-Id (as RequestContext reads it), and whether its
    Content-Length says more than ``limit``."""
    authorization = key = if_match = given = None
    oversized = False
    for name, value in headers:
        if name == b"authorization":
            if authorization is None:
                authorization = value
        elif name == b"idempotency-key":
            if key is None:
                key = value
        elif name == b"if-match":
            if if_match is None:
                if_match = value
        elif name == b"x-request-id":
            given = value
        elif name == b"content-length" and (not value.isdigit() or int(value[:20]) > limit):
            oversized = True
    return authorization, key, if_match, given, oversized


def install(router: Any) -> None:
    """Put the lean endpoint first, so it answers before the router reaches the FastAPI route."""
    router.routes.insert(0, Route(PATH, CommandEndpoint(), methods=["POST"], include_in_schema=False))


def is_lean_route(route: Any) -> bool:
    return isinstance(getattr(route, "app", None), CommandEndpoint)


class SalvoApp(FastAPI):
    """FastAPI, with POST /commands taken straight from the server by ``LeanCommands`` while the app's
    middleware is its own stack (below) and the lean route comes first in the router: then that call
    does all the stack would, once. Any other middleware (CORS, a test's) and the request goes the
    ordinary way, through the stack and the router to the same endpoint."""

    _lean: LeanCommands | None = None
    _lean_looked = False  # decided at the first request, once the middleware is all added
    _lean_route: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            lean = self.lean_now()
            if lean is not None:
                if self.root_path:
                    scope["root_path"] = self.root_path
                game_id = lean.game_of(scope)
                if game_id is not None:
                    scope["app"] = self
                    await lean(scope, receive, send, game_id)
                    return
        await super().__call__(scope, receive, send)

    def lean_now(self) -> LeanCommands | None:
        """The lean path for a POST /commands now: the app's own stack, the lean route still first."""
        lean = self._lean if self._lean_looked else self._lean_commands()
        routes = self.router.routes
        if lean is not None and routes and routes[0] is self._lean_route:
            return lean
        return None

    def _lean_commands(self) -> LeanCommands | None:
        """The lean path when the middleware is exactly the stack create_app builds, else None."""
        self._lean_looked = True
        if self.middleware_stack is None:  # built, as at Starlette's first request: add_middleware now refuses
            self.middleware_stack = self.build_middleware_stack()
        stack = [(m.cls, m.kwargs) for m in self.user_middleware]
        own = [RawSocketMiddleware, logs.RequestContext, SecurityHeaders, BodyLimit]
        error_handler = None
        for kind, handler in self.exception_handlers.items():  # as Starlette picks ServerErrorMiddleware's
            if kind in (500, Exception):
                error_handler = handler
        routes = self.router.routes
        if (
            [cls for cls, _ in stack] == own
            and not self.debug
            and error_handler is not None
            and routes
            and is_lean_route(routes[0])
        ):
            self._lean_route = routes[0]
            limit = stack[3][1]["limit"]
            assert isinstance(limit, int)
            self._lean = LeanCommands(logs.RequestContext(None, **stack[1][1]), limit, error_handler)
        return self._lean
