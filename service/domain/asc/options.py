"""options(): complete commands decide() would accept now, for a seat (ruling ASC-R-10 on commits)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Command, RuleViolation, Viewer

from .commands import AllStop, CommitSensors, Detect, EndPhase, Fire, ForcePhase, LockOn, Move, Repair, SensorSetting
from .damage_control import check_repair, outstanding
from .fire import check_fire, weapons
from .movement import check_all_stop, check_move, reachable
from .phases import check_end
from .sensors import check_commit, check_detect, check_lock, detection_candidates
from .sight import observer, visible
from .state import State, vessels_of
from .vessels import SIDES


def _accepts(check: Callable[..., Any], state: State, cmd: Command, actor: Viewer) -> bool:
    try:
        check(state, cmd, actor)
    except RuleViolation:
        return False
    return True


def options(state: State, viewer: Viewer) -> list[Command]:
    if state.over or viewer.kind == "spectator":
        return []
    if viewer.is_umpire:
        return [ForcePhase()]
    side = observer(viewer)
    if side not in SIDES:
        return []
    out: list[Command] = []
    mine = vessels_of(state, side)
    if state.phase == "sensors":
        if side not in state.commits:
            out += _commit_options(state, side, mine, viewer)
        return out
    if state.phase == "detection":
        for v in mine:
            for s in state.specs[v].sensors:
                for name in detection_candidates(state, side, v):
                    cmd = Detect(vessel=v, sensor=s.id, target=name)
                    if _accepts(check_detect, state, cmd, viewer):
                        out.append(cmd)
    if state.phase in ("detection", "fire"):
        enemies = [t for t in state.specs if state.specs[t].side != side and visible(state, side, t)]
        for v in mine:
            for t in enemies:
                lock_cmd = LockOn(vessel=v, target=t)
                if _accepts(check_lock, state, lock_cmd, viewer):
                    out.append(lock_cmd)
    if state.phase == f"{side}_movement":
        for v in mine:
            if v in state.moved:
                continue
            for f in range(6):
                stop = AllStop(vessel=v, facing=f)
                if _accepts(check_all_stop, state, stop, viewer):
                    out.append(stop)
            for path in sorted(reachable(state, v).values(), key=lambda p: (len(p), p)):
                mv = Move(vessel=v, path=path)  # type: ignore[arg-type]
                if _accepts(check_move, state, mv, viewer):
                    out.append(mv)
    if state.phase == "fire":
        enemies = [t for t in state.specs if state.specs[t].side != side and visible(state, side, t)]
        for v in mine:
            for w in weapons(state.specs[v]):
                for t in enemies:
                    for pd in (False, True):
                        fire = Fire(vessel=v, weapon=w, target=t, point_defence=pd)
                        if _accepts(check_fire, state, fire, viewer):
                            out.append(fire)
    if state.phase == "damage_control":
        for v in mine:
            st = state.status[v]
            locs = outstanding(state.specs[v], st)
            if locs and st.dc_teams > 0:
                for loc in locs:
                    rep = Repair(vessel=v, locations=(loc,) * st.dc_teams)
                    if _accepts(check_repair, state, rep, viewer):
                        out.append(rep)
    end = EndPhase(side=side)
    if state.phase != "sensors" and _accepts(check_end, state, end, viewer):
        out.append(end)
    return out


def _commit_options(state: State, side: str, mine: list[str], viewer: Viewer) -> list[Command]:
    """Representative commitments: all quiet; screens up; active sensors on; both (where allowed)."""
    found: list[Command] = []
    for active, screens in ((False, False), (False, True), (True, False), (True, True)):
        chosen = []
        for v in mine:
            top = state.status[v].screen_max if screens else 0
            for setting in (SensorSetting(vessel=v, active=active, screen=top),
                            SensorSetting(vessel=v, active=active, screen=0),
                            SensorSetting(vessel=v, active=False, screen=top),
                            SensorSetting(vessel=v)):
                if _accepts(check_commit, state, CommitSensors(side=side, vessels=(setting,)), viewer):
                    chosen.append(setting)
                    break
        cmd = CommitSensors(side=side, vessels=tuple(chosen))
        if cmd not in found and _accepts(check_commit, state, cmd, viewer):
            found.append(cmd)
    return found
