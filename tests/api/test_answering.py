"""``direct_stream._Answering``: a socket's answering coroutine driven without a Task — run at once up to
its first wait, then on from the done-callback of what it awaits (a future's result or exception read
inside, a bare yield continued in the next loop turn), in the stream's context."""

from __future__ import annotations

import asyncio
import contextvars

from service.api.direct_stream import _Answering

where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="outside")


async def test_runs_at_once_then_on_from_what_it_awaits() -> None:
    loop = asyncio.get_running_loop()
    steps: list[object] = []
    first: asyncio.Future[int] = loop.create_future()
    failing: asyncio.Future[int] = loop.create_future()
    context = contextvars.copy_context()
    context.run(where.set, "stream")

    async def answer() -> None:
        steps.append(("start", where.get()))
        steps.append(("result", await first))
        try:
            await failing
        except ValueError as exc:
            steps.append(("raised", str(exc)))
        await asyncio.sleep(0)  # a bare yield
        steps.append(("end", where.get(), asyncio.current_task()))

    driver = _Answering(context)
    driver.start(answer())
    assert steps == [("start", "stream")]  # synchronously, up to the first wait
    first.set_result(7)
    await asyncio.sleep(0)
    assert steps[1:] == [("result", 7)]
    failing.set_exception(ValueError("no"))
    for _ in range(3):
        await asyncio.sleep(0)
    assert steps[2:] == [("raised", "no"), ("end", "stream", None)]  # no Task ran it
    assert driver.coro is None and where.get() == "outside"


async def test_an_answer_ready_at_once_needs_no_loop_turn() -> None:
    done: list[str] = []

    async def answer() -> None:
        done.append("answered")

    driver = _Answering(None)
    driver.start(answer())
    assert done == ["answered"] and driver.coro is None


async def test_an_unexpected_failure_is_logged_not_raised(caplog) -> None:
    async def answer() -> None:
        raise KeyError("bug")

    _Answering(None).start(answer())
    assert "answering a socket's commands failed" in caplog.text
