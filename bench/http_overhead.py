"""What the HTTP layers cost a POST /commands: server CPU per request with the command itself stubbed.

The gate (authentication, rate limits, the command pipeline, the store) is replaced by one that answers
a fixed 201 at once, so what is left per request is uvicorn (parsing, the ASGI cycle, the response
write), the app's middleware and the lean endpoint. The figure (server utime+stime / requests) does
not depend on the CPU share the server gets on a busy machine as a throughput does.

    python bench/http_overhead.py [--connections 50] [--seconds 8] [--checkout DIR]
    PYTHONPATH=DIR python bench/http_overhead.py --in-process 20000   # the ASGI app alone, no sockets
    PYTHONPATH=DIR python bench/http_overhead.py --protocol 20000     # + the server's HTTP protocol, no sockets

``--protocol`` feeds the request's bytes to the server's protocol (serving.uvicorn_config's) on a uvloop
loop with a transport that only collects what is written: parsing, the request's Task, the app and the
response write, without the kernel's share (the figure a CPU-time A/B on a loaded machine can trust).

``--checkout`` serves another Salvo checkout (a before/after comparison with the same client).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peer"))
from salvo_client import CLK, RawHTTP, proc_user_sys  # noqa: E402

RESULT = (b'{"version":7,"events":[{"seq":7,"type":"tiny.shot","game_id":"g_0123456789abcdef",'
          b'"recorded_at":"2026-12-01T14:00:00.000Z","data":{"shooter":"red","target":"blue","hit":true},'
          b'"rolls":[{"die":"d10","face":3}]}]}')


class StubGate:
    async def viewer(self, game_id: str, token: Any, address: str) -> Any:
        return SimpleNamespace(label="red")

    async def command(self, *args: Any, **kwargs: Any) -> Any:
        return SimpleNamespace(status=201, body=RESULT)


def stubbed_app(db: str) -> Any:
    from service.api.app import create_app
    from service.settings import Settings

    settings = Settings.from_env(database_url=f"sqlite:///{db}")
    app = create_app(settings)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> Any:
        async with inner(a):
            a.state.gate = StubGate()
            yield

    app.router.lifespan_context = lifespan
    return app


def serve(port: int, db: str) -> None:
    """Server side (in the child): the real app and server, the stub gate."""
    from service.api.serving import run

    app = stubbed_app(db)
    run(app, app.state.settings, "127.0.0.1", port, "warning")


async def in_process(db: str, n: int) -> dict[str, Any]:
    """The app alone, called as uvicorn calls it (no sockets): CPU per request of the ASGI layers."""
    app = stubbed_app(db)
    body = b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'
    headers = [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer salvo.token.x"),
               (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    sent: list[Any] = []

    async def receive() -> Any:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    async with app.router.lifespan_context(app):
        gc.freeze()  # as `salvo serve` runs
        gc.set_threshold(50_000, 20, 100)
        best = float("inf")
        for _round in range(5):
            t0 = time.process_time()
            for _ in range(n):
                scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
                         "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000), "scheme": "http",
                         "method": "POST", "root_path": "", "path": "/v1/games/g_0123456789abcdef/commands",
                         "raw_path": b"/v1/games/g_0123456789abcdef/commands", "query_string": b"",
                         "headers": headers, "state": {}}
                await app(scope, receive, send)
            best = min(best, (time.process_time() - t0) / n)
            assert sent[-2]["status"] == 201, sent[-2]
            sent.clear()
    return {"inProcessUsPerRequest": round(best * 1e6, 1), "requests": n}


class _Transport:
    """What the protocol writes to, kept in memory; ``done`` is set when a whole response is out."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.done: asyncio.Future[None] | None = None
        self.closed = False

    def write(self, data: bytes) -> None:
        self.out += data
        end = self.out.find(b"\r\n\r\n")
        if end >= 0 and self.done is not None and not self.done.done():
            head = bytes(self.out[:end]).lower()
            length = int(head.split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
            if len(self.out) >= end + 4 + length:
                self.done.set_result(None)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


async def protocol(db: str, n: int) -> dict[str, Any]:
    """The app behind the server's HTTP protocol, bytes in and out, no sockets: CPU per request."""
    from uvicorn.server import ServerState

    from service.api.serving import uvicorn_config

    app = stubbed_app(db)
    config = uvicorn_config(app, app.state.settings, "127.0.0.1", 8000, "warning")
    config.load()
    state = ServerState()
    state.default_headers = [(b"date", b"Tue, 01 Dec 2026 14:00:00 GMT"), *config.encoded_headers]
    body = b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'
    request = (b"POST /v1/games/g_0123456789abcdef/commands HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               b"Authorization: Bearer salvo.token.x\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    loop = asyncio.get_running_loop()
    transport = _Transport()
    proto = config.http_protocol_class(config=config, server_state=state, app_state={}, _loop=loop)
    proto.connection_made(transport)
    async with app.router.lifespan_context(app):
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        best = float("inf")
        for _round in range(int(os.environ.get("SALVO_BENCH_ROUNDS", "5"))):
            t0 = time.process_time()
            for _ in range(n):
                transport.done = loop.create_future()
                transport.out.clear()
                proto.data_received(request)
                await transport.done
            best = min(best, (time.process_time() - t0) / n)
            assert transport.out.startswith(b"HTTP/1.1 201 "), bytes(transport.out[:200])
        proto.connection_lost(None)
    return {"protocolUsPerRequest": round(best * 1e6, 1), "requests": n}


async def load(port: int, pid: int, connections: int, seconds: float, warmup: float) -> dict[str, Any]:
    body = b'{"command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'
    state = {"measuring": False, "stop": False, "n": 0}

    async def client() -> None:
        conn = await RawHTTP(port).connect()
        try:
            while not state["stop"]:
                status, _ = await conn.request("POST", "/v1/games/g_0123456789abcdef/commands", body,
                                               "Authorization: Bearer salvo.token.x\r\n")
                assert status == 201, status
                if state["measuring"]:
                    state["n"] += 1
        finally:
            conn.close()

    tasks = [asyncio.create_task(client()) for _ in range(connections)]
    await asyncio.sleep(warmup)
    u0, s0 = proc_user_sys(pid)
    t0 = time.perf_counter()
    state["measuring"] = True
    await asyncio.sleep(seconds)
    state["measuring"] = False
    u1, s1 = proc_user_sys(pid)
    elapsed = time.perf_counter() - t0
    state["stop"] = True
    await asyncio.gather(*tasks, return_exceptions=True)
    n = max(1, int(state["n"]))
    cpu = (u1 - u0 + s1 - s0) / CLK
    return {"requests": n, "perSec": round(n / elapsed), "serverCpuPct": round(100 * cpu / elapsed, 1),
            "usPerRequest": round(1e6 * (u1 - u0 + s1 - s0) / CLK / n, 1),
            "userUs": round(1e6 * (u1 - u0) / CLK / n, 1), "sysUs": round(1e6 * (s1 - s0) / CLK / n, 1)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--connections", type=int, default=50)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--checkout", default=str(ROOT))
    p.add_argument("--in-process", type=int, default=0, metavar="N", help="N requests to the app alone, no server")
    p.add_argument("--protocol", type=int, default=0, metavar="N", help="N requests through the protocol, no sockets")
    p.add_argument("--serve", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--db", default="", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.serve:
        serve(a.serve, a.db)
        return
    if a.in_process:  # run this one in the checkout: PYTHONPATH=DIR python bench/http_overhead.py --in-process N
        with tempfile.TemporaryDirectory() as tmp:
            print(asyncio.run(in_process(f"{tmp}/s.sqlite", a.in_process)), flush=True)
        return
    if a.protocol:  # as --in-process, in the checkout
        import uvloop

        with tempfile.TemporaryDirectory() as tmp:
            print(uvloop.run(protocol(f"{tmp}/s.sqlite", a.protocol)), flush=True)
        return
    from peer_table import free_port, pinned  # type: ignore[import-not-found]

    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="salvo-http-"))
    env = {**os.environ, "PYTHONPATH": str(Path(a.checkout).resolve()),
           "SALVO_RULESETS": "tiny=tests.support.tiny:RULESET"}
    server = subprocess.Popen([*pinned("0"), sys.executable, str(Path(__file__).resolve()), "--serve", str(port),
                               "--db", str(work / "s.sqlite")], cwd=a.checkout, env=env)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
            os.sched_setaffinity(0, {1})
        try:
            import uvloop
            result = uvloop.run(load(port, server.pid, a.connections, a.seconds, a.warmup))
        except ImportError:
            result = asyncio.run(load(port, server.pid, a.connections, a.seconds, a.warmup))
        with open("/proc/loadavg") as fh:
            result["loadavg"] = fh.read().split()[0]
        print(result, flush=True)
    finally:
        server.terminate()
        server.wait(15)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
