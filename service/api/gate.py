"""What every caller passes, on HTTP and on the websocket alike: authentication (with the failed-
authentication limit), command admission (rate limits per token and address) and the command metrics."""

from __future__ import annotations

import logging
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
        # per command: the counter child of its (ruleset, outcome) and the token's digest (the rate
        # limit's key), each looked up once and kept, not rebuilt (labels(), sha256) every time
        self._counted: dict[tuple[str, str], Any] = {}
        self._digests: dict[str, str] = {}

    def _count(self, ruleset: str, outcome: str) -> None:
        child = self._counted.get((ruleset, outcome))
        if child is None:
            child = self._counted[(ruleset, outcome)] = self.metrics.commands.labels(ruleset, outcome)
        child.inc()

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
        if token:
            self.limits.before_authentication(address)
        try:
            return await self.service.authenticate(game_id, token)
        except Unauthorized:
            self.limits.authentication_failed(address)
            raise

    async def command(
        self, game_id: str, viewer: Viewer, token: str | None, address: str, body: bytes,
        idempotency_key: str | None = None, expected_version: int | None = None,
        request: CommandRequest | None = None,
    ) -> CommandResult:
        """``request``: the body decoded already (a websocket message's); ``body`` is then not read."""
        head = self.service.heads.cached(game_id)
        ruleset = head.ruleset.name if head is not None else "unknown"
        outcome = "error"
        try:
            self.limits.command(self._digest(token), address)
            result = await self.service.handle_command(game_id, viewer, body, idempotency_key, expected_version,
                                                       request)
            outcome = "accepted"
            if log.isEnabledFor(logging.DEBUG):
                log.debug("command accepted", extra={"seq": result.version, "viewer": viewer.label})
            return result
        except TooManyRequests:
            outcome = "limited"
            self.metrics.rate_limited.labels("commands").inc()
            raise
        except RuleViolation as exc:
            outcome = "rejected"
            self.metrics.rejections.labels(exc.rule).inc()
            log.debug("command rejected", extra={"rule": exc.rule, "viewer": viewer.label})
            raise
        except AppError as exc:
            outcome = "invalid"
            log.debug("command refused", extra={"status": exc.status, "field": exc.field})
            raise
        finally:
            self._count(ruleset, outcome)
