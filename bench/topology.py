"""The scaled-out topology on one machine, with real processes: one command process (every command,
HTTP and seat sockets: the single writer of each game's log) and N socket processes that serve the
spectators, all on one database, linked by Redis, behind one port.

    .venv/bin/python bench/topology.py --sockets 2 --port 8000                 # SQLite, Redis at REDIS_URL
    .venv/bin/python bench/topology.py --sockets 2 --database-url postgresql://salvo:salvo@127.0.0.1/salvo

    public port (nginx, the front)
      ├─ /v1/games/{id}/stream with no token (spectators) ─▶ socket port: N processes, SO_REUSEPORT
      │                                                      (the kernel spreads connections over them)
      └─ everything else (HTTP, seat and umpire sockets) ─▶ the command process
    command process ──publish each event's frames per audience──▶ Redis ──▶ socket processes that
    have a socket on that game (SALVO_REDIS_SUBSCRIBE=games), which write them without reading the store

The front is nginx running ``docker/nginx.conf`` (the compose file's) with its upstreams pointed at
these processes; without an nginx binary, ``--front none`` (the default then) prints the two ports
instead, and clients pick: spectators the socket port, everything else the command port. The socket
processes can take commands too (any replica can: conflicts on (game_id, seq) are retried), but the
front sends none there, so each game has one writer and its group commits and pipelined decisions stay
in one process.

The benchmark (bench/bench_spectators.py --sockets, with --front through nginx) and
tests/api/test_topology.py start it with ``Topology``; as a script it runs until interrupted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import ROOT, Server, free_port, healthy  # noqa: E402

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

FRONT = ROOT / "docker" / "nginx.conf"  # the compose file's front, run here with its upstreams rewritten
NGINX_CONF = """\
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 65536; multi_accept on; }}
worker_rlimit_nofile {nofile};
http {{
    access_log off;
    client_body_temp_path {work}/nginx-body;
    proxy_temp_path {work}/nginx-proxy;
    fastcgi_temp_path {work}/nginx-fastcgi;
    uwsgi_temp_path {work}/nginx-uwsgi;
    scgi_temp_path {work}/nginx-scgi;
    include {site};
}}
"""


def front_site(commands: int, sockets: int, port: int) -> str:
    """docker/nginx.conf with this machine's ports for its upstreams and its listen."""
    text = FRONT.read_text()
    for old, new in (
        ("server commands:8000;", f"server 127.0.0.1:{commands};"),
        ("server sockets:8000;", f"server 127.0.0.1:{sockets};"),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
    ):
        if old not in text:
            raise RuntimeError(f"{FRONT} no longer has {old!r}: update bench/topology.py")
        text = text.replace(old, new)
    return text


class Topology:
    """``front``: "nginx", "none", or None (nginx when installed). ``cpus``: the command process's CPU
    and each socket process's, in turn (None: unpinned)."""

    def __init__(
        self,
        work: Path,
        sockets: int = 2,
        *,
        database_url: str | None = None,
        redis_url: str = REDIS_URL,
        front: str | None = None,
        port: int | None = None,
        checkout: Path = ROOT,
        cpus: list[str | None] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        self.front = front or ("nginx" if shutil.which("nginx") else "none")
        cpus = cpus or [None] * (sockets + 1)
        db = database_url or f"sqlite:///{work}/topology.sqlite"
        linked = {"REDIS_URL": redis_url, **(env or {})}
        self.command = Server(work, "commands", cpus[0], checkout, database_url=db, env=linked)
        self.socket_port = free_port()
        self.sockets: list[Server] = []
        self.nginx: subprocess.Popen[bytes] | None = None
        try:
            for i in range(sockets):
                self.sockets.append(
                    Server(
                        work,
                        f"sockets{i + 1}",
                        cpus[(i + 1) % len(cpus)],
                        checkout,
                        database_url=db,
                        port=self.socket_port,
                        reuse_port=True,
                        env={**linked, "SALVO_REDIS_SUBSCRIBE": "games"},
                    )
                )
            self._wait_for_sockets()
            self.port = self._start_nginx(port) if self.front == "nginx" else self.command.port
        except BaseException:
            self.stop()
            raise

    @property
    def pids(self) -> list[int]:
        return [s.pid for s in self.sockets]

    @property
    def front_pids(self) -> list[int]:
        """nginx's worker processes (the master only supervises them)."""
        if self.nginx is None:
            return []
        try:
            with open(f"/proc/{self.nginx.pid}/task/{self.nginx.pid}/children") as fh:
                return [int(p) for p in fh.read().split()]
        except OSError:
            return []

    def _wait_for_sockets(self) -> None:
        """Each process has bound the port; the kernel picks one per connection, so every process has
        answered once a run of fresh connections all succeeds (a process still starting holds them)."""
        deadline = time.monotonic() + 120
        ok = 0
        while ok < 8 * len(self.sockets):
            if time.monotonic() > deadline:
                raise RuntimeError(f"socket processes did not come up; see {self.work}/server-sockets*.log")
            ok = ok + 1 if healthy(self.socket_port, timeout=5) else 0

    def _start_nginx(self, port: int | None) -> int:
        port = port or free_port()
        site, conf = self.work / "nginx-site.conf", self.work / "nginx.conf"
        site.write_text(front_site(self.command.port, self.socket_port, port))
        conf.write_text(
            NGINX_CONF.format(work=self.work, site=site, nofile=resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        )
        log = open(self.work / "nginx.log", "w")  # noqa: SIM115 - nginx's own output; closed with the process
        self.nginx = subprocess.Popen(
            ["nginx", "-p", str(self.work), "-c", str(conf)], stdout=log, stderr=subprocess.STDOUT
        )
        for _ in range(300):
            if healthy(port):
                return port
            if self.nginx.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"nginx did not come up; see {self.work}/nginx-error.log")

    def describe(self) -> str:
        front = (
            f"front (nginx) http://127.0.0.1:{self.port}/"
            if self.nginx is not None
            else f"no front: spectators ws://127.0.0.1:{self.socket_port}/, everything else "
            f"http://127.0.0.1:{self.command.port}/"
        )
        return (
            f"{front}\n  command process pid {self.command.pid} on :{self.command.port}\n"
            f"  {len(self.sockets)} socket process(es) pid {', '.join(map(str, self.pids))} on "
            f":{self.socket_port} (SO_REUSEPORT)\n  logs in {self.work}/"
        )

    def stop(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.send_signal(signal.SIGQUIT)  # nginx's graceful stop
            try:
                self.nginx.wait(10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait()
        for server in self.sockets:
            server.stop()
        self.command.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sockets", type=int, default=2, help="socket processes (default 2)")
    p.add_argument("--port", type=int, default=None, help="the front's port (default: a free one)")
    p.add_argument("--database-url", default=None, help="default: a SQLite file in the work folder")
    p.add_argument("--redis-url", default=REDIS_URL)
    p.add_argument("--front", choices=["nginx", "none"], default=None)
    p.add_argument("--work", default=None, help="folder for logs and the SQLite file (default: a new temp dir)")
    a = p.parse_args()
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="salvo-topology-"))
    top = Topology(work, a.sockets, database_url=a.database_url, redis_url=a.redis_url, front=a.front, port=a.port)
    print(top.describe(), flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        top.stop()


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    main()
