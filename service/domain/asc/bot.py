"""The ASC rules-aware bot (core.bot.Bot): it sees only its seat's view, options and forms.

One ply, in ASC's own quantities: detection odds (d10 + operator skill + the target's signature >= 10,
ASC-DET-3), locks (free: always taken), the chance to hit and the expected damage of each weapon on each
target (ASC-FIRE-5, ASC-FIRE-6, direct strikes on All Stop x10, ASC-MOV-4), weighed by what a hit is
worth towards ending the battle (a starship, the enemy's last one, a damaged hull, a power plant one
point from shutting down, ASC-DMG-2/3); moves chosen by the expected damage the vessel can deal from
where they end (turrets in arc at one hex, submunitions in the same hex, ASC-FIRE-3/4/7) less half
what the enemies that have found it can deal back, else closing on the nearest contact; screens raised
once the enemy has found us, and repairs in order of what a ship needs most. Deterministic: ties fall
to the first choice, never to a random source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.domain.core.choices import Field, Form, Option, Picker, compose
from service.domain.core.hexgrid import Hex, in_arcs

from .paths import trace

BOGEY_SIGNATURE = {"passive": 3, "active": 4}  # a guess at an unseen vessel's signature (typical sheets)
EXPOSURE_WEIGHT = 0.5  # the damage a position invites counts half: a battle is won by closing and firing
REPAIR_ORDER = ("power_plant", "drive", "computer", "continuing", "missile_bay", "hangar")


def chance(need: int) -> float:
    """P(d10 >= need) for a roll-high test."""
    return min(10, max(0, 11 - need)) / 10


def _hex(raw: Any) -> Hex:
    return Hex(int(raw[0]), int(raw[1]))


def _signature(value: Any) -> int:
    """The masked (current) value of a passive signature "x" or "x(y)"."""
    return int(str(value).split("(", 1)[0] or 0)


def _damage(text: str) -> tuple[int, int]:
    a, b = str(text).split("x", 1)
    return int(a), int(b)


class Sheet:
    """What the seat's view says about the vessels it may see."""

    def __init__(self, view: Mapping[str, Any], me: str) -> None:
        self.me = me
        self.vessels = {v["id"]: v for v in view.get("vessels", [])}
        self.bogeys = {b["bogey"]: _hex(b["hex"]) for b in view.get("bogeys", [])}
        self.locked = {lk["target"] for lk in view.get("locks", []) if lk.get("target")}
        self.seen_by_enemy = set(view.get("detected_by_enemy", []))

    def hex_of(self, name: str) -> Hex | None:
        if name in self.vessels:
            return _hex(self.vessels[name]["hex"])
        return self.bogeys.get(name)

    def enemies(self) -> list[dict[str, Any]]:
        return [v for v in self.vessels.values() if v["side"] != self.me and not v["destroyed"]]

    def weapon(self, vid: str, wid: str) -> dict[str, Any] | None:
        spec = self.vessels[vid]["spec"]
        return next((w for w in (*spec.get("turrets", []), *spec.get("launchers", [])) if w["id"] == wid), None)

    def expected_damage(self, vid: str, wid: str, target: str, at: Hex | None = None) -> float:
        """ASC-FIRE-5/6 and ASC-MOV-4: chance to hit x strikes x damage (x10, sure, on a vessel at All Stop)."""
        firer, foe, w = self.vessels[vid], self.vessels.get(target), self.weapon(vid, wid)
        if foe is None or w is None:
            return 0.0
        return _hit_value(firer, w, foe, at or _hex(firer["hex"]), _hex(foe["hex"]))

    def worth(self, target: str) -> float:
        """What one point of expected damage on ``target`` is worth towards ending the battle: the battle is
        won by leaving the enemy no starship (the last one counts double), a damaged hull is nearer its end
        (ASC-DMG-2), and a power plant one point from its 20% shutdown gives All Stop effects: direct strikes
        at 10x for the rest of the battle (ASC-DMG-3, ASC-MOV-4)."""
        foe = self.vessels.get(target)
        if foe is None:
            return 0.0
        spec, st = foe["spec"], foe["status"]
        if spec.get("kind") != "starship":
            return 0.5
        others = [f for f in self.enemies() if f["id"] != target and f["spec"].get("kind") == "starship"]
        weight = 2.0 if not others else 1.0
        hull = max(1, int(spec.get("hull", 1)))
        weight *= 1 + int(st.get("hull_damage", 0)) / hull
        plant = int(spec.get("power_plant", 0))
        one_more = (int(st.get("power_plant_damage", 0)) + 1) * 5 >= plant
        if plant and one_more and not foe["derived"].get("power_shutdown"):
            weight *= 1.5
        return weight

    def exposure(self, vid: str, at: Hex) -> float:
        """Expected damage the enemies that have detected this vessel can deal it at ``at`` from where they
        are now (a weapon in arc at one hex, any weapon in the same hex), weighed by what the vessel is
        worth to its side."""
        if vid not in self.seen_by_enemy:
            return 0.0  # no enemy holds a detection: nothing can lock on it this turn (ASC-FIRE-2)
        me = self.vessels[vid]
        kind = me["spec"].get("kind")
        last = kind == "starship" and not any(
            v["id"] != vid and v["side"] == self.me and not v["destroyed"] and v["spec"].get("kind") == "starship"
            for v in self.vessels.values()
        )
        stake = 2.0 if last else 1.0 if kind == "starship" else 0.5  # the last starship lost is the battle lost
        total = 0.0
        for foe in self.enemies():
            where = _hex(foe["hex"])
            if at.distance_to(where) > 1 or foe["derived"].get("power_shutdown") and not foe["spec"].get("launchers"):
                continue
            for t in foe["spec"].get("turrets", []):
                if at == where or in_arcs(where, int(foe.get("facing") or 0), at, frozenset(t["arcs"])):
                    total += _hit_value(foe, t, me, where, at)
            for lnch in foe["spec"].get("launchers", []):
                if at == where and foe["status"].get("rounds", {}).get(lnch["id"], 1):
                    total += _hit_value(foe, lnch, me, where, at)
        return total * stake * EXPOSURE_WEIGHT

    def detection_odds(self, vid: str, sensor_id: str, target: str) -> float:
        spec = self.vessels[vid]["spec"]
        sensor = next(s for s in spec["sensors"] if s["id"] == sensor_id)
        skill = sensor.get("operator_skill")
        skill = spec.get("crew_quality", 0) if skill is None else skill
        foe = self.vessels.get(target)
        if foe is None:
            sig = BOGEY_SIGNATURE[sensor["type"]]
        elif sensor["type"] == "active":
            sig = foe["spec"].get("active_signature", 0)
        else:
            sig = _signature(foe["spec"].get("passive_signature", 0))
        return chance(10 - skill - sig)

    def nearest(self, at: Hex) -> int:
        """Hexes from ``at`` to the nearest enemy contact (visible or bogey)."""
        places = [_hex(f["hex"]) for f in self.enemies()] + list(self.bogeys.values())
        return min((at.distance_to(p) for p in places), default=99)

    def threat_at(self, vid: str, at: Hex, facing: int) -> float:
        """What this vessel could fire at locked enemies from a hex and facing (one ply of the fire phase),
        each target's expected damage weighed by its worth, on as many targets as it has TTAs."""
        vessel = self.vessels[vid]
        spec, st = vessel["spec"], vessel["status"]
        per_target = []
        for foe in self.enemies():
            where = _hex(foe["hex"])
            if foe["id"] not in self.locked or at.distance_to(where) > 1:
                continue
            value = 0.0
            for t in spec.get("turrets", []):
                if t["id"] in st.get("mounts_lost", ()):
                    continue
                if at == where or in_arcs(at, facing, where, frozenset(t["arcs"])):
                    value += self.expected_damage(vid, t["id"], foe["id"], at)
            for lnch in spec.get("launchers", []):  # submunitions detonate in their own hex (ASC-FIRE-7)
                loaded = st.get("rounds", {}).get(lnch["id"], 0) and lnch["id"] not in st.get("mounts_lost", ())
                if at == where and loaded:
                    value += self.expected_damage(vid, lnch["id"], foe["id"], at)
            per_target.append(value * self.worth(foe["id"]))
        ttas = max(1, int(spec.get("ttas", 1)) - int(st.get("ttas_lost", 0)))
        return sum(sorted(per_target, reverse=True)[:ttas])


class AscBot:
    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        if not options and not forms:
            return None
        sheet = Sheet(view, me)
        phase = str(view.get("phase") or "")
        if phase == "sensors":
            return self._commit(sheet, forms) or (options[0].command if options else None)
        by: dict[str | None, list[Option]] = {o.group: [] for o in options}
        for o in options:
            by[o.group].append(o)
        chosen = self._act(sheet, phase, by, forms)
        if chosen is not None:
            return chosen
        end = by.get("phase", [])
        return end[0].command if end else None

    def _act(self, sheet: Sheet, phase: str, by: Mapping[str | None, list[Option]], forms: Sequence[Form]) -> Any:
        """What is worth doing in this phase, or None to end it: a lock first in any phase, then the
        phase's own choice."""
        if by.get("lock"):
            return by["lock"][0].command
        if phase == "detection" and by.get("detect"):
            return self._detect(sheet, by["detect"])
        if phase.endswith("_movement"):
            if by.get("launch"):
                return by["launch"][0].command  # small craft fly from the first turn (ASC-CRAFT-1)
            return self._move(sheet, by["move"], forms) if by.get("move") else None
        if phase == "fire":
            return self._fire(sheet, forms)
        if phase == "damage_control":
            return self._repair(forms)
        return None

    def _detect(self, sheet: Sheet, detects: list[Option]) -> Any:
        """The detection roll likeliest to succeed (the nearest target on a tie), if it can succeed at all."""
        best = max(
            detects,
            key=lambda o: (sheet.detection_odds(o.piece or "", _sensor(o), o.target or ""), -_distance(sheet, o)),
        )
        if sheet.detection_odds(best.piece or "", _sensor(best), best.target or "") > 0:
            return best.command
        return None

    def _commit(self, sheet: Sheet, forms: Sequence[Form]) -> dict[str, Any] | None:
        """Stay quiet and dark until found; once the enemy holds a lock (or a foe is alongside), raise
        screens to the full and run active sensors: there is no stealth left to keep (ASC-DET-2, ASC-SCR-1)."""
        form = next((f for f in forms if f.command == "asc.commit_sensors"), None)
        if form is None:
            return None
        pieces = [pc.piece for pc in form.pieces]

        def pick(field: Field, index: int) -> Any:
            vid = pieces[index]
            found = vid in sheet.seen_by_enemy or any(
                _hex(sheet.vessels[vid]["hex"]).distance_to(_hex(f["hex"])) <= 1 for f in sheet.enemies()
            )
            values = [v.value for v in field.values]
            if field.key == "screen":
                return max(values) if found else min(values)
            if field.key == "active":
                return found and True in values
            return field.default

        return compose(form, pick)

    def _move(self, sheet: Sheet, moves: list[Option], forms: Sequence[Form]) -> Any:
        """An armed vessel takes the move leaving the most expected damage on locked enemies in arc, else
        closes on the nearest locked enemy, then the nearest contact. An unarmed one (a freighter, a sensor
        platform) keeps its distance: the move, or the run straight ahead, farthest from every contact."""
        vid = getattr(moves[0].command, "vessel", "")
        vessel = sheet.vessels[vid]
        start = _hex(vessel["hex"])
        if vessel["spec"].get("turrets") or vessel["spec"].get("launchers"):
            return self._attack_move(sheet, vid, [o for o in moves if getattr(o.command, "vessel", "") == vid])
        candidates: list[tuple[int, Any]] = []
        for o in moves:
            if getattr(o.command, "vessel", "") == vid:
                end = trace(start, vessel["facing"], tuple(getattr(o.command, "path", ())))[0][-1]
                candidates.append((sheet.nearest(end), o.command))
        form = next((f for f in forms if f.command == "asc.move" and f.pieces[0].piece == vid), None)
        if form is not None:
            run = _straight_ahead(form.pieces[0].fields[0])
            if run:
                body = compose(form, _always_path(run))
                candidates.append((sheet.nearest(_hex(run[-1])), body))
        return max(candidates, key=lambda c: c[0])[1]

    def _attack_move(self, sheet: Sheet, vid: str, moves: list[Option]) -> Any:
        """Over the ruleset's ready-made moves (closing on each contact, staying; measured better than
        every reachable end, docs/benchmarks.md): the most weighed expected damage the vessel can deal from
        its end less what it would take there, then the nearest to a contact (locked ones first), facing
        it with a turret's arcs (ready for the next turn), then the fewest steps."""
        vessel = sheet.vessels[vid]
        start, facing = _hex(vessel["hex"]), int(vessel["facing"])
        goals = (
            [sheet.hex_of(t) for t in sheet.locked]
            or [_hex(f["hex"]) for f in sheet.enemies()]
            or list(sheet.bogeys.values())
        )
        arcs = [frozenset(t["arcs"]) for t in vessel["spec"].get("turrets", [])]

        def score(o: Option) -> tuple[float, int, int, int]:
            path = tuple(getattr(o.command, "path", ()))
            hexes, f = trace(start, facing, path)
            at = hexes[-1]
            near = min((g for g in goals if g is not None), key=at.distance_to, default=None)
            gap = at.distance_to(near) if near is not None else 0
            facing_it = near is not None and (at == near or any(in_arcs(at, f, near, a) for a in arcs))
            value = sheet.threat_at(vid, at, f) - sheet.exposure(vid, at)
            return (round(value, 6), -gap, 1 if facing_it else 0, -len(path))

        return max(moves, key=score).command

    def _fire(self, sheet: Sheet, forms: Sequence[Form]) -> dict[str, Any] | None:
        best: tuple[float, dict[str, Any]] | None = None
        for form in forms:
            if form.command != "asc.fire":
                continue
            pc = form.pieces[0]
            wid = str(pc.fixed.get("weapon"))
            for value in pc.fields[0].values:
                worth = sheet.expected_damage(pc.piece, wid, str(value.value)) * sheet.worth(str(value.value))
                if pc.fixed.get("point_defence"):
                    worth *= 3  # a missile killed before it strikes saves its warhead's damage
                if best is None or worth > best[0]:
                    best = (worth, compose(form, _always(value.value)))
        return best[1] if best is not None and best[0] > 0 else None

    def _repair(self, forms: Sequence[Form]) -> dict[str, Any] | None:
        for form in forms:
            if form.command != "asc.repair":
                continue
            field = form.pieces[0].fields[0]

            def worth(locations: list[str]) -> int:
                return sum(
                    len(REPAIR_ORDER) - REPAIR_ORDER.index(loc.split(":", 1)[0])
                    for loc in locations
                    if loc.split(":", 1)[0] in REPAIR_ORDER
                )

            choice = max(field.values, key=lambda v: worth(list(v.value)))
            return compose(form, _always(choice.value))
        return None


def _hit_value(firer: Mapping[str, Any], w: Mapping[str, Any], foe: Mapping[str, Any], here: Hex, there: Hex) -> float:
    """Expected damage of one weapon's shot (ASC-FIRE-5/6, ASC-FIRE-9, direct strikes ASC-MOV-4)."""
    strikes, per = _damage(w.get("damage", "1x1"))
    if foe["derived"].get("all_stop_effects"):
        return 10.0 * strikes * per
    spec, tspec = firer["spec"], foe["spec"]
    mods = (
        spec.get("crew_quality", 0)
        + tspec.get("target_profile", 0)
        + w.get("targeting", 0)
        + spec.get("target_computer", 0)
        + max(0, w.get("mounts", 1) - 1)
    )
    if here != there:
        mods -= 2
    if tspec.get("atmospheric"):
        mods -= 2
    hull = 1 if tspec.get("kind") == "missile" else per  # any hit kills a missile (ASC-FIRE-9)
    return chance(7 - mods) * strikes * hull


def _always(value: Any) -> Picker:
    """A form picker for one-field forms: this value."""

    def pick(_field: Field, _index: int) -> Any:
        return value

    return pick


def _always_path(hexes: list[list[int]]) -> Picker:
    """A move form's picker: this hex path, no final turn."""

    def pick(field: Field, _index: int) -> Any:
        return hexes if field.kind == "hexpath" else None

    return pick


def _straight_ahead(field: Field) -> list[list[int]]:
    """The hexes straight ahead within the allowance and the map (ASC-MOV-2: one point a hex)."""
    limits = field.limits
    here, facing = _hex(limits["start"]), int(limits["facing"])
    out = []
    for _ in range(int(limits["max_cost"])):
        here = here.neighbour(facing)
        if here.distance_to(Hex(0, 0)) > int(limits["map_radius"]):
            break
        out.append([here.q, here.r])
    return out


def _sensor(o: Option) -> str:
    return str(getattr(o.command, "sensor", ""))


def _distance(sheet: Sheet, o: Option) -> int:
    here = sheet.vessels.get(o.piece or "")
    there = sheet.hex_of(o.target or "")
    return _hex(here["hex"]).distance_to(there) if here is not None and there is not None else 99
