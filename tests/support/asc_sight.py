"""The leak tests' oracle of ASC sight, written apart from service.domain.asc.sight (test support).

A viewer may identify its own side's vessels, wrecks it saw destroyed, and enemies its side detected at
once (active sensors) or holds a TTA lock on; a spectator follows the same rule for both sides.
"""

from __future__ import annotations

from service.domain.asc.state import State


def seen(state: State, obs: str) -> set[str]:
    """What ``obs`` (a side or "spectator") may identify: independent of service.domain.asc.sight."""
    out = set()
    for vid, spec in state.specs.items():
        watcher = obs if obs != "spectator" else ("advantaged" if spec.side == "disadvantaged" else "disadvantaged")
        if spec.side == obs or vid in state.wrecks.get(obs, ()):
            out.add(vid)
            continue
        if state.status[vid].destroyed:
            continue
        if vid in state.auto_detected.get(watcher, ()):
            out.add(vid)
        elif any(
            state.specs[h].side == watcher and any(lk.target == vid for lk in ls) for h, ls in state.locks.items()
        ):
            out.add(vid)
    return out
