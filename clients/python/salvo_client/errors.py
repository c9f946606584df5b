"""A refused request: the server's problem+json, typed."""

from __future__ import annotations

import msgspec

from .models import Problem


class UsageError(Exception):
    """A command line the client cannot act on (a bad argument): said in one line, no traceback."""


class ApiError(Exception):
    def __init__(self, status: int, problem: Problem) -> None:
        super().__init__(f"{status} {problem.title}: {problem.detail}")
        self.status = status
        self.problem = problem

    @property
    def rule(self) -> str | None:
        return self.problem.rule

    @property
    def field(self) -> str | None:
        return self.problem.field


def raise_for(status: int, body: bytes) -> None:
    if status < 400:
        return
    try:
        problem = msgspec.json.decode(body, type=Problem)
    except msgspec.MsgspecError:  # not problem+json (a proxy's page): keep what it said
        problem = Problem(
            type="about:blank", title=f"HTTP {status}", status=status, detail=body.decode(errors="replace")[:500]
        )
    raise ApiError(status, problem)
