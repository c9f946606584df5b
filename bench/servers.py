"""Salvo servers for the benchmarks and the topology: one ``python -m service serve`` subprocess each,
pinned to a CPU, logging to ``<work>/server-<name>.log``, returned once it answers ``/healthz``; and the
per-process figures that do not depend on the machine's load (CPU ticks from /proc, RSS).

Used by bench/peer_table.py, bench/bench_spectators.py and bench/topology.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# the tiny test ruleset, and no rate limits: a benchmark is one address sending thousands of commands/s
SERVER_ENV = {
    "SALVO_RULESETS": "tiny=tests.support.tiny:RULESET",
    "SALVO_RATE_COMMANDS_PER_TOKEN": "off",
    "SALVO_RATE_COMMANDS_PER_ADDRESS": "off",
}
CLK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pinned(cpu: str | None) -> list[str]:
    if cpu is None or not shutil.which("taskset") or (os.cpu_count() or 1) < 2:
        return []
    return ["taskset", "-c", cpu]


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process, all threads (0, 0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return int(f[11]) / CLK, int(f[12]) / CLK
    except (OSError, IndexError, ValueError):
        return 0.0, 0.0


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def healthy(port: int, timeout: float = 1.0) -> bool:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout).read()
        return True
    except OSError:
        return False


class Server:
    """``database_url`` None: a fresh SQLite file in ``work``. ``reuse_port``: bind ``port`` with
    SO_REUSEPORT beside other processes (readiness is then the topology's to check: a /healthz on the
    shared port may reach another process), so this returns once the process has bound it."""

    def __init__(
        self,
        work: Path,
        name: str,
        cpu: str | None,
        checkout: Path = ROOT,
        *,
        database_url: str | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
        reuse_port: bool = False,
        host: str = "127.0.0.1",
    ) -> None:
        self.name = name
        self.port = port or free_port()
        if database_url is None:
            db = work / f"{name}.sqlite"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            database_url = f"sqlite:///{db}"
        self.log = open(work / f"server-{name}.log", "w")  # noqa: SIM115 - closed in stop()
        full = {**os.environ, **SERVER_ENV, **(env or {}), "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen(
            [
                *pinned(cpu),
                sys.executable,
                "-m",
                "service",
                "serve",
                "--host",
                host,
                "--port",
                str(self.port),
                "--database-url",
                database_url,
                "--log-level",
                "warning",
                *(["--reuse-port"] if reuse_port else []),
            ],
            cwd=checkout,
            env=full,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        for _ in range(1200):  # a loaded machine can take a minute to import the service
            if listening(self.proc.pid, self.port) if reuse_port else healthy(self.port):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server {name} did not come up; see {self.log.name}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def listening(pid: int, port: int) -> bool:
    """Whether the process holds a listening TCP socket on ``port`` (/proc: its fds against /proc/net/tcp*)."""
    try:
        inodes = {
            os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1]
            for fd in os.listdir(f"/proc/{pid}/fd")
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:[")
        }
    except OSError:
        return False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as fh:
                next(fh)
                for line in fh:
                    f = line.split()
                    if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port and f[9] in inodes:
                        return True
        except OSError:
            continue
    return False
