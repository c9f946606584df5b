"""Attacking system defences (FTC-DEF), neutral worlds (FTC-WLD-5) and repulse damage (FTC-DEF-7)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Modifier, Roll, RuleViolation
from service.domain.core.acc import Acc

from . import events as E
from .commands import AssaultDefences, HoldOff, RepairRepulse
from .common import (
    dist,
    econ,
    fleet_points,
    group_of,
    groups_at_hex,
    hulkless,
    own_group,
    player_of,
    record_intel,
    witnesses_at,
)
from .movement import depart, plain_reach
from .state import Group, HexT, State, Step, key


def roll_neutral(out: Acc[State], wid: str, by: str, dice: Dice) -> None:
    """FTC-WLD-5: 1–2 unsettled (0); 3–4 2d6 × 10; 5–6 3d6 × 10; revealed to all."""
    r = dice.roll(6, f"development of neutral world {wid}", "FTC-WLD-5")
    n = 0 if r.value <= 2 else 2 if r.value <= 4 else 3
    rolls = [replace(r, outcome="unsettled" if n == 0 else f"{n}d6 × 10")]
    rolls += [dice.roll(6, f"income of {wid}", "FTC-WLD-5") for _ in range(n)]
    out.add(E.WorldScouted(world=wid, income=10 * sum(x.value for x in rolls[1:]), by=by, rolls=tuple(rolls)))


def attack_groups(state: State, h: HexT, player: str) -> list[Group]:
    return [g for g in groups_at_hex(state, h) if g.owner == player and not g.dummy and g.posture == "attack"]


def open_assault(out: Acc[State], h: HexT, player: str, dice: Dice) -> None:
    """A lone attacker at a world not its own (FTC-DEF-1): scout-roll, take, drive off or open a step."""
    k = key(h)
    if out.state.worlds[k].income is None:
        roll_neutral(out, k, player, dice)
    w = out.state.worlds[k]
    wit = witnesses_at(out.state, h, extra=(w.owner,))
    if w.idp <= 0:  # FTC-WLD-5 ruling: an unsettled world (IDP 0) is taken without a roll
        out.add(E.WorldTaken(world=k, player=player, old_owner=w.owner, witnesses=wit))
        record_intel(out, h, wit, composition=False)
        return
    groups = attack_groups(out.state, h, player)
    ships = [s for g in groups for s in hulkless(out.state, g)]
    if 2 * fleet_points(out.state, ships) < 10 * w.idp:  # FTC-DEF-8
        back = groups[0].origin or h
        out.add(E.DrivenOff(hex=h, player=player, groups=tuple(g.id for g in groups), to=back, witnesses=wit))
        for g in groups:
            depart(out, player, g.id, g.origin or h, "driven off by the defences")
        return
    st = out.state
    step = Step(
        id=f"x{st.counter + 1}", kind="assault", hex=h, players=(player,), awaiting=(player,), bonus=k in st.bonus
    )
    out.add(E.StepOpened(step=step, witnesses=(player,)))


def _step(state: State, sid: str, player: str, kind: str) -> Step:
    s = next((s for s in state.steps if s.id == sid), None)
    if s is None or player not in s.awaiting or s.kind != kind:
        raise RuleViolation("FTC-DEF-1", f"no {kind} decision {sid!r} is waiting for you")
    return s


def assault(out: Acc[State], cmd: AssaultDefences, actor: Actor, dice: Dice) -> None:
    state = out.state
    player = player_of(state, actor)
    resolve_assault(out, check_assault(state, player, cmd), player, cmd.ships, dice)


def check_assault(state: State, player: str, cmd: AssaultDefences) -> Step:
    """FTC-DEF-1, FTC-DEF-2: the assault step, or raises (before any die)."""
    s = _step(state, cmd.step, player, "assault")
    standing_off = {
        sid for g in groups_at_hex(state, s.hex) if g.owner == player and g.posture == "stand_off" for sid in g.ships
    }
    if standing_off & set(cmd.ships):
        raise RuleViolation(
            "FTC-ARR-2", "a task group on stand-off neither attacks nor interdicts: its ships cannot join the assault"
        )
    eligible = {sid for g in attack_groups(state, s.hex, player) for sid in hulkless(state, g)}
    if not cmd.ships or any(sid not in eligible for sid in cmd.ships) or len(set(cmd.ships)) != len(cmd.ships):
        raise RuleViolation("FTC-DEF-1", "commit ships of your attacking task groups in the system")
    points, dv = fleet_points(state, cmd.ships), 10 * state.worlds[key(s.hex)].idp
    if 2 * points < dv:
        raise RuleViolation("FTC-DEF-2", f"{points} pts is below 50% of the defence value {dv}; it may not attack")
    return s


def resolve_assault(out: Acc[State], s: Step, player: str, ships: tuple[str, ...], dice: Dice) -> None:
    # FTC-DEF-7: a fleet that fights again before repairing earlier repulse damage takes that damage first
    for gid in sorted({g.id for sid in ships if (g := group_of(out.state, sid)) is not None}):
        allocate_repulse(out, out.state.groups[gid], dice)
    ships = tuple(sid for sid in ships if sid in out.state.ships)
    if not ships:  # the earlier damage destroyed every committed ship: nothing is left to attack with
        out.add(
            E.StepResolved(
                step=s.id,
                kind="assault",
                hex=s.hex,
                choices={player: "hold off"},
                witnesses=(player,),
                postures={player: "stand_off"},
                settle=True,
            )
        )
        return
    state = out.state
    k = key(s.hex)
    w = state.worlds[k]
    points, dv = fleet_points(state, ships), 10 * w.idp
    mods: list[Modifier] = []
    if points >= dv and points // dv - 1:
        mods.append(
            Modifier("FTC-DEF-2", f"fleet {points} pts is {points // dv}× the defence value {dv}", points // dv - 1)
        )
    if points < dv:
        mods.append(Modifier("FTC-DEF-2", f"fleet {points} pts is below the defence value {dv}", -1))
    if s.bonus:
        mods.append(Modifier("FTC-DEF-2", "defeated a defending fleet in the system first", 1))
    r = dice.roll(6, f"assault on the defences of {k}", "FTC-DEF-3", target=6, modifiers=tuple(mods))
    total = r.value + sum(m.value for m in mods)
    rolls: list[Roll] = []
    witnesses = witnesses_at(state, s.hex, extra=(w.owner,))
    groups = tuple(sorted({g.id for sid in ships if (g := group_of(state, sid)) is not None}))
    if r.value == 6 or total >= 6:  # FTC-DEF-3
        rolls.append(replace(r, outcome="surrender"))
        d = dice.roll(5, f"damage to the defences of {k}", "FTC-DEF-4")
        idp = 0 if d.value <= 2 else w.idp // 3 if d.value == 3 else w.idp * 2 // 3 if d.value == 4 else w.idp
        rolls.append(replace(d, outcome=f"IDP {w.idp} → {idp}"))
        ev = E.AssaultResolved(
            hex=s.hex,
            player=player,
            owner=w.owner,
            ships=ships,
            fleet_points=points,
            defence_value=dv,
            result="surrendered",
            idp_after=idp,
            witnesses=witnesses,
            groups=groups,
            rolls=tuple(rolls),
        )
    elif total >= 2:  # FTC-DEF-6
        ev = E.AssaultResolved(
            hex=s.hex,
            player=player,
            owner=w.owner,
            ships=ships,
            fleet_points=points,
            defence_value=dv,
            result="interdicted",
            idp_after=w.idp,
            witnesses=witnesses,
            groups=groups,
            rolls=(replace(r, outcome="interdicted"),),
        )
    else:  # FTC-DEF-7
        ev = E.AssaultResolved(
            hex=s.hex,
            player=player,
            owner=w.owner,
            ships=ships,
            fleet_points=points,
            defence_value=dv,
            result="repulsed",
            idp_after=w.idp,
            repulse=w.income or 0,
            repulse_boxes=w.idp // 3,
            groups=groups,
            due_et=state.economic_turn + 1,
            witnesses=witnesses,
            rolls=(replace(r, outcome="repulsed"),),
            repulse_split=repulse_split(state, ships, w.income or 0, w.idp // 3),
        )
    out.add(E.StepResolved(step=s.id, kind="assault", hex=s.hex, choices={player: "assault"}, witnesses=(player,)))
    out.add(ev)
    record_intel(out, s.hex, witnesses, composition=False)
    if ev.result == "repulsed":  # FTC-DEF-7, ruling FTC-R-25: the incoming fleet is beaten back and departs
        for g in attack_groups(out.state, s.hex, player):
            depart(out, player, g.id, retreat_toward(out.state, g), "repulsed by the defences")


def repulse_split(state: State, ships: tuple[str, ...], pts: int, boxes: int) -> dict[str, tuple[int, int]]:
    """FTC-DEF-7: the repulse's points and hull boxes shared among the committed ships' groups by mass (the
    boxes later fall on a group's ships by mass too), so the whole repulse is carried exactly once."""
    mass: dict[str, int] = {}
    for sid in ships:
        g = group_of(state, sid)
        if g is not None:
            mass[g.id] = mass.get(g.id, 0) + state.ships[sid].mass
    p, b = largest_remainder(pts, mass), largest_remainder(boxes, mass)
    return {gid: (p[gid], b[gid]) for gid in sorted(mass)}


def retreat_toward(state: State, g: Group) -> HexT:
    """Ruling FTC-R-25: a repulsed group heads back where it came from; one that came from nowhere else (it was
    already in the system) heads for its owner's nearest world, or failing that stays on course for any hex
    one jump away (FTC-R-22 then picks the reachable hex)."""
    here = g.hex
    assert here is not None
    if g.origin is not None and tuple(g.origin) != tuple(here):
        return g.origin
    own = sorted(
        (dist(w.hex, here), w.hex) for w in state.worlds.values() if w.owner == g.owner and tuple(w.hex) != tuple(here)
    )
    if own:
        return own[0][1]
    near = [h for h in plain_reach(state, here) if tuple(h) != tuple(here)]
    return near[0] if near else here


def hold_off(out: Acc[State], cmd: HoldOff, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    s = _step(state, cmd.step, player, "assault")
    out.add(
        E.StepResolved(
            step=s.id,
            kind="assault",
            hex=s.hex,
            choices={player: "hold off"},
            witnesses=(player,),
            postures={player: "stand_off"},
            settle=True,
        )
    )


def largest_remainder(total: int, weights: dict[str, int]) -> dict[str, int]:
    """General ruling: mass-proportional allocations use the largest-remainder method."""
    whole = sum(weights.values())
    if whole <= 0 or total <= 0:
        return {k: 0 for k in weights}
    shares = {k: total * w // whole for k, w in weights.items()}
    rest = total - sum(shares.values())
    order = sorted(weights, key=lambda k: (-(total * weights[k] % whole), k))
    for k in order[:rest]:
        shares[k] += 1
    return shares


def allocate_repulse(out: Acc[State], g: Group, dice: Dice) -> None:
    """FTC-DEF-7: IDP/3 hull boxes by mass; each newly stripped row checks every working system."""
    state = out.state
    rep = g.repulse
    if rep is None:
        return
    ships = hulkless(state, g)
    hits = largest_remainder(rep.boxes, {s: state.ships[s].mass for s in ships})
    worse = econ(state, g.owner).penalty
    failed: list[str] = []
    destroyed: list[str] = []
    rolls: list[Roll] = []
    for sid in ships:
        ship = state.ships[sid]
        after = ship.hull_lost + hits[sid]
        if after >= ship.hull:
            destroyed.append(sid)
            continue
        row = -(-ship.hull // max(1, ship.hull_rows))
        for n in range(ship.hull_lost // row + 1, after // row + 1):
            for sys in ship.systems:
                if sys.damaged or f"{sid}/{sys.id}" in failed:
                    continue
                mods = []
                if worse:
                    mods.append(Modifier("FTC-ECO-5", "reduced maintenance: one level worse", 1))
                if sys.foreign:
                    mods.append(Modifier("FTC-REP-2", "part from another ship: one level worse", 1))
                r = dice.roll_high(
                    6,
                    f"system check {sid}/{sys.id} (row {n})",
                    "FTC-DEF-7",
                    7 - n,
                    tuple(mods),
                    success="knocked out",
                    failure="holds",
                )
                rolls.append(r)
                if r.outcome == "knocked out":
                    failed.append(f"{sid}/{sys.id}")
    out.add(
        E.RepulseAllocated(
            player=g.owner, group=g.id, hits=hits, failed=tuple(failed), destroyed=tuple(destroyed), rolls=tuple(rolls)
        )
    )


def check_repair_repulse(state: State, player: str, cmd: RepairRepulse) -> int:
    """FTC-DEF-7: the cost of repairing a group's repulse damage in time, or raises."""
    from .economy import spend
    from .repairs import at_repair_world

    g = own_group(state, player, cmd.group)
    if g.repulse is None:
        raise RuleViolation("FTC-DEF-7", "the group carries no repulse damage")
    at_repair_world(state, player, g)
    spend(state, player, g.repulse.pts)
    return g.repulse.pts


def repair_repulse(out: Acc[State], cmd: RepairRepulse, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    cost = check_repair_repulse(state, player, cmd)
    out.add(E.RepulseRepaired(player=player, group=cmd.group, cost=cost))
