"""``Wire.data_received``: a read that is one whole small text message goes straight to the stream; every
other read (longer lengths, split, several frames, past a close, over ``max_size``) through the frame
parser. Both give the stream the same messages."""

from __future__ import annotations

import asyncio

from websockets.speedups import apply_mask

from service.api.fast.wsprotocol import Wire
from tests.support.detached import MASK, FakeTransport
from tests.support.detached import masked as _masked


def masked(payload: bytes) -> bytes:
    """A client's text frame, in whichever length form its size takes."""
    if len(payload) < 1 << 16:
        return _masked(payload)
    return b"\x81\xff" + len(payload).to_bytes(8, "big") + MASK + apply_mask(payload, MASK)


class Handler:
    def __init__(self) -> None:
        self.texts: list[bytes] = []
        self.closing = 0

    def on_text(self, payload: bytes) -> None:
        self.texts.append(payload)

    def on_binary(self) -> None: ...

    def on_closing(self) -> None:
        self.closing += 1

    def on_lost(self) -> None: ...


def _wire(max_size: int = 1 << 20) -> tuple[Wire, Handler, FakeTransport]:
    handler, transport = Handler(), FakeTransport()
    return Wire(transport, handler, max_size, set(), False), handler, transport  # type: ignore[arg-type]


def test_whole_messages_of_every_length_form_arrive_intact_in_one_read_or_many() -> None:
    async def run() -> None:
        payloads = [b"", b"{}", b"x" * 124, b"y" * 125, b"z" * 126, b"w" * 70_000]
        wire, handler, _ = _wire()
        for p in payloads:  # one read each
            wire.data_received(masked(p))
        assert handler.texts == payloads
        wire, handler, _ = _wire()
        data = b"".join(masked(p) for p in payloads)
        for i in range(0, len(data), 7):  # split anywhere, several frames per read
            wire.data_received(data[i : i + 7])
        assert handler.texts == payloads
        wire, handler, _ = _wire()
        wire.data_received(masked(b"ab") + masked(b"cd"))  # two whole small messages in one read
        assert handler.texts == [b"ab", b"cd"]

    asyncio.run(run())


def test_a_small_message_past_a_close_or_over_the_limit_is_not_passed_on() -> None:
    async def run() -> None:
        wire, handler, transport = _wire()
        wire.close(1000, "bye", 5.0)
        wire.data_received(masked(b"{}"))  # past our close: discarded until the client's close
        assert handler.texts == [] and handler.closing == 1
        wire._expire()
        wire, handler, transport = _wire(max_size=10)
        wire.data_received(masked(b"x" * 11))
        assert handler.texts == [] and transport.closing  # 1009
        assert transport.chunks[-1][:4] == b"\x88" + bytes((len(transport.chunks[-1]) - 2,)) + (1009).to_bytes(2, "big")
        wire._expire()

    asyncio.run(run())
