"""Deadlines (issue 39, docs/deadlines.md): a durable timer per game beside the log, fired exactly once.

A game's deadline rule (``per`` phase or turn, ``seconds``, the ``command`` to append) is set at creation
(``options.deadline``) or by the umpire (a ``deadline.set`` event). Its row in ``deadlines`` holds the
clock point the current deadline is for and when it falls. The domain never reads the clock: this
scheduler does, every ``SALVO_DEADLINE_TICK_SECONDS``:

1. *Track*: a game whose log moved since its row was looked at has its clock read; a new point (phase,
   or turn) starts a new deadline, ``seconds`` from now; a finished game has none.
2. *Fire*: a due row is claimed (PostgreSQL: ``SELECT … FOR UPDATE SKIP LOCKED``, held while it fires;
   SQLite: a lease written by an atomic UPDATE, the single writer), then the service appends a
   ``deadline.passed`` event and the rule's command as the umpire, an ordinary command whose
   Idempotency-Key is ``deadline:<seq of that event>``. A retry after a crash at any point finds the event
   for the current phase in the log and re-sends the command under the same key: the pipeline answers
   the original result and appends nothing. So one deadline appends its command once, across restarts
   and replicas.

Per turn, the deadline stays due once it has passed: each phase left in the turn is forced in turn
(one ``deadline.passed`` each) until the turn changes. A refused command (the rules say no) makes the
deadline moot until the next point.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Union

import msgspec
from sqlalchemy import Engine, Table, delete, insert, select, update

from service.domain.core import UMPIRE, Actor, Ruleset, RuleViolation, find_ruleset
from service.domain.core.registry import UnknownRuleset

from . import ids
from .application import GameService
from .errors import AppError, Forbidden, GameNotFound, InvalidRequest
from .head import GameHead
from .rows import event_row, now_iso
from .storage_faults import noted_as_storage_fault
from .table_events import DeadlinePassed, DeadlineSet
from .tables import DEADLINES

log = logging.getLogger("salvo.deadlines")

MAX_SECONDS = 90 * 24 * 3600  # a correspondence game's week, with room to spare
LEASE_MS = 30_000  # a SQLite claim lapses after this: a process that died firing is replaced
# rulesets whose "the umpire moves the game on" command is not <name>.force_phase
FORCE_COMMANDS = {"ftcampaign": "ftcampaign.close_turn"}
PASSED_TYPES = ("deadline.passed",)


class DeadlineRule(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A game's deadlines: ``seconds`` from the start of each ``per`` (phase or turn), then ``command``
    (default: the ruleset's own force-phase command, or the campaign's close of the week) as the umpire."""

    per: str
    seconds: int
    command: dict[str, Any] = {}


def force_command(ruleset: Ruleset) -> dict[str, Any] | None:
    """The ruleset's command that moves the game on whoever has not acted (the umpire's)."""
    tags = {t.__struct_config__.tag for t in ruleset.command_types}
    for tag in (f"{ruleset.name}.force_phase", FORCE_COMMANDS.get(ruleset.name)):
        if tag in tags:
            return {"type": tag}
    return None


def parse_rule(raw: Any, ruleset: Ruleset, field: str = "deadline") -> DeadlineRule:
    """A deadline rule from JSON, checked against the ruleset (422 naming the field)."""
    try:
        rule = msgspec.convert(raw, DeadlineRule)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(f"{field}: {exc}", field=field) from None
    if rule.per not in ("phase", "turn"):
        raise InvalidRequest(f"{field}.per is phase or turn", field=f"{field}.per")
    if not 1 <= rule.seconds <= MAX_SECONDS:
        raise InvalidRequest(f"{field}.seconds is between 1 and {MAX_SECONDS}", field=f"{field}.seconds")
    return DeadlineRule(per=rule.per, seconds=rule.seconds, command=checked_command(rule.command, ruleset, field))


def checked_command(command: dict[str, Any] | None, ruleset: Ruleset, field: str) -> dict[str, Any]:
    """What a passed deadline or an empty clock sends: the rule's command, else the ruleset's force-phase
    command, decoded against the ruleset's commands now so that a bad one is a 422 at set-up, not at firing."""
    command = command or force_command(ruleset)
    if command is None:
        raise InvalidRequest(
            f"{field}.command: {ruleset.name} has no force-phase command; name one", field=f"{field}.command"
        )
    types = tuple(ruleset.command_types)
    try:
        msgspec.convert(command, types[0] if len(types) == 1 else Union[types])  # noqa: UP007 - run time
    except msgspec.ValidationError as exc:
        raise InvalidRequest(
            f"{field}.command is not a {ruleset.name} command: {exc}", field=f"{field}.command"
        ) from None
    return command


def rule_from_options(ruleset_name: str, options: dict[str, Any]) -> DeadlineRule | None:
    """A new game's ``options.deadline`` (None when it has none); an unknown ruleset is left to creation."""
    if options.get("deadline") is None:
        return None
    try:
        ruleset = find_ruleset(ruleset_name)
    except UnknownRuleset:
        return None
    return parse_rule(options["deadline"], ruleset, "options.deadline")


def _ms(now: float) -> int:
    return int(now * 1000)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _point(rule_per: str, head: GameHead) -> tuple[int, str]:
    clock = head.ruleset.clock(head.state)
    return clock.turn, clock.phase if rule_per == "phase" else ""


class Deadlines:
    """The deadline rows of one database, and the scheduler that fires them (``start``/``close``)."""

    def __init__(self, service: GameService, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.service = service
        self.engine = engine
        self.clock = clock  # the service's clock: wall time, read here and never by a ruleset
        self.postgres = engine.dialect.name == "postgresql"
        self._task: asyncio.Task[None] | None = None
        from .clocks import Clocks  # the chess-style clocks this scheduler drives too (they import this module)

        self.clocks = Clocks(service, engine, lambda: self.clock())

    # --- rules ------------------------------------------------------------------------------------

    async def install(self, game_id: str, rule: DeadlineRule, head: GameHead | None = None) -> None:
        """The game's rule, its first deadline from now (at the current point when ``head`` is given; else
        the next track finds the point)."""
        now = _ms(self.clock())
        point = _point(rule.per, head) if head is not None else (None, None)
        values = {
            "per": rule.per,
            "seconds": rule.seconds,
            "command": msgspec.json.encode(rule.command).decode(),
            "turn": point[0],
            "phase": point[1],
            "due_at": now + rule.seconds * 1000 if head else None,
            "checked_seq": head.seq if head is not None else 0,
            "lease_until": None,
        }
        if head is not None and head.ruleset.is_over(head.state):
            values["due_at"] = None

        def write() -> None:
            with self.engine.begin() as conn:
                changed = conn.execute(update(DEADLINES).where(DEADLINES.c.game_id == game_id).values(**values))
                if changed.rowcount == 0:
                    conn.execute(insert(DEADLINES).values(game_id=game_id, **values))

        await asyncio.to_thread(write)

    async def change(self, game_id: str, actor: Actor, raw: Any) -> dict[str, Any] | None:
        """The umpire sets (or, ``per`` null, removes) the game's deadlines, from now: a ``deadline.set``
        event in the log, and the row."""
        if not actor.is_umpire:
            raise Forbidden("only the umpire may change a game's deadlines")
        head = await self.service.head(game_id)
        off = isinstance(raw, dict) and raw.get("per", "") is None
        rule = None if off else parse_rule(raw, head.ruleset)
        event = (
            DeadlineSet(per=None)
            if rule is None
            else DeadlineSet(per=rule.per, seconds=rule.seconds, command=rule.command)
        )

        async def rows(head: GameHead) -> list[dict[str, Any]]:
            clock = head.ruleset.clock(head.state)
            return [
                event_row(
                    head.codec,
                    game_id,
                    head.seq + 1,
                    event,
                    clock.turn,
                    clock.phase,
                    actor.label,
                    ids.command_id(),
                    now_iso(),
                    None,
                )
            ]

        head = await self.service.append_and_refold(game_id, rows)
        if rule is None:
            await asyncio.to_thread(self._delete, game_id)
        else:
            await self.install(game_id, rule, head)
        await self.service.announce(game_id, head.seq)
        return await self.view(game_id)

    def _delete(self, game_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(DEADLINES).where(DEADLINES.c.game_id == game_id))

    async def view(self, game_id: str) -> dict[str, Any] | None:
        """What a view shows: the rule, the point, when it falls and the time left (None: no deadlines)."""

        def read() -> Any:
            with self.engine.connect() as conn:
                return conn.execute(select(DEADLINES).where(DEADLINES.c.game_id == game_id)).first()

        row = await asyncio.to_thread(read)
        if row is None:
            return None
        left = None if row.due_at is None else max(0.0, round(row.due_at / 1000 - self.clock(), 3))
        return {
            "per": row.per,
            "seconds": row.seconds,
            "command": msgspec.json.decode(row.command),
            "turn": row.turn,
            "phase": row.phase,
            "due_at": None if row.due_at is None else _iso(row.due_at),
            "seconds_left": left,
        }

    # --- the scheduler ----------------------------------------------------------------------------

    def start(self, every: float) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(every))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self, every: float) -> None:
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database away: the next tick tries again
                if not noted_as_storage_fault(exc):
                    log.warning("deadline tick failed", exc_info=True)
            await asyncio.sleep(every)

    async def tick(self) -> int:
        """The clocks (clocks.py), then: track every game whose log moved, then fire what is due; returns how
        many fired."""
        fired = await self.clocks.tick()
        rows = await asyncio.to_thread(self._rows)
        if not rows:
            return fired
        seqs = await self.service.store.heads([r.game_id for r in rows])  # type: ignore[attr-defined]  # SQL stores
        for row in rows:
            if seqs.get(row.game_id, 0) != row.checked_seq:
                await self._track(row)
        now = _ms(self.clock())
        for game_id in await asyncio.to_thread(self._due, now):
            fired += await self._fire(game_id)
        return fired

    def _rows(self) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(DEADLINES.c.game_id, DEADLINES.c.checked_seq, DEADLINES.c.due_at)))

    def _due(self, now: int) -> list[str]:
        with self.engine.connect() as conn:
            return [r.game_id for r in conn.execute(select(DEADLINES.c.game_id).where(DEADLINES.c.due_at <= now))]

    async def _track(self, seen: Any) -> None:
        try:
            head = await self.service.current_head(seen.game_id)
        except GameNotFound:
            await asyncio.to_thread(self._delete, seen.game_id)
            return
        now = _ms(self.clock())
        clock = head.ruleset.clock(head.state)
        overdue = seen.due_at is not None and seen.due_at <= now  # (else the log need not be read)
        passed = await self._passed_for(head, clock.turn, clock.phase) if overdue else None

        def write() -> None:
            with self.engine.begin() as conn:
                row = conn.execute(select(DEADLINES).where(DEADLINES.c.game_id == seen.game_id)).first()
                if row is None or row.checked_seq != seen.checked_seq:
                    return  # changed meanwhile (another replica, the umpire): the next tick looks again
                point = _point(row.per, head)
                due = row.due_at
                if head.ruleset.is_over(head.state):
                    due = None
                elif (row.turn, row.phase) != point:
                    due = now + row.seconds * 1000  # a new phase (or turn): its deadline starts now
                elif (
                    row.per == "phase"
                    and due is not None
                    and due <= now
                    and passed is not None
                    and passed > max(row.checked_seq, 0)
                ):
                    # this phase's deadline fired after the row was looked at, and its release never
                    # committed (the process died): the phase's next deadline runs from now, not at once
                    due = now + row.seconds * 1000
                conn.execute(
                    update(DEADLINES)
                    .where(DEADLINES.c.game_id == row.game_id, DEADLINES.c.checked_seq == row.checked_seq)
                    .values(turn=point[0], phase=point[1], due_at=due, checked_seq=head.seq)
                )

        await asyncio.to_thread(write)

    async def _fire(self, game_id: str) -> int:
        """Claim the game's due row and fire it; 0 when another process has it or it is no longer due."""
        return await claim_and_fire(self.engine, self.clock, DEADLINES, game_id, self._fire_row)

    async def _fire_row(self, row: Any) -> dict[str, Any]:
        """Append ``deadline.passed`` and the command for the game's current phase (once: see the module's
        docstring); returns the row's new values."""
        game_id = row.game_id
        try:
            head = await self.service.current_head(game_id)
        except GameNotFound:
            return {"due_at": None}
        if head.ruleset.is_over(head.state):
            return {"due_at": None}
        if _point(row.per, head) != (row.turn, row.phase):
            return {"due_at": None, "checked_seq": -1}  # the game moved on: the next track re-arms it
        clock = head.ruleset.clock(head.state)
        # a firing that stopped after its deadline.passed, before its command (the event is still the log's
        # head): the command again, under the same key; after its command, the game has moved past it
        passed_seq = await self._passed_for(head, clock.turn, clock.phase)
        if passed_seq != head.seq:
            passed = DeadlinePassed(
                turn=clock.turn,
                phase=clock.phase,
                per=row.per,
                seconds=row.seconds,
                due_at=_iso(row.due_at),
                command=msgspec.json.decode(row.command)["type"],
            )

            async def rows(head: GameHead) -> list[dict[str, Any]]:
                return [
                    event_row(
                        head.codec,
                        game_id,
                        head.seq + 1,
                        passed,
                        clock.turn,
                        clock.phase,
                        "system",
                        ids.command_id(),
                        now_iso(),
                        None,
                    )
                ]

            head = await self.service.append_and_refold(game_id, rows)
            passed_seq = head.seq
            await self.service.announce(game_id, head.seq)
        body = b'{"command":' + row.command.encode() + b"}"
        try:
            await self.service.handle_command(game_id, UMPIRE, body, idempotency_key=f"deadline:{passed_seq}")
        except (RuleViolation, AppError) as exc:
            log.info("a deadline's command was refused", extra={"game_id": game_id, "reason": str(exc)})
            return {"due_at": None, "checked_seq": -1}
        # per phase: done until the next phase; per turn: still due, so the turn's next phase is forced too
        # per phase: the next deadline runs from now (a new phase's, or this phase's again when the command
        # left the game in it: GSC2's force_phase starting a turn); per turn: still due, so the turn's next
        # phase is forced too
        due = _ms(self.clock()) + row.seconds * 1000 if row.per == "phase" else row.due_at
        return {"due_at": due, "fired": row.fired + 1, "checked_seq": -1, "fired_now": True}

    async def _passed_for(self, head: GameHead, turn: int, phase: str) -> int | None:
        """The seq of the log's last ``deadline.passed`` when it is for this very turn and phase."""
        rows = await self.service.store.read_events_of_types(head.game_id, PASSED_TYPES)
        if not rows:
            return None
        last = rows[-1]
        return int(last.seq) if (int(last.turn), last.phase) == (turn, phase) else None


async def claim_and_fire(
    engine: Engine,
    clock: Callable[[], float],
    table: Table,
    game_id: str,
    fire_row: Callable[[Any], Awaitable[dict[str, Any]]],
) -> int:
    """Claim the game's due row of ``table`` (deadlines, clocks) and fire it with ``fire_row``, which returns
    the row's new values ("fired_now" true when it fired); 0 when another process has it or it is no longer
    due. PostgreSQL: the row stays locked (FOR UPDATE SKIP LOCKED) while it fires, another replica skips it
    and after the commit finds it no longer due; SQLite, the single writer: a lease an atomic UPDATE wins."""
    if engine.dialect.name == "postgresql":
        return await _fire_locked(engine, clock, table, game_id, fire_row)
    now = _ms(clock())

    def claim() -> Any:
        with engine.begin() as conn:
            claimed = conn.execute(
                update(table)
                .where(
                    table.c.game_id == game_id,
                    table.c.due_at <= now,
                    (table.c.lease_until.is_(None)) | (table.c.lease_until < now),
                )
                .values(lease_until=now + LEASE_MS)
            )
            if claimed.rowcount != 1:
                return None
            return conn.execute(select(table).where(table.c.game_id == game_id)).first()

    row = await asyncio.to_thread(claim)
    if row is None:
        return 0
    values = await fire_row(row)
    fired = values.pop("fired_now", False)

    def release() -> None:
        with engine.begin() as conn:
            conn.execute(update(table).where(table.c.game_id == game_id).values(lease_until=None, **values))

    await asyncio.to_thread(release)
    return 1 if fired else 0


async def _fire_locked(
    engine: Engine,
    clock: Callable[[], float],
    table: Table,
    game_id: str,
    fire_row: Callable[[Any], Awaitable[dict[str, Any]]],
) -> int:
    conn = await asyncio.to_thread(engine.connect)
    try:

        def claim() -> Any:
            conn.begin()
            return conn.execute(
                select(table)
                .where(table.c.game_id == game_id, table.c.due_at <= _ms(clock()))
                .with_for_update(skip_locked=True)
            ).first()

        row = await asyncio.to_thread(claim)
        if row is None:
            await asyncio.to_thread(conn.rollback)
            return 0
        values = await fire_row(row)
        fired = values.pop("fired_now", False)

        def release() -> None:
            conn.execute(update(table).where(table.c.game_id == game_id).values(**values))
            conn.commit()

        await asyncio.to_thread(release)
        return 1 if fired else 0
    finally:
        await asyncio.to_thread(conn.close)  # a transaction still open rolls back: the lock goes
