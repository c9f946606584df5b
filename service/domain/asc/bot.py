"""The ASC rules-aware bot (core.bot.Bot): it sees only its seat's view, options and forms.

One ply, in ASC's own quantities: detection odds (d10 + operator skill + the target's signature >= 10,
ASC-DET-3), locks (free: always taken), the chance to hit and the expected damage of each weapon on each
target (ASC-FIRE-5, ASC-FIRE-6, direct strikes on All Stop x10, ASC-MOV-4), moves that bring locked
targets into arc at one hex or less, screens raised once the enemy has found us, and repairs in order of
what a ship needs most. Deterministic: ties fall to the first choice, never to a random source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.domain.core.choices import Field, Form, Option, Picker, compose
from service.domain.core.hexgrid import Hex, in_arcs

from .paths import trace

BOGEY_SIGNATURE = {"passive": 3, "active": 4}  # a guess at an unseen vessel's signature (typical sheets)
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
        strikes, per = _damage(w.get("damage", "1x1"))
        if foe["derived"].get("all_stop_effects"):
            return 10.0 * strikes * per
        spec, tspec = firer["spec"], foe["spec"]
        here = at or _hex(firer["hex"])
        mods = (spec.get("crew_quality", 0) + tspec.get("target_profile", 0) + w.get("targeting", 0)
                + spec.get("target_computer", 0) + max(0, w.get("mounts", 1) - 1))
        if here != _hex(foe["hex"]):
            mods -= 2
        if tspec.get("atmospheric"):
            mods -= 2
        hull = (1 if tspec.get("kind") == "missile" else per)  # any hit kills a missile (ASC-FIRE-9)
        return chance(7 - mods) * strikes * hull

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
        """What this vessel could fire at locked enemies from a hex and facing (one ply of the fire phase)."""
        spec = self.vessels[vid]["spec"]
        best = 0.0
        for foe in self.enemies():
            where = _hex(foe["hex"])
            if foe["id"] not in self.locked or at.distance_to(where) > 1:
                continue
            for t in spec.get("turrets", []):
                if at == where or in_arcs(at, facing, where, frozenset(t["arcs"])):
                    best += self.expected_damage(vid, t["id"], foe["id"], at)
        return best


class AscBot:
    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        if not options and not forms:
            return None
        sheet = Sheet(view, me)
        phase = view.get("phase")
        by: dict[str | None, list[Option]] = {o.group: [] for o in options}
        for o in options:
            by[o.group].append(o)
        end = by.get("phase", [])
        if phase == "sensors":
            return self._commit(sheet, forms) or (options[0].command if options else None)
        if by.get("lock"):
            return by["lock"][0].command
        if phase == "detection" and by.get("detect"):
            best = max(by["detect"], key=lambda o: (sheet.detection_odds(o.piece or "", _sensor(o), o.target or ""),
                                                    -_distance(sheet, o)))
            if sheet.detection_odds(best.piece or "", _sensor(best), best.target or "") > 0:
                return best.command
        if phase is not None and phase.endswith("_movement") and by.get("move"):
            return self._move(sheet, by["move"], forms)
        if phase == "fire":
            shot = self._fire(sheet, forms)
            if shot is not None:
                return shot
        if phase == "damage_control":
            repair = self._repair(forms)
            if repair is not None:
                return repair
        return end[0].command if end else None

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
                _hex(sheet.vessels[vid]["hex"]).distance_to(_hex(f["hex"])) <= 1 for f in sheet.enemies())
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
            def score(o: Option) -> tuple[float, int, int]:
                end, facing = trace(start, vessel["facing"], tuple(getattr(o.command, "path", ())))
                goal = sheet.hex_of(o.target) if o.target else None
                gap = end[-1].distance_to(goal) if goal is not None else 99
                return (sheet.threat_at(vid, end[-1], facing), 1 if o.target in sheet.locked else 0, -gap)

            return max((o for o in moves if getattr(o.command, "vessel", "") == vid), key=score).command
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

    def _fire(self, sheet: Sheet, forms: Sequence[Form]) -> dict[str, Any] | None:
        best: tuple[float, dict[str, Any]] | None = None
        for form in forms:
            if form.command != "asc.fire":
                continue
            pc = form.pieces[0]
            wid = str(pc.fixed.get("weapon"))
            for value in pc.fields[0].values:
                worth = sheet.expected_damage(pc.piece, wid, str(value.value))
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
                return sum(len(REPAIR_ORDER) - REPAIR_ORDER.index(loc.split(":", 1)[0])
                           for loc in locations if loc.split(":", 1)[0] in REPAIR_ORDER)

            choice = max(field.values, key=lambda v: worth(list(v.value)))
            return compose(form, _always(choice.value))
        return None


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
