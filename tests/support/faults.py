"""Services a fault test owns, so it may stop, freeze or fill them (never the shared ones on 5432/6379):
its own PostgreSQL cluster (initdb + pg_ctl in a temporary directory, run as the ``postgres`` user since
PostgreSQL refuses root), its own redis-server (frozen with SIGSTOP), and a small tmpfs for SQLite.

Each needs root (CI runs as root) or the binaries; ``require_root`` and the helpers skip with a message
saying what is missing."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import free_port


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        pytest.skip(f"{what} needs root (CI runs as root): skipped")


def _pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.skip(f"PostgreSQL's {name} is not installed: the PostgreSQL fault test is skipped")
    return found


class OwnPostgres:
    """A throw-away cluster on its own port: ``stop()`` (immediate: clients see connections refused) and
    ``start()`` again on the same data."""

    def __init__(self) -> None:
        require_root("a PostgreSQL cluster of the test's own (run as the postgres user)")
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no postgres user: the PostgreSQL fault test is skipped")
        self.initdb, self.pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        self.dir = Path(tempfile.mkdtemp(prefix="salvo-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        shutil.chown(self.dir, "postgres", "postgres")
        self._as_postgres([self.initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"])

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, argv: list[str]) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *argv], check=True, capture_output=True, timeout=120, cwd=self.dir
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off "
            "-c full_page_writes=off -c shared_buffers=16MB -c max_connections=40"
        )
        self._as_postgres(
            [self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w", "-t", "60", "start"]
        )

    def stop(self) -> None:
        """Immediate shutdown: every connection drops, new ones are refused."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self._as_postgres([self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    cluster = OwnPostgres()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


class OwnRedis:
    """A redis-server of the test's own: ``freeze()`` (SIGSTOP: connections stay open, nothing answers),
    ``thaw()`` (SIGCONT), ``stop()``/``start()``."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.skip("redis-server is not installed: the Redis fault test is skipped")
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert self.binary is not None
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return
            time.sleep(0.02)
        raise RuntimeError("the test's redis-server did not start")

    def freeze(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None


@contextlib.contextmanager
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def small_tmpfs(size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on a temporary directory (unmounted afterwards)."""
    require_root("mounting a small tmpfs")
    where = Path(tempfile.mkdtemp(prefix="salvo-tmpfs-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, timeout=30
    )
    if mounted.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)
        with contextlib.suppress(OSError):
            where.rmdir()


def fill(directory: Path, leave_bytes: int = 0) -> Path:
    """Fill the file system holding ``directory`` to ``leave_bytes`` free; returns the filler (delete it to
    free the space)."""
    filler = directory / "filler"
    chunk = b"\0" * 65536
    with open(filler, "ab") as out:
        while True:
            free = shutil.disk_usage(directory).free
            if free <= leave_bytes:
                break
            try:
                out.write(chunk[: max(1, min(len(chunk), free - leave_bytes))])
                out.flush()
            except OSError:
                break
    return filler
