"""CPU per websocket command on the socket side alone, in process: K detached streams (fake transports,
tests/support/detached.py), each a closed loop of `shoot` messages through ``Wire.data_received`` →
``DirectStream.on_text`` → the socket's worker → a stand-in gate (one loop turn, as a commit; its
event published to the fan-out first, so the socket holds it, as the real path does) → ``reply`` →
``transport.write``. No store, no rules: the figure moves with the socket side only (the stand-in's
own cost is in it, the same for every checkout).

    .venv/bin/python bench/bench_ws_answer.py                    # this checkout, K = 10
    .venv/bin/python bench/bench_ws_answer.py --salvo-dir /tmp/base   # another checkout (with its detached.py)

Instructions per command: run it under ``valgrind --tool=callgrind`` at two ``--commands`` (2000 and 6000,
say) and divide the difference of the totals by that of the counts (the start-up cancels out).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = b'{"kind":"command","ref":"r1","command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'
ENVELOPE = (b'{"seq":%d,"at":"2026-12-01T19:00:00.000000Z","actor":{"kind":"seat","name":"red"},'
            b'"event":{"type":"tiny.shot","shooter":"red","target":"blue","hit":true,"damage":3}}')


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--commands", type=int, default=40000)
    p.add_argument("--salvo-dir", default=str(ROOT), help="the checkout whose service is measured")
    p.add_argument("--asyncio", action="store_true", help="the stdlib loop (default: uvloop, the server's)")
    a = p.parse_args()
    sys.path.insert(0, a.salvo_dir)
    import uvloop

    from service.events.decide_append import CommandResult
    from tests.support.detached import detached_stream, masked

    frame = masked(MESSAGE)
    loop = asyncio.new_event_loop() if a.asyncio else uvloop.new_event_loop()
    asyncio.set_event_loop(loop)
    left = [a.commands]

    class Gate:
        def __init__(self) -> None:
            self.version: dict[str, int] = {}

        async def command(self, game_id, viewer, token, address, body, idempotency_key=None,  # noqa: ANN001
                          expected_version=None, request=None) -> CommandResult:  # noqa: ANN001
            done = loop.create_future()
            loop.call_soon(done.set_result, None)
            await done
            v = self.version[game_id] = self.version.get(game_id, 0) + 1
            envelope = ENVELOPE % v
            fanout.deliver(game_id, [(v, {"seat:red": b'{"kind":"event","event":' + envelope + b"}"})])
            return CommandResult(201, b'{"version":%d,"events":[%s]}' % (v, envelope), v, v - 1)

        # the steps of ``command`` a checkout's socket worker may call instead (gate.Gate's)
        def ruleset(self, game_id):  # noqa: ANN001, ANN201
            return "tiny"

        def start(self, game_id, viewer, token, address, body, idempotency_key, expected_version,  # noqa: ANN001, ANN201
                  request):  # noqa: ANN001
            return self.command(game_id, viewer, token, address, body, idempotency_key, expected_version, request)

        def accepted(self, ruleset, viewer, result) -> None:  # noqa: ANN001
            pass

        def failed(self, ruleset, viewer, exc) -> None:  # noqa: ANN001
            pass

    def written(data: bytes, wire) -> None:  # noqa: ANN001 - the client: the next command once answered
        left[0] -= 1
        if left[0] <= 0:
            loop.stop()
        else:
            loop.call_soon(wire.data_received, frame)

    async def start() -> None:
        for i in range(a.games):
            _, transport = detached_stream(gate, f"g{i}", fanout=fanout)
            transport.chunks = None  # type: ignore[assignment]  # kept nowhere: on_write only
            transport.write = lambda data, w=transport.wire: written(data, w)  # type: ignore[method-assign]
            loop.call_soon(transport.wire.data_received, frame)  # type: ignore[union-attr]

    from service.api.fanout import Fanout
    gate, fanout = Gate(), Fanout(1 << 20)
    loop.run_until_complete(start())
    cpu = time.process_time()
    loop.run_forever()
    cpu = time.process_time() - cpu
    print(f"{cpu / a.commands * 1e6:.2f} µs/command ({a.commands} commands, {a.games} sockets, "
          f"fan-out holds written {fanout.replies_held})")


if __name__ == "__main__":
    main()
