"""Structured logs: one JSON object a line with the request id, game id and seq of what it is about,
and a filter on every handler that scrubs secrets (tokens, passwords in URLs) whatever logged them."""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import sys
import time
from typing import Any

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("salvo_request_id", default=None)
game_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("salvo_game_id", default=None)

# a token never has to appear in a line: query parameters, bearer headers, socket subprotocols, URL passwords
_SECRETS = [
    (re.compile(r"(?i)([?&;](?:token|access_token|password)=)[^&\s\"'\\]+"), r"\1[redacted]"),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1[redacted]"),
    (re.compile(r"(salvo\.token\.)[A-Za-z0-9._~+/=-]+"), r"\1[redacted]"),
    (re.compile(r"(://[^/:@\s\"'\\]*:)[^@/\s\"'\\]+@"), r"\1[redacted]@"),
]
_GAME_PATH = re.compile(r"/v1/games/(g_[0-9a-f]+)")
# record attributes that are not fields of a line; uvicorn's ``color_message`` repeats ``msg`` with ANSI escapes
_RESERVED = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecrets(logging.Filter):
    """Rewrites the record's message (with its arguments merged in) so no handler sees a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid, gid = request_id.get(), game_id.get()
        if rid:
            out["request_id"] = rid
        if gid:
            out["game_id"] = gid
        out.update({k: v for k, v in vars(record).items() if k not in _RESERVED and not k.startswith("_")})
        if record.exc_text:
            out["exc"] = record.exc_text
        return redact(json.dumps(out, default=str))


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure(level: str = "info", fmt: str = "json", stream: Any = None) -> logging.Handler:
    """One handler on the root logger; uvicorn's loggers propagate to it (run uvicorn with log_config=None)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    text = TextFormatter("%(asctime)s %(levelname)s %(name)s %(message)s")
    handler.setFormatter(JsonFormatter() if fmt == "json" else text)
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.captureWarnings(True)  # Python's warnings become log lines too, not bare text on stderr
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    return handler


access = logging.getLogger("salvo.access")
_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")


_FRESH: list[str] = []  # fresh ids, drawn from the OS 256 at a time (one getrandom, not one a request)
os.register_at_fork(after_in_child=_FRESH.clear)  # a forked worker draws its own


def fresh_request_id() -> str:
    """16 hex digits from os.urandom, as secrets.token_hex(8)."""
    if not _FRESH:
        raw = os.urandom(8 * 256).hex()
        _FRESH.extend([raw[i : i + 16] for i in range(0, len(raw), 16)])
    return _FRESH.pop()


def request_id_from(given: bytes | None) -> str:
    """The client's X-Request-Id when it is a plain token, else a fresh one."""
    if given is not None and _REQUEST_ID.fullmatch(given):
        return given.decode("latin-1")
    return fresh_request_id()


def game_of(path: str) -> str | None:
    match = _GAME_PATH.match(path)
    return match.group(1) if match else None


class RequestContext:
    """Pure ASGI middleware: a request id (X-Request-Id, echoed or made), the game id from the path,
    one access line per request (path without its query string) and the HTTP metrics."""

    def __init__(self, app: Any, metrics: Any = None) -> None:
        self.app = app
        self.metrics = metrics
        # labelled children (counter, histogram) per (method, route, status): labels() costs a lock and checks
        self._counted: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = None
        for name, value in scope.get("headers", ()):  # the last one, as a dict of the headers keeps
            if name == b"x-request-id":
                given = value
        rid = request_id_from(given)
        tokens = (request_id.set(rid), game_id.set(game_of(scope.get("path", ""))))
        started = time.perf_counter()
        status = 500
        tail = (b"x-request-id", rid.encode())

        async def send_with_id(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), tail]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if scope["type"] == "http":
                self.finished(scope, status, started)
            request_id.reset(tokens[0])
            game_id.reset(tokens[1])

    def finished(self, scope: Any, status: int, started: float, route: str | None = None) -> None:
        """The access line and the metrics of one HTTP request (also the lean command path's, which names
        its ``route``). The metrics' route is the matched route's template, "unmatched" for none: one
        series per route, never one per game or per probing client's path."""
        seconds = time.perf_counter() - started
        method = scope["method"]
        if access.isEnabledFor(logging.INFO):
            access.info(
                "%s %s %d", method, scope["path"], status, extra={"status": status, "ms": round(seconds * 1000, 2)}
            )
        if self.metrics is not None:
            if route is None:
                route = getattr(scope.get("route"), "path", None) or "unmatched"
            counted = self._counted.get((method, route, status))
            if counted is None:
                counted = self._counted[(method, route, status)] = (
                    self.metrics.requests.labels(method, route, str(status)),
                    self.metrics.request_seconds.labels(method, route),
                )
            counted[0].inc()
            counted[1].observe(seconds)
