"""What every caller passes, on HTTP and on the websocket alike: authentication (with the failed-
authentication limit), command admission (rate limits per token and address) and the command metrics."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from service.domain.core import RuleViolation, Viewer
from service.events.application import CommandRequest, CommandResult, GameService, hash_token
from service.events.errors import AppError, Unauthorized

from .logs import game_id as game_context
from .metrics import Metrics
from .problems import TooManyRequests
from .ratelimit import RateLimits

log = logging.getLogger("salvo.commands")


_DIGESTS_KEPT = 10_000


class Gate:
    def __init__(self, service: GameService, limits: RateLimits, metrics: Metrics) -> None:
        self.service = service
        self.limits = limits
        self.metrics = metrics
        # per command: the count of its (ruleset, outcome) and the token's digest (the rate limit's key),
        # each looked up once and kept, not rebuilt (labels(), sha256) every time
        self._counted: dict[str, dict[str, Any]] = {}  # outcome -> ruleset -> its count
        self._accepted = self._counted["accepted"] = {}  # the usual outcome's, read straight (no key tuple)
        self._digests: dict[str, str] = {}
        # no command limit configured: no admission to run (its clock read and calls) per command
        self._admits = limits.per_token is not None or limits.per_address is not None

    def _count(self, ruleset: str, outcome: str) -> None:
        by_ruleset = self._counted.setdefault(outcome, {})
        tally = by_ruleset.get(ruleset)
        if tally is None:
            tally = by_ruleset[ruleset] = self.metrics.commands.tally(ruleset, outcome)
        tally.inc(1)

    def _digest(self, token: str | None) -> str | None:
        if not token or not self.limits.limits_tokens:
            return None
        digest = self._digests.get(token)
        if digest is None:
            if len(self._digests) >= _DIGESTS_KEPT:
                self._digests.clear()
            digest = self._digests[token] = hash_token(token)
        return digest

    async def viewer(self, game_id: str, token: str | None, address: str) -> Viewer:
        game_context.set(game_id)
        try:
            return await self.service.authenticate(game_id, token)
        except Unauthorized:
            try:
                self.limits.authentication_failed(address)  # past the limit: 429 for this failure
            except TooManyRequests:
                self.metrics.rate_limited.labels("authentication").inc()
                raise
            raise

    async def command(
        self,
        game_id: str,
        viewer: Viewer,
        token: str | None,
        address: str,
        body: bytes,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        request: CommandRequest | None = None,
    ) -> CommandResult:
        """``request``: the body decoded already (a websocket message's); ``body`` is then not read."""
        ruleset = self.ruleset(game_id)
        try:
            result = await self.start(game_id, viewer, token, address, body, idempotency_key, expected_version, request)
        except BaseException as exc:
            self.failed(ruleset, viewer, exc)
            raise
        self.accepted(ruleset, viewer, result)
        return result

    # ``command`` in its steps, for a caller that awaits the service's coroutine itself (the socket's
    # worker: one coroutine level fewer per command): ``ruleset``, ``start``, then ``accepted`` or ``failed``

    def ruleset(self, game_id: str) -> str:
        """The command's ruleset label, read before it runs (the head's place in the eviction order is
        left to the command's own use of it)."""
        head = self.service.heads.peek(game_id)
        return head.ruleset.name if head is not None else "unknown"

    def start(
        self,
        game_id: str,
        viewer: Viewer,
        token: str | None,
        address: str,
        body: bytes,
        idempotency_key: str | None,
        expected_version: int | None,
        request: CommandRequest | None,
        on_durable: Callable[[CommandResult], None] | None = None,
    ) -> Coroutine[Any, Any, CommandResult]:
        """Admit the command (rate limits: raises TooManyRequests) and return the coroutine handling it
        (``on_durable``: the pipeline's early answer, see ``CommandPipeline.handle``)."""
        if self._admits:
            self.limits.command(self._digest(token), address)
        return self.service.handle_command(
            game_id, viewer, body, idempotency_key, expected_version, request, on_durable
        )

    def accepted(self, ruleset: str, viewer: Viewer, result: CommandResult) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("command accepted", extra={"seq": result.version, "viewer": viewer.label})
        tally = self._accepted.get(ruleset)
        if tally is None:
            tally = self._accepted[ruleset] = self.metrics.commands.tally(ruleset, "accepted")
        tally.inc(1)

    def failed(self, ruleset: str, viewer: Viewer, exc: BaseException) -> None:
        """Count a command's failure (``start``'s or its coroutine's), by its kind."""
        if isinstance(exc, TooManyRequests):
            outcome = "limited"
            self.metrics.rate_limited.labels("commands").inc()
        elif isinstance(exc, RuleViolation):
            outcome = "rejected"
            self.metrics.rejections.labels(exc.rule).inc()
            log.debug("command rejected", extra={"rule": exc.rule, "viewer": viewer.label})
        elif isinstance(exc, AppError):
            outcome = "invalid"
            log.debug("command refused", extra={"status": exc.status, "field": exc.field})
        else:
            outcome = "error"
        self._count(ruleset, outcome)
