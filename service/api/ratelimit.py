"""Rate limits, in memory per process: commands per token and per address, failed authentications per
address (which refuses only further failures, never a valid token). Over a limit: 429 with Retry-After.

The specs are parsed by the `limits` library ("100/second", "30/minute"); the counting is a fixed window
per key here, with the library's memory-storage semantics (a key's window opens at its first hit and
lasts the item's period), because the library's hit costs ~5 µs on every command and this ~0.5 µs."""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse

from service.settings import Settings

from .problems import TooManyRequests

_SWEEP_AT = 10_000  # keys held before expired windows are swept


class FixedWindow:
    """``amount`` hits per key in a window of ``period`` seconds from the key's first hit."""

    def __init__(self, item: RateLimitItem) -> None:
        self.item = item
        self.amount = item.amount
        self.period = float(item.get_expiry())
        self._windows: dict[str, list[float]] = {}  # key -> [window end (monotonic), hits]

    def hit(self, key: str, now: float) -> bool:
        """Count one hit; False when it is over the limit."""
        window = self._windows.get(key)
        if window is None or window[0] <= now:
            if window is None and len(self._windows) >= _SWEEP_AT:
                self._sweep(now)
            window = self._windows[key] = [now + self.period, 0.0]
        window[1] += 1
        return window[1] <= self.amount

    def test(self, key: str, now: float) -> bool:
        """Would one more hit be allowed?"""
        window = self._windows.get(key)
        return window is None or window[0] <= now or window[1] < self.amount

    def retry_after(self, key: str, now: float) -> int:
        window = self._windows.get(key)
        return max(1, math.ceil(window[0] - now)) if window is not None else 1

    def _sweep(self, now: float) -> None:
        for key in [k for k, w in self._windows.items() if w[0] <= now]:
            del self._windows[key]


def _window(spec: str) -> FixedWindow | None:
    return None if spec.strip().lower() in ("", "off", "none") else FixedWindow(parse(spec))


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.per_token = _window(settings.rate_commands_per_token)
        self.per_address = _window(settings.rate_commands_per_address)
        self.auth_failures = _window(settings.rate_auth_failures_per_address)
        self.imports = _window(settings.rate_imports_per_address)

    @property
    def limits_tokens(self) -> bool:
        return self.per_token is not None

    def command(self, token_digest: str | None, address: str) -> None:
        """Count one command; refuse it when its token or its address is over the limit."""
        now = time.monotonic()
        if token_digest is not None:
            self._hit(self.per_token, token_digest, now, "commands for this token")
        self._hit(self.per_address, address, now, "commands from this address")

    def imported(self, address: str) -> None:
        """Count one battle-file import from ``address`` (each folds a whole log: the costliest request)."""
        self._hit(self.imports, address, time.monotonic(), "imports from this address")

    def authentication_failed(self, address: str) -> None:
        """Count a failed authentication from ``address``; past the limit, this failure is answered 429
        instead of 401. Only failures are counted and only failures refused: a valid token from the same
        address always passes (one player's typo, or a guesser behind the table's shared NAT, must not
        lock the table out)."""
        window = self.auth_failures
        if window is not None:
            now = time.monotonic()
            if not window.hit(address, now):
                raise TooManyRequests(
                    "too many failed authentications from this address; retry later", window.retry_after(address, now)
                )

    @staticmethod
    def _hit(window: FixedWindow | None, key: str, now: float, what: str) -> None:
        if window is not None and not window.hit(key, now):
            raise TooManyRequests(f"too many {what} (limit {window.item}); retry later", window.retry_after(key, now))
