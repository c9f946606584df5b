"""The folded state of an ASC battle: static data sheets plus each vessel's dynamic status."""

from __future__ import annotations

from typing import ClassVar

import msgspec
from msgspec.structs import replace

from service.domain.core.hexgrid import Hex

from .scenario import SIDES, Setup, VesselSpec, bogey_order_key, stutterwarps
from .values import CommitEntry, FireDecl, Lock, Status, Strike

__all__ = [  # the value types live in values.py (events carry them); state users may still import them here
    "PHASES",
    "CommitEntry",
    "FireDecl",
    "Lock",
    "Mark",
    "State",
    "Status",
    "Strike",
    "alive",
    "enemy",
    "initial_state",
    "on_map",
    "side_of",
    "vessels_of",
]

PHASES = (
    "sensors",
    "detection",
    "disadvantaged_movement",
    "advantaged_movement",
    "fire",
    "damage_control",
)


class Mark(msgspec.Struct, frozen=True, kw_only=True):
    """Something that just happened, kept for the drawing's effects and tracks (view.py decides who may
    see it). ``n`` numbers marks through the battle, so a page animates each once."""

    n: int
    phase_n: int  # the phase it happened in (State.phase_n)
    # detected | undetected | lock | move | all_stop | fire | hit | miss | direct | void | damage | repair | destroyed
    kind: str
    side: str | None = None  # the acting side (for a detection: the searching side, who alone hears of a failure)
    source: str | None = None  # vessel id
    target: str | None = None  # vessel id
    hexes: tuple[Hex, ...] = ()  # a move's path (start first); a hex scanned or a wreck's hex
    amount: int | None = None  # damage points, repairs made
    rule: str | None = None


class State(msgspec.Struct, frozen=True, kw_only=True):
    HASH_NEUTRAL: ClassVar[frozenset[str]] = frozenset({"hangar_uses"})  # added after battle files were exported

    scenario: str
    turn: int = 1
    phase: str = "sensors"
    turn_limit: int = 12
    turn_limit_winner: str | None = None  # the scenario's winner at the turn limit, if it names one (ASC-R-8)
    map_radius: int = 10
    planet_hexes: tuple[Hex, ...] = ()
    side_names: dict[str, str] = {}
    specs: dict[str, VesselSpec] = {}
    status: dict[str, Status] = {}
    commits: dict[str, tuple[CommitEntry, ...]] = {}  # sealed, until both sides have committed
    done: tuple[str, ...] = ()  # sides that ended the current phase
    locks: dict[str, tuple[Lock, ...]] = {}  # holder -> TTA locks
    auto_detected: dict[str, tuple[str, ...]] = {}  # side -> enemy vessels radiating actively
    tokens: dict[str, dict[str, str]] = {}  # observer ("advantaged"/"disadvantaged"/"spectator") -> vid -> token
    wrecks: dict[str, tuple[str, ...]] = {}  # observer -> destroyed vessels it saw destroyed
    sensors_used: tuple[str, ...] = ()  # "vessel/sensor" this detection phase
    moved: tuple[str, ...] = ()  # vessels that moved or declared All Stop this movement phase
    hangar_uses: tuple[str, ...] = ()  # a carrier per launch or recovery this movement phase (ASC-R-28)
    declarations: tuple[FireDecl, ...] = ()
    pending: dict[str, tuple[Strike, ...]] = {}  # damage waiting for the damage control phase
    missiles_hit: tuple[str, ...] = ()  # missiles hit in the fire phase, killed in damage control
    repaired: tuple[str, ...] = ()  # vessels whose DC teams rolled this phase
    winner: str | None = None
    over: bool = False
    result: str | None = None  # why the battle ended, in words
    phase_n: int = 0  # phases begun so far (marks of the current and the previous phase are kept)
    marks_n: int = 0  # marks made so far
    marks: tuple[Mark, ...] = ()


def enemy(side: str) -> str:
    return "disadvantaged" if side == "advantaged" else "advantaged"


def initial_state(setup: Setup) -> State:
    specs = {v.id: v for v in setup.vessels}
    status = {}
    for v in setup.vessels:
        status[v.id] = Status(
            hex=v.hex,
            facing=v.facing,
            screen=0,
            screen_max=v.screens,
            dc_teams=v.dc_teams,
            missiles={b.id: b.missiles for b in v.missile_bays},
            small_craft=v.small_craft,
            quarters=v.accommodation,
            marines=v.marines,
            cargo=v.cargo,
            rounds={lnch.id: lnch.rounds for lnch in v.launchers},
        )
        if v.carried_by is not None:  # aboard its carrier, in the carrier's hex (ASC-CRAFT-1)
            status[v.id] = replace(status[v.id], aboard=v.carried_by, hex=specs[v.carried_by].hex)
    # craft aboard get a token when launched (ruling ASC-R-33)
    ordered = sorted((v for v in setup.vessels if stutterwarps(v) and v.carried_by is None), key=bogey_order_key)
    tokens: dict[str, dict[str, str]] = {}
    for observer in (*SIDES, "spectator"):
        seen = [v for v in ordered if observer == "spectator" or v.side != observer]
        tokens[observer] = {v.id: f"bogey-{n}" for n, v in enumerate(seen, start=1)}
    return State(
        scenario=setup.name,
        turn_limit=setup.turn_limit,
        turn_limit_winner=setup.turn_limit_winner,
        map_radius=setup.map_radius,
        planet_hexes=setup.planet_hexes,
        side_names=dict(setup.side_names),
        specs=specs,
        status=status,
        tokens=tokens,
        wrecks={o: () for o in (*SIDES, "spectator")},
        auto_detected={s: () for s in SIDES},
    )


def side_of(state: State, vid: str) -> str:
    return state.specs[vid].side


def alive(state: State, vid: str) -> bool:
    return vid in state.status and not state.status[vid].destroyed


def on_map(state: State, vid: str) -> bool:
    """Alive and not aboard a carrier (a craft aboard takes no part in the battle, ASC-CRAFT-1)."""
    return alive(state, vid) and state.status[vid].aboard is None


def vessels_of(state: State, side: str) -> list[str]:
    """The side's vessels in the battle: alive and on the map."""
    return [vid for vid, spec in state.specs.items() if spec.side == side and on_map(state, vid)]
