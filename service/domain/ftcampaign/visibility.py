"""Per-viewer redaction of events and the setup (FTC-TG-3, FTC-MOV-1, FTC-MOV-4; rulings FTC-R-7..9).

The view and its drawing (view.py) follow the same rules: what a viewer may know of worlds
(``known_owner``) is decided here once.

Secret from other players: task group compositions (until contact), positions (beyond what their own forces
see, as of when they saw it), sealed orders and choices, economies, and the incomes/IDP of their worlds.
Public: the map, the set-up claims, scouted neutral worlds, technology approvals and rulings, and who has
sealed orders (never what they are).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from service.domain.core import Event, Viewer

from . import events as E
from .state import Battle, State, World


def observer(viewer: Viewer) -> str | None:
    """None for the umpire; "" for a spectator; the seat otherwise."""
    if viewer.is_umpire:
        return None
    return viewer.seat or "" if viewer.kind == "seat" else ""


def battle_for(b: Battle, obs: str) -> Battle:
    return replace(b, formations={p: f for p, f in b.formations.items() if p == obs})


def redact(event: Event, viewer: Viewer, state: State) -> Event | None:  # noqa: C901 - one case per audience
    obs = observer(viewer)
    if obs is None or isinstance(event, E.PUBLIC):
        return event
    if isinstance(event, E.OrdersSubmitted):
        return event if event.player == obs else replace(event, orders=None)
    if isinstance(event, E.PRIVATE):
        return event if getattr(event, "player", None) == obs else None
    if isinstance(event, E.LOCAL):
        if obs not in event.witnesses:
            return None
        if isinstance(event, E.ChoiceMade) and event.player != obs:
            return replace(event, choice=None, to=None)
        if isinstance(event, E.FormationDeclared) and event.player != obs:
            return replace(event, formation=None)
        if isinstance(event, E.BattleStarted):
            return replace(event, battle=battle_for(event.battle, obs))
        if isinstance(event, E.BattleRecorded):
            # the victor's new group of captured hulks is its own counter (FTC-TG-3), not the loser's to know
            return replace(
                event,
                ordnance={p: v for p, v in event.ordnance.items() if p == obs},
                captured_group=event.captured_group if event.victor == obs else None,
            )
        if isinstance(event, E.StepOpened):
            return replace(event, step=replace(event.step, choices={}, destinations={}))
        return event
    return None


def redact_setup(setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    return setup  # the scenario (players, designs, map size) is public; the map is dice, made in play


def known_owner(state: State, wid: str, obs: str | None) -> str | None:
    """The owner of world ``wid`` as ``obs`` knows it: the truth for the umpire (None) and the owner itself;
    for others what their forces last saw there, else the public set-up claim (FTC-R-7)."""
    w = state.worlds[wid]
    if obs is None or (obs and w.owner == obs):
        return w.owner
    seen = state.intel.get(obs, {}).get(wid) if obs else None
    return seen.owner if seen is not None else w.setup_owner


def known_income(w: World, obs: str | None, owner: str | None) -> int | None:
    """A world's income if ``obs`` may know it: its own worlds, and scouted neutral worlds (FTC-WLD-5)."""
    if obs is None or (obs and w.owner == obs):
        return w.income
    if w.owner is None and w.scouted and owner is None:
        return w.income
    return None
