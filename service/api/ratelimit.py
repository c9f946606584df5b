"""Rate limits (the `limits` library, in memory per process): commands per token and per address,
failed authentications per address. Over a limit: 429 with Retry-After."""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse, storage, strategies

from service.settings import Settings

from .problems import TooManyRequests


def _item(spec: str) -> RateLimitItem | None:
    return None if spec.strip().lower() in ("", "off", "none") else parse(spec)


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self._limiter = strategies.FixedWindowRateLimiter(storage.MemoryStorage())
        self.per_token = _item(settings.rate_commands_per_token)
        self.per_address = _item(settings.rate_commands_per_address)
        self.auth_failures = _item(settings.rate_auth_failures_per_address)

    def command(self, token_digest: str | None, address: str) -> None:
        """Count one command; refuse it when its token or its address is over the limit."""
        if token_digest is not None:
            self._hit(self.per_token, "command-token", token_digest, "commands for this token")
        self._hit(self.per_address, "command-address", address, "commands from this address")

    def before_authentication(self, address: str) -> None:
        """An address that failed authentication too often is refused before its token is looked at."""
        item = self.auth_failures
        if item is not None and not self._limiter.test(item, "auth", address):
            raise TooManyRequests("too many failed authentications from this address; retry later",
                                  self._retry_after(item, "auth", address))

    def authentication_failed(self, address: str) -> None:
        if self.auth_failures is not None:
            self._limiter.hit(self.auth_failures, "auth", address)

    def _hit(self, item: RateLimitItem | None, scope: str, key: str, what: str) -> None:
        if item is not None and not self._limiter.hit(item, scope, key):
            raise TooManyRequests(f"too many {what} (limit {item}); retry later",
                                  self._retry_after(item, scope, key))

    def _retry_after(self, item: RateLimitItem, scope: str, key: str) -> int:
        reset = self._limiter.get_window_stats(item, scope, key).reset_time
        return max(1, math.ceil(reset - time.time()))
