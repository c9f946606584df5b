"""A detached socket's commands are answered by one worker Task that lives with the socket (woken per
message, not a Task per message): a real Task (what redis.asyncio's publish needs under the gate), the
answers in the order sent whether they come in one read or several, a failure answered without ending
the worker, and the worker gone once the connection is."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from service.api.fast.fanout import text_frame
from service.events.decide_append import CommandResult
from tests.support.detached import detached_stream, masked

ANSWER = b'{"kind":"result"}'
BODY = '{"version":%d,"events":[{"seq":%d,"type":"tiny.shot"}]}'


class Gate:
    def __init__(self) -> None:
        self.version = 0
        self.tasks: list[asyncio.Task[object] | None] = []
        self.landing: Callable[[], None] | None = None  # what the game does once the answer may go out
        self.fail_landing = False  # the landing raises (after the command is durable)

    async def command(
        self,
        game_id,
        viewer,
        token,
        address,
        body,
        idempotency_key=None,
        expected_version=None,
        request=None,
        on_durable=None,
    ) -> CommandResult:
        self.tasks.append(asyncio.current_task())
        await asyncio.sleep(0)  # as a commit: the answer comes on a later turn of the loop
        self.version += 1
        v = self.version
        result = CommandResult(201, (BODY % (v, v)).encode(), v, v - 1)
        if on_durable is not None:  # as CommandPipeline.handle: durable, then the answer, then the landing
            on_durable(result)
        if self.landing is not None:
            self.landing()
        if self.fail_landing:
            raise RuntimeError("the landing failed")
        return result

    # the steps of ``command`` the socket's worker calls (gate.Gate's): the count is left out here
    def ruleset(self, game_id: str) -> str:
        return "tiny"

    def start(self, game_id, viewer, token, address, body, idempotency_key, expected_version, request, on_durable=None):
        return self.command(
            game_id, viewer, token, address, body, idempotency_key, expected_version, request, on_durable
        )

    def accepted(self, ruleset, viewer, result) -> None:
        pass

    def failed(self, ruleset, viewer, exc) -> None:
        pass


def _command(ref: str) -> bytes:
    return masked(json.dumps({"kind": "command", "ref": ref, "command": {"type": "tiny.shoot"}}).encode())


async def _settle(transport, count: int) -> None:
    for _ in range(200):
        if len(transport.messages()) >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{count} answers expected, got {transport.messages()}")


def test_one_worker_task_answers_every_message_in_order_and_ends_with_the_socket() -> None:
    async def run() -> None:
        gate = Gate()
        stream, transport = detached_stream(gate, "g1")
        wire = transport.wire
        assert wire is not None
        for i in range(3):  # one message per read, each answered before the next
            wire.data_received(_command(f"r{i}"))
            await _settle(transport, i + 1)
        worker = stream._worker
        assert worker is not None and not worker.done()
        wire.data_received(_command("b0") + masked(b'{"kind":"nope","command":{}}') + _command("b1"))
        await _settle(transport, 6)
        answers = transport.messages()
        assert [(m["kind"], m["ref"]) for m in answers] == [
            ("result", "r0"),
            ("result", "r1"),
            ("result", "r2"),
            ("result", "b0"),
            ("error", None),
            ("result", "b1"),
        ]
        assert [m["version"] for m in answers if m["kind"] == "result"] == [1, 2, 3, 4, 5]
        assert answers[4]["field"] == "kind"
        assert stream._worker is worker  # the same Task throughout: none made per message
        assert gate.tasks == [worker] * 5  # the gate runs inside that real Task
        assert stream.sink.last == 5 and stream.sink.held is None
        wire.connection_lost(None)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert worker.done() and not worker.cancelled()
        assert stream._worker is None and stream._wake is None

    asyncio.run(run())


def test_a_socket_lost_while_its_command_flies_lets_the_command_end() -> None:
    async def run() -> None:
        gate = Gate()
        stream, transport = detached_stream(gate, "g1")
        assert transport.wire is not None
        transport.wire.data_received(_command("r0"))
        await asyncio.sleep(0)  # the worker is inside the gate
        worker = stream._worker
        assert worker is not None and gate.tasks == [worker]
        transport.wire.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        assert gate.version == 1 and worker.done() and not worker.cancelled()
        assert transport.messages() == []  # its answer found the socket closed

    asyncio.run(run())


def _watched_landing() -> tuple[Gate, Any, Any, Any, list[list[str]]]:
    """A detached stream on a gate whose landing records the refs already on the wire when it runs."""
    gate = Gate()
    stream, transport = detached_stream(gate, "g1")
    wire = transport.wire
    assert wire is not None
    on_the_wire: list[list[str]] = []
    gate.landing = lambda: on_the_wire.append([m["ref"] for m in transport.messages()])
    return gate, stream, transport, wire, on_the_wire


def test_a_durable_result_is_written_before_the_landing_and_a_failure_after_it_is_not_answered() -> None:
    """The worker hands the pipeline its early answer: the result is on the wire when the game's heads and
    other sockets learn of the command (the landing), not after; should the landing fail, the command is
    durable and answered already: no error follows it, and the worker goes on."""

    async def run() -> None:
        gate, stream, transport, wire, on_the_wire = _watched_landing()
        wire.data_received(_command("r0"))
        await _settle(transport, 1)
        assert on_the_wire == [["r0"]]  # written before the landing ran
        assert stream.sink.last == 1 and stream.sink.held is None and stream._in_flight == 0
        gate.fail_landing = True
        wire.data_received(_command("r1"))
        await _settle(transport, 2)
        gate.fail_landing = False
        wire.data_received(_command("r2"))
        await _settle(transport, 3)
        for _ in range(5):
            await asyncio.sleep(0)
        answers = transport.messages()
        assert [(m["kind"], m["ref"], m.get("version")) for m in answers] == [
            ("result", "r0", 1),
            ("result", "r1", 2),
            ("result", "r2", 3),
        ]  # no error after r1's result
        assert stream.sink.last == 3 and stream._in_flight == 0 and not stream._answered
        wire.connection_lost(None)

    asyncio.run(run())


def test_a_game_with_a_large_audience_answers_after_the_landing(monkeypatch) -> None:
    """Past EARLY_ANSWER_SOCKETS listening sockets the result waits for the landing (its fan-out): the
    commanding client is paced by what the audience can be sent."""
    from service.api.fast import direct_stream

    async def run() -> None:
        gate, stream, transport, wire, on_the_wire = _watched_landing()
        monkeypatch.setattr(direct_stream, "EARLY_ANSWER_SOCKETS", 1)
        wire.data_received(_command("r0"))  # one socket: answered first
        await _settle(transport, 1)
        monkeypatch.setattr(direct_stream, "EARLY_ANSWER_SOCKETS", 0)
        wire.data_received(_command("r1"))  # "more than 0" listen: after the landing
        await _settle(transport, 2)
        assert on_the_wire == [["r0"], ["r0"]]
        assert [(m["kind"], m["ref"], m["version"]) for m in transport.messages()] == [
            ("result", "r0", 1),
            ("result", "r1", 2),
        ]
        assert stream.sink.last == 2 and stream._in_flight == 0
        wire.connection_lost(None)

    asyncio.run(run())


def _reference_reply(
    held: list[tuple[int, bytes]], last: int, answer: bytes, result: CommandResult | None, carry: bool
) -> tuple[bytes, int]:
    """The reply's writes as DirectStream.reply wrote them before its single-frame case: the held messages
    (framed) up to the result's ``after``, the result (accounted for), then those past it."""
    out, i, after = [], 0, result.after if result is not None else None
    while i < len(held) and (after is None or held[i][0] <= after):
        seq, message = held[i]
        i += 1
        if seq > last:
            out.append(text_frame(message))
            last = seq
    if (
        result is not None
        and carry
        and result.after is not None
        and result.version is not None
        and last == result.after
    ):
        last = result.version
    out.append(text_frame(answer))
    for seq, message in held[i:]:
        if seq > last:
            out.append(text_frame(message))
            last = seq
    return b"".join(out), last


def test_a_reply_writes_what_the_general_case_writes_for_every_hold_and_result() -> None:
    async def run() -> None:
        cases = 0
        for carry in (True, False):
            for last in (3, 5):
                for first, count in [(last + 1, 0), (last + 1, 1), (last + 1, 3), (last + 2, 2), (last - 1, 3)]:
                    held = [(seq, b"frame %d" % seq) for seq in range(first, first + count)]
                    results: list[CommandResult | None] = [None, CommandResult(201, b"{}", None, None)]
                    results += [
                        CommandResult(201, b"{}", after + k, after)
                        for after in range(last - 2, last + 5)
                        for k in (1, 2, 3)
                    ]
                    for result in results:
                        stream, transport = detached_stream(Gate(), "g1", own_events=carry, last=last)
                        stream.sink.held = list(held)
                        stream._write_reply(stream.sink.held, ANSWER, result)
                        expected = _reference_reply(held, last, ANSWER, result, carry)
                        assert (b"".join(transport.chunks), stream.sink.last) == expected, (carry, last, held, result)
                        assert stream.sink.held is None and len(transport.chunks) == 1
                        cases += 1
        assert cases > 300

    asyncio.run(run())
