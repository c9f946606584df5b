"""The Starfinder rules-aware bot (core.bot.Bot): it sees only its seat's view, options and forms.

One ply, with Starfinder's own quantities: a shot is worth its chance to beat the target's AC or TL (gunner,
range increments, lock on, countermeasures, critical conditions, encouragement) times the damage its dice
deal past the struck quadrant's shields and the damage threshold; a helm order is worth what the ship's
weapons can then do from its end hex and facing, less what the enemies' weapons can do to it there (and an
evade's +2 AC and TL, weighted by the Piloting check's odds). Engineers patch the worst damage or restore the
shields facing the enemy; science officers lock on; captains encourage the best gunner. Deterministic: ties
fall to ``core.bot.pick_index`` on the key, never to a random source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from service.domain.core.bot import pick_index
from service.domain.core.choices import Field, Form, Option, compose
from service.domain.core.hexgrid import Hex

from . import commands as C
from .checks import speed_modifier
from .geometry import arcs_of, out_of_range, range_penalty, swap
from .scenario import MANOEUVRABILITY, tier_dc

Ship = Mapping[str, Any]
PENALTY = {"glitching": -2, "malfunctioning": -4}
SHIELD_WORTH = 0.5  # a point of shield stripped is worth half a point of hull
THREAT_WORTH = 0.7  # how much a point of damage taken weighs against a point dealt
PATCH_FIRST = (
    "power_core",
    "weapons_forward",
    "weapons_port",
    "weapons_starboard",
    "weapons_aft",
    "engines",
    "sensors",
    "life_support",
)


# --- reading the view ---------------------------------------------------------------------------------------------


def _hex(value: Sequence[int]) -> Hex:
    return Hex(int(value[0]), int(value[1]))


def _ships(view: Mapping[str, Any]) -> dict[str, Ship]:
    return {s["id"]: s for s in view.get("ships", ())}


def _skill(ship: Ship, seat: str, key: str) -> int:
    crew_id = seat.split("/", 1)[1]
    member = next((c for c in ship["data_sheet"]["crew"] if c["id"] == crew_id), None)
    return int(member.get(key, 0)) if member else 0


def _crew(ship: Ship, role: str) -> list[Mapping[str, Any]]:
    return [c for c in ship["crew"] if c["role"] == role]


def _bonus(ship: Ship, seat: str) -> int:
    return next((int(c.get("bonus", 0)) for c in ship["crew"] if c["seat"] == seat), 0)


def _condition(ship: Ship, system: str) -> int | None:
    """The check penalty a system's condition gives (None: wrecked, the check fails)."""
    state = ship.get("critical_damage", {}).get(system)
    if not state:
        return 0
    counts = state.get("counts_as", "nominal")
    return None if counts == "wrecked" else PENALTY.get(counts, 0)


def _enemies(ships: Mapping[str, Ship], mine: Ship) -> list[Ship]:
    return [s for s in ships.values() if s["side"] != mine["side"] and s["status"] != "destroyed"]


# --- Starfinder's quantities --------------------------------------------------------------------------------------


def p_success(bonus: int, dc: int) -> float:
    """d20 + bonus ≥ dc."""
    return max(0, min(20, 21 - (dc - bonus))) / 20


@lru_cache(maxsize=256)
def _distribution(n: int, sides: int) -> tuple[tuple[int, float], ...]:
    dist = {0: 1.0}
    for _ in range(n):
        nxt: dict[int, float] = {}
        for total, p in dist.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0.0) + p / sides
        dist = nxt
    return tuple(sorted(dist.items()))


@lru_cache(maxsize=4096)
def damage_worth(damage: str, linked: bool, shield: int, dt: int, hull: int) -> float:
    """Expected worth of one hit (SF-DMG-2/3): shield points stripped, hull points past the damage threshold,
    and a bonus for the hit that disables the ship."""
    n, sides = (int(x) for x in damage.split("d"))
    worth = 0.0
    for total, p in _distribution(n * (2 if linked else 1), sides):
        absorbed = min(shield, total)
        excess = total - absorbed
        hull_damage = 0 if excess <= dt else excess
        worth += p * (SHIELD_WORTH * absorbed + hull_damage + (10 if hull_damage >= hull > 0 else 0))
    return worth


def _arc(ship: Ship, weapon: Mapping[str, Any]) -> str:
    rolled = ship.get("effects", {}).get("barrel_roll")
    return swap(weapon["arc"]) if rolled and weapon["arc"] != "turret" else weapon["arc"]


def shot_worth(
    shooter: Ship,
    gunner: str,
    weapon: Mapping[str, Any],
    target: Ship,
    at: Hex,
    facing: int,
    *,
    flyby: bool = False,
    quadrant: str | None = None,
) -> float:
    """Expected worth of firing ``weapon`` from ``at``/``facing`` at ``target`` (0 when it cannot bear)."""
    t_hex = _hex(target["hex"])
    arc = _arc(shooter, weapon)
    arcs = arcs_of(at, facing, t_hex)
    distance = 1 if flyby else at.distance_to(t_hex)
    if not flyby and ((arc != "turret" and arc not in arcs) or out_of_range(distance, weapon["range"])):
        return 0.0
    fired_from = arcs[0] if arc == "turret" else arc
    penalties = [_condition(shooter, f"weapons_{fired_from}"), _condition(shooter, "power_core")]
    if None in penalties:
        return 0.0
    tracking = weapon.get("kind") == "tracking"
    bonus = _skill(shooter, gunner, "gunnery") + _bonus(shooter, gunner) + sum(p or 0 for p in penalties)
    bonus += 0 if flyby else range_penalty(distance, weapon["range"])
    bonus += 2 if target["id"] in shooter.get("effects", {}).get("lock_on", ()) else 0
    bonus -= 2 if tracking and shooter["id"] in target.get("effects", {}).get("countermeasures", ()) else 0
    needed = int(target["tl"] if tracking else target["ac"])
    struck = quadrant or arcs_of(t_hex, int(target["facing"]), at)[0]
    worth = p_success(bonus, needed) * damage_worth(
        weapon["damage"],
        bool(weapon.get("linked")),
        int(target["shields"].get(struck, 0)),
        int(target["dt"]),
        int(target["hull"]),
    )
    if tracking and distance > int(weapon.get("speed", 0)):
        worth *= 0.5  # it arrives next round at best, after another check
    return worth


def firepower(ship: Ship, at: Hex, facing: int, foes: Sequence[Ship], ac_shift: int = 0) -> float:
    """What ``ship``'s gunners can do next gunnery from ``at``/``facing``: each gunner fires its best weapon."""
    gunners = sorted(_crew(ship, "gunner"), key=lambda c: -_skill(ship, c["seat"], "gunnery"))
    if not gunners or ship["status"] != "active":
        return 0.0
    shifted = [{**f, "ac": f["ac"] + ac_shift, "tl": f["tl"] + ac_shift} for f in foes] if ac_shift else foes
    best = sorted(
        (
            max((shot_worth(ship, gunners[0]["seat"], w, f, at, facing) for f in shifted), default=0.0)
            for w in ship["data_sheet"]["weapons"]
            if w["id"] not in ship.get("fired", ())
        ),
        reverse=True,
    )
    return sum(best[: len(gunners)])


def reachable(ship: Ship, ships: Mapping[str, Ship]) -> dict[tuple[Hex, int], list[Hex]]:
    """Every end hex and facing a normal move can reach (SF-MOV-1/2, SF-R-10), with the hexes entered; no path
    ends in an occupied hex or passes an enemy's (which would provoke a free attack)."""
    td = MANOEUVRABILITY[ship["data_sheet"]["maneuverability"]][0]
    start = _hex(ship["hex"])
    taken = {_hex(s["hex"]) for s in ships.values() if s["id"] != ship["id"] and s["status"] != "destroyed"}
    foes = {_hex(s["hex"]) for s in ships.values() if s["side"] != ship["side"] and s["status"] != "destroyed"}
    out: dict[tuple[Hex, int], list[Hex]] = {}
    seen: set[tuple[Hex, int, int, int]] = set()
    frontier: list[tuple[Hex, int, int, int, list[Hex]]] = [(start, int(ship["facing"]), 0, 0, [])]
    while frontier:
        pos, facing, since, consecutive, path = frontier.pop()
        key = (pos, facing, min(since, max(td, 1)), consecutive)
        if key in seen:
            continue
        seen.add(key)
        if pos not in taken:
            out.setdefault((pos, facing), path)
        if len(path) < int(ship["speed"]):
            ahead = pos.neighbour(facing)
            if ahead not in foes:
                frontier.append((ahead, facing, since + 1, 0, [*path, ahead]))
        may_turn = since >= td if td else (since >= 1 and consecutive == 0) or consecutive == 1
        if may_turn and path:
            for turn in (1, 5):
                frontier.append((pos, (facing + turn) % 6, 0, consecutive + 1, path))
    return out


# --- the bot ------------------------------------------------------------------------------------------------------


class StarfinderBot:
    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        ships = _ships(view)
        mine = ships.get(me.split("/", 1)[0])
        if mine is None or not (options or forms):
            return None
        by_rule = {o.rule: o for o in options}
        if "SF-R-21" in by_rule:  # begin the battle
            return by_rule["SF-R-21"].command
        stations = [o for o in options if isinstance(o.command, C.BattleStations)]
        if stations:  # hostile intent costs nothing and lets the gunners fire and the ship make free attacks
            return stations[0].command
        choice = self._by_role(options, forms, ships, mine, me)
        if choice is not None:
            return choice
        passes = [o for o in options if isinstance(o.command, C.Pass)]
        if passes:
            return passes[0].command
        acting = [o for o in options if o.group != "role"]
        return acting[pick_index(key, me, len(acting))].command if acting else None

    def _by_role(
        self, options: Sequence[Option], forms: Sequence[Form], ships: Mapping[str, Ship], mine: Ship, me: str
    ) -> Any:
        """The seat's role picks its own action (None: nothing worth doing, or a passenger)."""
        role = next((c["role"] for c in mine["crew"] if c["seat"] == me), "passenger")
        foes = _enemies(ships, mine)
        if role == "gunner":
            return self._fire(options, ships, mine, me)
        if role == "pilot":
            return self._helm(forms, ships, mine, me, foes)
        if role == "engineer":
            return self._engineer(options, mine, foes)
        if role == "science_officer":
            return self._science(options, ships, mine, foes)
        if role == "captain":
            return self._captain(options, mine)
        return None

    # gunnery: the shot worth most
    def _fire(self, options: Sequence[Option], ships: Mapping[str, Ship], mine: Ship, me: str) -> Any:
        best, worth = None, 0.0
        at, facing = _hex(mine["hex"]), int(mine["facing"])
        weapons = {w["id"]: w for w in mine["data_sheet"]["weapons"]}
        for o in options:
            cmd = o.command
            if not isinstance(cmd, C.Fire) or cmd.target not in ships:
                continue
            value = shot_worth(
                mine, me, weapons[cmd.weapon], ships[cmd.target], at, facing, flyby=cmd.flyby, quadrant=cmd.quadrant
            )
            if value > worth:
                best, worth = cmd, value
        return best

    # helm: the end hex and facing worth most, by a normal move or an evade
    def _helm(self, forms: Sequence[Form], ships: Mapping[str, Ship], mine: Ship, me: str, foes: Sequence[Ship]) -> Any:
        move = next((f for f in forms if f.command == "starfinder.move"), None)
        if move is None or not foes:
            return None
        start = _hex(mine["hex"])

        def threat(at: Hex, facing: int, shift: int) -> float:
            me_there = {
                **mine,
                "hex": [at.q, at.r],
                "facing": facing,
                "ac": mine["ac"] + shift,
                "tl": mine["tl"] + shift,
            }
            return sum(firepower(f, _hex(f["hex"]), int(f["facing"]), [me_there]) for f in foes)

        def score(end: Hex, facing: int) -> float:
            near = min(end.distance_to(_hex(f["hex"])) for f in foes)
            return firepower(mine, end, facing, foes) - THREAT_WORTH * threat(end, facing, 0) - 0.05 * near

        ranked = sorted(
            reachable(mine, ships).items(),
            key=lambda kv: (-score(*kv[0]), len(kv[1]), kv[0][0].q, kv[0][0].r, kv[0][1]),
        )
        (end, facing), path = ranked[0]
        last = path[-1] if path else start
        heading = (
            next(
                (d for d in range(6) if (path[-2] if len(path) > 1 else start).neighbour(d) == last),
                int(mine["facing"]),
            )
            if path
            else int(mine["facing"])
        )
        fields: dict[str, Any] = {"hexes": [[h.q, h.r] for h in path], "facing": facing if facing != heading else None}
        form = move
        evade = next((f for f in forms if f.command == "starfinder.evade"), None)
        if evade is not None and self._evade_pays(mine, me, lambda shift: threat(end, facing, shift)):
            form = evade
        return compose(form, _filled(fields))

    def _evade_pays(self, mine: Ship, me: str, threat: Any) -> bool:
        """SF-STUNT-3: +2 AC and TL on a success, −2 on failing by 5 or more, against the threat at the end hex."""
        spec = mine["data_sheet"]
        penalties = [_condition(mine, "engines"), _condition(mine, "power_core")]
        if None in penalties:
            return False
        bonus = (
            _skill(mine, me, "piloting")
            + speed_modifier(int(spec["speed"]))
            + _bonus(mine, me)
            + MANOEUVRABILITY[spec["maneuverability"]][1]
            + sum(p or 0 for p in penalties)
        )
        dc = tier_dc(10, spec["tier"])
        win, lose_by_5 = p_success(bonus, dc), 1 - p_success(bonus, dc - 4)
        plain = threat(0)
        evading = win * threat(2) + lose_by_5 * threat(-2) + (1 - win - lose_by_5) * plain
        return evading < plain - 0.05

    # engineering: patch the worst damage, else restore the shields facing the enemy, else engines
    def _engineer(self, options: Sequence[Option], mine: Ship, foes: Sequence[Ship]) -> Any:
        patches = [o.command for o in options if isinstance(o.command, C.Patch)]
        if patches:
            damage = mine.get("critical_damage", {})
            order = {"glitching": 1, "malfunctioning": 2, "wrecked": 3}
            return max(
                patches,
                key=lambda c: (
                    order.get(damage.get(c.system, {}).get("counts_as", ""), 0),
                    -PATCH_FIRST.index(c.system) if c.system in PATCH_FIRST else -99,
                ),
            )
        diverts = [o.command for o in options if isinstance(o.command, C.Divert)]
        room = int(mine["max_shields"]) - sum(int(v) for v in mine["shields"].values())
        if room > 0 and foes:
            near = min(foes, key=lambda f: _hex(mine["hex"]).distance_to(_hex(f["hex"])))
            facing_foe = arcs_of(_hex(mine["hex"]), int(mine["facing"]), _hex(near["hex"]))[0]
            for cmd in diverts:
                if cmd.to == "shields" and set(cmd.shields) == {facing_foe}:
                    return cmd
        return next((c for c in diverts if c.to == "engines"), None)

    # science: lock on to the nearest enemy, else counter its missiles, else scan it
    def _science(self, options: Sequence[Option], ships: Mapping[str, Ship], mine: Ship, foes: Sequence[Ship]) -> Any:
        if not foes:
            return None
        here = _hex(mine["hex"])
        near = min(foes, key=lambda f: (here.distance_to(_hex(f["hex"])), f["id"]))
        tracking = any(w.get("kind") == "tracking" for w in near["data_sheet"]["weapons"])
        kinds = (C.LockOn, C.Countermeasures, C.Scan) if tracking else (C.LockOn, C.Scan)
        for kind in kinds:
            found = [o.command for o in options if isinstance(o.command, kind) and o.command.target == near["id"]]
            if found:
                return found[0]
        return None

    # captain: encourage the best gunner (or the pilot when there is none)
    def _captain(self, options: Sequence[Option], mine: Ship) -> Any:
        cmds = [o.command for o in options if isinstance(o.command, C.Encourage)]
        roles = {c["seat"]: c["role"] for c in mine["crew"]}

        def worth(cmd: C.Encourage) -> tuple[int, int]:
            role = roles.get(cmd.crew, "")
            return ({"gunner": 3, "pilot": 2, "engineer": 1}.get(role, 0), _skill(mine, cmd.crew, "gunnery"))

        return max(cmds, key=worth) if cmds else None


def _filled(values: Mapping[str, Any]) -> Any:
    def pick(field: Field, _index: int) -> Any:
        return values.get(field.key, field.default)

    return pick
