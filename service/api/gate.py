"""What every caller passes, on HTTP and on the websocket alike: authentication (with the failed-
authentication limit), command admission (rate limits per token and address) and the command metrics."""

from __future__ import annotations

import logging

from service.domain.core import RuleViolation, Viewer
from service.events.application import CommandResult, GameService, hash_token
from service.events.errors import AppError, Unauthorized

from .logs import game_id as game_context
from .metrics import Metrics
from .problems import TooManyRequests
from .ratelimit import RateLimits

log = logging.getLogger("salvo.commands")


class Gate:
    def __init__(self, service: GameService, limits: RateLimits, metrics: Metrics) -> None:
        self.service = service
        self.limits = limits
        self.metrics = metrics

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
    ) -> CommandResult:
        head = self.service.heads.cached(game_id)
        ruleset = head.ruleset.name if head is not None else "unknown"
        outcome = "error"
        try:
            self.limits.command(hash_token(token) if token else None, address)
            result = await self.service.handle_command(game_id, viewer, body, idempotency_key, expected_version)
            outcome = "accepted"
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
            self.metrics.commands.labels(ruleset, outcome).inc()
