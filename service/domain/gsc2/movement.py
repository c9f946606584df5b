"""Movement: legal moves (GSC2-MOV-3/4/5/7), alternation (GSC2-MOV-2) and tractor beams (GSC2-MOV-6)."""

from __future__ import annotations

from typing import Any, NamedTuple

from msgspec.structs import replace

from service.domain.core import Dice, RuleViolation
from service.domain.core.plane import EPSILON, Point, normalize_heading

from .combat import inches, roll_to_hit, target_modifiers
from .commands import FireTractor, Leg, Move
from .events import OrderSet, RollOff, ShipMoved, TractorFired
from .state import GameState, ShipState
from .values import Order

CONTACT = 0.5  # GSC2-MOV-7 ruling: centres within 0.5"
PAID_TURN = 4.0
TURN_DEGREES = 45
EDGE_RULE = "GSC2-R-18"  # a ship whose move crosses the table edge leaves play where it crosses


def on_table(p: Point, table: tuple[float, float]) -> bool:
    return -EPSILON <= p.x <= table[0] + EPSILON and -EPSILON <= p.y <= table[1] + EPSILON


def table_exit(a: Point, b: Point, table: tuple[float, float]) -> float | None:
    """GSC2-R-18: the fraction of the straight run a→b (a on the table) at which it crosses the edge, or
    None when b is on the table too (a straight run cannot leave a rectangle and come back)."""
    if on_table(b, table):
        return None
    t = 1.0
    for start, delta, size in ((a.x, b.x - a.x, table[0]), (a.y, b.y - a.y, table[1])):
        if delta > EPSILON:
            t = min(t, (size - start) / delta)
        elif delta < -EPSILON:
            t = min(t, -start / delta)
    return max(0.0, t)


def _clamp(p: Point, table: tuple[float, float]) -> Point:
    """The crossing point exactly on the edge (float dust would leave it a hair inside or out)."""
    return Point(round(min(max(p.x, 0.0), table[0]), 9) + 0.0, round(min(max(p.y, 0.0), table[1]), 9) + 0.0)


def edge_distance(p: Point, heading: float, table: tuple[float, float]) -> float:
    """How far a ship at ``p`` may go straight on ``heading`` before it leaves the table (GSC2-R-18)."""
    far = p.advanced(heading, table[0] + table[1] + 1.0)
    t = table_exit(p, far, table)
    return round((table[0] + table[1] + 1.0) * (1.0 if t is None else t), 6)


def allowance(ship: ShipState) -> float:
    """Inches still available to this ship this turn."""
    if ship.move_state == "moving":
        return ship.move_left
    if ship.held:
        return 0.0  # GSC2-R-3: a ship held by a tractor beam may not move this turn
    return float(ship.speed)


def end_turn_allowed(ship: ShipState, turn_distance: float) -> bool:
    """GSC2-MOV-4: speed below the turn distance allows one free turn after the move; speed 0 is below it too
    (GSC2-R-5: the digest's ruling has no exception for a ship that cannot move)."""
    return ship.speed < turn_distance - EPSILON


def plan_move(state: GameState, cmd: Move) -> ShipMoved:
    ship = state.ships[cmd.ship]
    td = state.specs[cmd.ship].turn_distance
    left = allowance(ship)
    since = ship.since_turn if ship.move_state == "moving" else 0.0
    pos, heading = ship.pos, ship.heading
    path = [pos]
    travelled = 0.0
    turns = paid = 0
    left_table = False
    # legs are numbered from 1 in messages, as the page's legs editor numbers them ("leg 1" is the first)
    for i, leg in enumerate(cmd.legs, start=1):
        _check_leg(i, leg)
        if leg.turn:
            cost = _turn_cost(ship, cmd, i, leg, td, since, left, turns)
            if cost:
                left -= cost
                paid += 1
            heading = normalize_heading(heading + leg.turn)
            since = 0.0
            turns += 1
        if leg.distance > left + EPSILON:
            why = "it is held by a tractor beam (GSC2-R-3)" if ship.held else f"only {inches(left)} left"
            raise RuleViolation("GSC2-MOV-3", f"leg {i}: cannot move {inches(leg.distance)}: {why}")
        end, run, exit_at = _leg_end(state, pos, heading, leg.distance)
        if run > 0:
            pos = end
            left = max(0.0, left - run)
            since += run
            travelled += run
        path.append(pos)
        if exit_at is not None:
            left_table = True
            break
    return ShipMoved(
        ship=ship.id,
        path=tuple(path),
        heading=heading,
        distance=round(travelled, 9),
        moved=round(ship.moved + travelled, 9),
        turns=turns,
        paid_turns=paid,
        since_turn=round(since, 9),
        move_left=0.0 if left_table else round(left, 9),
        finished=cmd.done or left_table,
        contacts=_contacts(state, ship, path),
        left_table=left_table,
    )


def _check_leg(i: int, leg: Leg) -> None:
    if leg.turn not in (-45, 0, 45):
        raise RuleViolation("GSC2-MOV-3", f"leg {i}: turns are 45° left (-45) or right (45), not {leg.turn}")
    if leg.distance < 0:
        raise RuleViolation("GSC2-MOV-3", f"leg {i}: a ship cannot move backwards")


def _turn_cost(ship: ShipState, cmd: Move, i: int, leg: Leg, td: float, since: float, left: float, turns: int) -> float:
    """GSC2-MOV-3/4: what the turn on leg ``i`` takes from the move left: nothing after the turn distance or
    for a slow ship's one turn at the end of its move, else 4" (or raises when that is not left)."""
    last = i == len(cmd.legs)
    if since >= td - EPSILON:
        return 0.0  # free turn after the turn distance
    if last and cmd.done and leg.distance == 0 and end_turn_allowed(ship, td) and turns == 0:
        return 0.0  # GSC2-MOV-4: slow ship's turn at the end of its move
    if left >= PAID_TURN - EPSILON:
        return PAID_TURN
    raise RuleViolation(
        "GSC2-MOV-3",
        f"leg {i}: {ship.id} may turn after {inches(max(0.0, td - since))} more, or by giving up "
        f'4" ({inches(left)} left)',
    )


def _leg_end(state: GameState, pos: Point, heading: float, run: float) -> tuple[Point, float, float | None]:
    """Where a leg of ``run`` inches ends; GSC2-R-18: cut short where the ship sails off the table (the fraction
    of the leg run before it leaves, or None)."""
    end = pos.advanced(heading, run) if run > 0 else pos
    exit_at = table_exit(pos, end, state.table) if run > 0 and not state.open_table else None
    if exit_at is not None:  # GSC2-R-18: the ship sails off the table here and leaves play
        run = round(run * exit_at, 9)
        end = _clamp(Point(pos.x + (end.x - pos.x) * exit_at, pos.y + (end.y - pos.y) * exit_at), state.table)
    return end, run, exit_at


def _contacts(state: GameState, ship: ShipState, path: list[Point]) -> tuple[str, ...]:
    """GSC2-MOV-7: immobilized enemies the ship's path came into contact with."""
    return tuple(
        sorted(
            {
                e.id
                for e in state.enemy_ships(ship.side)
                if e.immobilized and any(p.distance_to(e.pos) <= CONTACT + EPSILON for p in path[1:])
            }
        )
    )


def check_turn_to_move(state: GameState, ship: ShipState) -> None:
    """GSC2-MOV-2: is it this ship's side's move, and may this ship move now?"""
    if state.moving is not None and state.moving != ship.id:
        raise RuleViolation("GSC2-MOV-2", f"{state.moving} is in the middle of its move; finish it first")
    if ship.move_state == "moved":
        raise RuleViolation("GSC2-MOV-2", f"{ship.id} has already moved this turn")
    o = state.order
    if o.stage == "choose":
        raise RuleViolation("GSC2-MOV-2", f"{o.side} won the roll-off and must first choose the second player")
    if o.side != ship.side:
        owed = f" (owes {o.owed} more)" if o.owed else ""
        raise RuleViolation("GSC2-MOV-2", f"it is {o.side}'s move{owed}, not {ship.side}'s")


def settle(state: GameState, o: Order) -> Order:
    """Normalise the alternation after a step: who moves next and how many ships they owe (GSC2-MOV-2; with
    three or more sides GSC2-R-21: the followers answer each batch in turn, round the table from the leader)."""
    unmoved = {s: state.unmoved(s) for s in state.sides}
    if sum(unmoved.values()) == 0:
        return Order(stage="done", leader=o.leader)
    if o.stage == "choose":
        return o
    lead = o.leader or state.sides[0]
    if o.stage == "catchup":
        if o.owed > 0 and o.side is not None and unmoved[o.side] > 0:
            return o
        more = _catch_up(state, unmoved)
        if more is not None:
            return Order(stage="catchup", side=more[0], owed=more[1], leader=lead)
        o = Order(stage="lead", side=lead, leader=lead)
    if o.stage == "lead":
        if unmoved[lead] > 0:
            return o
        if o.count:  # the leader ran out in the middle of its batch: the others still match what it moved
            return _follower(state, unmoved, lead, lead, o.count)
        return _leader_gone(state, unmoved, lead)
    if o.owed > 0 and o.side is not None and unmoved[o.side] > 0:  # follow
        return o
    return _follower(state, unmoved, lead, o.side or lead, o.count)


def _catch_up(state: GameState, unmoved: dict[str, int]) -> tuple[str, int] | None:
    """The side that must move ships first to come down to the fewest unmoved ships of any side still moving
    (the most first, ties in scenario order), and how many; None when they are level."""
    moving = [s for s in state.sides if unmoved[s] > 0]
    if len(moving) < 2:
        return None
    floor = min(unmoved[s] for s in moving)
    top = max(moving, key=lambda s: unmoved[s])
    return (top, unmoved[top] - floor) if unmoved[top] > floor else None


def _follower(state: GameState, unmoved: dict[str, int], lead: str, after: str, batch: int) -> Order:
    """The next side round the table after ``after`` that answers the leader's batch of ``batch`` ships; the
    batch size rides in ``count`` while another follower is still to come. Once all have answered: the leader's
    next batch."""
    ring = state.rotation(lead)
    start = ring.index(after) + 1 if after in ring else 1
    for i in range(start, len(ring)):
        side = ring[i]
        if unmoved[side] > 0:
            more = i < len(ring) - 1
            return Order(
                stage="follow",
                side=side,
                owed=min(batch, unmoved[side]) or unmoved[side],
                leader=lead,
                count=batch if more else 0,
            )
    if unmoved[lead] > 0:
        return Order(stage="lead", side=lead, leader=lead)
    return _leader_gone(state, unmoved, lead)


def _leader_gone(state: GameState, unmoved: dict[str, int], lead: str) -> Order:
    """The leader has no ship left to move (GSC2-R-10): one side left moves all it has; with two or more left,
    the next of them round the table leads from now on (GSC2-R-21)."""
    rest = [s for s in state.rotation(lead)[1:] if unmoved[s] > 0]
    if len(rest) == 1:
        return Order(stage="follow", side=rest[0], owed=unmoved[rest[0]], leader=lead)
    return Order(stage="lead", side=rest[0], leader=rest[0])


def batch_ended(state: GameState) -> Order:
    """The leader ends its batch (``gsc2.pass``): the followers answer it in turn."""
    o = state.order
    return settle(state, Order(stage="follow", side=o.side, owed=0, leader=o.leader, count=o.count))


def after_ship_moved(state: GameState) -> Order:
    """The order after one ship finished its move (``state`` already has it as moved)."""
    o = state.order
    if o.stage == "lead":
        o = Order(stage="lead", side=o.side, count=o.count + 1, leader=o.leader)
    elif o.stage in ("catchup", "follow"):
        o = Order(stage=o.stage, side=o.side, owed=max(0, o.owed - 1), leader=o.leader, count=o.count)
    return settle(state, o)


def leader_choices(state: GameState) -> tuple[str, ...]:
    """Whom the roll-off winner may name: in movement, the sides tied for the fewest unmoved ships (the
    roll-off's contenders); in missiles, any side still in the fight (GSC2-R-21, GSC2-R-22)."""
    if state.phase == "movement":
        return _fewest(state)
    return contenders(state)


def contenders(state: GameState) -> tuple[str, ...]:
    """Who rolls for the missile initiative: the sides still in the fight (GSC2-R-22)."""
    playing = state.in_play()
    return playing if len(playing) >= 2 else state.in_battle()


def _fewest(state: GameState) -> tuple[str, ...]:
    counts = {s: state.unmoved(s) for s in state.in_play()}
    if len(counts) < 2:
        return state.sides
    low = min(counts.values())
    return tuple(s for s in state.sides if counts.get(s) == low)


def start_order(state: GameState, dice: Dice) -> list[RollOff | OrderSet]:
    """The alternation at the start of movement (GSC2-MOV-2): the sides with more unmoved ships come down to
    the fewest first; the side with the fewest is the second player, and sides tied for the fewest roll off
    (GSC2-MOV-2 ruling; with three or more sides GSC2-R-21)."""
    counts = {s: state.unmoved(s) for s in state.in_play()}
    if not counts:
        return [OrderSet(order=Order(stage="done"), why="no ship can move")]
    if len(counts) == 1:  # one side alone moves all it has
        [(more, n)] = counts.items()
        o = Order(stage="catchup", side=more, owed=n, leader=state.next_side(more))
        return [OrderSet(order=settle(state, o), why=f"{more} has more unmoved ships and moves {n} first")]
    fewest = _fewest(state)
    if len(fewest) == 1:
        o = settle(state, Order(stage="catchup", leader=fewest[0]))
        return [OrderSet(order=o, why=f"{o.side} has more unmoved ships and moves {o.owed} first")]
    winner, rolloff = roll_off(state, dice, "movement: who decides the second player", "GSC2-MOV-2", fewest)
    return [rolloff, OrderSet(order=Order(stage="choose", side=winner), why=f"{winner} won the roll-off")]


def roll_off(
    state: GameState, dice: Dice, purpose: str, rule: str, sides: tuple[str, ...] | None = None
) -> tuple[str, RollOff]:
    """d10 each; the highest wins and sides tied for the highest re-roll (GSC2-R-21 for three or more)."""
    rivals = sides if sides is not None else contenders(state)
    rolls = []
    for _ in range(50):  # re-roll ties; 50 ties in a row do not happen with fair dice
        rolled = [(side, dice.roll(10, f"{purpose} ({side})", rule)) for side in rivals]
        best = max(r.value for _, r in rolled)
        top = tuple(side for side, r in rolled if r.value == best)
        if len(top) > 1:
            rolls += [replace(r, outcome="tie" if r.value == best else "lose") for _, r in rolled]
            rivals = top
            continue
        win = top[0]
        rolls += [replace(r, outcome="win" if side == win else "lose") for side, r in rolled]
        return win, RollOff(purpose=purpose, winner=win, rolls=tuple(rolls))
    return rivals[0], RollOff(purpose=purpose, winner=rivals[0], rolls=tuple(rolls))


class TractorShot(NamedTuple):
    ship: str
    system: str
    target: str
    need: int  # the d10 target number (GSC2-HIT-1/2, no range modifier)


def tractor_shots(state: GameState, side: str) -> list[TractorShot]:
    """The tractor beams ``side`` may fire now (GSC2-MOV-6, GSC2-R-3): only while a move is paused or in
    progress, from the mover itself at any enemy, or from an enemy of the mover at the mover. The one
    predicate behind both the options and the seat's status, so they never disagree."""
    if state.phase != "movement" or state.moving is None or side in state.done:
        return []
    mover = state.ships[state.moving]
    out = []
    for me in state.active(side):
        if me.id == mover.id:
            targets = state.enemy_ships(side)
        elif mover.side != side:
            targets = [mover]
        else:
            continue
        for spec in state.specs[me.id].systems:
            if spec.kind != "tractor_beam" or not me.sys[spec.id].working or spec.id in me.used:
                continue
            for t in targets:
                if me.pos.distance_to(t.pos) > spec.range + EPSILON:
                    continue
                need = spec.targeting + sum(m.value for m in target_modifiers(t, state.specs[t.id].aspect))
                out.append(TractorShot(me.id, spec.id, t.id, need))
    return out


def tractor(state: GameState, cmd: FireTractor, dice: Dice) -> TractorFired:
    ship = state.ships[cmd.ship]
    sys = ship.sys.get(cmd.system)
    if sys is None or sys.kind != "tractor_beam":
        raise RuleViolation("GSC2-MOV-6", f"{ship.id} has no tractor beam {cmd.system!r}")
    if sys.destroyed or sys.damaged:
        raise RuleViolation("GSC2-SYS-1", f"{cmd.system} is {'destroyed' if sys.destroyed else 'damaged'}")
    if cmd.system in ship.used:
        raise RuleViolation("GSC2-MOV-6", f"{cmd.system} has already fired this turn")
    target = state.ships.get(cmd.target)
    if target is None or not target.active or target.side == ship.side:
        raise RuleViolation("GSC2-MOV-6", f"no enemy ship {cmd.target!r} to hold")
    if state.moving not in (ship.id, target.id):
        raise RuleViolation(
            "GSC2-MOV-6", "a tractor beam fires only by interrupting its own ship's move or the target's move"
        )
    spec = next(s for s in state.specs[ship.id].systems if s.id == cmd.system)
    dist = ship.pos.distance_to(target.pos)
    if dist > spec.range + EPSILON:
        raise RuleViolation("GSC2-MOV-6", f"{target.id} is {inches(dist)} away; tractor range {inches(spec.range)}")
    roll = roll_to_hit(
        dice,
        f"tractor {cmd.system} at {target.id}",
        "GSC2-MOV-6",
        spec.targeting,
        target_modifiers(target, state.specs[target.id].aspect),
    )
    hit = roll.outcome == "hit"
    return TractorFired(
        ship=ship.id,
        system=cmd.system,
        target=target.id,
        distance=round(dist, 3),
        hit=hit,
        ended_move=hit and state.moving == target.id,
        rolls=(roll,),
    )


def example_legs(state: GameState, ship: ShipState) -> list[tuple[Leg, ...]]:
    """Concrete moves for options(): stand, straight to full speed, and a turn at each legal turn point."""
    td = state.specs[ship.id].turn_distance
    left = allowance(ship)
    since = ship.since_turn if ship.move_state == "moving" else 0.0
    out: list[tuple[Leg, ...]] = [()]
    if left > EPSILON:
        out.append((Leg(distance=round(left, 6)),))
    first_free = max(0.0, td - since)
    if first_free <= left + EPSILON:  # free turn after the turn distance
        for t in (-45, 45):
            rest = round(left - first_free, 6)
            out.append(
                tuple(
                    x
                    for x in (
                        Leg(distance=round(first_free, 6)) if first_free > EPSILON else None,
                        Leg(turn=t, distance=rest),
                    )
                    if x is not None
                )
            )
    if left >= PAID_TURN - EPSILON:  # pay 4" to turn at once
        for t in (-45, 45):
            out.append((Leg(turn=t, distance=round(left - PAID_TURN, 6)),))
    if end_turn_allowed(ship, td):
        for t in (-45, 45):
            out.append((Leg(distance=round(left, 6)), Leg(turn=t)) if left > EPSILON else (Leg(turn=t),))
    return out


def move_limits(state: GameState, ship: ShipState) -> dict[str, Any]:
    """What a page needs to check a free move live (GSC2-MOV-3/4, GSC2-R-3, GSC2-R-18)."""
    td = state.specs[ship.id].turn_distance
    since = ship.since_turn if ship.move_state == "moving" else 0.0
    left = allowance(ship) if ship.move_state != "moved" else 0.0
    return {
        "max_distance_left": round(left, 6),
        "free_turn_after": round(max(0.0, td - since), 6),  # inches until the next free 45° turn
        "turn_distance": td,
        "paid_turn_cost": PAID_TURN,  # inches given up to turn at once
        "turn_degrees": TURN_DEGREES,
        "turns": [-TURN_DEGREES, 0, TURN_DEGREES],  # a leg's turn before it goes (negative = left)
        "end_of_move_turn": end_turn_allowed(ship, td),  # GSC2-MOV-4: one free turn as the last leg
        "held": ship.held,
        "heading": ship.heading,
        "edge_ahead": None if state.open_table else edge_distance(ship.pos, ship.heading, state.table),
        "table": {"width": state.table[0], "height": state.table[1]},
        "off_table": (
            "GSC2-R-20: an open table: a ship may go past the drawn table and stays in the battle; it "
            "leaves only by gsc2.disengage"
            if state.open_table
            else f"{EDGE_RULE}: a ship whose move crosses the table edge leaves play there and counts as "
            "lost for victory"
        ),
        "how": "legs run in order, each turning first then going ahead; a turn is free once the ship has gone "
        "free_turn_after (then turn_distance again) since its last turn, else it costs paid_turn_cost of "
        "the inches left; distances plus paid turns stay within max_distance_left; with end_of_move_turn "
        'a last leg of 0" may turn for free (GSC2-MOV-3/4)',
    }
