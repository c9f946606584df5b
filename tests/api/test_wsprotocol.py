"""Salvo's websocket protocol (api/fast/wsprotocol.py) on a real uvicorn server with real sockets: once
accepted, a live stream leaves ASGI (no task left, the connection is a ``Wire``) and is read straight
from ``data_received``; commands (also fragmented) are answered in order, pings answered, every bad
frame closed with its code and reason, a client's close answered and the socket released. The same
behaviour tests run under uvicorn's own websockets-sansio protocol (the stream reads through ASGI)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import socket
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from starlette.websockets import WebSocket
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from service.api.app import create_app
from service.api.fast.wsprotocol import SalvoWebSocketProtocol, Wire
from service.settings import Settings
from tests.support.fast import fast_only
from tests.support.server import uvicorn_in_thread, websocket_upgrade

pytestmark = fast_only  # the fast transport's own pieces

LIMIT = 4096
SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


@dataclass
class Running:
    server: uvicorn.Server
    url: str
    ws_url: str
    port: int
    detaching: bool

    def connections(self) -> set[object]:
        return set(self.server.server_state.connections)

    def tasks(self) -> set[asyncio.Task[None]]:
        return set(self.server.server_state.tasks)


@pytest.fixture(params=["salvo", "uvicorn"])
def running(request, sqlite_url) -> Iterator[Running]:
    ws = SalvoWebSocketProtocol if request.param == "salvo" else "websockets-sansio"
    settings = Settings(
        database_url=sqlite_url,
        max_body_bytes=LIMIT,
        heartbeat_seconds=5,
        rate_commands_per_token="off",
        rate_commands_per_address="off",
    )
    with uvicorn_in_thread(create_app(settings), settings, ws=ws) as (server, port):
        yield Running(server, f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", port, request.param == "salvo")


def _game(r: Running) -> dict:
    game = httpx.post(r.url + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
    assert "game_id" in game, game
    return game


def _red(game: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['seats']['red']}"}


def _caught_up(ws) -> None:
    while json.loads(ws.recv(timeout=10))["kind"] != "caught_up":
        pass


def _next(ws, kinds=("result", "error")) -> dict:
    while (msg := json.loads(ws.recv(timeout=10)))["kind"] not in kinds:
        pass
    return msg


def _closed(ws) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as info:
        while True:
            ws.recv(timeout=10)
    assert info.value.rcvd is not None, info.value
    return info.value.rcvd.code, info.value.rcvd.reason


def _version(r: Running, game: dict) -> int:
    return int(httpx.get(f"{r.url}/v1/games/{game['game_id']}").json()["version"])


def _until(check, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _of_this_server(o: object, r: Running) -> bool:
    """uvicorn's protocol object or Starlette's WebSocket of a connection to this server (a server of an
    earlier test in this process may still be winding down)."""
    try:
        if isinstance(o, SalvoWebSocketProtocol):
            return o.config is r.server.config
        if isinstance(o, WebSocket):
            return tuple(o.scope.get("server") or ()) == ("127.0.0.1", r.port)
    except ReferenceError:  # a dead weak proxy
        pass
    return False


def test_a_live_stream_leaves_asgi_and_answers_commands_in_order(running):
    game = _game(running)
    gid = game["game_id"]
    with (
        connect(f"{running.ws_url}/v1/games/{gid}/stream") as spectator,
        connect(f"{running.ws_url}/v1/games/{gid}/stream?own_events=result", additional_headers=_red(game)) as red,
    ):
        _caught_up(spectator)
        _caught_up(red)
        if running.detaching:  # no ASGI task left for either socket: both are Wires
            _until(lambda: not running.tasks(), "an ASGI task outlived the handshake")
            assert sum(isinstance(c, Wire) for c in running.connections()) == 2
            gc.collect()  # and nothing of the ASGI side is left: uvicorn's protocol, Starlette's WebSocket
            held = [o for o in gc.get_objects() if _of_this_server(o, running)]
            assert not held, held
        else:  # the ASGI path: each socket keeps its WebSocket (so the check above would see one)
            assert not any(isinstance(c, Wire) for c in running.connections())
            assert sum(_of_this_server(o, running) for o in gc.get_objects()) >= 2
        metrics = httpx.get(running.url + "/metrics").text
        assert 'salvo_sockets{audience="spectator"} 1.0' in metrics and 'salvo_sockets{audience="seat"} 1.0' in metrics
        for i in range(5):
            red.send(json.dumps({"kind": "command", "ref": f"r{i}", "command": SHOOT}))
            msg = _next(red)
            assert msg["kind"] == "result" and msg["ref"] == f"r{i}" and msg["version"] == 3 + i, msg
        # several at once: answered in the order sent
        for i in range(3):
            red.send(json.dumps({"kind": "command", "ref": f"b{i}", "command": SHOOT}))
        assert [_next(red)["ref"] for _ in range(3)] == ["b0", "b1", "b2"]
        # a fragmented message is one command
        text = json.dumps({"kind": "command", "ref": "frag", "command": SHOOT})
        red.send([text[:10], text[10:30], text[30:]])
        msg = _next(red)
        assert msg["ref"] == "frag" and msg["version"] == 11, msg
        red.send(json.dumps({"kind": "nope", "ref": "x", "command": {}}))
        msg = _next(red)
        assert msg["kind"] == "error" and msg["status"] == 422 and msg["ref"] == "x", msg
        assert red.ping(b"hello").wait(timeout=5)  # the client's ping is answered
        # (a heartbeat {"kind":"ping"} may come between events on a slow machine: only events count)
        seen = [_next(spectator, kinds=("event",))["event"]["seq"] for _ in range(9)]
        assert seen == list(range(3, 12))  # the spectator got every event once, in order
    # both closed by the client: answered, and the sockets released
    _until(lambda: not running.connections(), "a closed socket is still held")
    _until(lambda: "salvo_direct_sockets 0.0" in httpx.get(running.url + "/metrics").text, "fan-out still lists it")
    metrics = httpx.get(running.url + "/metrics").text
    assert 'salvo_sockets{audience="spectator"} 0.0' in metrics and 'salvo_sockets{audience="seat"} 0.0' in metrics


class RawClient:
    """A websocket client that can send any frame (masked or not, any opcode and payload)."""

    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = websocket_upgrade(self.sock, port, path, headers)

    def send(self, opcode: int, payload: bytes, fin: bool = True, masked: bool = True) -> None:
        n = len(payload)
        b1 = 0x80 if masked else 0
        head = bytes(((0x80 if fin else 0) | opcode,)) + (
            bytes((b1 | n,))
            if n < 126
            else bytes((b1 | 126,)) + struct.pack("!H", n)
            if n < 65536
            else bytes((b1 | 127,)) + struct.pack("!Q", n)
        )
        if masked:
            mask = os.urandom(4)
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            head += mask
        self.sock.sendall(head + payload)

    def frame(self) -> tuple[int, bytes] | None:
        def need(k: int) -> bool:
            while len(self.buffer) < k:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return False
                self.buffer += chunk
            return True

        if not need(2):
            return None
        opcode, n, at = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
        if n == 126:
            need(4)
            n, at = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif n == 127:
            need(10)
            n, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
        if not need(at + n):
            return None
        payload, self.buffer = self.buffer[at : at + n], self.buffer[at + n :]
        return opcode, payload

    def until_close(self) -> tuple[int, str] | None:
        while (frame := self.frame()) is not None:
            opcode, payload = frame
            if opcode == 8:
                return struct.unpack("!H", payload[:2])[0], payload[2:].decode()
        return None

    def caught_up(self) -> None:
        while (frame := self.frame()) is not None:
            if frame[0] == 1 and json.loads(frame[1])["kind"] == "caught_up":
                return
        raise AssertionError("closed before caught_up")

    def close(self) -> None:
        self.sock.close()


def _command(extra: str = "") -> bytes:
    return json.dumps({"kind": "command", "command": SHOOT, "salt": extra}).encode()


@pytest.mark.parametrize(
    ("frames", "code", "reason"),
    [
        ([(1, _command("x" * (2 * LIMIT)), True)], 1009, "limit"),
        ([(1, b'{"kind":"command","salt":"\xff","command":{}}', True)], 1007, ""),
        ([(1, b"[" * 1500 + b"]" * 1500, True)], 1007, ""),
        ([(2, b'{"kind":"command"}', True)], 1003, "send JSON text frames"),
        ([(0, b"orphan", True)], 1002, ""),
        ([(1, b'{"kind"', False), (1, b':"x"}', True)], 1002, ""),
        ([(9, b"p" * 126, True)], 1002, ""),
    ],
)
def test_bad_frames_are_closed_with_their_code_and_nothing_is_stored(running, frames, code, reason):
    game = _game(running)
    client = RawClient(running.port, f"/v1/games/{game['game_id']}/stream", _red(game))
    try:
        client.caught_up()
        for opcode, payload, fin in frames:
            client.send(opcode, payload, fin)
        closed = client.until_close()
        assert closed is not None and closed[0] == code and reason in closed[1], closed
    finally:
        client.close()
    assert _version(running, game) == 2


def test_an_unmasked_frame_is_a_protocol_error(running):
    game = _game(running)
    client = RawClient(running.port, f"/v1/games/{game['game_id']}/stream")
    try:
        client.caught_up()
        client.send(1, _command(), masked=False)
        closed = client.until_close()
        assert closed is not None and closed[0] == 1002, closed
    finally:
        client.close()


def test_a_command_split_across_reads_and_a_close_with_its_code(running):
    game = _game(running)
    client = RawClient(running.port, f"/v1/games/{game['game_id']}/stream", _red(game))
    try:
        client.caught_up()
        text = json.dumps({"kind": "command", "ref": "slow", "command": SHOOT}).encode()
        mask = b"\x01\x02\x03\x04"
        whole = bytes((0x81, 0x80 | len(text))) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))
        for i in range(0, len(whole), 7):  # a few bytes at a time: the frame is parsed when complete
            client.sock.sendall(whole[i : i + 7])
            time.sleep(0.01)
        while (frame := client.frame()) is not None and json.loads(frame[1])["kind"] != "result":
            pass
        assert frame is not None and json.loads(frame[1])["ref"] == "slow"
        client.send(9, b"abc")  # a ping: its pong carries the payload
        while (frame := client.frame()) is not None and frame[0] != 0xA:
            pass
        assert frame == (0xA, b"abc")
        client.send(8, struct.pack("!H", 4001) + b"bye")
        closed = client.until_close()
        assert closed is not None and closed[0] == 4001, closed  # the code echoed
        assert client.frame() is None  # then the server closes the connection
    finally:
        client.close()
    assert _version(running, game) == 3
    _until(lambda: not running.connections(), "a closed socket is still held")


class Stalled(RawClient):
    """Completes the handshake, then reads nothing (a 4 KiB receive buffer) until told to."""

    def __init__(self, port: int, path: str) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(15)
        self.sock.connect(("127.0.0.1", port))
        self.buffer = websocket_upgrade(self.sock, port, path, byte_by_byte=True)  # the rest stays unread


@pytest.fixture
def impatient(sqlite_url) -> Iterator[Running]:
    """A server that gives a stalled reader 1 s to take a frame."""
    settings = Settings(
        database_url=sqlite_url,
        heartbeat_seconds=5,
        ws_send_timeout=1.0,
        rate_commands_per_token="off",
        rate_commands_per_address="off",
    )
    with uvicorn_in_thread(create_app(settings), settings) as (server, port):
        yield Running(server, f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", port, True)


def _stall_during_catch_up(server: Running) -> tuple[tuple[int, str] | None, list[int], int, str]:
    """~6 MB of history, then a reader that joins and reads nothing past the send timeout, then reads
    it all: (its close code and reason, the event seqs it got, the game's version, the game)."""
    game = _game(server)
    gid, salt, final = game["game_id"], "s" * 30_000, 0
    with httpx.Client(base_url=server.url, timeout=10) as http:
        for i in range(200):  # more than the socket buffers hold
            who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
            r = http.post(
                f"/v1/games/{gid}/commands",
                headers={"Authorization": f"Bearer {game['seats'][who]}"},
                json={"command": {"type": "tiny.shoot", "shooter": who, "target": other}, "salt": salt},
            )
            assert r.status_code == 201, r.text
            final = r.json()["version"]
    stalled = Stalled(server.port, f"/v1/games/{gid}/stream")
    try:
        time.sleep(2.5)  # past the send timeout while reading nothing
        seqs, close = [], None
        while (frame := stalled.frame()) is not None:
            opcode, payload = frame
            if opcode == 8:
                close = struct.unpack("!H", payload[:2])[0], payload[2:].decode()
                break
            msg = json.loads(payload)
            if msg["kind"] == "event":
                seqs.append(msg["event"]["seq"])
    finally:
        stalled.close()
    return close, seqs, final, gid


def test_a_reader_stalled_during_catch_up_gets_1013_behind_its_frames(impatient):
    """The catch-up waits for the transport to drain (Wire.drained) for at most ws_send_timeout; then
    1013 with a resume seq, behind the frames already written; resuming from it leaves no gap."""
    close, seqs, final, gid = _stall_during_catch_up(impatient)
    assert close is not None and close[0] == 1013 and close[1].startswith("slow consumer; resume after="), close
    assert seqs == list(range(1, seqs[-1] + 1)) and seqs[-1] < final  # in order, no gap, not all of it
    resume = int(close[1].rsplit("=", 1)[1])
    assert resume <= seqs[-1]
    with connect(f"{impatient.ws_url}/v1/games/{gid}/stream?after={resume}", max_size=None) as ws:
        rest = []
        while (msg := json.loads(ws.recv(timeout=10)))["kind"] != "caught_up":
            rest.append(msg["event"]["seq"])
    assert rest == list(range(resume + 1, final + 1))


def test_the_resume_seq_of_a_reader_stalled_during_catch_up_is_its_last_frame(impatient):
    close, seqs, _, _ = _stall_during_catch_up(impatient)
    assert close == (1013, f"slow consumer; resume after={seqs[-1]}"), (close, seqs[-1:])


def _masked(payload: bytes) -> bytes:
    """One masked text frame (a zero mask: the payload goes as it is)."""
    n = len(payload)
    head = bytes((0x81, 0x80 | n)) if n < 126 else bytes((0x81, 0x80 | 126)) + struct.pack("!H", n)
    return head + b"\0\0\0\0" + payload


def test_socket_errors_are_the_http_problems_and_a_burst_is_answered_in_order(running):
    """The message is decoded once and its command handed down (no body rebuilt): each failure is the
    problem POST /commands answers for the same request, field for field. Answers that are ready at once
    (refusals) and those that wait for their commit, sent in one write, come back in the order sent."""
    game = _game(running)
    gid = game["game_id"]
    red = _red(game)

    def http(body: dict, headers: dict[str, str] | None = None) -> dict:
        r = httpx.post(f"{running.url}/v1/games/{gid}/commands", json=body, headers={**red, **(headers or {})})
        return r.json()

    bad_field = {"type": "tiny.shoot", "shooter": 5, "target": "blue"}
    client = RawClient(running.port, f"/v1/games/{gid}/stream?own_events=result", red)
    try:
        client.caught_up()
        # one write: a refusal, a command, a refusal, a command, a message that is not a command
        burst = [
            {"kind": "command", "ref": "e1", "command": bad_field},
            {"kind": "command", "ref": "c1", "command": SHOOT},
            {"kind": "command", "ref": "e2", "command": SHOOT, "expected_version": 1},
            {"kind": "command", "ref": "c2", "command": SHOOT, "expected_version": 3},
            {"kind": "nope", "ref": "e3", "command": {}},
        ]
        client.sock.sendall(b"".join(_masked(json.dumps(m).encode()) for m in burst) + _masked(b"[1]"))
        answers = []
        while len(answers) < 6:
            frame = client.frame()
            assert frame is not None
            msg = json.loads(frame[1])
            if msg["kind"] in ("result", "error"):
                answers.append(msg)
        assert [m.get("ref") for m in answers] == ["e1", "c1", "e2", "c2", "e3", None]
        assert [m.get("version") for m in answers if m["kind"] == "result"] == [3, 4]
        e1, _, e2, _, e3, e4 = answers
        assert e1 == {"kind": "error", "ref": "e1", **http({"command": bad_field})}
        assert e1["field"] == "$.command.shooter"
        problem = http({"command": SHOOT}, {"If-Match": '"1"'})  # the game has moved on by one since
        assert problem["detail"] == "expected version 1, the game is at 4"
        assert e2 == {"kind": "error", "ref": "e2", **problem, "detail": "expected version 1, the game is at 3"}
        assert e2["field"] == "If-Match"
        assert e3["status"] == 422 and e3["field"] == "kind" and e3["detail"] == "unknown message kind 'nope'"
        assert e4["status"] == 422 and e4["field"] == "$" and e4["detail"].startswith("not a command message: ")
    finally:
        client.close()
    assert httpx.get(f"{running.url}/v1/games/{gid}").json()["version"] == 4  # the refusals appended nothing
