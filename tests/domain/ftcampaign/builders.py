"""Hand-built campaign states for rule tests: facts (events) folded onto a small scenario."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.domain.core import UMPIRE, Actor, Command, Dice, Event
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.economy import make_ship
from service.domain.ftcampaign.state import HexT, State, design, key
from tests.support.decider import ScriptedDice

DESIGNS: list[dict[str, Any]] = [
    {
        "id": "scout",
        "name": "Scout",
        "size_class": "SC",
        "mass": 12,
        "cost": 40,
        "hull": 3,
        "hull_rows": 3,
        "thrust": 8,
        "systems": [{"id": "ftl", "kind": "ftl", "cost": 2, "mass": 1}],
    },
    {
        "id": "dd",
        "name": "Destroyer",
        "size_class": "DD",
        "mass": 30,
        "cost": 100,
        "hull": 8,
        "hull_rows": 4,
        "thrust": 6,
        "navy": "NAC",
        "cloak": True,
        "systems": [
            {"id": "b2", "kind": "beam", "rating": 2, "cost": 6, "mass": 2},
            {"id": "b1", "kind": "beam", "rating": 1, "cost": 3, "mass": 1},
            {"id": "pds", "kind": "pds", "cost": 3, "mass": 1},
            {"id": "ftl", "kind": "ftl", "cost": 6, "mass": 3},
            {"id": "drv", "kind": "drive", "rating": 6, "cost": 9, "mass": 9},
            {"id": "cloak", "kind": "cloak", "cost": 30, "mass": 3},
        ],
    },
    {
        "id": "cl",
        "name": "Light cruiser",
        "size_class": "CL",
        "mass": 60,
        "cost": 200,
        "hull": 16,
        "hull_rows": 4,
        "thrust": 4,
        "navy": "NAC",
        "systems": [
            {"id": "b4", "kind": "beam", "rating": 4, "cost": 24, "mass": 8},
            {"id": "hg1", "kind": "hangar", "cost": 9, "mass": 6},
            {"id": "hg2", "kind": "hangar", "cost": 9, "mass": 6},
            {"id": "core", "kind": "core", "cost": 0, "mass": 0},
            {"id": "mr", "kind": "missile_rack", "cost": 6, "mass": 2},
        ],
    },
    {
        "id": "bb",
        "name": "Battleship",
        "size_class": "BB",
        "mass": 120,
        "cost": 450,
        "hull": 36,
        "hull_rows": 4,
        "thrust": 3,
        "systems": [{"id": "b3", "kind": "beam", "rating": 3, "cost": 12, "mass": 4}],
    },
    {
        "id": "frt",
        "name": "Freighter",
        "size_class": "FR",
        "mass": 100,
        "cost": 150,
        "hull": 20,
        "thrust": 2,
        "freighter": True,
        "systems": [
            {"id": "pds", "kind": "pds", "cost": 3, "mass": 1},
            {"id": "cargo", "kind": "cargo", "cost": 0, "mass": 40},
        ],
    },
    {
        "id": "qship",
        "name": "Q-ship",
        "size_class": "FR",
        "mass": 100,
        "cost": 150,
        "hull": 20,
        "thrust": 2,
        "freighter": True,
        "systems": [{"id": "b3", "kind": "beam", "rating": 3, "cost": 12, "mass": 4}],
    },
    {
        "id": "alien",
        "name": "K-gun cruiser",
        "size_class": "CH",
        "mass": 70,
        "cost": 260,
        "hull": 16,
        "thrust": 4,
        "standard": False,
        "systems": [
            {"id": "k", "kind": "k_gun", "rating": 3, "cost": 30, "mass": 9, "species": "kra'vak", "standard": False}
        ],
    },
    {
        "id": "custom",
        "name": "Yard special",
        "size_class": "CE",
        "mass": 40,
        "cost": 130,
        "hull": 10,
        "thrust": 4,
        "published": False,
        "systems": [],
    },
    {
        "id": "mod",
        "name": "Modular escort",
        "size_class": "CE",
        "mass": 40,
        "cost": 120,
        "hull": 10,
        "thrust": 4,
        "modular": True,
        "hull_design": "mod-hull",
        "systems": [],
    },
    {
        "id": "sv",
        "name": "Savasku drone",
        "size_class": "DD",
        "mass": 30,
        "cost": 105,
        "hull": 8,
        "thrust": 6,
        "species": "savasku",
        "navy": "SV",
        "systems": [{"id": "st", "kind": "stinger", "rating": 2, "cost": 9, "mass": 3}],
    },
    {
        "id": "tanker",
        "name": "Biomass tanker",
        "size_class": "FR",
        "mass": 80,
        "cost": 120,
        "hull": 40,
        "thrust": 2,
        "species": "savasku",
        "biomass_tanker": True,
        "systems": [],
    },
]

SETUP: dict[str, Any] = {
    "title": "test campaign",
    "players": [
        {"id": "red", "name": "Red"},
        {"id": "blue", "name": "Blue", "ally_navy": "NAC"},
        {"id": "green", "name": "Green", "species": "savasku"},
    ],
    "umpires": [{"id": "alan"}, {"id": "john", "plays": "blue"}],
    "designs": DESIGNS,
    "modules": [
        {"id": "guns", "name": "Gun pack", "hull_design": "mod-hull", "cost": 40, "mass": 8},
        {"id": "missiles", "name": "Missile pack", "hull_design": "mod-hull", "cost": 45, "mass": 8},
    ],
    "map_side": 6,
    "table_length_feet": 8,
    "last_turn": 36,
}


def setup(**changes: Any) -> Any:
    raw = dict(SETUP)
    raw.update(changes)
    return R.parse_setup(raw)


class Camp:
    """A fluent builder: worlds, ships and the clock, as facts."""

    def __init__(self, **changes: Any) -> None:
        self.setup = setup(**changes)
        self.worlds: dict[HexT, tuple[str | None, int | None, bool]] = {}
        self.routes: list[tuple[HexT, HexT]] = []
        self.fleet: list[tuple[str, str, HexT, str, str]] = []
        self.cash: dict[str, int] = {"red": 1000, "blue": 1000, "green": 1000}
        self.turn = 1
        self.extra: list[Event] = []

    def world(self, h: HexT, owner: str | None = None, income: int | None = 50, route: bool = False) -> Camp:
        self.worlds[h] = (owner, income if owner else None if income is None else income, route)
        return self

    def route(self, a: HexT, b: HexT) -> Camp:
        self.routes.append((a, b))
        return self

    def ship(self, player: str, design_id: str, h: HexT, group: str | None = None, posture: str = "stand_off") -> Camp:
        self.fleet.append((player, design_id, h, group or f"{player}-{key(h)}", posture))
        return self

    def at(self, turn: int) -> Camp:
        self.turn = turn
        return self

    def build(self) -> State:
        st = R.initial_state(self.setup)
        evs: list[Event] = [
            E.MapGenerated(
                radius=self.setup.map_side - 1,
                routes=tuple(self.routes),
                worlds=tuple(E.WorldSpec(hex=h, route=r) for h, (_o, _i, r) in sorted(self.worlds.items())),
            )
        ]
        incomes: dict[str, dict[str, int]] = {p: {} for p in st.order}
        for h, (owner, income, _r) in sorted(self.worlds.items()):
            if owner is None:
                continue
            if not incomes[owner]:
                evs.append(E.HomeworldClaimed(player=owner, world=key(h), extra=0))
            else:
                evs.append(E.WorldClaimed(player=owner, from_world=key(h), world=key(h)))
            incomes[owner][key(h)] = income or 0
        for p in st.order:
            evs.append(E.IncomesRolled(player=p, incomes=incomes[p], capital=self.cash.get(p, 0)))
        for h, (owner, income, _r) in sorted(self.worlds.items()):
            if owner is None and income is not None:
                evs.append(E.WorldScouted(world=key(h), income=income, by="red"))
        evs.append(E.PhaseChanged(phase="deployment"))
        for st_e in evs:
            st = R.evolve(st, st_e)
        groups: dict[str, str] = {}
        for player, did, h, gid, posture in self.fleet:
            d = design(st, did)
            assert d is not None
            sid = f"{player}-s{st.economies[player].seq + 1}"
            ev = E.ShipBought(player=player, ship=make_ship(sid, player, d), group=gid, hex=h, price=0, capped=False)
            st = R.evolve(st, ev)
            groups[gid] = posture
        from msgspec.structs import replace

        st = replace(st, groups={g: replace(v, posture=groups.get(g, v.posture)) for g, v in st.groups.items()})
        et = (self.turn - 1) // 6 + 1
        for ev2 in [
            E.TurnStarted(turn=self.turn, economic_turn=et),
            *[
                E.EconomyReport(
                    player=p,
                    economic_turn=et,
                    income=0,
                    interdicted=(),
                    maintenance=0,
                    rate="full",
                    penalty=False,
                    ordnance=0,
                    cash=self.cash.get(p, 0),
                    income_worlds=tuple(sorted(incomes[p])),
                )
                for p in st.order
            ],
            *self.extra,
        ]:
            st = R.evolve(st, ev2)
        return st


def ids(state: State, player: str) -> list[str]:
    return sorted(s for s, v in state.ships.items() if v.owner == player)


def group_id(state: State, player: str, h: HexT) -> str:
    return next(g.id for g in state.groups.values() if g.owner == player and g.hex == h and not g.dummy)


def fold(state: State, events: list[Event]) -> State:
    for e in events:
        state = R.evolve(state, e)
    return state


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def of(events: list[Event], t: type) -> list[Any]:
    return [e for e in events if isinstance(e, t)]


def when(
    ruleset: Any, state: State, command: Command, actor: Actor = UMPIRE, dice: Dice | Iterable[int] | None = None
) -> list[Event]:
    """Decide a command; scripted ``dice`` (a list of faces) must all be rolled: a test that scripts a die
    the rules never roll pins nothing."""
    if dice is None or isinstance(dice, Dice):
        return list(ruleset.decide(state, command, actor, dice or Dice(b"test-seed", "g_test", 1)))
    scripted = ScriptedDice(dice)
    events = list(ruleset.decide(state, command, actor, scripted))
    assert not scripted.unused, f"scripted dice never rolled: {scripted.unused}"
    return events
