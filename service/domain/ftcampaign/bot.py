"""The campaign's rules-aware computer opponent (core.bot.Bot; docs/view-contract.md "Bots").

It sees only what its seat sees — the view (map as the seat knows it, its own groups, sightings, economy,
the published designs), its options and forms — and judges each choice one ply ahead with the campaign's
own quantities: a world's income (FTC-WLD-4/5), the fleet points a task group brings against a defence
value of 10 × IDP (FTC-DEF-1..3, FTC-DEF-8), and the strength of enemy counters in sight (FTC-TG-3).
Deterministic: ties are broken by ``core.bot.pick_index`` on the key, never a random source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.domain.core.bot import pick_index
from service.domain.core.choices import Form, Option
from service.domain.core.hexgrid import Hex

from . import commands as C
from .standing import INCOME_WEIGHT

NEUTRAL_INCOME = 58  # FTC-WLD-5 expectation: unsettled 1/3 (0), 2d6 × 10 (70), 3d6 × 10 (105)
PLAYER_INCOME = 90  # FTC-WLD-4: 3d5 × 10 on average, for a rival's world whose income is unknown
UNKNOWN_COUNTER = 250  # fleet points guessed for a sighted counter of unknown composition
CASH_RESERVE = 0.15  # of set-up money kept back for maintenance (FTC-ECO-3..5)


def p_surrender(points: int, defence_value: int, bonus: bool = False) -> float:
    """FTC-DEF-2/3: d6 with +1 per whole multiple of the defence value beyond the first, −1 below it; the
    defences surrender on a total of 6+ (or a natural 6). A defence value of 0 is taken without a roll."""
    if defence_value <= 0:
        return 1.0
    if 2 * points < defence_value:
        return 0.0  # FTC-DEF-8: driven off, no roll
    mod = points // defence_value - 1 if points >= defence_value else -1
    mod += 1 if bonus else 0
    return sum(1 for face in range(1, 7) if face == 6 or face + mod >= 6) / 6


def _dist(a: Sequence[int], b: Sequence[int]) -> int:
    return Hex(a[0], a[1]).distance_to(Hex(b[0], b[1]))


class _Seen:
    """The quantities the bot reads from its seat's view."""

    def __init__(self, view: Mapping[str, Any], me: str) -> None:
        self.me = me
        self.turn = int(view.get("turn", 0))
        self.worlds = {tuple(w["hex"]): w for w in view["map"]["worlds"]}
        self.cost = {d["id"]: int(d["cost"]) for d in view.get("designs", ())}
        self.groups = {g["id"]: g for g in view.get("groups", ())}
        self.enemies: dict[tuple[int, int], int] = {}
        for s in view.get("sightings", ()):
            if s.get("turn") != self.turn:
                continue
            strength = 0
            for c in s.get("counters", ()):
                if c.get("ships") is None:
                    strength += UNKNOWN_COUNTER
                else:
                    strength += sum(self.cost.get(x.split(":", 1)[-1], UNKNOWN_COUNTER) for x in c["ships"])
            if strength:
                self.enemies[tuple(s["hex"])] = strength
        self.economy = view.get("economy") or {}
        self.steps = {st["id"]: (int(st["hex"][0]), int(st["hex"][1])) for st in view.get("steps", ())}

    def points(self, gid: str) -> int:
        g = self.groups.get(gid)
        return sum(int(s["cost"]) for s in g["ships"] if not s.get("hulk")) if g else 0

    def prize(self, h: tuple[int, int]) -> tuple[int, int] | None:
        """(income, defence value) expected of taking the world at ``h``, None if it is ours or empty."""
        w = self.worlds.get(h)
        if w is None or w.get("owner") == self.me:
            return None
        known = w.get("income")
        income = int(known) if known is not None else (NEUTRAL_INCOME if w.get("owner") is None else PLAYER_INCOME)
        return income, 10 * income  # IDP starts equal to the income (FTC-WLD-4)

    def worth(self, h: tuple[int, int], points: int) -> float:
        """Expected standing gained by a group of ``points`` arriving on attack at ``h``, less its risk."""
        value = 0.0
        prize = self.prize(h)
        if prize is not None and points:
            income, dv = prize
            value += p_surrender(points, dv) * INCOME_WEIGHT * income
            if 2 * points < dv:
                value -= 1.0  # pointless: driven off without a roll
        enemy = self.enemies.get(h, 0)
        if enemy > points:
            value -= 0.5 * (enemy - points)  # likely to lose ships at list value
        return value


class CampaignBot:
    """Buys fleet strength at set-up, sends each group where its fleet points win the most income, assaults
    defences it can beat, and stands and fights only where it is the stronger."""

    name = "rules"

    def choose(
        self, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
    ) -> Any:
        if not options and not forms:
            return None
        seen = _Seen(view, me)
        orders = next((f for f in forms if f.command == "ftcampaign.submit_orders"), None)
        if orders is not None:
            return self._orders(seen, orders, key)
        commands = [o.command for o in options]
        if view.get("phase") == "deployment":
            return self._deploy(seen, commands, key)
        return self._best(seen, commands, key)

    # ---------------------------------------------------------------- set-up

    def _deploy(self, seen: _Seen, commands: list[Any], key: int) -> Any:
        cash = int(seen.economy.get("cash", 0))
        spent = int(seen.economy.get("ship_spending", 0))
        reserve = CASH_RESERVE * (cash + spent)
        buys = [c for c in commands if isinstance(c, C.BuyShip) and cash - seen.cost.get(c.design, 0) >= reserve]
        if buys:
            best = max(seen.cost.get(c.design, 0) for c in buys)  # the most fleet points per purchase
            top = [c for c in buys if seen.cost.get(c.design, 0) == best]
            return top[pick_index(key, "buy", len(top))]
        ready = [c for c in commands if isinstance(c, C.Ready)]
        return ready[0] if ready else self._best(seen, commands, key)

    # ---------------------------------------------------------------- sealed orders

    def _orders(self, seen: _Seen, form: Form, key: int) -> dict[str, Any]:
        targets = [h for h in seen.worlds if seen.prize(h) is not None]
        entries = []
        for i, pc in enumerate(form.pieces):
            to_field = next(f for f in pc.fields if f.key == "to")
            points = seen.points(pc.piece)
            takeable = [t for t in targets if 2 * points >= (seen.prize(t) or (0, 0))[1]]
            scored = []
            for v in to_field.values:
                h = (int(v.value[0]), int(v.value[1]))
                score = seen.worth(h, points)
                reachable = [t for t in takeable if t != h]
                if reachable:  # one ply on: closer to the best world this group could take
                    score += max(0.2 * seen.worth(t, points) / (1 + _dist(h, t)) for t in reachable)
                scored.append((score, v.value, h))
            best = max(s for s, _v, _h in scored)
            top = [(v, h) for s, v, h in scored if s >= best - 1e-9]
            value, h = top[pick_index(key, f"to:{i}", len(top))]
            attack = seen.prize(h) is not None and points > 0
            entries.append({form.piece_key: pc.piece, "to": value, "posture": "attack" if attack else "stand_off"})
        body: dict[str, Any] = {"type": form.command, **form.fixed}
        body[form.list_key or "orders"] = entries
        return body

    # ---------------------------------------------------------------- contacts and the rest

    def _strength_here(self, seen: _Seen, h: Sequence[int]) -> int:
        return sum(seen.points(g) for g, x in seen.groups.items() if x.get("hex") and tuple(x["hex"]) == tuple(h))

    def _score(self, seen: _Seen, c: Any) -> float:  # noqa: C901 - one case per kind of decision
        if isinstance(c, C.AssaultDefences):
            return 10.0  # only offered when the fleet may attack (FTC-DEF-2): the world is the prize
        if isinstance(c, C.DeclareFormation):
            return 9.0
        h = seen.steps.get(getattr(c, "step", ""))
        mine = self._strength_here(seen, h) if h else 0
        enemy = seen.enemies.get(h, 0) if h else 0
        if isinstance(c, C.Engage):
            return 5.0 if c.stay == (mine >= enemy) else 1.0
        if isinstance(c, C.ChoosePosture):
            want = "attack" if mine > 1.5 * enemy else "stand_off"
            return 5.0 if c.posture == want else 1.0
        if isinstance(c, C.Recon):
            return 5.0 if c.choice == "attack" else 1.0
        if isinstance(c, C.HoldOff):
            return 2.0
        if isinstance(c, (C.Ready, C.SubmitOrders, C.ClaimHomeworld, C.Expand)):
            return 3.0
        return 0.0  # purchases and housekeeping out of set-up: not needed to move the game on

    def _best(self, seen: _Seen, commands: list[Any], key: int) -> Any:
        if not commands:
            return None
        scores = [self._score(seen, c) for c in commands]
        best = max(scores)
        top = [c for c, s in zip(commands, scores, strict=True) if s == best]
        return top[pick_index(key, "best", len(top))]
