"""POST /v1/games/{game_id}/commands as a bare ASGI endpoint, ahead of the FastAPI router.

The hot HTTP path: no dependency solving, no Request object, no response class; headers are read
straight from the ASGI scope. Everything else is what the FastAPI route in routes/games.py does (that
route stays registered behind this one, and describes the endpoint in the OpenAPI document): the same
gate (authentication, failed-authentication and command rate limits, metrics), the same header checks
and the same problem+json answers. The app's middleware (body size limit, request id and metrics,
security headers, CORS) wraps this endpoint as it wraps every route.
"""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from service.domain.core import RuleViolation
from service.events.errors import AppError, InvalidRequest

from .deps import bearer
from .problems import TooManyRequests, problem_of, problem_response
from .routes.games import expected_version

PATH = "/v1/games/{game_id}/commands"
_JSON = b"application/json"


class CommandEndpoint:
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        gate = scope["app"].state.gate
        game_id = scope["path_params"]["game_id"]
        authorization = key = if_match = None
        for name, value in scope["headers"]:  # the first of each, as Starlette's Headers.get
            if name == b"authorization" and authorization is None:
                authorization = value.decode("latin-1")
            elif name == b"idempotency-key" and key is None:
                key = value.decode("latin-1")
            elif name == b"if-match" and if_match is None:
                if_match = value.decode("latin-1")
        client = scope.get("client")
        address = client[0] if client else "unknown"
        try:
            token = bearer(authorization)
            viewer = await gate.viewer(game_id, token, address)
            if key is not None and len(key) > 200:
                raise InvalidRequest("Idempotency-Key is limited to 200 characters", field="Idempotency-Key")
            expected = expected_version(if_match)
            body = await _read_body(receive)
            result = await gate.command(game_id, viewer, token, address, body, key, expected)
        except (RuleViolation, AppError, StarletteHTTPException) as exc:  # as problems.install answers them
            headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooManyRequests) else None
            await problem_response(problem_of(exc), headers)(scope, receive, send)
            return
        payload = result.body
        await send({"type": "http.response.start", "status": result.status,
                    "headers": [(b"content-length", str(len(payload)).encode()), (b"content-type", _JSON)]})
        await send({"type": "http.response.body", "body": payload})


async def _read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise StarletteHTTPException(400, "the client went away before sending the whole body")
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def install(router: Any) -> None:
    """Put the lean endpoint first, so it answers before the router reaches the FastAPI route."""
    router.routes.insert(0, Route(PATH, CommandEndpoint(), methods=["POST"], include_in_schema=False))
