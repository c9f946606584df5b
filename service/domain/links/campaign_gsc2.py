"""A Full Thrust campaign battle as a GSC2 tactical scenario, and the GSC2 outcome back in campaign terms.

The ship mapping and the table set-up are rulings of this project (docs/rulings-fullthrust-campaign.md,
"Linked GSC2 battles", FTC-R-LNK-n); each function names the ruling it applies.
"""

from __future__ import annotations

import math
from typing import Any

from service.domain.core import RuleViolation
from service.domain.core.hexgrid import FACING_NAMES, Hex
from service.domain.ftcampaign.movement import jump_error
from service.domain.ftcampaign.state import Battle, Force, Ship, State
from service.domain.gsc2.scenario import MAX_SIDES
from service.domain.gsc2.state import GameState

# FTC-ARR-12: hexside crossed → bearing of the table edge it enters from (0° = top, clockwise)
EDGE_BEARING = {"N": 0.0, "NE": 60.0, "SE": 120.0, "S": 180.0, "SW": 240.0, "NW": 300.0}
SPACING = 3.0  # inches between ships of one force (FTC-R-LNK-3)
LATE_BACK = 6.0  # a late force starts this far further back (FTC-ARR-7 "arrives late (in 6" spacing)")
MARGIN = 2.0
BEAM_CLASS = {1: ("light", 1), 2: ("medium", 2)}  # rating → GSC2 class, damage per weapon; 3+ heavy, 3
MISSILE_PRICE = 2  # campaign points per missile expended (FTC-R-LNK-6, FTC-ECO-3)
MISSILES_PER_RACK = 4


def battle_of(st: State, battle_id: str) -> Battle:
    battle = next((b for b in st.battles if b.id == battle_id), None)
    if battle is None:
        raise RuleViolation("FTC-ARR-8", f"no battle {battle_id!r} is waiting for a result")
    return battle


def check_linkable(st: State, battle: Battle) -> None:
    """FTC-ARR-8/12, FTC-R-LNK-5: a linked GSC2 game needs two to six forces (GSC2-R-1, GSC2-R-21: three or
    more powers fight one game, each against all) whose formations and speeds are recorded."""
    if not 2 <= len(battle.forces) <= MAX_SIDES:
        raise RuleViolation(
            "FTC-ARR-8",
            f"a linked GSC2 game is fought by two to {MAX_SIDES} forces, battle {battle.id} has "
            f"{len(battle.forces)}: record its result by hand",
        )
    missing = [f.player for f in battle.forces if f.player not in battle.formations]
    if missing:
        raise RuleViolation("FTC-ARR-12", f"formation and speed not yet recorded for {', '.join(missing)}")


def gsc2_ship(ship: Ship, side: str, x: float, y: float, heading: float) -> dict[str, Any]:
    """FTC-R-LNK-1: one campaign ship as a GSC2 data sheet (undamaged systems only)."""
    systems = [s for s in ship.systems if not s.damaged]
    beams = []
    for s in systems:
        if s.kind == "beam":
            klass, damage = BEAM_CLASS.get(s.rating, ("heavy", 3))
            beams.append(
                {
                    "id": s.id,
                    "class": klass,
                    "weapons": max(1, s.rating),
                    "damage": damage,
                    "targeting": 5,
                    "arc": "T",
                    "name": f"class-{s.rating} beam",
                }
            )
    missiles = [
        {"id": s.id, "missiles": 1, "damage": 2, "carried": MISSILES_PER_RACK, "name": "missile rack"}
        for s in systems
        if s.kind in ("missile_rack", "salvo_rack", "missile")
    ]
    shields = max((s.rating or 1 for s in systems if s.kind == "shield"), default=0)
    mds = sum(1 for s in systems if s.kind in ("pds", "adfc"))
    cloak = [{"id": s.id, "kind": "cloak", "level": 1} for s in systems if s.kind == "cloak"]
    hull = max(1, ship.hull - ship.hull_lost)
    sheet: dict[str, Any] = {
        "id": ship.id,
        "name": ship.name,
        "side": side,
        "size": max(1, round(ship.mass / 8)),
        "hull": hull,
        "armor": 0,
        "speed": 2 * ship.thrust,
        "turn_distance": 4,  # thrust 0: speed 0 (GSC2-R-5)
        "crew": max(1, ship.mass // 4),
        "x": round(x, 2),
        "y": round(y, 2),
        "heading": heading,
        "shields": shields,
        "mds": mds,
        "repair": 1,
        "scanners": 1,
        "systems": cloak,
        "beams": beams,
        "missiles": missiles,
    }
    sheet["chart"] = damage_chart(sheet)
    return sheet


def damage_chart(sheet: dict[str, Any]) -> list[list[str]]:
    """FTC-R-LNK-2: the 10-row chart cycles through the ship's systems, three a row."""
    names = [b["id"] for b in sheet["beams"]] + [m["id"] for m in sheet["missiles"]] + ["drive"]
    names += [k for k in ("shields", "mds", "repair", "scanners") if sheet[k] > 0]
    names += [s["id"] for s in sheet["systems"]]
    return [[names[(r + c) % len(names)] for c in range(3)] for r in range(10)]


def drop_of(battle: Battle) -> tuple[str | None, int]:
    """FTC-ARR-7 from the forces' recorded initiative rolls: who has the drop, and how many changes."""
    totals = {f.player: f.initiative + (f.posture == "attack") + f.route for f in battle.forces}
    ranked = sorted(totals.values(), reverse=True)
    if len(ranked) < 2 or ranked[0] == ranked[1]:
        return None, 0
    leader = next(p for p, t in totals.items() if t == ranked[0])
    return leader, min(2, (ranked[0] - ranked[1]) // 2)


def _bearings(forces: tuple[Force, ...]) -> list[float]:
    """FTC-ARR-12: each force's edge. A force takes the edge of the hexside it crossed; one with no hexside (at
    home), or whose edge an earlier force took, takes the far side: of the six hexside edges still free, the
    one farthest from every edge taken (the first on a tie; north when none is taken). With two forces that
    is the other's opposite edge; with three (FTC-R-LNK-5) the forces stand round the table."""
    out: list[float | None] = [None] * len(forces)
    taken: list[float] = []
    for i, force in enumerate(forces):
        bearing = EDGE_BEARING.get(force.entry_side or "")
        if bearing is not None and bearing not in taken:
            out[i] = bearing
            taken.append(bearing)
    for i in range(len(forces)):
        if out[i] is None:
            free = [b for b in EDGE_BEARING.values() if b not in taken] or list(EDGE_BEARING.values())
            far = max(free, key=lambda b: min((_apart(b, t) for t in taken), default=0.0))
            out[i] = far
            taken.append(far)
    return [b for b in out if b is not None]


def _apart(a: float, b: float) -> float:
    """The angle between two bearings, 0..180."""
    return abs((a - b + 180) % 360 - 180)


def tactical_scenario(st: State, battle_id: str, turn_limit: int = 12) -> dict[str, Any]:
    """FTC-ARR-12 with FTC-ARR-7 applied (FTC-R-LNK-3..5): the GSC2 scenario of a campaign battle."""
    battle = battle_of(st, battle_id)
    check_linkable(st, battle)
    bearings = _bearings(battle.forces)
    # the nearest two forces start the rolled range apart (three or more: the others farther, FTC-R-LNK-5)
    gap = min(_apart(a, b) for i, a in enumerate(bearings) for b in bearings[i + 1 :])
    separation = battle.range_feet * 12.0
    drop, changes = drop_of(battle)
    ships = []
    for force, bearing in zip(battle.forces, bearings, strict=True):
        radius = separation / (2 * math.sin(math.radians(max(gap, 1.0)) / 2))
        if force.player == drop:  # FTC-R-LNK-4: the drop closes (attack) or opens (otherwise) a foot a change
            radius += (-12.0 if force.posture == "attack" else 12.0) * changes / 2
        if force.initiative == 1:
            radius += LATE_BACK
        radius = max(SPACING * 2, radius)
        formation = battle.formations[force.player].formation
        heading = round(((bearing + 180) % 360) / 45) * 45 % 360
        ships += _place(st, force, bearing, radius, heading, formation, 0.0, 0.0)
    # the table is the campaign's setting, or larger, in whole feet, so that both forces stand on it at the range
    reach = max((max(abs(s["x"]), abs(s["y"])) for s in ships), default=0.0) + MARGIN
    width = height = float(max(st.setup.table_length_feet, math.ceil(2 * reach / 12)) * 12)
    for s in ships:  # from centre-relative to table coordinates
        s["x"], s["y"] = round(s["x"] + width / 2, 2), round(s["y"] + height / 2, 2)
    return {
        "name": f"campaign battle {battle.id}",
        "description": f"Linked from the campaign battle {battle.id} at {battle.hex[0]},{battle.hex[1]} "
        f"({battle.range_feet} ft apart)",
        "sides": [f.player for f in battle.forces],
        "table": {"width": width, "height": height, "edge": False},  # no table edge (FTC-ARR-11, GSC2-R-20)
        "turn_limit": turn_limit,
        "ships": ships,
    }


def _place(
    st: State, force: Force, bearing: float, radius: float, heading: float, formation: str, cx: float, cy: float
) -> list[dict[str, Any]]:
    """FTC-R-LNK-3: a line formation abreast across the line of approach, any other in column."""
    a = math.radians(bearing)
    out_x, out_y = math.sin(a), math.cos(a)  # from the centre toward the force's edge (GSC2's y grows up)
    across_x, across_y = math.cos(a), -math.sin(a)
    ships = [st.ships[s] for s in force.ships if s in st.ships]
    out = []
    for i, ship in enumerate(ships):
        k = i - (len(ships) - 1) / 2
        if formation == "line":
            x, y = cx + out_x * radius + across_x * k * SPACING, cy + out_y * radius + across_y * k * SPACING
        else:
            x, y = cx + out_x * (radius + i * SPACING), cy + out_y * (radius + i * SPACING)
        out.append(gsc2_ship(ship, force.player, x, y, heading))
    return out


def exit_hexside(tactical: GameState, ship_id: str) -> str:
    """FTC-R-LNK-6: the hexside matching the direction a ship broke away in (FTC-R-LNK-3 read backwards): the
    bearing from the table's centre to where it stood when it disengaged (GSC2-R-20), to the nearest hexside."""
    p = tactical.ships[ship_id].pos
    w, h = tactical.table
    bearing = math.degrees(math.atan2(p.x - w / 2, p.y - h / 2)) % 360
    return FACING_NAMES[round(bearing / 60.0) % 6]


def _departure_hex(st: State, battle: Battle, group_id: str, hexside: str) -> tuple[int, int]:
    """FTC-ARR-10 destination of a group that left by ``hexside``: the neighbouring hex across it, else
    the hex the group came from, else the battle's hex (a departure must be a legal one-week move)."""
    here = Hex(battle.hex[0], battle.hex[1])
    across = here.neighbour(FACING_NAMES.index(hexside))
    group = st.groups[group_id]
    for to in ((across.q, across.r), group.origin, (here.q, here.r)):
        if to is not None and (
            jump_error(st, battle.hex, to, False) is None or jump_error(st, battle.hex, to, True) is None
        ):
            return (to[0], to[1])
    return (here.q, here.r)


def departures(st: State, battle: Battle, tactical: GameState) -> list[dict[str, Any]]:
    """FTC-R-LNK-6: a task group whose every ship still afloat (neither destroyed nor captured) disengaged
    (status ``left``: the linked table has no edge, so that is the only way out, FTC-ARR-11, GSC2-R-20) departs
    (FTC-ARR-9/10) toward the hexside most of them broke away toward, in the formation and speed recorded for
    the battle. A group with a ship still in the battle stays (its ships that left rejoin it: the campaign moves
    groups, not ships); a cloaked group cannot depart (FTC-ARR-10)."""
    out = []
    for force in battle.forces:
        formation = battle.formations.get(force.player)
        for gid in force.groups:
            group = st.groups.get(gid)
            if group is None or group.cloaked:
                continue
            afloat = [
                s
                for s in group.ships
                if s in tactical.ships and tactical.ships[s].status not in ("destroyed", "captured")
            ]
            if not afloat or any(tactical.ships[s].status != "left" for s in afloat):
                continue
            sides = [exit_hexside(tactical, s) for s in afloat]
            side = max(dict.fromkeys(sides), key=sides.count)  # the commonest edge, the first seen on a tie
            d: dict[str, Any] = {"group": gid, "to": list(_departure_hex(st, battle, gid, side))}
            if formation is not None:
                d |= {"formation": formation.formation, "speed": formation.speed}
            out.append(d)
    return out


def campaign_result(st: State, battle_id: str, tactical: GameState, tactical_game_id: str) -> dict[str, Any]:
    """FTC-ARR-8, FTC-R-LNK-6: the finished GSC2 game as an ``ftcampaign.record_battle`` command body."""
    battle = battle_of(st, battle_id)
    results = []
    ordnance: dict[str, int] = {}
    captured = []
    for force in battle.forces:
        spent = 0
        for ship_id in force.ships:
            ship = tactical.ships.get(ship_id)
            if ship is None:
                continue
            spec = tactical.specs[ship_id]
            destroyed = ship.status == "destroyed"
            if ship.status == "captured":
                captured.append(ship_id)
            lost = 0 if destroyed else max(0, spec.hull - ship.hull)
            campaign_ids = {s.id for s in st.ships[ship_id].systems}
            damaged = tuple(sorted(k for k, s in ship.sys.items() if k in campaign_ids and s.level < s.max))
            spent += sum(max(0, m.carried - ship.missiles_left.get(m.id, m.carried)) for m in spec.missiles)
            if destroyed or lost or damaged:
                results.append({"ship": ship_id, "destroyed": destroyed, "hull_lost": lost, "damaged": list(damaged)})
        if spent:
            ordnance[force.player] = spent * MISSILE_PRICE
    body: dict[str, Any] = {
        "type": "ftcampaign.record_battle",
        "battle": battle_id,
        "tactical_game_id": tactical_game_id,
        "victor": tactical.winner,
        "ships": results,
        "ordnance": ordnance,
    }
    if captured and tactical.winner is not None:
        body["captured"] = captured
    left = departures(st, battle, tactical)
    if left:
        body["left"] = left
    return body
