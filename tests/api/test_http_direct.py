"""The server's direct path for a plain POST /commands (http_protocol.DirectCycle) puts the same bytes
on the wire as uvicorn's own cycle and the lean endpoint: a real server each way, the same raw requests
over sockets (plain ones, problems, and every case that must go uvicorn's way: chunked, a query, a
length over the limit, Expect, HTTP/1.0, pipelined, Connection: close, forwarded, a 500), compared
response by response, every header in order; and the direct path is taken exactly for the plain ones."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from typing import Any

from service.api.app import create_app
from service.api.fast.http_protocol import CoalescingHttpToolsProtocol
from service.settings import Settings
from tests.support.fast import fast_only
from tests.support.server import uvicorn_in_thread

pytestmark = fast_only  # the fast transport's own pieces

LIMIT = 2048
SHOOT = json.dumps({"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}}).encode()
HIDE = json.dumps({"command": {"type": "tiny.hide", "seat": "blue", "secret": 4}}).encode()


class Counting(CoalescingHttpToolsProtocol):
    taken: list[bool] = []

    def _start_direct(self) -> bool:
        started = super()._start_direct()
        type(self).taken.append(started)
        return started


class Direct(Counting):
    taken: list[bool] = []


class Uvicorns(Counting):  # every request uvicorn's way: the reference
    taken: list[bool] = []

    def _start_direct(self) -> bool:
        type(self).taken.append(False)
        return False


@contextlib.contextmanager
def serving(tmp: Any, protocol: type) -> Iterator[tuple[Any, int]]:
    settings = Settings(database_url=f"sqlite:///{tmp}/{protocol.__name__}.db", snapshot_every=50, max_body_bytes=LIMIT)
    app = create_app(settings)
    with uvicorn_in_thread(app, settings, http=protocol) as (_server, port):
        yield app, port


class Conn:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        self.buf += chunk
        return bool(chunk)

    def response(self) -> tuple[bytes, list[tuple[bytes, bytes]], bytes]:
        while b"\r\n\r\n" not in self.buf:
            assert self._fill(), self.buf
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        status, *lines = head.split(b"\r\n")
        headers = [(n.lower(), v) for n, _, v in (line.partition(b": ") for line in lines)]
        length = int(dict(headers).get(b"content-length", b"0"))
        while len(self.buf) < length:
            assert self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, headers, body

    def closed(self) -> bool:
        try:
            return not self._fill() and not self.buf
        except (ConnectionError, TimeoutError):
            return False


def post(path: str, body: bytes, headers: str = "", version: str = "1.1") -> bytes:
    return (
        f"POST {path} HTTP/{version}\r\nHost: 127.0.0.1\r\n{headers}Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def chunked(path: str, body: bytes, headers: str) -> bytes:
    return (
        (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Content-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\n\r\n{len(body):x}\r\n"
        ).encode()
        + body
        + b"\r\n0\r\n\r\n"
    )


def shape(response: tuple[bytes, list[tuple[bytes, bytes]], bytes], game: dict[str, Any]) -> Any:
    """A response with what differs run to run (the date, a made request id, the game's own ids and
    dice) as its shape; every header name and the order kept."""
    status, headers, body = response
    out = []
    for name, value in headers:
        if name == b"date":
            value = b"<date>"
        elif name == b"x-request-id" and len(value) == 16:
            int(value, 16)
            value = b"<made>"
        elif name == b"content-length":
            assert int(value) == len(body)
            value = b"<right>"
        out.append((name, value.replace(game["game_id"].encode(), b"<game>")))
    data: Any = body.replace(game["game_id"].encode(), b"<game>")
    if data.startswith(b"{"):
        data = json.loads(data)
        if status.startswith(b"HTTP/1.1 201"):
            data = {"version": data["version"], "types": [e["type"] for e in data["events"]]}
    return status, out, data


def exchange(tmp: Any, protocol: type) -> list[Any]:
    protocol.taken.clear()
    with serving(tmp, protocol) as (app, port):
        c = Conn(port)
        c.send(post("/v1/games", json.dumps({"ruleset": "tiny", "scenario": "long"}).encode()))
        game = json.loads(c.response()[2])
        url = f"/v1/games/{game['game_id']}/commands"
        red = f"Authorization: Bearer {game['seats']['red']}\r\n"
        blue = f"Authorization: Bearer {game['seats']['blue']}\r\n"
        out: list[Any] = []
        addresses: list[str] = []  # the client's address as the gate sees it (rate limits go by it)
        viewer = app.state.gate.viewer

        async def recording(game_id: str, token: Any, address: str) -> Any:
            addresses.append(address)
            return await viewer(game_id, token, address)

        app.state.gate.viewer = recording

        def answer(conn: Conn = c) -> None:
            out.append(shape(conn.response(), game))

        for request in [
            post(url, SHOOT, red),  # 201, direct
            post(url, HIDE, blue + "If-Match: x\r\n"),  # 422 naming If-Match, direct
            post(url, HIDE, "Authorization: Bearer nope\r\nX-Request-Id: req-7\r\n"),  # 401, direct
            post(url, SHOOT, blue),  # 403, direct
            post(url, HIDE + b" " * 3000, blue),  # 413 by its length: uvicorn's way
            chunked(url, HIDE, blue),  # 201 chunked: uvicorn's way
            post(url + "?x=1", SHOOT, red),  # 201 with a query: uvicorn's way
            post(url, SHOOT, red + "X-Forwarded-For: 10.1.2.3\r\n"),  # 201, direct behind the proxy step
            post(url, SHOOT, red + "Expect: 100-continue\r\n"),  # 100 then 201: uvicorn's way
            post(f"/v1/games/{game['game_id']}/commands/", SHOOT, red),  # 307: not this path
        ]:
            c.send(request)
            answer()
            if request.find(b"Expect: 100") > 0:
                answer()
        c.send(post(url, SHOOT, red) + post(url, SHOOT, red))  # pipelined: the second waits (uvicorn's way)
        answer()
        answer()
        c.send(post(url, SHOOT, red, "1.0"))  # HTTP/1.0: uvicorn's way, and closed after
        answer()
        out.append(("closed", c.closed()))
        c = Conn(port)
        c.send(post(url, SHOOT, red + "Connection: close\r\n"))  # direct, connection: close, closed after
        answer(c)
        out.append(("closed", c.closed()))

        async def broken(*_args: Any, **_kw: Any) -> Any:
            raise RuntimeError("the store fell over")

        command, app.state.gate.command = app.state.gate.command, broken
        c = Conn(port)
        c.send(post(url, SHOOT, red))  # the app's 500, then the server closes the connection
        answer(c)
        out.append(("closed", c.closed()))
        app.state.gate.command = command
        c = Conn(port)
        c.send(post(url, SHOOT, red))  # and the next one is a 201 again
        answer(c)
    out.append(("addresses", addresses))
    return out


def test_the_direct_path_writes_what_uvicorns_cycle_writes(tmp_path):
    direct = exchange(tmp_path, Direct)
    reference = exchange(tmp_path, Uvicorns)
    statuses = [r[0].split(b" ")[1] for r in direct if r[0] not in ("closed", "addresses")]
    assert statuses == [
        b"201",
        b"422",
        b"401",
        b"403",
        b"413",
        b"201",
        b"201",
        b"201",
        b"100",
        b"201",
        b"307",
        b"201",
        b"201",
        b"201",
        b"201",
        b"500",
        b"201",
    ]
    assert [r for r in direct if r[0] == "closed"] == [("closed", True)] * 3
    assert direct[-1][1].count("10.1.2.3") == 1 and set(direct[-1][1]) == {"127.0.0.1", "10.1.2.3"}
    assert direct == reference
    # taken for the plain ones only: 201, 422, 401, 403, forwarded, the first pipelined, close, 500, 201
    assert Direct.taken == [
        False,  # POST /v1/games
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        True,
        False,
        False,
        True,
        False,
        False,
        True,
        True,
        True,
    ]
    first = dict(direct[0][1])
    assert first[b"server"] == b"uvicorn" and first[b"x-content-type-options"] == b"nosniff"
    assert (b"connection", b"close") in direct[15][1]  # the direct 201 on a closing connection
