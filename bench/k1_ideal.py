"""The ideal server for the harness's command rows (one game; several with ``--sync group``): the least
any server could do to answer the harness's own client (``bench/peer/salvo_client.py commands --transport ws
--workload shoot``), so that its rate on this machine, beside boardgame.io's in the same minutes, says what
the row can reach at all.

It speaks just enough of Salvo's wire for that client: ``POST /v1/games`` (a game id and two seat
tokens), ``GET /healthz``, and the stream websocket (the handshake, ``caught_up``, then per command text
frame a result frame of the size Salvo's is, 433 bytes, with its version counting up). Per command it
does no decoding, deciding, rolling or encoding beyond unmasking the frame, and, by ``--sync``:

  none      answers at once: the network and one event loop (not durable)
  fdatasync writes the command and a 300-byte record into a preallocated 4 MiB file, each after the
            last, in place (as SQLite's log is written in steady state), and fdatasyncs it before answering:
            the least a durable acknowledgement costs (an append's sync also journals the file's size)
  sqlite    inserts one row like Salvo's event row into SQLite (WAL, synchronous=FULL) and commits on the
            loop's thread before answering: what Salvo's store does for a lone command, with no code
            around it
  group     the same rows committed by a writer thread, every command that arrived while the last commit
            was in flight in one transaction (group commit, as Salvo's store does for several busy games),
            each answered once its transaction committed: the ceiling of the 10- and 50-game rows

Each ``POST /v1/games`` makes a new game id, and each socket's rows carry its game's id (the stream's path),
so that several games' rows fall into different pages of the primary key's index, as Salvo's do.

uvloop, as Salvo's server. Run it pinned as the harness pins servers; ``bench/k1_ideal.sh`` does that,
alternating it with boardgame.io's raw client and Salvo itself.

    .venv/bin/python bench/k1_ideal.py --port 18740 --sync sqlite --dir /tmp
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import sqlite3
import tempfile
import threading
from itertools import count

import uvloop

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC11B85"
GAME = {"game_id": "g_ideal000000000", "ruleset": "tiny", "seats": {"red": "r" * 32, "blue": "b" * 32}, "version": 2}
GAME_IDS = (f"g_ideal{n:09d}" for n in count())
INSERT = "INSERT INTO events VALUES (?, ?, 'tiny.shot', 1, 'fire', 'seat:red', ?, '2026-12-03T13:21:09.796263Z', ?, ?)"
RESULT_HEAD = b'{"kind":"result","ref":null,"version":'
# the rest of a shoot's result as Salvo writes it (433 bytes with a one-digit version)
RESULT_TAIL = (
    b',"events":[{"game_id":"g_ideal000000000","seq":3,"type":"tiny.shot","v":1,"turn":1,'
    b'"phase":"fire","actor":"seat:red","recorded_at":"2026-12-03T13:21:09.796263Z","data":{"shooter":'
    b'"red","target":"blue","hit":false},"command_id":"c_0336e4dddfbb0001","rolls":[{"i":0,"die":"d10",'
    b'"value":9,"purpose":"to-hit","rule":"TINY-FIRE","target":5,"outcome":"miss"}],"dice":{"turn":1,'
    b'"base":3,"slot":0}}]}'
)
RECORD = b"e" * 300
RING = 4 << 20


def text_frame(payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 1 << 16:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + payload


class Durable:
    """Where a command goes before it is answered."""

    def __init__(self, sync: str, directory: str) -> None:
        self.sync = sync
        self.seq = 2
        self.fd = -1
        self.offset = 0
        self.db: sqlite3.Connection | None = None
        if sync == "fdatasync":
            path = os.path.join(directory, f"k1-ideal-{os.getpid()}.log")
            self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.write(self.fd, bytes(RING))  # written and synced once: later syncs change no size or extent
            os.fsync(self.fd)
        elif sync in ("sqlite", "group"):
            path = os.path.join(directory, f"k1-ideal-{os.getpid()}.sqlite")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute(
                "CREATE TABLE events (game_id TEXT, seq INTEGER, type TEXT, turn INTEGER, phase TEXT, "
                "actor TEXT, command_id TEXT, recorded_at TEXT, data TEXT, rolls TEXT, "
                "PRIMARY KEY (game_id, seq))"
            )

    def row(self, game_id: str, command: bytes) -> tuple[str, int, str, str, str]:
        self.seq += 1
        return (game_id, self.seq, f"c_{self.seq:016x}", command.decode(), RECORD.decode())

    def append(self, game_id: str, command: bytes) -> int:
        if self.db is not None:
            db = self.db
            db.execute("BEGIN")
            db.execute(INSERT, self.row(game_id, command))
            db.execute("COMMIT")
            return self.seq
        self.seq += 1
        if self.fd >= 0:
            record = command + RECORD
            if self.offset + len(record) > RING:
                self.offset = 0
            os.pwrite(self.fd, record, self.offset)
            self.offset += len(record)
            os.fdatasync(self.fd)
        return self.seq


class GroupWriter:
    """One thread committing whatever arrived since its last commit as one transaction; each command is
    answered on the loop once its transaction committed."""

    def __init__(self, durable: Durable, loop: asyncio.AbstractEventLoop) -> None:
        self.durable, self.loop = durable, loop
        self.pending: list[tuple[tuple[str, int, str, str, str], asyncio.Transport]] = []
        self.lock = threading.Lock()
        self.wake = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def submit(self, game_id: str, command: bytes, transport: asyncio.Transport) -> None:
        with self.lock:
            self.pending.append((self.durable.row(game_id, command), transport))
        self.wake.set()

    def _run(self) -> None:
        db = self.durable.db
        assert db is not None
        while True:
            self.wake.wait()
            with self.lock:
                group, self.pending = self.pending, []
                self.wake.clear()
            if not group:
                continue
            db.execute("BEGIN")
            db.executemany(INSERT, [row for row, _ in group])
            db.execute("COMMIT")
            self.loop.call_soon_threadsafe(_answer, group)


def result_frame(version: int) -> bytes:
    return text_frame(RESULT_HEAD + str(version).encode() + RESULT_TAIL)


def _answer(group: list[tuple[tuple[str, int, str, str, str], asyncio.Transport]]) -> None:
    for row, transport in group:
        transport.write(result_frame(row[1]))


class Connection(asyncio.Protocol):
    def __init__(self, durable: Durable, writer: GroupWriter | None) -> None:
        self.durable = durable
        self.writer = writer
        self.buf = b""
        self.ws = False
        self.game_id = GAME["game_id"]
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.ws:
            self._frames()
        else:
            self._http()

    def _http(self) -> None:
        transport = self.transport
        assert transport is not None
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end].decode("latin-1")
            lines = head.split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            length = int(headers.get("content-length", "0"))
            if len(self.buf) < end + 4 + length:
                return
            self.buf = self.buf[end + 4 + length :]
            method, path = lines[0].split(" ")[:2]
            if headers.get("upgrade", "").lower() == "websocket":
                accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + GUID).digest())
                transport.write(
                    b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
                )
                transport.write(text_frame(b'{"kind":"caught_up","seq":%d}' % self.durable.seq))
                self.ws = True
                if path.startswith("/v1/games/"):
                    self.game_id = path.split("/")[3]
                self._frames()
                return
            if method == "POST" and path == "/v1/games":
                status, body = 201, json.dumps({**GAME, "game_id": next(GAME_IDS)}).encode()
            else:
                status, body = (200, b'{"status":"ok"}') if path == "/healthz" else (404, b"{}")
            transport.write(
                b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (status, len(body))
                + body
            )

    def _frames(self) -> None:
        transport = self.transport
        assert transport is not None
        buf = self.buf
        while len(buf) >= 6:
            opcode, n = buf[0] & 0x0F, buf[1] & 0x7F
            pos = 2
            if n == 126:
                n, pos = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                n, pos = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < pos + 4 + n:
                break
            mask = buf[pos : pos + 4]
            masked = buf[pos + 4 : pos + 4 + n]
            buf = buf[pos + 4 + n :]
            if opcode == 0x8:  # close
                transport.close()
                break
            if opcode != 0x1:
                continue
            payload = bytes(b ^ mask[i & 3] for i, b in enumerate(masked))
            if self.writer is not None:
                self.writer.submit(self.game_id, payload, transport)
                continue
            transport.write(result_frame(self.durable.append(self.game_id, payload)))
        self.buf = buf


async def serve(port: int, durable: Durable) -> None:
    loop = asyncio.get_running_loop()
    writer = GroupWriter(durable, loop) if durable.sync == "group" else None
    server = await loop.create_server(lambda: Connection(durable, writer), "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sync", choices=("none", "fdatasync", "sqlite", "group"), default="sqlite")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where the log or database file goes")
    args = parser.parse_args()
    uvloop.run(serve(args.port, Durable(args.sync, args.dir)))


if __name__ == "__main__":
    main()
