"""Against a real server (uvicorn, real sockets): a stalled reader gets its 1013 close frame with the
resume seq behind the frames already sent, a graceful shutdown closes streams with 1012 and the resume
seq, and the debug logs of a whole game never show a token or a password."""

from __future__ import annotations

import json
import socket
import struct
import time

import httpx
import pytest
from websockets.sync.client import connect

from service.settings import fast_path_from_env
from tests.support.server import ServerProcess, websocket_upgrade

pytestmark = pytest.mark.slow

FAST = {"SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"}


def _shots(n: int):
    for i in range(n):
        who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
        yield who, {"command": {"type": "tiny.shoot", "shooter": who, "target": other}}


class StalledReader:
    """A websocket client that completes the handshake and then reads nothing (tiny receive buffer)."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((host, port))
        self.buffer = websocket_upgrade(self.sock, port, path, byte_by_byte=True)  # the rest stays unread

    def read_all(self, timeout: float) -> tuple[list[dict], tuple[int, str] | None]:
        """Now read everything: the text frames, then the close frame (code, reason), or None at EOF."""
        self.sock.settimeout(timeout)
        messages: list[dict] = []
        while True:
            frame = self._frame()
            if frame is None:
                return messages, None
            opcode, payload = frame
            if opcode == 8:
                return messages, (struct.unpack("!H", payload[:2])[0], payload[2:].decode())
            if opcode == 1:
                messages.append(json.loads(payload))

    def _need(self, n: int) -> bool:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                return False
            self.buffer += chunk
        return True

    def _frame(self) -> tuple[int, bytes] | None:
        if not self._need(2):
            return None
        opcode, length = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
        header = 2
        if length == 126:
            if not self._need(4):
                return None
            length, header = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif length == 127:
            if not self._need(10):
                return None
            length, header = struct.unpack("!Q", self.buffer[2:10])[0], 10
        if not self._need(header + length):
            return None
        payload = self.buffer[header : header + length]
        self.buffer = self.buffer[header + length :]
        return opcode, payload


def _streams_on_the_path(metrics: str) -> tuple[int, int]:
    """(open streams, of which written directly by the pre-framed fan-out) from /metrics."""
    total = direct = 0.0
    for line in metrics.splitlines():
        if line.startswith("salvo_sockets{"):
            total += float(line.rsplit(" ", 1)[1])
        elif line.startswith("salvo_direct_sockets "):
            direct = float(line.rsplit(" ", 1)[1])
    return int(total), int(direct)


def _expected_streams(n: int) -> tuple[int, int]:
    """n streams open: all written directly on the fast path, none with SALVO_FAST_PATH=off (queued)."""
    return n, n if fast_path_from_env() else 0


def _server(tmp_path, **env):
    return ServerProcess(f"sqlite:///{tmp_path}/s.db", log_path=tmp_path / "server.log", env={**FAST, **env})


def _fill(http: httpx.Client, game: dict, shots: int) -> int:
    """Append events fast and big: each shot rolls, and its envelope carries the 30 KB salt it rolled with,
    so a few hundred of them are more than any socket buffer holds. Returns the final version."""
    salt = "s" * 30_000
    version = 0
    for who, body in _shots(shots):
        r = http.post(
            f"/v1/games/{game['game_id']}/commands",
            json={**body, "salt": salt},
            headers={"Authorization": f"Bearer {game['seats'][who]}"},
        )
        assert r.status_code == 201, r.text
        version = r.json()["version"]
    return version


def test_a_stalled_reader_gets_1013_with_its_resume_seq_after_its_backlog(tmp_path):
    with _server(tmp_path, SALVO_WS_QUEUE_SIZE="32", SALVO_WS_SEND_TIMEOUT="1") as server:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            game = http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
            gid = game["game_id"]
            stalled = StalledReader(server.host, int(server.port), f"/v1/games/{gid}/stream")
            # max_queue=None: this client reads the socket all along (it buffers), so it never falls behind
            with connect(f"{server.ws_url}/v1/games/{gid}/stream", ping_interval=None, max_queue=None) as live:
                live.recv(timeout=10)
                # fast path: both sockets are written directly (the pre-framed fan-out), not queued
                assert _streams_on_the_path(http.get("/metrics").text) == _expected_streams(2)
                final = _fill(http, game, 400)  # ~12 MB: far more than the buffers hold for the stalled reader
                seen = 0
                while seen < final:  # the reader that keeps up got everything
                    msg = json.loads(live.recv(timeout=10))
                    if msg["kind"] == "event":
                        seen = msg["event"]["seq"]
            time.sleep(1.5)  # past the send timeout: the server has given up on the stalled reader
            try:
                messages, close = stalled.read_all(timeout=15)
            except TimeoutError:
                pytest.fail("the stalled reader was never closed")
            events = [m["event"]["seq"] for m in messages if m["kind"] == "event"]
            assert close is not None, f"a bare EOF after {len(events)} events, no close frame"
            code, reason = close
            assert code == 1013 and reason == f"slow consumer; resume after={events[-1]}", (code, reason)
            assert events == list(range(1, events[-1] + 1)) and events[-1] < final  # in order, no gap
            with connect(f"{server.ws_url}/v1/games/{gid}/stream?after={events[-1]}") as resumed:
                rest = []
                while (msg := json.loads(resumed.recv(timeout=10)))["kind"] != "caught_up":
                    rest.append(msg["event"]["seq"])
            assert rest == list(range(events[-1] + 1, final + 1))  # nothing lost, nothing repeated
            metrics = http.get("/metrics").text
            assert "salvo_slow_consumer_closes_total 1.0" in metrics


def test_graceful_shutdown_closes_streams_with_1012_and_the_resume_seq(tmp_path):
    server = _server(tmp_path).start()
    try:
        game = httpx.post(server.url + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        with connect(f"{server.ws_url}/v1/games/{game['game_id']}/stream") as ws:
            while json.loads(ws.recv(timeout=10))["kind"] != "caught_up":
                pass
            assert _streams_on_the_path(httpx.get(server.url + "/metrics").text) == _expected_streams(1)
            server.stop()
            with pytest.raises(Exception) as info:
                while True:
                    ws.recv(timeout=10)
            closed = info.value
            assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
            assert closed.rcvd.reason == "server restarting; resume after=2"
    finally:
        server.stop()


def test_debug_logs_of_a_full_game_show_no_token_and_no_password(tmp_path):
    """A whole game at debug level — creation, commands, rejections, bad tokens, a socket authenticated
    by subprotocol and one that wrongly put its token in the URL — then a scan of every log line."""
    log = tmp_path / "server.log"
    with _server(tmp_path, SALVO_LOG_LEVEL="debug") as server:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            game = http.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
            gid = game["game_id"]
            tokens = [*game["seats"].values(), game["umpire_token"]]
            with connect(
                f"{server.ws_url}/v1/games/{gid}/stream",
                subprotocols=["salvo.v1", f"salvo.token.{game['seats']['red']}"],
            ) as ws:
                for who, body in _shots(40):
                    http.post(
                        f"/v1/games/{gid}/commands",
                        json=body,
                        headers={"Authorization": f"Bearer {game['seats'][who]}"},
                    )
                ws.send(
                    json.dumps(
                        {"kind": "command", "command": {"type": "tiny.shoot", "shooter": "blue", "target": "red"}}
                    )
                )
                ws.recv(timeout=10)
            for token in tokens:
                http.get(f"/v1/games/{gid}/options", headers={"Authorization": f"Bearer {token}"})
                http.get(f"/v1/games/{gid}?token={token}")
                with connect(f"{server.ws_url}/v1/games/{gid}/stream?token={token}") as leaky:
                    leaky.recv(timeout=10)  # the refusal
            http.get(f"/v1/games/{gid}/events", headers={"Authorization": "Bearer not-a-token-at-all"})
            http.post(f"/v1/games/{gid}/rewind", json={"to_seq": 3}, headers={"Authorization": f"Bearer {tokens[-1]}"})
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert any(line["level"] == "debug" for line in lines), "the server did not log at debug level"
    assert any(line.get("logger") == "salvo.access" and line.get("game_id") == gid for line in lines)
    assert any(line.get("seq") for line in lines if line.get("msg") == "command accepted")
    for token in tokens:
        assert token not in text, "a token is in the logs"
    assert "not-a-token-at-all" not in text
