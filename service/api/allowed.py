"""Which methods a path takes, for 405's `Allow` (RFC 9110 §15.5.6) and CORS's allowed methods.

Starlette's own 405 names only the first route whose path matched, and FastAPI keeps included routers'
routes behind wrappers, so both walk the effective routes here (fastapi.routing.iter_route_contexts).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.routing import iter_route_contexts
from starlette.responses import Response
from starlette.routing import compile_path

from . import problems


def route_methods(app: Any) -> list[tuple[re.Pattern[str], frozenset[str]]]:
    """(path pattern, methods) of every HTTP route the app has now (mounts and websockets left out)."""
    found = []
    for context in iter_route_contexts(app.router.routes):
        if context.path and context.methods:
            found.append((compile_path(context.path)[0], frozenset(context.methods)))
    return found


def every_method(app: Any) -> list[str]:
    return sorted({m for _pattern, methods in route_methods(app) for m in methods})


def allowed_methods(app: Any, path: str) -> list[str]:
    return sorted({m for pattern, methods in route_methods(app) if pattern.match(path) for m in methods})


async def method_not_allowed(request: Any, exc: Exception) -> Response:
    """405 problem+json with `Allow` listing every method some route takes at this path."""
    allow = ", ".join(allowed_methods(request.app, request.url.path))
    return problems.problem_response(problems.problem_of(exc), {"Allow": allow})
