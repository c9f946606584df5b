"""A small ruleset for the browser tests that speaks the whole view contract (draw, labelled options with
targets, a legs form on a plane and a hexpath form on a hex map, effects), so the page's contract
renderer is tested end to end whatever state the real rulesets' drawings are in. Test-only.

Two sides (red, blue), two ships each. Turn: "move" — each side sends one sealed order set for all its
ships (a free move of legs on the plane, a path of hexes on the hex map) — then "fire" — each ship may
fire once at an enemy (d10 ≤ 6 hits for 1) — and both sides end the phase. Over when a side has no hull.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from service.domain.core import Actor, Clock, Command, Dice, Event, NotYourPiece, RuleViolation, Viewer
from service.domain.core.choices import Field, Form, Option, PieceChoices
from service.domain.core.drawing import (
    Bar,
    Board,
    Drawing,
    Effect,
    Piece,
    SeatStatus,
    Status,
    Track,
    pt,
)
from service.domain.core.spec import RulesetSpec, event_tag

MAX_MOVE = 6.0
MAX_HEX_COST = 3
HULL = 2
SIDES = ("red", "blue")
DIRS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


class Setup(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    board: str = "plane"  # "plane" | "hex"


class Leg(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    turn: float = 0
    distance: float = 0


class ShipOrder(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    legs: tuple[Leg, ...] = ()
    path: tuple[tuple[int, int], ...] = ()


class Orders(Command, tag="skirmish.orders"):
    side: str
    ships: tuple[ShipOrder, ...]


class Fire(Command, tag="skirmish.fire"):
    ship: str
    target: str


class EndPhase(Command, tag="skirmish.end_phase"):
    side: str


class Moved(Event, tag="skirmish.moved"):
    side: str
    moves: tuple[tuple[str, tuple[tuple[float, float], ...], float], ...]  # (ship, points, heading)


class Fired(Event, tag="skirmish.fired"):
    ship: str
    target: str
    hit: bool


class Ended(Event, tag="skirmish.ended"):
    side: str


class Advanced(Event, tag="skirmish.advanced"):
    turn: int
    phase: str


class Ship(msgspec.Struct, frozen=True):
    side: str
    x: float
    y: float
    heading: float
    hull: int = HULL


class State(msgspec.Struct, frozen=True):
    board: str
    ships: dict[str, Ship]
    turn: int = 1
    phase: str = "move"
    done: tuple[str, ...] = ()
    fired: tuple[str, ...] = ()
    tracks: tuple[tuple[str, tuple[tuple[float, float], ...]], ...] = ()
    effects: tuple[tuple[int, str, str, str, str], ...] = ()  # (n, kind, text, source, target)
    n: int = 0


def _start(board: str) -> dict[str, Ship]:
    if board == "hex":
        return {
            "r1": Ship("red", -3, 2, 0),
            "r2": Ship("red", -2, 2, 0),
            "b1": Ship("blue", 3, -2, 3),
            "b2": Ship("blue", 2, -2, 3),
        }
    return {
        "r1": Ship("red", 4, 20, 0),
        "r2": Ship("red", 8, 20, 0),
        "b1": Ship("blue", 16, 4, 180),
        "b2": Ship("blue", 20, 4, 180),
    }


NAMES = {"r1": "Ajax", "r2": "Hermes", "b1": "Brutus", "b2": "Cassius"}


def scenarios() -> dict[str, dict[str, Any]]:
    return {"plane": {"board": "plane"}, "hex": {"board": "hex"}}


def seats(setup: Setup) -> list[str]:
    return list(SIDES)


def initial_state(setup: Setup) -> State:
    return State(board=setup.board, ships=_start(setup.board))


def clock(state: State) -> Clock:
    return Clock(state.turn, state.phase)


def is_over(state: State) -> bool:
    return any(all(s.hull <= 0 for s in state.ships.values() if s.side == side) for side in SIDES)


def result(state: State) -> str | None:
    for side in SIDES:
        if all(s.hull <= 0 for s in state.ships.values() if s.side == side):
            return f"{'blue' if side == 'red' else 'red'} wins"
    return None


# ---- decide -------------------------------------------------------------------------------
def decide(state: State, command: Command, actor: Actor, dice: Dice) -> list[Event]:
    if isinstance(command, Orders | EndPhase):
        side = command.side
    else:
        side = state.ships.get(command.ship, Ship("", 0, 0, 0)).side  # type: ignore[attr-defined]
    if not actor.is_umpire and actor.seat != side:
        raise NotYourPiece("SK-SEAT", f"seat {actor.seat} cannot act for {side or 'that ship'}")
    if isinstance(command, Orders):
        return _orders(state, command)
    if isinstance(command, Fire):
        if state.phase != "fire":
            raise RuleViolation("SK-FIRE", "ships fire in the fire phase")
        if command.ship in state.fired or state.ships[command.ship].hull <= 0:
            raise RuleViolation("SK-FIRE", "each ship fires once a turn")
        tgt = state.ships.get(command.target)
        if tgt is None or tgt.side == side or tgt.hull <= 0:
            raise RuleViolation("SK-FIRE", f"no enemy ship {command.target!r}")
        roll = dice.roll_under(10, "to-hit", "SK-FIRE", 6, success="hit", failure="miss")
        return [Fired(ship=command.ship, target=command.target, hit=roll.outcome == "hit", rolls=(roll,))]
    if isinstance(command, EndPhase):
        if state.phase != "fire" or command.side in state.done:
            raise RuleViolation("SK-END", "nothing to end")
        events: list[Event] = [Ended(side=command.side)]
        if len(state.done) + 1 == len(SIDES):
            events.append(Advanced(turn=state.turn + 1, phase="move"))
        return events
    raise RuleViolation("SK-CMD", "unknown command")


def _orders(state: State, cmd: Orders) -> list[Event]:
    if state.phase != "move" or cmd.side in state.done:
        raise RuleViolation("SK-MOVE", "orders are given once, in the move phase")
    own = {i for i, s in state.ships.items() if s.side == cmd.side and s.hull > 0}
    if {o.id for o in cmd.ships} != own:
        raise RuleViolation("SK-MOVE", "one order for each of your ships")
    moves = []
    for o in cmd.ships:
        s = state.ships[o.id]
        moves.append((o.id, *(_path(s, o.path) if state.board == "hex" else _legs(s, o.legs))))
    events: list[Event] = [Moved(side=cmd.side, moves=tuple(moves))]
    if len(state.done) + 1 == len(SIDES):
        events.append(Advanced(turn=state.turn, phase="fire"))
    return events


def _legs(s: Ship, legs: tuple[Leg, ...]) -> tuple[tuple[tuple[float, float], ...], float]:
    x, y, h = s.x, s.y, s.heading
    pts = [(x, y)]
    if sum(leg.distance for leg in legs) > MAX_MOVE + 1e-6:
        raise RuleViolation("SK-MOVE", f'a ship moves at most {MAX_MOVE:g}"')
    for leg in legs:
        if leg.turn not in (-45, 0, 45) or leg.distance < 0:
            raise RuleViolation("SK-MOVE", "turn 45° left or right, then go ahead")
        h = (h + leg.turn) % 360
        x, y = x + leg.distance * math.sin(math.radians(h)), y - leg.distance * math.cos(math.radians(h))
        pts.append((round(x, 6), round(y, 6)))
    return tuple(pts), h


def _path(s: Ship, path: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[float, float], ...], float]:
    if len(path) > MAX_HEX_COST:
        raise RuleViolation("SK-MOVE", f"a path costs at most {MAX_HEX_COST}")
    at = (int(s.x), int(s.y))
    facing = s.heading
    pts = [(float(at[0]), float(at[1]))]
    for q, r in path:
        d = (q - at[0], r - at[1])
        if d not in DIRS:
            raise RuleViolation("SK-MOVE", f"hex {q},{r} is not next to {at[0]},{at[1]}")
        facing, at = DIRS.index(d), (q, r)
        pts.append((float(q), float(r)))
    return tuple(pts), facing


# ---- evolve -------------------------------------------------------------------------------
def evolve(state: State, event: Event) -> State:
    if isinstance(event, Moved):
        ships = dict(state.ships)
        for sid, pts, heading in event.moves:
            ships[sid] = msgspec.structs.replace(ships[sid], x=pts[-1][0], y=pts[-1][1], heading=heading)
        return msgspec.structs.replace(
            state,
            ships=ships,
            done=(*state.done, event.side),
            tracks=(*state.tracks, *((sid, pts) for sid, pts, _ in event.moves)),
        )
    if isinstance(event, Fired):
        ships = dict(state.ships)
        n = state.n
        fx = [
            (n + 1, "fire", "fires", event.ship, event.target),
            (n + 2, "hit" if event.hit else "miss", "hit" if event.hit else "miss", event.ship, event.target),
        ]
        if event.hit:
            t = ships[event.target]
            ships[event.target] = msgspec.structs.replace(t, hull=t.hull - 1)
            fx.append((n + 3, "damage", "1 damage", event.ship, event.target))
            if t.hull - 1 <= 0:
                fx.append((n + 4, "destroyed", "destroyed", event.ship, event.target))
        return msgspec.structs.replace(
            state, ships=ships, fired=(*state.fired, event.ship), effects=(*state.effects, *fx)[-8:], n=n + len(fx)
        )
    if isinstance(event, Ended):
        return msgspec.structs.replace(state, done=(*state.done, event.side))
    if isinstance(event, Advanced):
        new_turn = event.turn != state.turn
        return msgspec.structs.replace(
            state,
            turn=event.turn,
            phase=event.phase,
            done=(),
            fired=(),
            tracks=() if new_turn else state.tracks,
            effects=() if new_turn else state.effects,
        )
    return state


# ---- options and forms --------------------------------------------------------------------
def _me(state: State, viewer: Viewer) -> str | None:
    return viewer.seat if viewer.kind == "seat" and not is_over(state) else None


def options(state: State, viewer: Viewer) -> list[Option]:
    me = _me(state, viewer)
    if me is None or state.phase != "fire" or me in state.done:
        return []
    out = [
        Option(
            command=Fire(ship=sid, target=tid),
            label=f"{NAMES[sid]} fires at {NAMES[tid]} (hits on 6 or less)",
            piece=sid,
            target=tid,
            group="fire",
            rule="SK-FIRE",
        )
        for sid, s in state.ships.items()
        if s.side == me and s.hull > 0 and sid not in state.fired
        for tid, t in state.ships.items()
        if t.side != me and t.hull > 0
    ]
    out.append(Option(command=EndPhase(side=me), label="End my fire phase", group="phase", rule="SK-END"))
    return out


def forms(state: State, viewer: Viewer) -> list[Form]:
    me = _me(state, viewer)
    if me is None or state.phase != "move" or me in state.done:
        return []
    pieces = []
    for sid, s in state.ships.items():
        if s.side != me or s.hull <= 0:
            continue
        if state.board == "hex":
            f = Field(
                key="path",
                label="Path",
                kind="hexpath",
                limits={"start": [int(s.x), int(s.y)], "max_cost": MAX_HEX_COST},
            )
        else:
            f = Field(
                key="legs",
                label="Move",
                kind="legs",
                max=MAX_MOVE,
                unit="inches",
                limits={"max_distance_left": MAX_MOVE, "turn_degrees": 45},
            )
        pieces.append(PieceChoices(piece=sid, label=NAMES[sid], fields=(f,)))
    return [
        Form(
            command="skirmish.orders",
            label="Move orders",
            pieces=tuple(pieces),
            fixed={"side": me},
            list_key="ships",
            piece_key="id",
            group="move",
            rule="SK-MOVE",
        )
    ]


# ---- view and drawing ---------------------------------------------------------------------
def view(state: State, viewer: Viewer) -> dict[str, Any]:
    return {
        "turn": state.turn,
        "phase": state.phase,
        "done": list(state.done),
        "hull": {sid: s.hull for sid, s in state.ships.items()},
    }


def draw(state: State, viewer: Viewer) -> Drawing:
    over = is_over(state)

    def why(side: str) -> tuple[bool, str]:
        if over:
            return False, "game over"
        if side in state.done:
            other = "blue" if side == "red" else "red"
            return False, f"waiting for {other}" if state.phase == "move" else "ended the phase"
        return True, "your sealed move orders" if state.phase == "move" else "fire, then end the phase"

    seats = tuple(SeatStatus(s, *why(s)) for s in SIDES)
    you = next((x for x in seats if x.seat == viewer.seat), None) if viewer.kind == "seat" else None
    board = (
        Board(kind="hex", units="hexes", radius=6, orientation="flat", facings=("N", "NE", "SE", "S", "SW", "NW"))
        if state.board == "hex"
        else Board(kind="plane", units="inches", width=24, height=24)
    )
    pieces = tuple(
        Piece(
            id=sid,
            kind="ship",
            label=NAMES[sid],
            at=pt(s.x, s.y),
            side=s.side,
            facing=s.heading,
            status="destroyed" if s.hull <= 0 else "active",
            bars=(Bar("hull", s.hull, HULL),),
            mine=viewer.seat == s.side,
        )
        for sid, s in state.ships.items()
    )
    return Drawing(
        board=board,
        pieces=pieces,
        sides=SIDES,
        tracks=tuple(Track(kind="move", points=tuple(pt(*p) for p in pts), piece=sid) for sid, pts in state.tracks),
        effects=tuple(
            Effect(n=n, kind=k, text=t, source=a, target=b, amount=1 if k == "damage" else None, rule="SK-FIRE")
            for n, k, t, a, b in state.effects
        ),
        status=Status(
            turn=state.turn,
            phase=state.phase,
            phase_label=f"{state.phase.title()} phase",
            seats=seats,
            you=you,
            sealed=state.phase == "move",
            over=over,
            result=result(state),
        ),
    )


def explain(event: Event) -> str:
    if isinstance(event, Fired):
        return f"{NAMES[event.ship]} fires at {NAMES[event.target]}: {'hit' if event.hit else 'miss'}"
    if isinstance(event, Moved):
        return f"{event.side} moves {len(event.moves)} ship(s)"
    return event_tag(event)


RULESET: RulesetSpec[State, Setup] = RulesetSpec(
    name="skirmish",
    version="1.0",
    title="Skirmish (browser-test ruleset)",
    hidden_information=False,
    setup_type=Setup,
    state_type=State,
    command_types=(Orders, Fire, EndPhase),
    event_types=(Moved, Fired, Ended, Advanced),
    scenarios=scenarios,
    seats=seats,
    initial_state=initial_state,
    clock=clock,
    is_over=is_over,
    result=result,
    decide=decide,
    evolve=evolve,
    options=options,
    forms=forms,
    view=view,
    draw=draw,
    explain=explain,
)
