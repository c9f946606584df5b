"""Which games have someone to notify, and the notifications a command writes for them.

The index (``Watchers.games``: game id -> its watches, one per subscription and claimed seat) is held in
memory and reloaded when a claim or a subscription changes here, and every few seconds for the other
replicas' changes. A command pays for notifications only when its game is in the index (one dict lookup
otherwise, ``CommandWriter._decision``); then the watched seats' statuses before and after it are compared
and a row per notification is added to the command's own batch, so the notification is durable exactly
when the events that cause it are (the transactional outbox, ``outbox.py``).

What is notified: your turn (a watched seat must act after the command and did not before; never the
seat that just acted), the game ended, the game was rewound, a battle needs you (a campaign battle the
seat fights started as a linked game), and an umpire's ruling (a dispute settled). A notification carries
the seat's own status (its own drawing's words) and the game's public coordinates, never the state; the
events that notify by themselves (``EVENT_NOTICES``) are told only to seats whose own view of the event
shows it, in words taken from that view: it holds nothing its seat may not see."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import Engine, and_, or_, select

from service.domain.core import UMPIRE, Viewer

from .head import GameHead
from .rows import now_iso
from .seat_status import SeatNow, seat_now
from .tables import GAMES, PLAYER_SEATS, SUBSCRIPTIONS

log = logging.getLogger(__name__)

KINDS = ("your_turn", "game_over", "rewound", "paused", "battle", "ruling")
# events that notify by themselves, by their tag: the campaign's link of a battle fought as a linked game
# (service/events/linked_battles.py: its witnesses hold its sides) and an umpire's recorded ruling
BATTLE_LINKED = "ftcampaign.battle_linked"
RULING = "ftcampaign.ruling_recorded"
EVENT_NOTICES = {BATTLE_LINKED: "battle", RULING: "ruling"}
MAX_WHY = 300  # characters of a ruling's text a notification carries


class Watch(NamedTuple):
    subscription_id: str
    player_id: str
    role: str
    seat: str | None

    @property
    def viewer(self) -> Viewer:
        return UMPIRE if self.role == "umpire" else Viewer("seat", self.seat)


class Notice(msgspec.Struct, kw_only=True):
    """The generic notification (``player_contract.Notification`` documents it)."""

    id: str
    type: str  # KINDS: "your_turn" | "game_over" | "rewound" | "battle" | "ruling" | "paused"
    game_id: str
    ruleset: str
    scenario: str | None
    role: str
    seat: str | None
    version: int
    turn: int
    phase: str
    phase_label: str
    must_act: bool
    why: str
    over: bool
    result: str | None
    text: str  # one sentence, as chat bodies carry it
    linked_game_id: str | None = None  # "battle": the linked game the seat fights the battle in


def notice_id(game_id: str, seq: int, subscription_id: str, kind: str, who: str = "") -> str:
    """The idempotency key: the same notification always has the same key (a redelivery repeats it). Unique
    per game, seq, subscription, kind and watched seat (a player may hold two seats of one game)."""
    material = "\x00".join((game_id, str(seq), subscription_id, kind, who))
    return "n_" + hashlib.sha256(material.encode()).hexdigest()[:32]


def _text(kind: str, game_id: str, who: str, now: SeatNow, scenario: str | None, linked: str | None = None) -> str:
    game = f"{scenario or 'game'} {game_id}"
    if kind == "your_turn":
        return f"Your move as {who} in {game} (turn {now.turn}, {now.phase_label}): {now.why}"
    if kind == "game_over":
        return f"{game} is over" + (f": {now.result}" if now.result else "")
    if kind == "battle":
        return f"A battle needs you, {who}: {now.why}, fought as game {linked}"
    if kind == "ruling":
        return f"The umpire ruled in {game}: {now.why}"
    return f"{game}: {now.why}; look again"  # rewound (its reason is public: shown to every seat)


def _event_notice(tag: str, shown: Any, watch: Watch) -> tuple[str, str, str | None] | None:
    """(kind, why, linked game) of an event that notifies by itself, as the seat's own view ``shown`` of
    it says; None when it is nothing for this seat."""
    kind = EVENT_NOTICES.get(tag)
    if kind == "battle":
        # a battle needs the seats that fight it (its witnesses), not the umpire who started it
        if watch.role != "seat" or watch.seat not in getattr(shown, "witnesses", ()):
            return None
        battle = getattr(shown, "battle", "?")
        return kind, f"battle {battle} at {getattr(shown, 'hex', '?')}", getattr(shown, "tactical_game_id", None)
    if kind == "ruling":
        involves = getattr(shown, "involves", ())
        if watch.role == "umpire" or (involves and watch.seat not in involves):
            return None
        return kind, str(getattr(shown, "text", ""))[:MAX_WHY], None
    return None


class Watchers:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.games: dict[str, tuple[Watch, ...]] = {}
        self.scenarios: dict[str, str | None] = {}
        # game -> (the state a command left it in, the watched seats' statuses there): the next command's
        # "before", when it is decided on that very state (by identity: a state decided by a command that
        # then lost its seq to another replica is never taken for the log's state at that seq)
        self._statuses: dict[str, tuple[Any, dict[Viewer, SeatNow]]] = {}
        self._lock = asyncio.Lock()
        self.wake: Callable[[], None] | None = None  # the notifier's: rows were written (once they land)

    # --- the index -------------------------------------------------------------------------------------

    def _load(self) -> tuple[dict[str, tuple[Watch, ...]], dict[str, str | None]]:
        stmt = (
            select(
                SUBSCRIPTIONS.c.id,
                SUBSCRIPTIONS.c.player_id,
                PLAYER_SEATS.c.game_id,
                PLAYER_SEATS.c.role,
                PLAYER_SEATS.c.seat,
                GAMES.c.scenario_name,
            )
            .join(PLAYER_SEATS, PLAYER_SEATS.c.player_id == SUBSCRIPTIONS.c.player_id)
            .join(GAMES, GAMES.c.id == PLAYER_SEATS.c.game_id)
            .where(
                SUBSCRIPTIONS.c.paused_at.is_(None),
                or_(SUBSCRIPTIONS.c.game_id.is_(None), SUBSCRIPTIONS.c.game_id == PLAYER_SEATS.c.game_id),
                or_(
                    SUBSCRIPTIONS.c.seat.is_(None),
                    and_(PLAYER_SEATS.c.seat.is_not(None), SUBSCRIPTIONS.c.seat == PLAYER_SEATS.c.seat),
                ),
            )
            .order_by(PLAYER_SEATS.c.game_id, SUBSCRIPTIONS.c.id)
        )
        games: dict[str, list[Watch]] = {}
        scenarios: dict[str, str | None] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(stmt):
                games.setdefault(r.game_id, []).append(Watch(r.id, r.player_id, r.role, r.seat))
                scenarios[r.game_id] = r.scenario_name
        return {g: tuple(w) for g, w in games.items()}, scenarios

    async def refresh(self) -> None:
        async with self._lock:
            games, scenarios = await asyncio.get_running_loop().run_in_executor(None, self._load)
            self.games, self.scenarios = games, scenarios
            for gone in set(self._statuses) - set(games):
                del self._statuses[gone]

    # --- the rows a command writes -------------------------------------------------------------------

    def _statuses_at(self, head: GameHead, state: Any, watches: tuple[Watch, ...]) -> dict[Viewer, SeatNow]:
        known = self._statuses.get(head.game_id)
        viewers = {w.viewer for w in watches}
        if known is not None and known[0] is state and viewers <= set(known[1]):
            return known[1]
        return {v: seat_now(head.ruleset, state, v) for v in viewers}

    def command_rows(
        self, head: GameHead, state: Any, actor: Viewer, seq: int, fresh: Sequence[Any] = ()
    ) -> list[dict[str, Any]]:
        """The outbox rows of a command that took ``head`` (at ``head.seq``) to ``state`` at ``seq``
        (``fresh``: its events, ``fresh.FreshEvent``s bound to their rows). A failure here is logged and
        notifies nothing: it never fails the command."""
        watches = self.games.get(head.game_id)
        if not watches:
            return []
        try:
            before = self._statuses_at(head, head.state, watches)
            after = {v: seat_now(head.ruleset, state, v) for v in before}
            self._statuses[head.game_id] = (state, after)
            rows = self._status_rows(head, watches, actor, seq, before, after)
            rows += self._event_rows(head, watches, fresh, after)
            if rows and self.wake is not None:
                self.wake()
            return rows
        except Exception:  # noqa: BLE001 - a notification never fails the command that causes it
            log.exception("notifications of game %s at %s not written", head.game_id, seq)
            return []

    def _status_rows(
        self,
        head: GameHead,
        watches: tuple[Watch, ...],
        actor: Viewer,
        seq: int,
        before: dict[Viewer, SeatNow],
        after: dict[Viewer, SeatNow],
    ) -> list[dict[str, Any]]:
        """The rows the seats' statuses call for: every watch's "game over" when the command ended the
        game, else "your turn" for each watched seat that must act now and did not before (never the
        seat that just acted)."""
        rows = []
        ended = any(now.over for now in after.values()) and not any(now.over for now in before.values())
        for watch in watches:
            viewer = watch.viewer
            now = after[viewer]
            if ended:
                rows.append(self._row(head, watch, seq, "game_over", now))
            elif now.must_act and not before[viewer].must_act and viewer != actor:
                rows.append(self._row(head, watch, seq, "your_turn", now))
        return rows

    def _event_rows(
        self, head: GameHead, watches: tuple[Watch, ...], fresh: Sequence[Any], after: dict[Viewer, SeatNow]
    ) -> list[dict[str, Any]]:
        """The rows of the command's events that notify by themselves (``EVENT_NOTICES``), each told
        only to the watches whose own view of the event shows it."""
        rows = []
        for f in fresh:
            tag = type(f.event).__struct_config__.tag
            if tag not in EVENT_NOTICES:
                continue
            for watch in watches:
                shown = f.view(head.ruleset, watch.viewer)  # the seat's own view: None when hidden from it
                told = _event_notice(tag, shown, watch) if shown is not None else None
                if told is not None:
                    kind, why, linked = told
                    rows.append(self._row(head, watch, f.seq, kind, after[watch.viewer], why=why, linked=linked))
        return rows

    def rewind_rows(self, head: GameHead, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The outbox rows of an umpire's rewind (``rows``: the events it appends)."""
        watches = self.games.get(head.game_id)
        rewound = [r for r in rows if r["type"] == "game.rewound"]
        if not watches or not rewound:
            return []
        row = rewound[-1]
        self._statuses.pop(head.game_id, None)  # the state after it is refolded
        try:
            reason = str(msgspec.json.decode(row["data"]).get("reason", ""))[:MAX_WHY]  # public: shown to every seat
        except (msgspec.DecodeError, AttributeError, KeyError, TypeError):
            reason = ""
        why = f"the umpire rewound the game: {reason}" if reason else "the umpire rewound the game"
        now = SeatNow(row["turn"], row["phase"], row["phase"], False, why, (), False, None)
        if self.wake is not None:
            self.wake()
        return [self._row(head, watch, row["seq"], "rewound", now) for watch in watches]

    def _row(
        self,
        head: GameHead,
        watch: Watch,
        seq: int,
        kind: str,
        now: SeatNow,
        why: str | None = None,
        linked: str | None = None,
    ) -> dict[str, Any]:
        """``why``: the notification's reason instead of the seat's status's (an event that notifies by
        itself says what happened, in the words of the seat's own view of it)."""
        if why is not None:
            now = msgspec.structs.replace(now, why=why)
        scenario = self.scenarios.get(head.game_id)
        who = "umpire" if watch.role == "umpire" else str(watch.seat)
        key = notice_id(head.game_id, seq, watch.subscription_id, kind, watch.viewer.label)
        notice = Notice(
            id=key,
            type=kind,
            game_id=head.game_id,
            ruleset=head.ruleset.name,
            scenario=scenario,
            role=watch.role,
            seat=watch.seat,
            version=seq,
            turn=now.turn,
            phase=now.phase,
            phase_label=now.phase_label,
            must_act=now.must_act,
            why=now.why,
            over=now.over,
            result=now.result,
            text=_text(kind, head.game_id, who, now, scenario, linked),
            linked_game_id=linked,
        )
        return outbox_row(key, watch.subscription_id, head.game_id, seq, kind, msgspec.json.encode(notice).decode())


def outbox_row(key: str, subscription_id: str, game_id: str, seq: int, kind: str, body: str) -> dict[str, Any]:
    """One outbox row, every column the writer inserts (the same columns for every row: one statement)."""
    return {
        "id": key,
        "subscription_id": subscription_id,
        "game_id": game_id,
        "seq": seq,
        "kind": kind,
        "body": body,
        "created_at": now_iso(),
        "attempts": 0,
        "next_attempt": 0,
    }
