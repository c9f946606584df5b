"""CPU per received websocket message on the receive path alone, uvicorn's way against the Wire's, in one
process with a fake transport (no sockets, no kernel): CPU time (``time.process_time``), so the figure
holds on a loaded machine.

    .venv/bin/python bench/bench_ws_receive.py [--messages 20000]

uvicorn's: ``data_received`` → websockets' parser → uvicorn's queue → the ASGI task wakes → Starlette's
``WebSocket.receive`` → the app's loop (one middleware layer, as an ASGI app has at least that).
The Wire's (api/wsprotocol.py): ``data_received`` → our parser → ``on_text`` → one Task per message.
Both end in the same handler (``check_json`` and a future set); the whole command is not included.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import time
from typing import Any

from starlette.websockets import WebSocket
from uvicorn.config import Config
from uvicorn.server import ServerState

from service.api.wsprotocol import SalvoWebSocketProtocol, Wire
from service.events.inputs import check_json, text_bytes


class FakeTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.out = 0
        self.protocol: Any = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.out += len(data)

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...

    def get_write_buffer_size(self) -> int:
        return 0

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol

    def close(self) -> None: ...


def masked_text(payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes((0x81, 0x80 | n)) if n < 126 else bytes((0x81, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


HANDSHAKE = (b"GET /stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: " + base64.b64encode(b"0123456789abcdef") + b"\r\nSec-WebSocket-Version: 13\r\n\r\n")
MESSAGE = json.dumps({"kind": "command", "ref": "r1", "command": {"type": "tiny.shoot", "shooter": "red",
                                                                  "target": "blue"}}).encode()


async def run(n: int, detach: bool) -> float:
    loop = asyncio.get_running_loop()
    done: list[asyncio.Future[None]] = []

    def handled(raw: bytes) -> None:
        check_json(raw)
        done[0].set_result(None)

    class Handler:  # what DirectStream does on a Wire: check, then one Task for the answer
        def on_text(self, payload: bytes) -> None:
            check_json(payload)
            loop.create_task(answer())

        def on_binary(self) -> None: ...

        def on_closing(self) -> None: ...

        def on_lost(self) -> None: ...

    async def answer() -> None:
        done[0].set_result(None)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        if detach:
            send.__self__.detach(Handler())
            return
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            handled(text_bytes(message["text"]))

    async def middleware(scope: Any, receive: Any, send: Any) -> None:  # one layer, as every app has some
        async def wrapped_send(message: Any) -> None:
            await send(message)

        await app(scope, receive, wrapped_send if not detach else send)

    config = Config(middleware, ws_max_size=65536, ws_ping_interval=None, log_config=None, log_level="warning")
    config.load()
    config.loaded_app = middleware
    state = ServerState()
    transport = FakeTransport()
    protocol = SalvoWebSocketProtocol(config, state, {}, _loop=loop)
    protocol.connection_made(transport)
    protocol.data_received(HANDSHAKE)
    for _ in range(20):
        await asyncio.sleep(0)
    target = transport.protocol if detach else protocol
    assert isinstance(target, Wire) == detach, target
    frames = [masked_text(MESSAGE) for _ in range(64)]
    start = time.process_time()
    for i in range(n):
        done[:] = [loop.create_future()]
        target.data_received(frames[i % 64])
        await done[0]
    spent = (time.process_time() - start) / n * 1e6
    (transport.protocol or protocol).connection_lost(None)  # the app's loop sees its disconnect and ends
    for _ in range(20):
        await asyncio.sleep(0)
    return spent


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--messages", type=int, default=20_000)
    a = p.parse_args()
    for label, detach in (("uvicorn queue → ASGI task → Starlette receive", False), ("Wire → on_text", True)):
        best = min(asyncio.run(run(a.messages, detach)) for _ in range(3))
        print(f"{label}: {best:.1f} µs CPU per message (best of 3, {a.messages:,} messages)")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
