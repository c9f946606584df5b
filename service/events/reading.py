"""Read paths: state at any point, events, options, turn replays. Redaction is applied on every one."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer
from service.domain.core.guards import full_view

from . import table_events
from .application import GameService
from .envelope import (
    BotSeated,
    BotUnseated,
    DiceCommitted,
    DiceDisclosed,
    DiceRevealed,
    Envelope,
    GameCreated,
    GameRewound,
)
from .errors import InvalidRequest, NotFound
from .head import GameHead, decode_state
from .head_cache import PAGE_ROWS
from .replay import (
    Decoded,
    Folder,
    Walker,
    decode_rows,
    effective_rewinds,
    make_envelope,
    superseded_seqs,
    visible_event,
)

_REWOUND = GameRewound.__struct_config__.tag
TURN_STEPS = 2000  # steps one turn replay answers at most (``next_after`` pages on)


class GameReader:
    def __init__(self, service: GameService) -> None:
        self.service = service
        self.store = service.store
        self._unverified: dict[str, str | None] = {}  # game id -> why its origin is unverified (immutable)

    async def unverified(self, game_id: str) -> str | None:
        """Why an imported game (or a fork of one) could not be verified, from its game.created options."""
        if game_id not in self._unverified:
            rows = await self.store.read_events(game_id, upto=1)
            options = msgspec.json.decode(rows[0].data).get("options", {}) if rows else {}
            if len(self._unverified) < 100_000:
                self._unverified[game_id] = options.get("unverified") or None
            return options.get("unverified") or None
        return self._unverified[game_id]

    async def _start_point(self, head: GameHead, at: int) -> tuple[Any, int]:
        """The nearest snapshot at or before ``at`` (and before any rewind target it would need)."""
        earliest = min([at, *(to for seq, to in head.rewinds if seq > to and to < at)])
        snap = await self.store.snapshot(head.game_id, earliest)
        if snap is None:
            return head.ruleset.initial_state(head.setup), 0
        return decode_state(head.ruleset, bytes(snap.state)), int(snap.seq)

    async def state_at(self, game_id: str, at: int | None = None) -> tuple[GameHead, Any, int]:
        head = await self.service.current_head(game_id)
        if at is not None and not 0 <= at <= head.seq:
            raise InvalidRequest(f"at must be a seq between 0 and the game's version {head.seq}", field="at")
        if at is None or at == head.seq:
            return head, head.state, head.seq
        state, start = await self._start_point(head, at)
        rows = await self.store.read_events(game_id, after=start, upto=at)
        state = Folder(head.ruleset).fold(state, decode_rows(head.codec, rows))
        return head, state, at

    async def summary(self, game_id: str, viewer: Viewer, at: int | None = None) -> dict[str, Any]:
        head, state, seq = await self.state_at(game_id, at)
        clock = head.ruleset.clock(state)
        return {
            "game_id": game_id,
            "ruleset": head.ruleset.name,
            "ruleset_version": head.ruleset.version,
            "seats": head.seats,
            "viewer": viewer.label,
            "version": head.seq,
            "at": seq,
            "turn": clock.turn,
            "phase": clock.phase,
            "over": head.ruleset.is_over(state),
            "unverified": await self.unverified(game_id),
            "state": full_view(head.ruleset, state, viewer),
        }

    async def options(self, game_id: str, viewer: Viewer) -> dict[str, Any]:
        head = await self.service.current_head(game_id)
        ruleset = head.ruleset
        if viewer.kind == "spectator" or ruleset.is_over(head.state):
            return {"version": head.seq, "viewer": viewer.label, "options": [], "forms": []}
        options = list(ruleset.options(head.state, viewer))
        return {
            "version": head.seq,
            "viewer": viewer.label,
            "options": options,
            "forms": list(ruleset.forms(head.state, viewer)),
        }

    async def events(
        self, game_id: str, viewer: Viewer, after: int = 0, limit: int | None = None, upto: int | None = None
    ) -> list[Envelope]:
        head = await self.service.current_head(game_id)
        rows = await self.store.read_events(game_id, after=after, upto=upto, limit=limit)
        return await self._render(head, viewer, after, rows)

    async def _render(self, head: GameHead, viewer: Viewer, after: int, rows: list[Any]) -> list[Envelope]:
        state = None if viewer.is_umpire else (await self.state_at(head.game_id, min(after, head.seq)))[1]
        return (await self.render_from(head, viewer, after, rows, state))[0]

    async def render_from(
        self, head: GameHead, viewer: Viewer, after: int, rows: list[Any], state: Any
    ) -> tuple[list[Envelope], Any]:
        """The envelopes ``viewer`` may see of ``rows`` (the log after ``after``), folding on from
        ``state`` (the state at ``after``; None for the umpire, whose view needs no state), and the state
        after the last row: the rows that follow render from it without folding the log again."""
        earlier = await self.rewound_states(head, viewer, after, rows)
        return self.render_rows(head, viewer, rows, state, earlier)

    async def rewound_states(self, head: GameHead, viewer: Viewer, after: int, rows: list[Any]) -> dict[int, Any]:
        """seq -> state, for the rewinds in ``rows`` back to a seq before ``after`` (the fold of the
        rows goes back to that state; the umpire's view folds nothing)."""
        earlier: dict[int, Any] = {}
        if viewer.is_umpire:
            return earlier
        for row in rows:
            if row.type == _REWOUND:
                rewind = head.codec.decode(row.type, row.v, row.data, row.rolls)
                to = rewind.to_seq if isinstance(rewind, GameRewound) else after
                if to < after and to not in earlier:
                    earlier[to] = (await self.state_at(head.game_id, to))[1]
        return earlier

    @staticmethod
    def render_rows(
        head: GameHead, viewer: Viewer, rows: list[Any], state: Any, earlier: dict[int, Any], shared: bool = False
    ) -> tuple[list[Envelope], Any]:
        """``render_from`` once the states it needs are read: no awaits, so a caller may run it whole.
        ``shared``: envelopes of equal events share one ``data`` dict (for a caller that only encodes them)."""
        codec, ruleset, game_id = head.codec, head.ruleset, head.game_id
        decoded = decode_rows(codec, rows, {})
        superseded = superseded_seqs(effective_rewinds(head.rewinds), (d.seq for d in decoded))
        datas: dict[int, tuple[Any, dict[str, Any]]] = {}  # id(event) -> (event, its data), when shared

        def envelope(d: Decoded, after_state: Any) -> Envelope | None:
            event = visible_event(ruleset, d.event, viewer, after_state)
            if event is None:
                return None
            data = None
            if shared:
                known = datas.get(id(event))
                if known is not None and known[0] is event:
                    data = known[1]
                else:
                    data = codec.to_data(event)
                    datas[id(event)] = (event, data)  # the event held: its id is not reused meanwhile
            return make_envelope(codec, game_id, d.row, event, d.seq in superseded, data)

        out: list[Envelope] = []
        walked = (
            ((d, None) for d in decoded) if viewer.is_umpire else Folder(ruleset).walk(state, decoded, earlier)
        )  # the umpire's view needs no state
        for d, after_state in walked:
            env = envelope(d, after_state)
            if env is not None:
                out.append(env)
            state = after_state
        return out, state

    async def turn_replay(
        self,
        game_id: str,
        viewer: Viewer,
        turn: int,
        phase: str | None = None,
        after_seq: int = 0,
        limit: int = TURN_STEPS,
    ) -> dict[str, Any]:
        """One turn (or phase) explained event by event: at most ``limit`` steps after ``after_seq`` (a turn of
        a long campaign may hold thousands of events; ``next_after`` pages on), with the views before and
        after the whole turn. The turn is read and folded a page at a time, keeping only the steps returned."""
        head = await self.service.current_head(game_id)
        bounds = await self.store.turn_bounds(game_id, turn, phase)
        if bounds is None:
            where = f"turn {turn}" + (f" phase {phase!r}" if phase else "")
            raise NotFound(f"nothing happened in {where} of game {game_id}")
        first, last = bounds
        _, before, _ = await self.state_at(game_id, first - 1)
        rewinds = effective_rewinds(head.rewinds)
        targets = {to for _at, to in head.rewinds}
        step = Walker(Folder(head.ruleset), before, targets).step
        steps: list[dict[str, Any]] = []
        next_after: int | None = None
        after = before  # the state after the last event of this turn (not the next turn's opening)
        seq = first - 1
        while seq < last:
            rows = await self.store.read_events(game_id, after=seq, upto=last, limit=PAGE_ROWS)
            if not rows:
                break
            decoded = decode_rows(head.codec, rows)
            superseded = superseded_seqs(rewinds, (d.seq for d in decoded))
            for d in decoded:
                state = step(d)
                if d.row.turn != turn or (phase is not None and d.row.phase != phase):
                    continue
                if not isinstance(d.event, DiceRevealed | DiceCommitted):
                    after = state  # a reveal is appended after the next turn's opening: it must not move "after"
                if d.seq <= after_seq or next_after is not None:
                    continue
                event = visible_event(head.ruleset, d.event, viewer, state)
                if event is None:
                    continue
                if len(steps) == limit:
                    next_after = steps[-1]["event"].seq
                    continue
                env = make_envelope(head.codec, game_id, d.row, event, d.seq in superseded)
                steps.append({"event": env, "text": self._explain(head, event)})
            seq = decoded[-1].seq
        return {
            "game_id": game_id,
            "turn": turn,
            "phase": phase,
            "from_seq": first,
            "to_seq": last,
            "before": full_view(head.ruleset, before, viewer),
            "events": steps,
            "after": full_view(head.ruleset, after, viewer),
            "next_after": next_after,
        }

    @staticmethod
    def _explain(head: GameHead, event: Any) -> str:
        if isinstance(event, GameRewound):
            return f"The umpire rewound the game to seq {event.to_seq}" + (f": {event.reason}" if event.reason else "")
        if isinstance(event, DiceCommitted):
            return f"Dice for turn {event.turn} committed: sha256 {event.commitment[:16]}…"
        if isinstance(event, DiceRevealed):
            if not event.seed:
                opened = (
                    f"; the slot keys of the {len(event.keys)} rolls you saw are opened, with their Merkle proof"
                    if event.keys
                    else ""
                )
                return (
                    f"Turn {event.turn} is over; its dice seed is withheld until the game ends (hidden "
                    f"information){opened}"
                )
            return f"Dice seed for turn {event.turn} revealed: every roll of that turn can now be checked"
        if isinstance(event, DiceDisclosed):
            return f"The game is over: the dice seeds of all {len(event.seeds)} turns are disclosed"
        if isinstance(event, BotSeated):
            return f"Seat {event.seat} is played by the computer ({event.bot} bot)"
        if isinstance(event, BotUnseated):
            return f"Seat {event.seat} is taken back from the computer"
        if isinstance(event, GameCreated):
            return f"Game created ({event.ruleset} {event.ruleset_version})"
        if (sentence := table_events.explain(event)) is not None:
            return sentence
        return head.ruleset.explain(event)
