"""Chess-style clocks (issue 39, docs/deadlines.md): a time bank per seat, consumed while the game waits
for that seat, fired exactly once when it runs out, like a deadline.

A game's clock rule (``seconds`` in each seat's bank, an optional ``increment`` given back each time a seat
stops being awaited, the ``command`` to append) is set at creation (``options.clock``) or by the umpire (a
``clock.set`` event). The domain never reads the clock: the banks live beside the log in the ``clocks``
table (migration 0009), and the deadline scheduler (``deadlines.Deadlines.tick``) drives them:

1. *Track*: a game whose log moved since its row was looked at has its running seats charged up to now
   (``settle``); the seats no longer awaited get the increment, the seats the game now waits for (the
   umpire's drawing status: ``seat_status.seat_now``) start running (``advance``). The resolution is one
   scheduler tick (0.5 s by default): a move is charged up to the tick that sees it.
2. *Fire*: the row due (the first running bank empty) is claimed as a deadline's is (a row lock on
   PostgreSQL, a lease on SQLite), then the service appends ``clock.ran_out`` naming the seats out of time
   and the rule's command as the umpire, under Idempotency-Key ``clock:<seq of that event>``. A retry after
   a crash finds that event at the log's head and re-sends the command under the same key.

The command fires when the game waits only for seats out of time: a seat whose bank runs out while another
awaited seat still has time (a simultaneous phase) waits for that seat to act or run out too, so nobody's
move is forced while it has time left. A seat out of time keeps an empty bank (plus its increments): each
time the game waits only for it again, the command is appended at once: the game goes on without its moves.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from sqlalchemy import Engine, delete, insert, select, update

from service.domain.core import UMPIRE, Actor, Ruleset, RuleViolation, find_ruleset, seat
from service.domain.core.registry import UnknownRuleset

from . import ids
from .application import GameService
from .deadlines import MAX_SECONDS, _iso, _ms, checked_command, claim_and_fire
from .errors import AppError, Forbidden, GameNotFound, InvalidRequest
from .head import GameHead
from .rows import event_row, now_iso
from .seat_status import seat_now
from .table_events import ClockRanOut, ClockSet
from .tables import CLOCKS

log = logging.getLogger("salvo.clocks")

RAN_OUT_TYPES = ("clock.ran_out",)


# --- the arithmetic (no clock read here: ``now`` is given) -------------------------------------------


class Banks(msgspec.Struct, frozen=True):
    """Each seat's time left (ms) as of ``since`` (epoch ms), and the seats whose clocks run."""

    left: dict[str, int]
    running: tuple[str, ...]
    since: int


def start(seats: Iterable[str], seconds: int, awaited: Iterable[str], now: int) -> Banks:
    """Every seat with ``seconds`` in its bank; the awaited seats' clocks run from ``now``."""
    left = {s: seconds * 1000 for s in seats}
    return Banks(left, tuple(s for s in left if s in set(awaited)), now)


def settle(banks: Banks, now: int) -> Banks:
    """The banks at ``now``: each running seat charged the time since ``since`` (never below empty)."""
    spent = max(0, now - banks.since)
    left = {s: max(0, ms - spent) if s in banks.running else ms for s, ms in banks.left.items()}
    return Banks(left, banks.running, max(now, banks.since))


def advance(banks: Banks, now: int, awaited: Iterable[str], increment: int) -> Banks:
    """The game moved at ``now`` and waits for ``awaited``: the running seats are charged, each seat no
    longer awaited gets ``increment`` seconds back (Fischer), and the awaited seats' clocks run."""
    settled = settle(banks, now)
    wanted = set(awaited)
    left = dict(settled.left)
    for s in settled.running:
        if s not in wanted:
            left[s] += increment * 1000
    return Banks(left, tuple(s for s in left if s in wanted), settled.since)


def due_at(banks: Banks) -> int | None:
    """When the game waits only for seats out of time (epoch ms): at once when it does already, else when
    the first running bank with time left runs out; None when no clock runs."""
    if not banks.running:
        return None
    left = [banks.left[s] for s in banks.running if banks.left[s] > 0]
    return banks.since + min(left) if left else banks.since


def ran_out(banks: Banks, now: int) -> tuple[str, ...]:
    """The seats the game waits for when every one of them is out of time at ``now`` (else none: a seat
    out of time waits while another awaited seat still has time to act)."""
    settled = settle(banks, now)
    if settled.running and all(settled.left[s] <= 0 for s in settled.running):
        return settled.running
    return ()


def seconds_left(banks: Banks, now: int) -> dict[str, float]:
    settled = settle(banks, now)
    return {s: round(ms / 1000, 3) for s, ms in settled.left.items()}


def awaited(head: GameHead) -> tuple[str, ...]:
    """The seats the game waits for now (the umpire's drawing status; without a drawing, the seats that
    have options); none once it is over."""
    ruleset, state = head.ruleset, head.state
    if ruleset.is_over(state):
        return ()
    if ruleset.draw(state, UMPIRE) is not None:
        return seat_now(ruleset, state, UMPIRE).whose_move
    return tuple(s for s in head.seats if ruleset.options(state, seat(s)))


# --- the rule ------------------------------------------------------------------------------------------


class ClockRule(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A game's clocks: ``seconds`` in each seat's bank, ``increment`` seconds back each time a seat stops
    being awaited, then ``command`` (default: the ruleset's force-phase command) as the umpire."""

    seconds: int
    increment: int = 0
    command: dict[str, Any] = {}


def parse_clock(raw: Any, ruleset: Ruleset, field: str = "clock") -> ClockRule:
    """A clock rule from JSON, checked against the ruleset (422 naming the field)."""
    try:
        rule = msgspec.convert(raw, ClockRule)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(f"{field}: {exc}", field=field) from None
    if not 1 <= rule.seconds <= MAX_SECONDS:
        raise InvalidRequest(f"{field}.seconds is between 1 and {MAX_SECONDS}", field=f"{field}.seconds")
    if not 0 <= rule.increment <= MAX_SECONDS:
        raise InvalidRequest(f"{field}.increment is between 0 and {MAX_SECONDS}", field=f"{field}.increment")
    command = checked_command(rule.command, ruleset, field)
    return ClockRule(seconds=rule.seconds, increment=rule.increment, command=command)


def clock_from_options(ruleset_name: str, options: dict[str, Any]) -> ClockRule | None:
    """A new game's ``options.clock`` (None when it has none); an unknown ruleset is left to creation."""
    if options.get("clock") is None:
        return None
    try:
        ruleset = find_ruleset(ruleset_name)
    except UnknownRuleset:
        return None
    return parse_clock(options["clock"], ruleset, "options.clock")


def _banks(row: Any) -> Banks:
    return Banks(msgspec.json.decode(row.banks), tuple(msgspec.json.decode(row.running)), row.since)


def _values(banks: Banks) -> dict[str, Any]:
    return {
        "banks": msgspec.json.encode(banks.left).decode(),
        "running": msgspec.json.encode(banks.running).decode(),
        "since": banks.since,
    }


def _check_left(head: GameHead, left: dict[str, Any]) -> None:
    """``left``: seats of the game, each given 0 to MAX_SECONDS seconds."""
    for s, secs in left.items():
        if s not in head.seats:
            raise InvalidRequest(f"left: {s!r} is not a seat of this game", field="left")
        if not (isinstance(secs, int | float) and 0 <= secs <= MAX_SECONDS):
            raise InvalidRequest(f"left.{s} is between 0 and {MAX_SECONDS} seconds", field="left")


class Clocks:
    """The clock rows of one database; fired by the deadline scheduler's tick."""

    def __init__(self, service: GameService, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.service = service
        self.engine = engine
        self.clock = clock

    async def install(self, game_id: str, rule: ClockRule, head: GameHead) -> None:
        """The game's clocks, every bank full, the awaited seats' running from now."""
        now = _ms(self.clock())
        banks = start(head.seats, rule.seconds, awaited(head), now)
        clock = head.ruleset.clock(head.state)
        values = {
            "seconds": rule.seconds,
            "increment": rule.increment,
            "command": msgspec.json.encode(rule.command).decode(),
            **_values(banks),
            "turn": clock.turn,
            "phase": clock.phase,
            "due_at": due_at(banks),
            "checked_seq": head.seq,
            "lease_until": None,
        }

        def write() -> None:
            with self.engine.begin() as conn:
                changed = conn.execute(update(CLOCKS).where(CLOCKS.c.game_id == game_id).values(**values))
                if changed.rowcount == 0:
                    conn.execute(insert(CLOCKS).values(game_id=game_id, **values))

        await asyncio.to_thread(write)

    async def change(self, game_id: str, actor: Actor, raw: dict[str, Any]) -> dict[str, Any] | None:
        """The umpire sets the clocks (every bank full, from now), removes them (``seconds`` null) or gives
        seats another time left (``left`` alone): a ``clock.set`` event in the log, and the row."""
        if not actor.is_umpire:
            raise Forbidden("only the umpire may change a game's clocks")
        head = await self.service.head(game_id)
        left = raw.get("left") or {}
        _check_left(head, left)
        event, rule = await self._clock_event(game_id, head, raw, left)

        async def rows(head: GameHead) -> list[dict[str, Any]]:
            clock = head.ruleset.clock(head.state)
            return [
                event_row(
                    head.codec, game_id, head.seq + 1, event, clock.turn, clock.phase, actor.label,
                    ids.command_id(), now_iso(), None,
                )
            ]  # fmt: skip

        head = await self.service.append_and_refold(game_id, rows)
        if event.seconds is None:
            await asyncio.to_thread(self._delete, game_id)
        elif rule is not None:
            await self.install(game_id, rule, head)
        if left:
            await asyncio.to_thread(self._give, game_id, left)
        await self.service.announce(game_id, head.seq)
        return await self.view(game_id)

    async def _clock_event(
        self, game_id: str, head: GameHead, raw: dict[str, Any], left: dict[str, float]
    ) -> tuple[ClockSet, ClockRule | None]:
        """The ``clock.set`` event the request asks for, and the new rule when it sets the clocks."""
        if "seconds" in raw and raw["seconds"] is None:
            return ClockSet(seconds=None), None
        if "seconds" in raw:
            body = {k: raw[k] for k in ("seconds", "increment", "command") if k in raw}
            rule = parse_clock(body, head.ruleset)
            return ClockSet(seconds=rule.seconds, increment=rule.increment, command=rule.command, left=left), rule
        if not left:
            raise InvalidRequest("send seconds (null: no clocks) or left", field="seconds")
        current = await self.view(game_id)
        if current is None:
            raise InvalidRequest("the game has no clocks: set seconds first", field="seconds")
        event = ClockSet(
            seconds=current["seconds"], increment=current["increment"], command=current["command"], left=left
        )
        return event, None

    def _give(self, game_id: str, given: dict[str, float]) -> None:
        now = _ms(self.clock())
        with self.engine.begin() as conn:
            row = conn.execute(select(CLOCKS).where(CLOCKS.c.game_id == game_id)).first()
            if row is None:
                return
            banks = settle(_banks(row), now)
            left = {**banks.left, **{s: int(secs * 1000) for s, secs in given.items()}}
            banks = Banks(left, banks.running, banks.since)
            conn.execute(
                update(CLOCKS).where(CLOCKS.c.game_id == game_id).values(**_values(banks), due_at=due_at(banks))
            )

    def _delete(self, game_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(CLOCKS).where(CLOCKS.c.game_id == game_id))

    async def view(self, game_id: str) -> dict[str, Any] | None:
        """What a view shows: the rule, each seat's time left now, whose clocks run (None: no clocks)."""

        def read() -> Any:
            with self.engine.connect() as conn:
                return conn.execute(select(CLOCKS).where(CLOCKS.c.game_id == game_id)).first()

        row = await asyncio.to_thread(read)
        if row is None:
            return None
        banks = _banks(row)
        return {
            "seconds": row.seconds,
            "increment": row.increment,
            "command": msgspec.json.decode(row.command),
            "turn": row.turn,
            "phase": row.phase,
            "running": list(banks.running),
            "seconds_left": seconds_left(banks, _ms(self.clock())),
            "due_at": None if row.due_at is None else _iso(row.due_at),
        }

    # --- driven by the deadline scheduler's tick --------------------------------------------------------

    async def tick(self) -> int:
        rows = await asyncio.to_thread(self._rows)
        if not rows:
            return 0
        seqs = await self.service.store.heads([r.game_id for r in rows])  # type: ignore[attr-defined]  # SQL stores
        for row in rows:
            if seqs.get(row.game_id, 0) != row.checked_seq:
                await self._track(row)
        now = _ms(self.clock())
        fired = 0
        for game_id in await asyncio.to_thread(self._due, now):
            fired += await claim_and_fire(self.engine, self.clock, CLOCKS, game_id, self._fire_row)
        return fired

    def _rows(self) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(CLOCKS.c.game_id, CLOCKS.c.checked_seq)))

    def _due(self, now: int) -> list[str]:
        with self.engine.connect() as conn:
            return [r.game_id for r in conn.execute(select(CLOCKS.c.game_id).where(CLOCKS.c.due_at <= now))]

    async def _track(self, seen: Any) -> None:
        try:
            head = await self.service.current_head(seen.game_id)
        except GameNotFound:
            await asyncio.to_thread(self._delete, seen.game_id)
            return
        now = _ms(self.clock())
        waiting = awaited(head)
        clock = head.ruleset.clock(head.state)

        def write() -> None:
            with self.engine.begin() as conn:
                row = conn.execute(select(CLOCKS).where(CLOCKS.c.game_id == seen.game_id)).first()
                if row is None or row.checked_seq != seen.checked_seq:
                    return  # changed meanwhile (another replica, the umpire): the next tick looks again
                banks = advance(_banks(row), now, waiting, row.increment)
                conn.execute(
                    update(CLOCKS)
                    .where(CLOCKS.c.game_id == row.game_id, CLOCKS.c.checked_seq == row.checked_seq)
                    .values(
                        **_values(banks), turn=clock.turn, phase=clock.phase, due_at=due_at(banks), checked_seq=head.seq
                    )
                )

        await asyncio.to_thread(write)

    async def _fire_row(self, row: Any) -> dict[str, Any]:
        """Append ``clock.ran_out`` and the command for the seats out of time (once: see the module's
        docstring); returns the row's new values."""
        game_id = row.game_id
        try:
            head = await self.service.current_head(game_id)
        except GameNotFound:
            return {"due_at": None}
        if head.ruleset.is_over(head.state):
            return {"due_at": None}
        events = await self.service.store.read_events_of_types(game_id, RAN_OUT_TYPES)
        if events and int(events[-1].seq) == head.seq:  # stopped before its command: send it again
            return await self._send(row, head, int(events[-1].seq), {})
        if head.seq != row.checked_seq:
            return {"checked_seq": -1}  # the game moved: the next track charges and re-arms it
        now = _ms(self.clock())
        banks = settle(_banks(row), now)
        out = ran_out(banks, now)
        if not out:
            return {**_values(banks), "due_at": due_at(banks)}
        clock = head.ruleset.clock(head.state)
        event = ClockRanOut(
            seats=out,
            turn=clock.turn,
            phase=clock.phase,
            seconds=row.seconds,
            increment=row.increment,
            at=_iso(min(now, row.since + max(_banks(row).left[s] for s in out))),
            command=msgspec.json.decode(row.command)["type"],
        )

        async def rows(head: GameHead) -> list[dict[str, Any]]:
            return [
                event_row(
                    head.codec, game_id, head.seq + 1, event, clock.turn, clock.phase, "system",
                    ids.command_id(), now_iso(), None,
                )
            ]  # fmt: skip

        head = await self.service.append_and_refold(game_id, rows)
        await self.service.announce(game_id, head.seq)
        return await self._send(row, head, head.seq, _values(banks))

    async def _send(self, row: Any, head: GameHead, ran_out_seq: int, values: dict[str, Any]) -> dict[str, Any]:
        body = b'{"command":' + row.command.encode() + b"}"
        try:
            await self.service.handle_command(head.game_id, UMPIRE, body, idempotency_key=f"clock:{ran_out_seq}")
        except (RuleViolation, AppError) as exc:
            log.info("a clock's command was refused", extra={"game_id": head.game_id, "reason": str(exc)})
            return {**values, "due_at": None, "checked_seq": ran_out_seq}  # moot until the log moves
        return {**values, "due_at": None, "checked_seq": -1, "fired": row.fired + 1, "fired_now": True}
