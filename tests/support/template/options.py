"""options and forms: complete commands decide accepts now (labelled), and the shot composed by its power.
Built from the rule module's own predicates (gunnery.may_fire), never from decide."""

from __future__ import annotations

from service.domain.core import RuleViolation, Viewer
from service.domain.core.choices import Field, Form, Option, PieceChoices, Value

from . import commands as C
from .gunnery import POWERS, may_fire, needed
from .state import GameState


def _enemy(state: GameState, side: str) -> str:
    return next(s for s in state.sides if s != side)


def _may(state: GameState, side: str, power: int) -> bool:
    try:
        may_fire(state, side, _enemy(state, side), power)
    except RuleViolation:
        return False
    return True


def options(state: GameState, viewer: Viewer) -> list[Option]:
    if state.over or viewer.kind == "spectator":
        return []
    if viewer.is_umpire:
        return [
            Option(
                command=C.ForcePhase(),
                label="End the turn: whoever has not fired holds fire",
                group="umpire",
                rule="TPL-4",
            )
        ]
    me = viewer.seat or ""
    if me not in state.hull or me in state.done:
        return []
    enemy = _enemy(state, me)
    out = [
        Option(
            command=C.Fire(side=me, target=enemy, power=p),
            label=f"Fire at {enemy}, power {p} (hits on {needed(p)}+ for {p})",
            piece=me,
            target=enemy,
            group="fire",
            rule="TPL-2",
        )
        for p in POWERS
        if _may(state, me, p)
    ]
    out.append(Option(command=C.Pass(side=me), label="Hold fire this turn", piece=me, group="phase", rule="TPL-1"))
    return out


def forms(state: GameState, viewer: Viewer) -> list[Form]:
    me = viewer.seat or ""
    if state.over or viewer.kind != "seat" or not _may(state, me, POWERS[0]):
        return []
    enemy = _enemy(state, me)
    power = Field(key="power", label="power", kind="number", min=POWERS[0], max=POWERS[-1], step=1, default=1)
    target = Field(key="target", label="target", kind="choice", values=(Value(enemy, enemy, piece=enemy),))
    return [
        Form(
            command="template.fire",
            label="Fire",
            piece_key="side",
            group="fire",
            rule="TPL-2",
            pieces=(PieceChoices(piece=me, label=f"{me}'s gun", fields=(target, power)),),
        )
    ]
