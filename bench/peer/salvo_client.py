# ruff: noqa: E501
# Part of the peer benchmark (bench/peer/README.md).
"""Load generator for Salvo, side by side with the boardgame.io harness (same method, same windows).

Run with the Salvo venv's python, pinned to the generator CPU (run.sh does this). Loopback only.

    salvo_client.py commands --transport ws|http --games K --seconds 10 --warmup 2 --workload shoot|cycle
    salvo_client.py fanout   --spectators S --moves 200 --rate 20
    salvo_client.py catchup  --events 10000 --reps 5

Common: --port P --server-pid PID --out FILE.json

The websocket client here is a minimal one (asyncio.Protocol, unfragmented frames, zero mask key) so that
the generator, not the server, is the cheaper side: a spectator costs the generator one data_received and a
bytes.find per frame. Every figure records the server's CPU (utime+stime of all its threads, /proc), the
generator's own CPU, and the CPU used by every other process in the measured window ("foreign").
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
import time
from typing import Any

HOST = "127.0.0.1"
ENDLESS = {"hull": 10**6, "turn_limit": 10**6}  # scenario values are capped at 10**6
CLK = os.sysconf("SC_CLK_TCK")
now = time.perf_counter

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}
CYCLE = [
    ("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"}),
    ("blue", {"type": "tiny.shoot", "shooter": "blue", "target": "red"}),
    ("red", {"type": "tiny.hide", "seat": "red", "secret": 1}),
    ("blue", {"type": "tiny.hide", "seat": "blue", "secret": 2}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
]


# --- measurement helpers -------------------------------------------------------------------------------


def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = min(len(s) - 1, max(0, -(-len(s) * p // 100) - 1))  # nearest-rank, as the bgio harness (lib.js)
    return s[int(k)]


def summary(values_s: list[float]) -> dict[str, Any]:
    """Latencies given in seconds, reported in ms."""
    ms = [v * 1000 for v in values_s]
    r = lambda x: None if x is None else round(x, 3)  # noqa: E731
    return {
        "n": len(ms),
        "mean": r(sum(ms) / len(ms)) if ms else None,
        "p50": r(pct(ms, 50)),
        "p90": r(pct(ms, 90)),
        "p99": r(pct(ms, 99)),
        "p999": r(pct(ms, 99.9)),
        "max": r(max(ms) if ms else None),
    }


def proc_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])
    except (OSError, IndexError, ValueError):
        return None


def proc_user_sys(pid: int) -> tuple[int, int]:
    """utime and stime ticks separately: on loopback the kernel's share of a send includes the receiver's TCP work."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return int(f[11]), int(f[12])
    except (OSError, IndexError, ValueError):
        return 0, 0


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def all_ticks() -> dict[int, int]:
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            t = proc_ticks(int(name))
            if t is not None:
                out[int(name)] = t
    return out


def cpu_busy() -> dict[str, tuple[int, int]]:
    out = {}
    with open("/proc/stat") as fh:
        for line in fh:
            if line.startswith("cpu") and line[3].isdigit():
                name, *v = line.split()
                v = [int(x) for x in v]
                out[name] = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7], sum(v))
    return out


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as fh:
            return fh.read().strip()
    except OSError:
        return "?"


class Window:
    """Server CPU, generator CPU and foreign CPU (every other process) over a measured window."""

    def __init__(self, server_pid: int, also: tuple[int, ...] = ()) -> None:
        self.server_pid = server_pid
        self.pids = (server_pid, *also)  # "the server": several socket processes are summed
        self.t0 = now()
        self.ticks0 = all_ticks()
        self.busy0 = cpu_busy()
        self.server0 = self._ticks()
        self.split0 = self._split()
        self.self0 = time.process_time()
        self.rss_peak = self._rss()
        self._sampler: asyncio.Task[None] | None = None

    def _ticks(self) -> int:
        return sum(proc_ticks(p) or 0 for p in self.pids)

    def _split(self) -> tuple[int, int]:
        both = [proc_user_sys(p) for p in self.pids]
        return sum(u for u, _ in both), sum(s for _, s in both)

    def _rss(self) -> float:
        return sum(rss_mb(p) or 0.0 for p in self.pids)

    def start_sampler(self, every: float = 0.25) -> None:
        async def sample() -> None:
            for _ in range(100_000):
                await asyncio.sleep(every)
                self.rss_peak = max(self.rss_peak, self._rss())

        self._sampler = asyncio.get_running_loop().create_task(sample())

    def stop(self) -> dict[str, Any]:
        if self._sampler is not None:
            self._sampler.cancel()
        secs = now() - self.t0
        ticks1 = all_ticks()
        busy1 = cpu_busy()
        me = os.getpid()
        foreign, top = 0, []
        for pid, t in ticks1.items():
            if pid == me or pid in self.pids:
                continue
            d = t - self.ticks0.get(pid, 0)
            if d > 0:
                foreign += d
                top.append((d, pid))
        top.sort(reverse=True)
        per_cpu = {}
        for k, (b1, t1) in busy1.items():
            b0, t0 = self.busy0.get(k, (0, 0))
            if t1 > t0:
                per_cpu[k] = round(100 * (b1 - b0) / (t1 - t0), 1)
        server = (self._ticks() - self.server0) / CLK
        split1 = self._split()
        return {
            "seconds": round(secs, 3),
            "serverCpuPct": round(100 * server / secs, 1),
            "serverUserPct": round(100 * (split1[0] - self.split0[0]) / CLK / secs, 1),
            "serverSysPct": round(100 * (split1[1] - self.split0[1]) / CLK / secs, 1),
            "clientCpuPct": round(100 * (time.process_time() - self.self0) / secs, 1),
            "foreignCpuPct": round(100 * foreign / CLK / secs, 1),
            "foreignTop": [f"{comm(p)}:{round(100 * d / CLK / secs, 1)}%" for d, p in top[:3]],
            "perCpuBusyPct": per_cpu,
            "serverRssPeakMB": round(max(self.rss_peak, self._rss()), 1),
        }


# --- a minimal keep-alive HTTP/1.1 client (as in bench/bench_salvo.py) ---------------------------------


class RawHTTP:
    def __init__(self, port: int) -> None:
        self.port = port

    async def connect(self) -> RawHTTP:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        return self

    async def request(self, method: str, path: str, body: bytes = b"", headers: str = "") -> tuple[int, bytes]:
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\n{headers}"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status = int(raw[9:12])
        length = 0
        for line in raw.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
                break
        return status, (await self.reader.readexactly(length)) if length else b""

    def close(self) -> None:
        self.writer.close()


async def create_game(port: int) -> dict[str, Any]:
    c = await RawHTTP(port).connect()
    status, body = await c.request("POST", "/v1/games", json.dumps({"ruleset": "tiny", "scenario": ENDLESS}).encode())
    c.close()
    assert status == 201, body
    return json.loads(body)


async def fanout_counters(port: int) -> dict[str, float]:
    """The server's direct fan-out counters (salvo_fanout_* on /metrics; empty on a checkout without them)."""
    c = await RawHTTP(port).connect()
    try:
        status, body = await c.request("GET", "/metrics")
    finally:
        c.close()
    out: dict[str, float] = {}
    for line in body.decode().splitlines() if status == 200 else ():
        if line.startswith("salvo_fanout_"):
            name, value = line.split(" ", 1)
            out[name[len("salvo_fanout_") :]] = float(value)
    return out


def counters_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """What the window added, and frames per write (held frames go out with their result in one write)."""
    d: dict[str, Any] = {k: round(after[k] - before.get(k, 0)) for k in after}
    if d.get("writes"):
        d["framesPerWrite"] = round(d["frames_written"] / d["writes"], 2)
    return d


# --- a minimal websocket client --------------------------------------------------------------------------


class WS(asyncio.Protocol):
    """Text frames in, text frames out. ``on_message(payload: bytes, t: float)`` is called per message;
    ``wait()`` returns the next message when no callback is set."""

    def __init__(self, target: tuple[str, str | None], on_message: Any = None) -> None:
        self.path, self.token = target
        self.on_message = on_message
        self.buf = bytearray()
        self.handshaken = False
        self.rx_bytes = 0
        self.handshake_bytes = 0
        self.payload_bytes = 0
        self.messages = 0
        self.close_code: int | None = None
        self.closed = False
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(os.urandom(16)).decode()
        self.transport.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {HOST}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                + (f"Authorization: Bearer {self.token}\r\n" if self.token else "")
                + "\r\n"
            ).encode()
        )

    def data_received(self, data: bytes) -> None:
        t = now()
        self.rx_bytes += len(data)
        buf = self.buf
        buf += data
        pos = 0
        if not self.handshaken:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if buf[9:12] != b"101":
                self.opened.set_exception(RuntimeError(bytes(buf[:200]).decode(errors="replace")))
                self.transport.close()
                return
            self.handshaken = True
            self.handshake_bytes = end + 4
            pos = end + 4
            self.opened.set_result(None)
        n = len(buf)
        while n - pos >= 2:
            b0, ln = buf[pos], buf[pos + 1] & 0x7F
            hdr = 2
            if ln == 126:
                if n - pos < 4:
                    break
                ln = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                hdr = 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                hdr = 10
            if n - pos < hdr + ln:
                break
            payload = bytes(buf[pos + hdr : pos + hdr + ln])
            pos += hdr + ln
            op = b0 & 0x0F
            if op in (1, 2):
                self.messages += 1
                self.payload_bytes += ln
                if self.on_message is not None:
                    self.on_message(payload, t)
                else:
                    self._queue.append(payload)
                    if self._waiter is not None and not self._waiter.done():
                        self._waiter.set_result(None)
            elif op == 8:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                self.transport.close()
            elif op == 9:
                self._send_frame(0xA, payload)
        del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed before the handshake"))
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _send_frame(self, op: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | op, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | op, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | op, 0x80 | 127)) + n.to_bytes(8, "big")
        self.transport.write(head + b"\0\0\0\0" + payload)  # a zero mask key: payload XOR 0 = payload

    def send(self, payload: bytes) -> None:
        self._send_frame(1, payload)

    async def recv(self) -> bytes:
        while not self._queue:
            if self.closed:
                raise ConnectionError(f"closed ({self.close_code})")
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._queue.pop(0)

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            try:
                self._send_frame(8, (1000).to_bytes(2, "big"))
            finally:
                self.transport.close()


async def ws_open(port: int, target: tuple[str, str | None], on_message: Any = None, timeout: float = 30.0) -> WS:
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(lambda: WS(target, on_message), HOST, port)
    await asyncio.wait_for(proto.opened, timeout)
    return proto  # type: ignore[return-value]


def stream_path(game_id: str, token: str | None, after: int, own: bool = False) -> tuple[str, str | None]:
    """The stream's path and the seat token, sent as an Authorization header (never in the URL).
    ``own``: a commanding socket takes its own events from its results (own_events=result), as a bgio
    player takes its state from the one update it gets per move."""
    return f"/v1/games/{game_id}/stream?after={after}" + ("&own_events=result" if own else ""), token


def frame_seq(payload: bytes) -> int:
    """seq of an event frame: {"kind":"event","event":{"game_id":"g_…","seq":N,…"""
    i = payload.find(b'"seq":', 30) + 6
    j = i
    while 48 <= payload[j] <= 57:
        j += 1
    return int(payload[i:j])


async def caught_up(ws: WS) -> None:
    """A player starts only when its stream has caught up (as the bgio player waits for its sync): a
    stream's first catch-up re-reads the store until it reaches the head, so it chases a busy game."""
    for _ in range(1_000_000):
        if (await ws.recv()).startswith(b'{"kind":"caught_up"'):
            return


async def ws_command(ws: WS, text: bytes) -> bytes:
    """Send a command; return the result/error message (event frames before it are skipped)."""
    ws.send(text)
    while True:
        msg = await ws.recv()
        if msg.startswith(b'{"kind":"result"') or msg.startswith(b'{"kind":"error"'):
            return msg


# --- 1. commands -------------------------------------------------------------------------------------------


async def commands(a: argparse.Namespace) -> dict[str, Any]:
    games = [await create_game(a.port) for _ in range(a.games)]
    clients = max(1, getattr(a, "clients", 1))

    def cycle_of(c: int) -> list[tuple[str, dict[str, Any]]]:
        """Client c's commands: the shoot workload alternates seats over a game's clients (a busy game:
        every client always has a legal shot), so client 0 of each game is the one-client loop above."""
        if a.workload != "shoot":
            return CYCLE
        who, other = ("red", "blue") if c % 2 == 0 else ("blue", "red")
        return [(who, {"type": "tiny.shoot", "shooter": who, "target": other})]

    lat: list[float] = []
    counts = {"ok": 0, "err": 0}
    errors: dict[str, int] = {}
    state = {"measuring": False, "stop": False}
    per_second: dict[int, int] = {}

    async def player_ws(g: dict[str, Any], c: int) -> None:
        cycle = cycle_of(c)
        seats_used = sorted({who for who, _ in cycle})
        if a.stagger:  # client c joins c × stagger seconds in: the later ones join a game already busy
            await asyncio.sleep(c * a.stagger)
        socks = {w: await ws_open(a.port, stream_path(g["game_id"], g["seats"][w], 0, own=True)) for w in seats_used}
        for ws in socks.values():
            await asyncio.wait_for(caught_up(ws), 30)
        texts = [(w, json.dumps({"kind": "command", "command": c}, separators=(",", ":")).encode()) for w, c in cycle]
        i = 0
        try:
            for _ in range(10_000_000):
                if state["stop"]:
                    break
                who, text = texts[i % len(texts)]
                t0 = now()
                msg = await ws_command(socks[who], text)
                t1 = now()
                i += 1
                if state["measuring"]:
                    ok = msg.startswith(b'{"kind":"result"')
                    counts["ok" if ok else "err"] += 1
                    if ok:
                        lat.append(t1 - t0)
                        sec = int(t1 - state["t0"])
                        per_second[sec] = per_second.get(sec, 0) + 1
                    else:
                        errors[msg[:120].decode()] = errors.get(msg[:120].decode(), 0) + 1
        finally:
            for s in socks.values():
                s.close()

    async def player_http(g: dict[str, Any], c: int) -> None:
        cycle = cycle_of(c)
        conn = await RawHTTP(a.port).connect()
        path = f"/v1/games/{g['game_id']}/commands"
        bodies = [(f"Authorization: Bearer {g['seats'][w]}\r\n", json.dumps({"command": c}).encode()) for w, c in cycle]
        i = 0
        try:
            for _ in range(10_000_000):
                if state["stop"]:
                    break
                hdr, body = bodies[i % len(bodies)]
                t0 = now()
                status, resp = await conn.request("POST", path, body, hdr)
                t1 = now()
                i += 1
                if state["measuring"]:
                    counts["ok" if status == 201 else "err"] += 1
                    if status == 201:
                        lat.append(t1 - t0)
                        sec = int(t1 - state["t0"])
                        per_second[sec] = per_second.get(sec, 0) + 1
                    else:
                        errors[str(status)] = errors.get(str(status), 0) + 1
        finally:
            conn.close()

    fn = player_ws if a.transport == "ws" else player_http
    counters_start = await fanout_counters(a.port)
    tasks = [asyncio.create_task(fn(g, c)) for g in games for c in range(clients)]
    await asyncio.sleep(a.warmup)
    counters0 = await fanout_counters(a.port)
    w = Window(a.server_pid)
    w.start_sampler(0.5)
    state["t0"] = now()
    state["measuring"] = True
    await asyncio.sleep(a.seconds)
    state["measuring"] = False
    win = w.stop()
    counters = counters_delta(counters0, await fanout_counters(a.port))
    state["stop"] = True
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)
    ps = [per_second[k] for k in sorted(per_second)]
    return {
        "test": "commands",
        "system": "salvo",
        "transport": a.transport,
        "workload": a.workload,
        "games": a.games,
        "clientsPerGame": clients,
        "commands": counts["ok"],
        "errors": counts["err"],
        "errorKinds": errors,
        "perSec": round(counts["ok"] / win["seconds"]),
        "firstSecond": ps[:1],
        "lastSecond": ps[-2:-1],
        "latencyMs": summary(lat),
        **win,
        **({"fanout": counters, "fanoutWarmup": counters_delta(counters_start, counters0)} if counters else {}),
    }


# --- 2. spectator fan-out -----------------------------------------------------------------------------------


async def fanout(a: argparse.Namespace) -> dict[str, Any]:
    g = await create_game(a.port)
    gid = g["game_id"]
    player = await ws_open(a.port, stream_path(gid, g["seats"]["red"], 0, own=True))
    await asyncio.wait_for(caught_up(player), 30)
    text = json.dumps({"kind": "command", "command": SHOOT}, separators=(",", ":")).encode()
    version = 0
    for _ in range(20):  # warm-up
        msg = await ws_command(player, text)
        version = json.loads(msg)["version"]
    await asyncio.sleep(0.3)
    # --spectator-port/--spectator-pid: spectators on a second process (linked by Redis); "server" is then
    # that process, and the command process's CPU is recorded beside it
    # (several socket processes on one SO_REUSEPORT port: --spectator-pid p1,p2, summed)
    spec_pids = tuple(int(p) for p in a.spectator_pid.split(",") if p) or (a.server_pid,)
    spec_port, spec_pid = a.spectator_port or a.port, spec_pids[0]
    rss_before = sum(rss_mb(p) or 0.0 for p in spec_pids)

    recv: list[tuple[float, int]] = []  # (t, seq) for every spectator frame: parsed after the run
    rec_append = recv.append

    def on_message(payload: bytes, t: float) -> None:
        if payload.startswith(b'{"kind":"event"'):
            rec_append((t, frame_seq(payload)))

    specs: list[WS] = []
    failures = 0
    t_conn = now()
    for i in range(0, a.spectators, a.batch):
        batch = [
            ws_open(spec_port, stream_path(gid, None, version), on_message)
            for _ in range(min(a.batch, a.spectators - i))
        ]
        for r in await asyncio.gather(*batch, return_exceptions=True):
            if isinstance(r, BaseException):
                failures += 1
            else:
                specs.append(r)
    connect_s = now() - t_conn
    await asyncio.sleep(1.0)
    rss_after = sum(rss_mb(p) or 0.0 for p in spec_pids)
    S = len(specs)

    w = Window(spec_pid, spec_pids[1:])
    command_ticks0 = proc_ticks(a.server_pid) if spec_pid != a.server_pid else None
    w.start_sampler(0.25)
    sent: dict[int, float] = {}
    acked: dict[int, float] = {}
    player_lat: list[float] = []
    late = errors = 0
    interval = 1.0 / a.rate
    t_start = now()
    for i in range(a.moves):
        due = t_start + i * interval
        wait = due - now()
        if wait > 0:
            await asyncio.sleep(wait)
        elif wait < -0.001:
            late += 1
        t0 = now()
        player.send(text)
        while True:
            msg = await player.recv()
            if msg.startswith(b'{"kind":"result"') or msg.startswith(b'{"kind":"error"'):
                break
        t1 = now()
        if msg.startswith(b'{"kind":"error"'):
            errors += 1
            continue
        v = json.loads(msg)["version"]
        sent[v] = t0
        acked[v] = t1
        player_lat.append(t1 - t0)
    t_sent = now()
    last = max(sent) if sent else 0
    expected_each = len(sent)
    grace_end = now() + a.grace
    for _ in range(100_000):  # until every spectator has the last event (bounded by --grace)
        if now() >= grace_end:
            break
        got_last = sum(1 for t, s in recv[-S * 3 :] if s == last)
        if got_last >= S - sum(1 for s in specs if s.closed):
            break
        await asyncio.sleep(0.05)
    t_drained = now()
    win = w.stop()
    if command_ticks0 is not None:
        win["commandServerCpuPct"] = round(
            100 * ((proc_ticks(a.server_pid) or 0) - command_ticks0) / CLK / win["seconds"], 1
        )

    lat_send: list[float] = []
    lat_ack: list[float] = []
    received: dict[int, int] = {}
    last_rx: dict[int, float] = {}
    for t, s in recv:
        t0 = sent.get(s)
        if t0 is None:
            continue
        lat_send.append(t - t0)
        lat_ack.append(t - acked[s])
        received[s] = received.get(s, 0) + 1
        if t > last_rx.get(s, 0.0):
            last_rx[s] = t
    missing = sum(S - received.get(s, 0) for s in sent)
    closed = [s for s in specs if s.closed]
    close_codes: dict[str, int] = {}
    for s in closed:
        close_codes[str(s.close_code)] = close_codes.get(str(s.close_code), 0) + 1
    complete = [last_rx[s] - sent[s] for s in sent if s in last_rx]
    for s in specs:
        s.close()
    player.close()
    result = {
        "test": "fanout",
        "system": "salvo",
        "spectators": a.spectators,
        "connected": S,
        "connectFailures": failures,
        "connectAllMs": round(connect_s * 1000),
        "movesSent": expected_each,
        "targetRate": a.rate,
        "achievedRate": round(expected_each / (t_sent - t_start), 1),
        "lateSends": late,
        "errors": errors,
        "deliveriesExpected": expected_each * S,
        "deliveriesMissing": missing,
        "closedDuringRun": len(closed),
        "closeCodes": close_codes,
        "drainMsAfterLastSend": round((t_drained - t_sent) * 1000),
        "deliveryLatencyMs": summary(lat_send),
        "ackToReceiptMs": summary(lat_ack),
        "fanoutCompleteMs": summary(complete),
        "playerOwnLatencyMs": summary(player_lat),
        "rssBeforeSpectatorsMB": rss_before,
        "rssAfterSpectatorsMB": rss_after,
        "rssPerSpectatorKB": round((rss_after - rss_before) * 1024 / max(1, S), 1)
        if rss_before and rss_after
        else None,
        "deliveriesPerSec": round(len(lat_send) / (t_drained - t_start)),
        **win,
    }
    result["struggled"] = bool(
        missing
        or failures
        or closed
        or errors
        or result["achievedRate"] < 0.9 * a.rate
        or (result["deliveryLatencyMs"]["p99"] or 0) > 1000
        or win["serverCpuPct"] > 90
    )
    await asyncio.sleep(0.5)
    return result


# --- 3. catch-up ------------------------------------------------------------------------------------------


async def catchup(a: argparse.Namespace) -> dict[str, Any]:
    g = await create_game(a.port)
    gid = g["game_id"]
    w = Window(a.server_pid)
    player = await ws_open(a.port, stream_path(gid, g["seats"]["red"], 0, own=True))
    await asyncio.wait_for(caught_up(player), 30)
    text = json.dumps({"kind": "command", "command": SHOOT}, separators=(",", ":")).encode()
    version = 2
    t_build = now()
    for _ in range(a.events + 10):
        if version >= a.events:
            break
        msg = await ws_command(player, text)
        version = json.loads(msg)["version"]
    build_s = now() - t_build
    player.close()
    await asyncio.sleep(0.5)
    n = version

    async def join(after: int, token: str | None, present: bool = False, compact: bool = False) -> dict[str, Any]:
        done = asyncio.get_running_loop().create_future()
        events = 0

        def on_message(payload: bytes, t: float) -> None:
            nonlocal events
            if payload.startswith(b'{"kind":"events"'):  # a compact page (history=compact)
                events += len(json.loads(payload)["events"])
            elif payload.startswith(b'{"kind":"event"'):
                events += 1
            elif payload.startswith(b'{"kind":"caught_up"') and not done.done():
                done.set_result(t)

        t0 = now()
        path, tok = stream_path(gid, token, after)
        query = ("&join=present" if present else "") + ("&history=compact" if compact else "")
        ws = await ws_open(a.port, (path + query, tok), on_message)
        t_open = now()
        t1 = await asyncio.wait_for(done, 60)
        out = {
            "after": after,
            "events": events,
            "messages": ws.messages,
            "payloadBytes": ws.payload_bytes,
            "wireBytesIn": ws.rx_bytes,
            "handshakeBytesIn": ws.handshake_bytes,
            "totalMs": round((t1 - t0) * 1000, 3),
            "connectMs": round((t_open - t0) * 1000, 3),
        }
        ws.close()
        await asyncio.sleep(0.2)
        return out

    reps: dict[str, list[dict[str, Any]]] = {
        "freshSpectator": [],
        "freshSeat": [],
        "reconnectMissed1Spectator": [],
        "reconnectMissed1Seat": [],
        "freshPresentSpectator": [],
        "freshCompactSpectator": [],
        "freshCompactSeat": [],
    }
    for _ in range(a.reps):
        reps["freshSpectator"].append(await join(0, None))
        reps["freshPresentSpectator"].append(await join(0, None, present=True))  # snapshot plus tail
        reps["freshSeat"].append(await join(0, g["seats"]["blue"]))
        reps["freshCompactSpectator"].append(await join(0, None, compact=True))  # the history, compact pages
        reps["freshCompactSeat"].append(await join(0, g["seats"]["blue"], compact=True))
        reps["reconnectMissed1Spectator"].append(await join(n - 1, None))
        reps["reconnectMissed1Seat"].append(await join(n - 1, g["seats"]["blue"]))
    win = w.stop()

    def agg(rows: list[dict[str, Any]]) -> dict[str, Any]:
        first = rows[0]
        return {
            "payloadBytes": first["payloadBytes"],
            "wireBytesIn": first["wireBytesIn"],
            "messages": first["messages"],
            "events": first["events"],
            "totalMs": summary([r["totalMs"] / 1000 for r in rows]),
            "firstMs": first["totalMs"],
        }

    return {
        "test": "catchup",
        "system": "salvo",
        "eventsInHistory": n,
        "build": {"seconds": round(build_s, 2), "commandsPerSec": round((n - 2) / build_s)},
        "serverRssMB": rss_mb(a.server_pid),
        **{k: agg(v) for k, v in reps.items()},
        "reps": a.reps,
        "raw": reps,
        **win,
    }


def quiet(max_wait: float, limit: float, need: int = 2, window: float = 2.0) -> None:
    """Wait (bounded) until `need` consecutive windows have foreign CPU below `limit` % of a core."""
    end, ok = now() + max_wait, 0
    for _ in range(10_000):
        if now() >= end:
            print(f"not quiet after {max_wait:.0f} s", flush=True)
            return
        w = Window(os.getpid())
        time.sleep(window)
        r = w.stop()
        ok = ok + 1 if r["foreignCpuPct"] < limit else 0
        if ok >= need:
            return
        if ok == 0:
            print(f"  waiting for a quiet machine: foreign {r['foreignCpuPct']}% {r['foreignTop']}", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "quiet":  # quiet MAX_WAIT_S LIMIT_PCT
        quiet(float(sys.argv[2]), float(sys.argv[3]))
        return
    p = argparse.ArgumentParser()
    p.add_argument("test", choices=["commands", "fanout", "catchup"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--server-pid", type=int, required=True)
    p.add_argument("--out", default="")
    p.add_argument("--label", default="")
    p.add_argument("--transport", choices=["ws", "http"], default="ws")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--clients", type=int, default=1, help="closed-loop clients per game (a busy game: > 1)")
    p.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        help="websocket clients: client c connects c × this many seconds after the start",
    )
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--workload", choices=["shoot", "cycle"], default="shoot")
    p.add_argument("--spectators", type=int, default=100)
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--rate", type=float, default=20.0)
    p.add_argument("--batch", type=int, default=50)
    p.add_argument("--grace", type=float, default=15.0)
    p.add_argument("--spectator-port", type=int, default=0)
    p.add_argument("--spectator-pid", default="", help="the spectators' server pid(s), comma-separated")
    p.add_argument("--events", type=int, default=10_000)
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    try:
        import uvloop

        run = uvloop.run
    except ImportError:
        run = asyncio.run
    fn = {"commands": commands, "fanout": fanout, "catchup": catchup}[a.test]
    result = run(asyncio.wait_for(fn(a), 600))
    result["label"] = a.label
    text = json.dumps(result, indent=1)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "raw"})[:1500], flush=True)


if __name__ == "__main__":
    sys.exit(main())
