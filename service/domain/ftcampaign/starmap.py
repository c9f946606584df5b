"""Set-up: the dice map (FTC-MAP), starting worlds and expansion (FTC-WLD-1..4)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Roll, RuleViolation
from service.domain.core.acc import Acc

from . import events as E
from .commands import ClaimHomeworld, Expand
from .common import dist, in_direction, player_of
from .state import HexT, State, key

MAX_REROLLS = 6  # FTC-MAP-3 ruling
ROUTE_REACH = 4


def hexes(radius: int) -> list[HexT]:
    return sorted(
        (q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1) if abs(q + r) <= radius
    )


def _nearest(origin: HexT, side: int, candidates: list[HexT], reach: int | None) -> list[HexT]:
    found = [
        c
        for c in candidates
        if c != origin and in_direction(origin, c, side) and (reach is None or dist(origin, c) <= reach)
    ]
    if not found:
        return []
    best = min(dist(origin, c) for c in found)
    return sorted(c for c in found if dist(origin, c) == best)


def _pick(dice: Dice, rolls: list[Roll], options: list[HexT], rule: str, why: str) -> HexT:
    if len(options) == 1:
        return options[0]
    r = dice.roll(len(options), f"tie-break {why}", rule)
    rolls.append(replace(r, outcome=key(options[r.value - 1])))
    return options[r.value - 1]


def generate_map(out: Acc[State], actor: Actor, dice: Dice) -> None:
    radius = out.state.setup.map_side - 1
    rolls: list[Roll] = []
    worlds: list[E.WorldSpec] = []
    for h in hexes(radius):  # FTC-MAP-1, FTC-MAP-2
        r = dice.roll(6, f"planet at {key(h)}", "FTC-MAP-2", target=3)
        outcome = "world on a charted route" if r.value == 1 else "world" if r.value <= 3 else "empty"
        rolls.append(replace(r, outcome=outcome))
        if r.value <= 3:
            worlds.append(E.WorldSpec(hex=h, route=r.value == 1))
    world_hexes = [w.hex for w in worlds]
    routes: list[tuple[HexT, HexT]] = []
    for w in worlds:  # FTC-MAP-3
        if not w.route:
            continue
        for _attempt in range(1 + MAX_REROLLS):
            r = dice.roll(6, f"charted route hexside from {key(w.hex)}", "FTC-MAP-3")
            side = r.value - 1
            nb = (w.hex[0] + ((0, 1, 1, 0, -1, -1)[side]), w.hex[1] + ((-1, -1, 0, 1, 1, 0)[side]))
            if max(abs(nb[0]), abs(nb[1]), abs(nb[0] + nb[1])) > radius:
                rolls.append(replace(r, outcome="leaves the map"))
                continue
            near = _nearest(w.hex, side, world_hexes, ROUTE_REACH)
            if not near:
                rolls.append(replace(r, outcome="no world within 4 hexes"))
                continue
            rolls.append(replace(r, outcome=f"towards {','.join(key(n) for n in near)}"))
            target = _pick(dice, rolls, near, "FTC-MAP-3", f"route from {key(w.hex)}")
            edge = tuple(sorted((w.hex, target)))
            if edge not in routes:
                routes.append(edge)  # type: ignore[arg-type]
            break
    out.add(E.MapGenerated(radius=radius, worlds=tuple(worlds), routes=tuple(routes), rolls=tuple(rolls)))
    out.add(E.PhaseChanged(phase="homeworlds", current=out.state.order[0]))


def unowned(state: State) -> list[HexT]:
    return sorted(w.hex for w in state.worlds.values() if w.owner is None)


def claim_homeworld(out: Acc[State], cmd: ClaimHomeworld, actor: Actor, dice: Dice) -> None:
    state = out.state
    player = player_of(state, actor)
    if state.current != player:
        raise RuleViolation("FTC-WLD-1", f"players dice for starting worlds in turn; it is {state.current}'s turn")
    free = unowned(state)
    if not free:
        raise RuleViolation("FTC-WLD-1", "no unowned world is left")
    r = dice.roll(len(free), "starting world (uniform among unowned worlds)", "FTC-WLD-1")
    world = free[r.value - 1]
    r = replace(r, outcome=key(world))
    extra = dice.roll(3, "additional worlds (d3 + 4)", "FTC-WLD-2")
    extra = replace(extra, outcome=f"{extra.value + 4} additional worlds")
    out.add(E.HomeworldClaimed(player=player, world=key(world), extra=extra.value + 4, rolls=(r, extra)))
    later = state.order[state.order.index(player) + 1 :]
    if later:
        out.add(E.PhaseChanged(phase="homeworlds", current=later[0]))
    else:
        _next_pick(out, None, dice)


def _next_pick(out: Acc[State], after: str | None, dice: Dice) -> None:
    state = out.state
    waiting = [p for p in state.order if state.economies[p].picks_left > 0]
    if waiting and not unowned(state):
        out.add(E.PicksForfeited(players=tuple(waiting)))
        waiting = []
    if not waiting:
        _roll_incomes(out, dice)
        return
    order = list(state.order)
    start = 0 if after is None else order.index(after) + 1
    for i in range(len(order)):
        p = order[(start + i) % len(order)]
        if p in waiting:
            out.add(E.PhaseChanged(phase="expansion", current=p))
            return


def expand(out: Acc[State], cmd: Expand, actor: Actor, dice: Dice) -> None:
    state = out.state
    player = player_of(state, actor)
    if state.current != player:
        raise RuleViolation("FTC-WLD-2", f"worlds are assigned in rounds; it is {state.current}'s pick")
    w = state.worlds.get(cmd.world)
    if w is None or w.owner != player:
        raise RuleViolation("FTC-WLD-2", f"{cmd.world} is not a world you own")
    free = unowned(state)
    rolls: list[Roll] = []
    for _attempt in range(6):
        r = dice.roll(6, f"direction from {cmd.world}", "FTC-WLD-2")
        near = _nearest(w.hex, r.value - 1, free, None)
        if not near:
            rolls.append(replace(r, outcome="no unowned world that way"))
            continue
        rolls.append(replace(r, outcome=f"towards {','.join(key(n) for n in near)}"))
        got = _pick(dice, rolls, near, "FTC-WLD-2", f"expansion from {cmd.world}")
        out.add(E.WorldClaimed(player=player, from_world=cmd.world, world=key(got), rolls=tuple(rolls)))
        _next_pick(out, player, dice)
        return
    out.add(E.ExpansionFailed(player=player, from_world=cmd.world, rolls=tuple(rolls)))


def _roll_incomes(out: Acc[State], dice: Dice) -> None:
    """FTC-WLD-4: 3d5 × 10 per player world, rolled once; starting capital 10 × income (FTC-ECO-1)."""
    for player in out.state.order:
        incomes: dict[str, int] = {}
        rolls: list[Roll] = []
        for wid in sorted(k for k, w in out.state.worlds.items() if w.owner == player):
            faces = [dice.roll(5, f"income of {wid}", "FTC-WLD-4") for _ in range(3)]
            incomes[wid] = 10 * sum(f.value for f in faces)
            rolls.extend(faces)
        out.add(E.IncomesRolled(player=player, incomes=incomes, capital=10 * sum(incomes.values()), rolls=tuple(rolls)))
    out.add(E.PhaseChanged(phase="deployment", current=None))
