"""The floor under a one-game closed loop on this machine: how many durable round trips per second any
server could answer, whatever its code, with the harness's layout (server on CPU 0, client on CPU 1).

Closed loops of one client, each for ``--seconds``, over loopback TCP with a ~200-byte message:
  echo          a uvloop server that answers each message at once (network + event loop only)
  echo+fsync    the same, but it appends the message to a file and fdatasyncs it before answering (what a
                durable acknowledgement costs at the least: SQLite in WAL mode with synchronous=FULL does one
                fdatasync of its write-ahead log per commit, plus its pages and locks)
  echo+WAL-like the same, but written as SQLite's log is in steady state: two frames (a 24-byte header and
                a 4 KiB page each, four pwrites) over a preallocated 4 MiB file used as a ring (after its
                first checkpoint SQLite restarts the log from its start, overwriting), then fdatasync: on
                these disks an overwrite's sync costs less than an append's (no size change to journal)
  fsync alone   append + fdatasync, and the WAL-like write + fdatasync, in a loop, no network: wall and CPU
                per call

    .venv/bin/python bench/k1_floor.py                    # figures
    .venv/bin/python bench/k1_floor.py --bgio 2041        # and the ceiling ratio against a bgio rate

The data file lives in --dir (default: the system temp dir, on the same disk as the harness's SQLite
file here). Figures are wall-clock rates on a shared machine: compare them with a harness run made in
the same minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time

MESSAGE = b"x" * 199 + b"\n"


RING = 4 << 20  # SQLite's log at wal_autocheckpoint=1000 pages of 4 KiB
FRAME_HEADER, PAGE = b"h" * 24, b"p" * 4096


class WalLike:
    """Two log frames per write over a preallocated ring, as SQLite's log is written in steady state."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(self.fd, bytes(RING))
        os.fsync(self.fd)
        self.pos = 0

    def sync(self) -> None:
        fd, pos = self.fd, self.pos
        for _ in range(2):
            os.pwrite(fd, FRAME_HEADER, pos)
            os.pwrite(fd, PAGE, pos + len(FRAME_HEADER))
            pos += len(FRAME_HEADER) + len(PAGE)
        self.pos = pos if pos + 2 * (len(FRAME_HEADER) + len(PAGE)) <= RING else 0
        os.fdatasync(fd)


def serve(port: int, path: str | None, wal_like: bool = False) -> None:
    import uvloop

    log = WalLike(path) if path and wal_like else None
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if path and not wal_like else None

    class Echo(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport = transport

        def data_received(self, data: bytes) -> None:
            if fd is not None:
                os.write(fd, data)
                os.fdatasync(fd)
            elif log is not None:
                log.sync()
            self.transport.write(data)  # type: ignore[attr-defined]

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Echo, "127.0.0.1", port)
        print("ready", flush=True)
        await server.serve_forever()

    uvloop.run(main())


def closed_loop(port: int, seconds: float) -> tuple[float, float]:
    """Round trips per second and p99 in ms for one blocking client."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    laps: list[float] = []
    end = time.perf_counter() + seconds
    while (start := time.perf_counter()) < end:
        s.sendall(MESSAGE)
        got = 0
        while got < len(MESSAGE):
            got += len(s.recv(4096))
        laps.append(time.perf_counter() - start)
    s.close()
    laps.sort()
    return len(laps) / seconds, laps[int(len(laps) * 0.99)] * 1e3


def run_server(port: int, path: str | None, seconds: float, wal_like: bool = False) -> tuple[float, float]:
    args = [sys.executable, __file__, "--serve", str(port)] + (["--file", path] if path else []) \
        + (["--wal-like"] if wal_like else [])
    server = subprocess.Popen(["taskset", "-c", "0", *args], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        os.sched_setaffinity(0, {1})
        return closed_loop(port, seconds)
    finally:
        server.kill()
        server.wait()


def fsync_alone(path: str, count: int, wal_like: bool = False) -> tuple[float, float, float]:
    """Wall, user+system CPU per append+fdatasync (or WAL-like write + fdatasync) in µs, and the system part."""
    log = WalLike(path) if wal_like else None
    fd = log.fd if log is not None else os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for _ in range(count):
        if log is not None:
            log.sync()
        else:
            os.write(fd, MESSAGE)
            os.fdatasync(fd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    os.close(fd)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall / count * 1e6, cpu / count * 1e6, (after.ru_stime - before.ru_stime) / count * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--dir", default=tempfile.gettempdir())
    p.add_argument("--bgio", type=float, default=None, help="bgio's 1-game rate from the same minutes")
    p.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--file", default=None, help=argparse.SUPPRESS)
    p.add_argument("--wal-like", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve is not None:
        serve(args.serve, args.file, args.wal_like)
        return
    path = os.path.join(args.dir, f"k1-floor-{os.getpid()}.log")
    try:
        os.sched_setaffinity(0, {0})
        rows = []
        for label, wal_like in (("fsync alone (append + fdatasync)", False),
                                ("fsync alone (WAL-like: 2 frames over a ring + fdatasync)", True)):
            wall, cpu, system = fsync_alone(path, 2000, wal_like)
            os.unlink(path)
            rows.append((label, 1e6 / wall, None, f"{wall:.0f} µs wall, {cpu:.0f} µs CPU ({system:.0f} system) "
                         "per call"))
        for label, file, wal_like, port in (("echo", None, False, 47311), ("echo+fsync", path, False, 47312),
                                            ("echo+WAL-like", path, True, 47313)):
            rate, p99 = run_server(port, file, args.seconds, wal_like)
            rows.append((label, rate, p99, f"{1e6 / rate:.0f} µs per round trip"))
            if file is not None and os.path.exists(file):
                os.unlink(file)
    finally:
        if os.path.exists(path):
            os.unlink(path)
    print("| loop | per second | p99 ms | note |\n|---|---:|---:|---|")
    for label, rate, p99, note in rows:
        print(f"| {label} | {rate:,.0f} | {'' if p99 is None else f'{p99:.2f}'} | {note} |")
    if args.bgio:
        print(f"\n1.2× bgio needs {1.2 * args.bgio:,.0f}/s; the durable floors (no work at all):")
        for label, rate, _p99, _note in rows[3:]:
            print(f"- {label}: {rate:,.0f}/s = {rate / args.bgio:.2f}× bgio")


if __name__ == "__main__":
    main()
