"""Start the real server (`python -m service serve`) as a subprocess, for crash tests and benchmarks.

    with ServerProcess(database_url) as server:      # picks a free port, waits for /healthz
        httpx.get(server.url + "/v1/rulesets")
        server.kill()                                # SIGKILL, like a crash (kill -9)
        server.start()                               # again, on the same database

The tiny test ruleset is registered in the server through SALVO_RULESETS, and the process runs with
cwd and PYTHONPATH at the repository root so ``tests.support.tiny`` imports. Output goes to a log file
(``server.log_path``) so a full pipe can never stall the server.
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
TINY = "tiny=tests.support.tiny:RULESET"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def uvicorn_in_thread(app: Any, settings: Any, ws: Any = None, http: Any = None) -> Iterator[tuple[Any, int]]:
    """The app under ``salvo serve``'s uvicorn config (the protocols ``settings.fast_path`` picks, unless
    ``ws`` or ``http`` names another), in a daemon thread on a free port: yields (server, port), stops it
    afterwards."""
    import uvicorn

    from service.api.serving import uvicorn_config

    port = free_port()
    config = uvicorn_config(app, settings, "127.0.0.1", port, "warning", ws=ws)
    if http is not None:
        config.http = http
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield server, port
    finally:
        server.should_exit = True
        thread.join(20)


def websocket_upgrade(
    sock: socket.socket, port: int, path: str, headers: Mapping[str, str] | None = None, *, byte_by_byte: bool = False
) -> bytes:
    """Send a websocket handshake on a connected socket, read the 101, and return what came after it.
    ``byte_by_byte``: read nothing past the headers (a reader that should leave the rest unread)."""
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"{extra}\r\n"
        ).encode()
    )
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        buffer += sock.recv(1 if byte_by_byte else 4096)
    head, _, rest = buffer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    return rest


class ServerError(RuntimeError):
    pass


def rss_mb(pid: int) -> float:
    """A process's resident memory (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ServerError(f"no VmRSS for process {pid}")


class ServerProcess:
    def __init__(
        self,
        database_url: str,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        python: Sequence[str] = (sys.executable,),
        log_path: str | Path | None = None,
        startup_timeout: float = 30.0,
        root: str | Path | None = None,
    ) -> None:
        self.database_url = database_url
        self.host = host
        self.port = port
        self._fixed_port = port is not None
        self.extra_env = dict(env or {})
        self.python = list(python)  # e.g. [sys.executable, "-m", "cProfile", "-o", "x.prof"]
        self.log_path = Path(log_path) if log_path else Path(tempfile.mkstemp(prefix="salvo-server-", suffix=".log")[1])
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.root = Path(root) if root is not None else ROOT  # the checkout served (benchmarks: before/after)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise ServerError("the server is not running")
        return self.proc.pid

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        rulesets = env.get("SALVO_RULESETS", "")
        if "tiny=" not in rulesets:
            env["SALVO_RULESETS"] = ",".join(x for x in (rulesets, TINY) if x)
        env.pop("DATABASE_URL", None)  # --database-url wins anyway; keep the environment unsurprising
        env.update(self.extra_env)
        return env

    def start(self) -> ServerProcess:
        """Start (or restart) the server and wait until /healthz answers. Retries on a port race."""
        if self.proc is not None and self.proc.poll() is None:
            raise ServerError("the server is already running")
        last_error = ""
        for _attempt in range(3):
            if not self._fixed_port:
                self.port = free_port(self.host)  # a fresh one on every (re)start
            cmd = [
                *self.python,
                "-m",
                "service",
                "serve",
                "--host",
                self.host,
                "--port",
                str(self.port),
                "--database-url",
                self.database_url,
            ]
            log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
            try:
                self.proc = subprocess.Popen(
                    cmd,
                    cwd=self.root,
                    env=self._env(),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            finally:
                log.close()
            if self._wait_ready():
                return self
            last_error = self.tail()
            self._reap()
            if self._fixed_port:
                break
        raise ServerError(f"the server did not start:\n{last_error}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                return False
            try:
                if httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        return False

    def kill(self) -> None:
        """SIGKILL the server process (a crash: no shutdown hooks, no flush)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self._reap()

    def stop(self, timeout: float = 10.0) -> None:
        """Graceful stop (SIGINT, as Ctrl-C), SIGKILL if it does not exit in time."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
        self._reap()

    def _reap(self) -> None:
        if self.proc is not None:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)

    def tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
