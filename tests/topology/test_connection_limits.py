"""Idle or slow clients cannot starve the others, even without the proxy (issue 32): a request's head must
come within SALVO_HEADER_TIMEOUT of the connection (or of the request's first byte) and within
SALVO_MAX_HEADER_BYTES; past SALVO_MAX_CONNECTIONS a new connection is closed at once. A real uvicorn
with ``salvo serve``'s config and small limits; each test waits for an outcome, never times one."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from service.api.app import create_app
from service.api.fast.http_protocol import ConnectionLimits
from service.api.serving import RESERVED_DESCRIPTORS, connection_limits, uvicorn_config
from service.settings import Settings
from tests.support.fast import fast_only
from tests.support.server import free_port

pytestmark = fast_only  # the fast transport's own pieces

LIMITS = ConnectionLimits(header_timeout=1.0, max_header_bytes=4096, max_connections=4, keep_alive_timeout=3)


@contextlib.contextmanager
def serving(sqlite_url: str, limits: ConnectionLimits) -> Iterator[int]:
    port = free_port()
    config = uvicorn_config(
        create_app(Settings(database_url=sqlite_url)),
        Settings(database_url=sqlite_url),
        "127.0.0.1",
        port,
        "warning",
        limits=limits,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(20)


@pytest.fixture
def port(sqlite_url):
    with serving(sqlite_url, LIMITS) as p:
        yield p


def closed_by_server(sock: socket.socket) -> bool:
    """Reads until the server closes the connection (True) or 30 s pass (False)."""
    sock.settimeout(30)
    try:
        while sock.recv(65536):
            pass
        return True
    except (TimeoutError, ConnectionResetError):
        return False


def get(port: int, path: str = "/healthz") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def test_a_connection_that_never_sends_a_request_is_closed(port):
    with socket.create_connection(("127.0.0.1", port)) as idle:
        assert closed_by_server(idle)
    assert get(port).startswith(b"HTTP/1.1 200")


def test_a_slowloris_head_is_cut_however_steadily_its_bytes_come(port):
    """A header line every 0.1 s keeps the connection busy but never completes the head: closed by the
    header timeout (uvicorn's own idle timer starts only after a response, and each byte resets it)."""
    with socket.create_connection(("127.0.0.1", port)) as slow:
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        slow.settimeout(0.1)
        closed = False
        for i in range(300):  # 30 s of trickle at most
            try:
                slow.sendall(f"X-Slow-{i}: a\r\n".encode())
                if slow.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed


def test_a_second_request_on_a_kept_alive_connection_has_its_own_head_clock(port):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")  # begun, never finished
        assert closed_by_server(sock)


def test_a_head_larger_than_the_limit_gets_431_and_the_connection_closes(port):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8192 + b"\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_body_larger_than_the_head_limit_in_the_same_read_is_not_a_large_head(port):
    """The head's bytes count, not the body's that come in the same read (a battle-file import)."""
    body = b'{"x": "' + b"a" * 3 * LIMITS.max_header_bytes + b'"}'
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            b"POST /v1/games/g_0/commands HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 ") and not answer.startswith(b"HTTP/1.1 431")


def test_past_max_connections_a_new_connection_is_closed_at_once_and_served_again_once_they_go(port):
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(LIMITS.max_connections or 0)]
    try:
        for sock in held:  # each one answered: all open at the server
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.settimeout(30)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.1", port)) as extra:
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            extra.settimeout(30)
            try:
                assert extra.recv(65536) == b""  # closed without an answer
            except ConnectionResetError:
                pass
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 30
    while True:  # the server notices the closes at its next loop turn
        try:
            if get(port).startswith(b"HTTP/1.1 200"):
                break
        except (ConnectionResetError, BrokenPipeError):
            pass
        assert time.monotonic() < deadline, "never served again"
        time.sleep(0.05)


def test_the_limits_come_from_the_environment_and_default_to_the_descriptor_limit(monkeypatch):
    import resource

    for name in ("SALVO_HEADER_TIMEOUT", "SALVO_MAX_HEADER_BYTES", "SALVO_MAX_CONNECTIONS", "SALVO_KEEP_ALIVE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    default = connection_limits()
    assert default.header_timeout == 10.0 and default.keep_alive_timeout == 5
    assert default.max_connections == max(64, soft - RESERVED_DESCRIPTORS)
    monkeypatch.setenv("SALVO_HEADER_TIMEOUT", "2.5")
    monkeypatch.setenv("SALVO_MAX_CONNECTIONS", "off")
    monkeypatch.setenv("SALVO_KEEP_ALIVE_TIMEOUT", "7")
    given = connection_limits()
    assert (given.header_timeout, given.max_connections, given.keep_alive_timeout) == (2.5, None, 7)
    assert connection_limits(max_connections=0).max_connections is None  # --max-connections 0
    assert connection_limits(header_timeout=4.0).header_timeout == 4.0  # the command line wins


def test_uvicorn_gets_the_idle_timeout_and_the_forwarded_trust(sqlite_url):
    settings = Settings(database_url=sqlite_url)
    config = uvicorn_config(
        create_app(settings), settings, "127.0.0.1", 1, "warning", limits=LIMITS, forwarded_allow_ips="10.0.0.5"
    )
    assert config.timeout_keep_alive == 3 and config.forwarded_allow_ips == "10.0.0.5"
    assert config.salvo_limits is LIMITS  # type: ignore[attr-defined]
