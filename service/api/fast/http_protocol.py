"""uvicorn's httptools protocol, writing each response's head and body in one ``write``.

uvicorn writes the status line and headers when the app sends ``http.response.start`` and the body
when it sends ``http.response.body``: two ``write`` calls, and with uvloop two ``send`` syscalls and
two TCP segments for a response that fits in one. Here the connection's transport holds a response
head back until the next write (the body, in the same turn of the event loop) or, at the latest, the
end of that turn, so the bytes and their order on the wire are the same, only fewer writes carry them.

A websocket upgrade hands the protocol that takes the connection the plain transport (the fan-out
writes frames to it directly, see rawsocket.py).

The plain POST /v1/games/{game_id}/commands (HTTP/1.1, a Content-Length within the body limit, no
Transfer-Encoding, Expect or Upgrade, nothing pipelined ahead of it) takes a shorter way when the app
would serve it with ``LeanCommands`` (SalvoApp.lean_now): no URL parse, no routing, straight to the lean
endpoint behind uvicorn's own proxy-headers step, in a ``DirectCycle`` — uvicorn's cycle (its receive,
send, error handling and keep-alive), which writes a 201 in one piece from header blocks built once
instead of through the generic ``send``. Anything else goes uvicorn's way, and any problem answer takes
the generic ``send`` either way: the bytes on the wire are the same (tests/api/test_http_direct.py).

Connections are bounded (``ConnectionLimits``, set by ``salvo serve``): uvicorn arms its idle timer only
after a response, so a connection that never completes a request head (slowloris: a header byte every few
seconds, or nothing at all) would stay open forever; here a request's head must be complete within
``header_timeout`` of the connection opening or of the request's first byte, and within
``max_header_bytes`` (431 past it: httptools has no limit of its own, h11's ``h11_max_incomplete_event_size``
does not apply). Past ``max_connections`` open connections (websockets included) a new one is closed at
once, so idle sockets cannot take the descriptors the database, Redis and the live streams need.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.httptools_impl import (
    HEADER_RE,
    HEADER_VALUE_RE,
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)


class CoalescingTransport:
    """The connection's transport, holding a response head back for the write that follows it."""

    __slots__ = ("transport", "_held", "_loop")

    def __init__(self, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._held: bytes | None = None
        self._loop = loop

    def write(self, data: bytes) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self.transport.write(held + data)
        elif data[-4:] == b"\r\n\r\n" and data[:5] == b"HTTP/":  # a head: its body comes next
            self._held = data
            self._loop.call_soon(self.flush)
        else:
            self.transport.write(data)

    def flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self.transport.write(held)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def get_write_buffer_size(self) -> int:
        return int(self.transport.get_write_buffer_size()) + len(self._held or b"")

    # what uvicorn calls per request, spelled out (a __getattr__ miss costs a microsecond)
    def is_closing(self) -> bool:
        return bool(self.transport.is_closing())

    def pause_reading(self) -> None:
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        self.transport.resume_reading()

    def __getattr__(self, name: str) -> Any:  # everything else is the transport's own
        return getattr(self.transport, name)


log = logging.getLogger("salvo.server")


@dataclass(frozen=True)
class ConnectionLimits:
    """How long and how much a client may take to send a request's head, and how many connections a
    process holds (docs/operations.md; read by ``service.api.serving.connection_limits``)."""

    header_timeout: float = 10.0  # seconds from a connection's opening, or a request's first byte, to its head
    max_header_bytes: int = 64 * 1024  # a request line and headers larger than this: 431, connection closed
    max_connections: int | None = None  # open connections (websockets too) past which a new one is closed
    keep_alive_timeout: int = 5  # seconds an idle connection stays open after a response (uvicorn's own)


HEADERS_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 32\r\n\r\nrequest header fields too large\n"
)


# the request target of a plain POST /commands: no query, no escapes, a game id of URL-safe characters
_COMMANDS = re.compile(rb"/v1/games/([A-Za-z0-9_.~-]+)/commands")
_SEEN = frozenset((b"content-length", b"transfer-encoding", b"x-forwarded-for", b"x-forwarded-proto"))


class _Flag:
    """The part of asyncio.Event a cycle uses (set, clear, wait, is_set), without a deque per request."""

    __slots__ = ("_value", "_waiters")

    def __init__(self) -> None:
        self._value = False
        self._waiters: list[asyncio.Future[bool]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        if not self._value:
            self._value = True
            waiters, self._waiters = self._waiters, None
            for waiter in waiters or ():
                if not waiter.done():
                    waiter.set_result(True)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> bool:
        if self._value:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            return await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)


_server_block: tuple[Any, bytes | None] = (None, None)


def _server_headers(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    """The server's own headers (date, server) as uvicorn writes them ahead of the app's; None when one
    would fail uvicorn's checks (then the generic send raises as it would). Kept per list: the server
    replaces the list once a second, with the date."""
    global _server_block
    held, block = _server_block
    if held is not headers:
        block = b"".join(name.lower() + b": " + value + b"\r\n" for name, value in headers)
        if any(HEADER_RE.search(name) or HEADER_VALUE_RE.search(value) for name, value in headers):
            block = None
        _server_block = (headers, block)
    return block


class DirectCycle(RequestResponseCycle):
    """uvicorn's request/response cycle for a direct POST /commands, with ``write_result``."""

    game_id = ""

    def write_result(self, status: int, payload: bytes, tail: tuple[tuple[bytes, bytes], ...]) -> bool:
        """Write a result response (Content-Length, Content-Type: application/json, ``tail``) as
        ``send`` would write its two messages, in one write. False, writing nothing, where ``send``
        would do more than that (wait for a paused transport, log the access, drop a disconnected
        client's response, refuse a header): then the caller sends them."""
        if self.response_started or self.disconnected or self.access_log or self.flow.write_paused:
            return False
        server = _server_headers(self.default_headers)
        if server is None:
            return False
        parts = [
            STATUS_LINE[status],
            server,
            b"content-length: ",
            str(len(payload)).encode(),
            b"\r\ncontent-type: application/json\r\n",
        ]
        for name, value in tail:  # the lean endpoint's own: fixed names, a checked request id
            parts += (name, b": ", value, b"\r\n")
        if not self.keep_alive:
            parts.append(b"connection: close\r\n")
        parts += (b"\r\n", payload)
        self.response_started = True
        self.waiting_for_100_continue = False
        self.transport.write(b"".join(parts))
        self.response_complete = True
        self.message_event.set()
        if not self.keep_alive:
            self.transport.close()
        self.on_response()
        return True


class _DirectCommands:
    """The ASGI app a direct cycle runs (behind uvicorn's proxy-headers step when the server has it):
    what SalvoApp.__call__ does for a lean POST /commands, the game id already known."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        cycle: DirectCycle = send.__self__  # the cycle's own bound send: the proxy step passes it on
        lean = self.app.lean_now()
        scope["app"] = self.app
        if lean is None:  # the app changed since the request came in (a test's): the ordinary way
            await self.app(scope, receive, send)
            return
        await lean(scope, receive, send, cycle.game_id, cycle.write_result)


def _length_of(headers: Any) -> tuple[bytes | None, bool]:
    """A request's Content-Length (None: none, or one the direct cycle leaves to uvicorn: two lengths, or
    chunked) and whether it has X-Forwarded-* headers."""
    length = None
    forwarded = False
    for name, value in headers:
        if name in _SEEN:
            if name == b"content-length":
                if length is not None:
                    return None, forwarded  # two lengths: uvicorn's way, and the lean endpoint's checks
                length = value
            elif name == b"transfer-encoding":
                return None, forwarded  # chunked: as well
            else:
                forwarded = True
    return length, forwarded


def _direct_entry(config: Any) -> Any:
    """For this server: (the SalvoApp, the app a direct cycle runs, the same behind the server's proxy-
    headers step), or None when the loaded app is not a SalvoApp behind at most uvicorn's proxy-headers
    middleware (then every request goes uvicorn's way)."""
    entry = getattr(config, "_salvo_direct", None)
    if entry is None:
        from .command_endpoint import SalvoApp  # here: command_endpoint imports the app's routes

        app, proxy = config.loaded_app, None
        if type(app) is ProxyHeadersMiddleware:
            proxy, app = app, app.app
        entry = False
        if type(app) is SalvoApp and not config.root_path:
            direct: Any = _DirectCommands(app)
            proxied = direct
            if proxy is not None:
                proxied = ProxyHeadersMiddleware.__new__(ProxyHeadersMiddleware)
                proxied.app, proxied.trusted_hosts = direct, proxy.trusted_hosts
            entry = (app, direct, proxied)
        config._salvo_direct = entry
    return entry or None


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's protocol, with the coalescing transport, the direct POST /commands, and one keep-alive
    timer per connection: uvicorn arms a fresh timer after every response and cancels it when the
    next request's bytes come in; here the timer, when it fires, looks at when the connection went
    idle and re-arms itself for what is left. The same timeout from the same moment, no timer per
    request."""

    _direct: Any = None  # (SalvoApp, its direct entries), False for none; looked up at the first POST
    _idle = False  # no request on the connection since the last response completed
    _idle_since = 0.0  # the loop's time then
    _limits = ConnectionLimits()
    _awaiting_head = False  # the connection is open, or a request has begun, and its head is not complete
    _head_since = 0.0  # the loop's time the wait began
    _head_bytes = 0  # bytes received while waiting
    _head_timer: Any = None  # one per connection, re-armed for what is left (as the keep-alive timer)
    _refused = 0  # connections closed at once for max_connections (class-wide: one log line per 1,000)

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]
        limits = self._limits = getattr(self.config, "salvo_limits", None) or self._limits
        if limits.max_connections is not None and len(self.connections) > limits.max_connections:
            if CoalescingHttpToolsProtocol._refused % 1000 == 0:
                log.warning(
                    "connection refused: %d connections open (SALVO_MAX_CONNECTIONS)",
                    len(self.connections) - 1,
                    extra={"refused": CoalescingHttpToolsProtocol._refused + 1},
                )
            CoalescingHttpToolsProtocol._refused += 1
            self.transport.close()
            return
        self._await_head()

    def _await_head(self) -> None:
        self._awaiting_head = True
        self._head_since = self.loop.time()
        self._head_bytes = 0
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self._limits.header_timeout, self._head_due)

    def _head_due(self) -> None:
        self._head_timer = None
        if not self._awaiting_head:  # the head came: the next request's first byte arms a timer again
            return
        left = self._head_since + self._limits.header_timeout - self.loop.time()
        if left > 0:
            self._head_timer = self.loop.call_later(left, self._head_due)
        elif not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._awaiting_head:
            self._head_bytes += len(data)
            if self._head_bytes > self._limits.max_header_bytes:
                # past the limit only if the head is still not complete: one read may carry the end of the
                # head and the start of a large body (a battle file), which are not header bytes
                end = data.find(b"\r\n\r\n")
                if end < 0:  # (the head's end may straddle two reads: the parser knows)
                    super().data_received(data)
                    if self._awaiting_head:
                        self._too_large()
                    return
                if self._head_bytes - len(data) + end > self._limits.max_header_bytes:
                    self._too_large()
                    return
        super().data_received(data)

    def _too_large(self) -> None:
        self._awaiting_head = False
        if not self.transport.is_closing():
            self.transport.write(HEADERS_TOO_LARGE)
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._awaiting_head:  # a later request on a kept-alive connection: its own head's clock
            self._await_head()

    def _unset_keepalive_if_required(self) -> None:  # bytes came in (or the connection went): not idle
        self._idle = False

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        timer, self.timeout_keep_alive_task = self.timeout_keep_alive_task, None
        if timer is not None:
            timer.cancel()
        self._awaiting_head = False
        head, self._head_timer = self._head_timer, None
        if head is not None:
            head.cancel()

    def on_response_complete(self) -> None:
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:  # as uvicorn: the next pipelined request starts
            self._idle = False
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle = True
        self._idle_since = self.loop.time()
        if self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self._keep_alive_due)

    def _keep_alive_due(self) -> None:
        self.timeout_keep_alive_task = None
        if not self._idle:  # a request came in since: its response arms the timer again
            return
        left = self._idle_since + self.timeout_keep_alive - self.loop.time()
        if left > 0:
            self.timeout_keep_alive_task = self.loop.call_later(left, self._keep_alive_due)
        else:
            self.timeout_keep_alive_handler()

    def on_headers_complete(self) -> None:
        self._awaiting_head = False
        if not self._start_direct():
            super().on_headers_complete()

    def _start_direct(self) -> bool:
        """Start a plain POST /commands on its direct cycle; False (nothing done) for anything else."""
        parser = self.parser
        if parser.get_method() != b"POST":
            return False
        direct = self._direct
        if direct is None:
            direct = self._direct = _direct_entry(self.config) or False
        if not direct:
            return False
        match = _COMMANDS.fullmatch(self.url)
        if (
            match is None
            or self.expect_100_continue
            or parser.should_upgrade()
            or self.pipeline
            or parser.get_http_version() != "1.1"
            or self.limit_concurrency is not None
            or (self.cycle is not None and not self.cycle.response_complete)
        ):
            return False
        app, plain, proxied = direct
        if app.root_path:
            return False
        lean = app.lean_now()
        if lean is None:
            return False
        length, forwarded = _length_of(self.headers)
        if length is None or not length.isdigit() or int(length[:20]) > lean.limit:
            return False
        scope = self.scope
        scope["method"] = "POST"
        scope["path"] = self.url.decode("ascii")
        scope["raw_path"] = self.url
        scope["query_string"] = b""
        cycle = self.cycle = DirectCycle(
            scope=scope,
            transport=self.transport,
            flow=self.flow,
            logger=self.logger,
            access_logger=self.access_logger,
            access_log=self.access_log,
            default_headers=self.server_state.default_headers,
            message_event=_Flag(),  # type: ignore[arg-type]
            expect_100_continue=False,
            keep_alive=parser.should_keep_alive(),
            on_response=self.on_response_complete,
        )
        cycle.game_id = match.group(1).decode("ascii")
        # without X-Forwarded-* the proxy-headers step would change nothing: it is left out
        self._start_asgi_task(cycle, proxied if forwarded else plain)
        return True

    def handle_websocket_upgrade(self) -> None:
        coalescing = self.transport
        if isinstance(coalescing, CoalescingTransport):
            coalescing.flush()
            self.transport = coalescing.transport
        super().handle_websocket_upgrade()
