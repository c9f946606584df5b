"""How a viewer names things in words: phases, sides, vessels it may see, bogeys (never more)."""

from __future__ import annotations

from .sight import ref
from .state import State

PHASE_NAMES = {
    "sensors": "Sensor commit",
    "detection": "Detection",
    "disadvantaged_movement": "Disadvantaged movement",
    "advantaged_movement": "Advantaged movement",
    "fire": "Fire",
    "damage_control": "Damage control",
}


def side_name(state: State, side: str) -> str:
    return state.side_names.get(side, side)


def token_label(tok: str) -> str:
    """ "bogey-2" -> "Bogey 2": the only name a bogey has (nothing of the vessel behind it)."""
    return "Bogey " + tok.split("-", 1)[1]


def name_for(state: State, obs: str | None, vid: str | None) -> str | None:
    """How a viewer names a vessel in words: its name if visible, "Bogey N", or None."""
    shown = ref(state, obs, vid) if obs is not None else vid
    if shown is None or vid is None:
        return None
    return state.specs[vid].name if shown == vid else token_label(shown)
