"""The GSC2 rules-aware bot (core.bot.Bot): one-ply choices weighed with GSC2's own quantities.

It sees only what its seat sees — the view (ships with their data sheets, positions, movement this turn),
the options and the forms — and weighs each choice by what it leads to: a free move by the beam damage the
ship could deal from where it ends against the damage the enemy could deal to it there (GSC2-HIT-1/2,
GSC2-BEAM-2/4, and its own movement modifier), never off the table (GSC2-R-18); a shot by its expected
damage; a launch by its missiles' expected hits; a repair by what it brings back. Deterministic: ties go
to the first choice, and the last resort is ``core.bot.pick_index``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.domain.core.bot import pick_index
from service.domain.core.choices import Form, Option

from . import commands as C
from .combat import hit_chance
from .tactics import Ship, candidate_legs, firepower, pos, threat, to_hit, trace

DEFENCE_WEIGHT = 0.6  # how much a point of expected damage taken counts against one dealt
REPAIR_ORDER = ("beam", "missile", "drive", "shields", "deflectors", "mds", "tractor_beam")
TROOP_HITS = {"crew": 0.3, "assault": 0.5, "heavy": 0.7}  # GSC2-BRD-5 chance per unit


class RulesBot:
    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        if not options and not forms:
            return None
        phase = view["phase"]
        ships = {s["id"]: s for s in view["ships"]}
        turn = _Turn(view, ships, me)
        pick = {
            "movement": turn.movement,
            "missiles": turn.missiles,
            "beams": turn.beams,
            "boarding": turn.boarding,
            "repairs": turn.repairs,
        }.get(phase, turn.anything)(options, forms)
        if pick is not None:
            return pick
        end = _first(options, C.EndPhase)
        if end is not None:
            return end
        return options[pick_index(key, me, len(options))].command if options else None


def _first(options: Sequence[Option], kind: type) -> Any:
    return next((o.command for o in options if isinstance(o.command, kind)), None)


def _best(scored: list[tuple[float, Any]]) -> Any:
    """The highest score (the first of equals), or None when nothing is worth doing."""
    best: tuple[float, Any] | None = None
    for score, command in scored:
        if score > 0 and (best is None or score > best[0]):
            best = (score, command)
    return best[1] if best is not None else None


class _Turn:
    def __init__(self, view: Mapping[str, Any], ships: dict[str, Ship], me: str) -> None:
        self.view, self.ships, self.me = view, ships, me
        self.mine = [s for s in ships.values() if s["side"] == me and s["status"] == "active"]
        self.enemies = [s for s in ships.values() if s["side"] != me and s["status"] == "active"]
        self.table = (float(view["table"]["width"]), float(view["table"]["height"]))

    def anything(self, options: Sequence[Option], forms: Sequence[Form]) -> Any:
        return _first(options, C.Start)

    def movement(self, options: Sequence[Option], forms: Sequence[Form]) -> Any:
        choose = [o.command for o in options if isinstance(o.command, C.ChooseOrder)]
        if choose:  # the follower sees the leader's moves first (GSC2-MOV-2): let the enemy lead
            return next(c for c in choose if c.leader != self.me)
        order = self.view["order"]
        if order["stage"] == "lead" and order["batch"] > 0 and self.view["moving"] is None:
            return _first(options, C.Pass)  # one ship a batch: the enemy must answer each move
        best: tuple[float, Any] | None = None
        for form in forms:
            ship = self.ships[form.pieces[0].piece]
            limits = form.pieces[0].fields[0].limits
            for legs in candidate_legs(limits):
                score = self.move_score(ship, legs)
                if best is None or score > best[0]:
                    best = (score, {"type": form.command, "ship": ship["id"], "legs": legs})
        return best[1] if best is not None else None

    def move_score(self, ship: Ship, legs: list[dict[str, float]]) -> float:
        end, heading, run, on_table = trace(pos(ship), float(ship["heading"]), legs, self.table)
        if not on_table:
            return -1e6  # GSC2-R-18: a ship that leaves is lost
        enemy_at = {e["id"]: pos(e) for e in self.enemies}
        dealt = firepower(ship, end, heading, self.enemies, enemy_at)
        taken = threat(ship, end, float(ship["moved"]) + run, self.enemies)
        nearest = min((end.distance_to(p) for p in enemy_at.values()), default=0.0)
        margin = min(end.x, end.y, self.table[0] - end.x, self.table[1] - end.y)
        return dealt - DEFENCE_WEIGHT * taken - 0.02 * nearest - (1.0 if margin < 4 else 0.0)

    def missiles(self, options: Sequence[Option], forms: Sequence[Form]) -> Any:
        choose = [o.command for o in options if isinstance(o.command, C.ChooseOrder)]
        if choose:
            return next(c for c in choose if c.leader == self.me)
        launches = []
        for o in options:
            if isinstance(o.command, C.Launch):
                ship, target = self.ships[o.command.ship], self.ships[o.command.target]
                rack = next(m for m in ship["data_sheet"]["missiles"] if m["id"] == o.command.battery)
                count = min(int(rack["missiles"]), int(ship["missiles_left"].get(rack["id"], 0)))
                # GSC2-MSL-6: targeting 4 (the rack's), normal modifiers, no range
                p = hit_chance(to_hit(int(rack["targeting"]), target))
                launches.append((count * p * int(rack["damage"]) + 0.01, o.command))
        return _best(launches) or _first(options, C.MoveMissiles) or _first(options, C.Pass)

    def beams(self, options: Sequence[Option], forms: Sequence[Form]) -> Any:
        shots = []
        for o in options:
            if isinstance(o.command, C.Fire):
                ship, target = self.ships[o.command.ship], self.ships[o.command.target]
                battery = next(b for b in ship["data_sheet"]["beams"] if b["id"] == o.command.battery)
                dealt = firepower(
                    {**ship, "data_sheet": {"beams": [battery]}},
                    pos(ship),
                    float(ship["heading"]),
                    [target],
                    {target["id"]: pos(target)},
                )
                soak = float(target["shield_pool"]) / max(1, int(battery["weapons"]))
                shots.append((dealt * (1 + 1 / (1 + float(target["hull"]))) - 0.1 * soak, o.command))
        return _best(shots)

    def boarding(self, options: Sequence[Option], forms: Sequence[Form]) -> Any:
        scored: list[tuple[float, Any]] = []
        for o in options:
            c = o.command
            if isinstance(c, C.MovePod):
                scored.append((2.0 if c.ram else 0.5, c))
            elif isinstance(c, C.SendSaboteurs):
                kind = self.ships[c.ship]["systems"][c.system]["kind"]
                scored.append((1.5 if kind in ("drive", "beam", "missile") else 0.2, c))
            elif isinstance(c, C.Board) and c.method == "contact":
                target = self.ships[c.target]
                defence = sum(TROOP_HITS[k] * n for k, n in _troops(target).items())
                attack = TROOP_HITS["assault"] * c.assault + TROOP_HITS["heavy"] * c.heavy
                scored.append((attack - defence, c))
        return _best(scored)

    def repairs(self, options: Sequence[Option], forms: Sequence[Form]) -> Any:
        scored: list[tuple[float, Any]] = []
        for o in options:
            if isinstance(o.command, C.Repair):
                kind = self.ships[o.command.ship]["systems"][o.command.system]["kind"]
                rank = REPAIR_ORDER.index(kind) if kind in REPAIR_ORDER else len(REPAIR_ORDER)
                scored.append((len(REPAIR_ORDER) + 1 - rank, o.command))
        return _best(scored)


def _troops(ship: Ship) -> dict[str, int]:
    squads = {
        k: ship["systems"].get(name) for k, name in (("assault", "assault_squads"), ("heavy", "heavy_assault_squads"))
    }
    return {"crew": int(ship["crew"]), **{k: 0 if s is None else int(s["level"]) for k, s in squads.items()}}
