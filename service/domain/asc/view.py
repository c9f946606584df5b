"""The view dict (the ship sheets) and the drawing (docs/view-contract.md), both built per viewer from
what that viewer may see (ASC-HID-1): own vessels, detected enemies and wrecks seen destroyed by id;
undetected stutterwarping vessels as bogeys by token; everything else not at all."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer
from service.domain.core.drawing import (
    Arc,
    Bar,
    Board,
    Drawing,
    Effect,
    Marker,
    Piece,
    Point2,
    SeatStatus,
    Status,
    Track,
    pt,
)
from service.domain.core.hexgrid import FACING_NAMES, Hex

from .condition import at_all_stop, major_breach, minor_breach, passive_signature, power_shutdown
from .names import PHASE_NAMES, name_for, side_name, token_label
from .options import forms, options
from .scenario import SIDES, movement_allowance
from .sight import detected_by, is_bogey, observer, ref, visible
from .state import PHASES, Mark, State, enemy

SEALED_PHASES = ("sensors", "fire")  # ASC-SEQ-2, ASC-R-4: commitments and declarations are sealed
KINDS = {"starship": "ship"}
EFFECT_TEXT = {
    "detected": "detected",
    "undetected": "not detected",
    "lock": "TTA lock",
    "all_stop": "All Stop",
    "fire": "fires",
    "hit": "hit",
    "miss": "miss",
    "direct": "direct strike",
    "void": "no shot",
    "damage": "damage",
    "repair": "repaired",
    "destroyed": "destroyed",
    "launch": "launched",
    "recover": "recovered",
}
SHOT_KINDS = ("fire", "hit", "miss", "direct", "void")
OWN_SIGHT = ("all_stop", "damage", "repair")  # shown only to viewers who see the vessel itself


def _builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


# ------------------------------------------------------------------------------------------ the view


def vessel_view(state: State, vid: str, owner: bool, obs: str | None) -> dict[str, Any]:
    spec, st = state.specs[vid], state.status[vid]
    status = _builtins(st)
    sheet = _builtins(spec)
    if not owner and spec.controller is not None:
        sheet["controller"] = ref(state, obs, spec.controller)  # a hidden controller stays hidden
    if spec.carried_by is None:
        sheet.pop("carried_by", None)  # only small craft have a carrier (ASC-CRAFT-1)
    elif not owner:
        sheet["carried_by"] = ref(state, obs, spec.carried_by)  # a hidden carrier stays hidden
    if st.aboard is None:
        status.pop("aboard", None)
    derived: dict[str, Any] = {
        "movement_allowance": movement_allowance(spec),
        "minor_breach": minor_breach(spec, st),
        "major_breach": major_breach(spec, st),
        "power_shutdown": power_shutdown(spec, st),
        "all_stop_effects": at_all_stop(spec, st),
    }
    if owner:
        derived["passive_signature"] = passive_signature(spec, st)
    else:
        status.pop("screen", None)  # screen settings are known only to their owner (ASC-SEQ-2)
    return {
        "id": vid,
        "name": spec.name,
        "side": spec.side,
        "kind": spec.kind,
        "hex": [st.hex.q, st.hex.r],
        "facing": st.facing,
        "destroyed": st.destroyed,
        "spec": sheet,
        "status": status,
        "derived": derived,
    }


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    obs = observer(viewer)
    vessels = []
    bogeys: list[dict[str, Any]] = []
    for vid in state.specs:
        if visible(state, obs, vid):
            owner = obs is None or state.specs[vid].side == obs
            vessels.append(vessel_view(state, vid, owner, obs))
        elif is_bogey(state, obs, vid):
            h = state.status[vid].hex
            bogeys.append({"bogey": state.tokens[obs or ""][vid], "hex": [h.q, h.r]})
    bogeys.sort(key=lambda b: int(str(b["bogey"]).split("-")[1]))
    locks = []
    for holder, ls in sorted(state.locks.items()):
        hs = state.specs[holder].side
        if obs is None or obs == hs or (obs == "spectator" and visible(state, obs, holder)):
            locks += [{"vessel": holder, "target": ref(state, obs, lk.target)} for lk in ls]
    out: dict[str, Any] = {
        "ruleset": "asc",
        "scenario": state.scenario,
        "turn": state.turn,
        "phase": state.phase,
        "viewer": viewer.label,
        "map": {"radius": state.map_radius, "planet_hexes": [[h.q, h.r] for h in state.planet_hexes]},
        "sides": {
            s: {"name": state.side_names.get(s, s), "done": s in state.done, "committed": s in state.commits}
            for s in SIDES
        },
        "pending_commitments": [s for s in SIDES if s not in state.commits] if state.phase == "sensors" else [],
        "vessels": vessels,
        "bogeys": bogeys,
        "locks": locks,
        "over": state.over,
        "winner": state.winner,
    }
    if obs in SIDES:
        out["side"] = obs
        out["detected_by_enemy"] = sorted(
            v for v in state.specs if state.specs[v].side == obs and detected_by(state, enemy(obs), v)
        )
        out["my_commitment"] = _builtins(state.commits.get(obs, ()))
        out["my_fire_declarations"] = _builtins(tuple(d for d in state.declarations if d.side == obs))
    elif obs is None:
        out["commitments"] = _builtins(state.commits)
        out["fire_declarations"] = _builtins(state.declarations)
        out["pending_damage"] = _builtins(state.pending)
    return out


# ------------------------------------------------------------------------------------------- status


def phase_label(state: State) -> str:
    return f"{PHASE_NAMES.get(state.phase, state.phase)} (phase {PHASES.index(state.phase) + 1} of {len(PHASES)})"


def seat_status(state: State, side: str, you: bool) -> SeatStatus:
    """Whether the game waits for ``side`` now, and why (public facts only: who has committed or ended)."""
    other = side_name(state, enemy(side))
    if state.over:
        return SeatStatus(side, False, "the battle is over")
    if state.phase == "sensors":
        if side not in state.commits:
            what = "commit sensors and screens for each vessel (sealed until both sides have committed)"
            return SeatStatus(side, True, f"your move: {what}" if you else what)
        return SeatStatus(side, False, f"committed; waiting for the {other} to commit")
    if state.phase.endswith("_movement"):
        mover = state.phase.removesuffix("_movement")
        if side != mover:
            return SeatStatus(side, False, f"waiting for the {side_name(state, mover)} to move")
        what = "move each vessel (or declare All Stop), then end the phase"
        return SeatStatus(side, True, f"your move: {what}" if you else what)
    if side in state.done:
        return SeatStatus(side, False, f"ended the phase; waiting for the {other}")
    what = {
        "detection": "detection attempts and TTA locks, then end the phase",
        "fire": "declare fire (sealed until both sides end the phase), then end the phase",
        "damage_control": "assign damage control teams, then end the phase",
    }.get(state.phase, "end the phase")
    return SeatStatus(side, True, f"your move: {what}" if you else what)


IDLE = {  # why a side that must end the phase has nothing else to do in it
    "detection": "no contact is within range of a free sensor",
    "fire": "no weapon bears on a detected, locked enemy within one hex",
    "damage_control": "nothing to repair",
}


def _idle_why(state: State, viewer: Viewer, why: SeatStatus) -> SeatStatus:
    """ "Your move: end the phase (no weapon bears…)" when ending the phase is all the seat can do."""
    if not why.must_act or state.phase not in IDLE:
        return why
    if any(o.group != "phase" for o in options(state, viewer)) or forms(state, viewer):
        return why
    return SeatStatus(why.seat, True, f"your move: end the phase ({IDLE[state.phase]})")


def status(state: State, viewer: Viewer) -> Status:
    seats = tuple(seat_status(state, s, False) for s in SIDES)
    you = None
    if viewer.kind == "seat" and viewer.seat in SIDES:
        you = _idle_why(state, viewer, seat_status(state, viewer.seat, True))
    result = None
    if state.over:
        result = state.result or "the battle is over"
        if state.winner:
            result += f"; the {side_name(state, state.winner)} win"
    return Status(
        turn=state.turn,
        phase=state.phase,
        phase_label=phase_label(state),
        seats=seats,
        you=you,
        sealed=state.phase in SEALED_PHASES,
        over=state.over,
        result=result,
    )


# ------------------------------------------------------------------------------------------ drawing


def _at(h: Hex) -> Point2:
    return pt(h.q, h.r)


def _vessel_piece(state: State, vid: str, obs: str | None) -> Piece:
    spec, st = state.specs[vid], state.status[vid]
    owner = obs is None or obs == spec.side
    bars = [Bar("hull", max(0, spec.hull - st.hull_damage), spec.hull)]
    if spec.power_plant:
        bars.append(Bar("power plant", max(0, spec.power_plant - st.power_plant_damage), spec.power_plant))
    if owner and st.screen_max:
        bars.append(Bar("screen", st.screen or 0, st.screen_max))  # screen settings: owner only (ASC-SEQ-2)
    state_word = "destroyed" if st.destroyed else ("all stop" if at_all_stop(spec, st) else "active")
    detail = f"{spec.kind}, MA {movement_allowance(spec)}, class {spec.manoeuvre}"
    if st.active and not st.destroyed:
        detail += ", active sensors on"
    if owner and spec.hangars:
        inside = [v for v, s in state.status.items() if s.aboard == vid and not s.destroyed]
        detail += f", {len(inside)} small craft aboard"
    return Piece(
        id=vid,
        kind=KINDS.get(spec.kind, spec.kind),
        label=spec.name,
        at=_at(st.hex),
        side=spec.side,
        facing=st.facing,
        status=state_word,
        bars=tuple(bars),
        detail=detail,
        mine=obs is not None and obs == spec.side,
    )


def pieces(state: State, obs: str | None) -> list[Piece]:
    out = [
        Piece(id=f"planet-{h.q}-{h.r}", kind="terrain", label="Planet", at=_at(h), detail="planet hex")
        for h in state.planet_hexes
    ]
    bogeys = []
    for vid in state.specs:
        if state.status[vid].aboard is not None:
            continue  # in a hangar, not on the map (ASC-CRAFT-1): its carrier's detail counts it
        if visible(state, obs, vid):
            out.append(_vessel_piece(state, vid, obs))
        elif obs is not None and is_bogey(state, obs, vid):
            tok = state.tokens[obs][vid]
            bogeys.append(
                Piece(
                    id=tok,
                    kind="bogey",
                    label=token_label(tok),
                    at=_at(state.status[vid].hex),
                    status="hidden",
                    detail="unidentified contact (ASC-DET-1)",
                )
            )
    bogeys.sort(key=lambda p: int(p.id.split("-")[1]))  # token order, never the vessels' order
    return out + bogeys


def _run(sides: set[int]) -> tuple[int, int]:
    """First and last hexside of a contiguous set of hexsides, clockwise."""
    if len(sides) == 6:
        return 0, 5
    first = next(a for a in sorted(sides) if (a - 1) % 6 not in sides)
    return first, (first + len(sides) - 1) % 6


def arcs(state: State, obs: str | None) -> list[Arc]:
    """Fire arcs (range 1, absolute hexsides x 60 degrees) and sensor ranges of the viewer's own vessels."""
    out = []
    for vid, spec in state.specs.items():
        st = state.status[vid]
        if st.destroyed or st.aboard is not None or not (obs is None or obs == spec.side):
            continue
        for t in spec.turrets:
            if t.id in st.mounts_lost:
                continue
            first, last = _run({(st.facing + a) % 6 for a in t.arcs})
            out.append(
                Arc(
                    piece=vid,
                    label=f"{t.id} ({t.weapon})",
                    from_deg=60.0 * first,
                    to_deg=60.0 * last,
                    range=1,
                    kind="fire",
                )
            )
        for s in spec.sensors:
            if s.id in st.sensors_lost:
                continue
            out.append(
                Arc(
                    piece=vid,
                    label=f"{s.type} sensor {s.id}: detects under {s.rating} hexes",
                    from_deg=0.0,
                    to_deg=300.0,
                    range=s.rating - 1,
                    kind="sensor",
                )
            )
    return out


def _track(state: State, obs: str | None, m: Mark) -> Track | None:
    vid = m.source
    if vid is None or len(m.hexes) < 2:
        return None
    if visible(state, obs, vid):
        points = m.hexes
    elif obs is not None and is_bogey(state, obs, vid):
        points = (m.hexes[0], m.hexes[-1])  # a bogey's hex is known, never its path or facing
    else:
        return None
    shown = ref(state, obs, vid) if obs is not None else vid
    return Track(
        kind="move", points=tuple(_at(h) for h in points), piece=shown, label=f"{name_for(state, obs, vid)} moved"
    )


def _effect(state: State, obs: str | None, m: Mark) -> Effect | None:
    if obs is None:
        src, tgt = m.source, m.target
    else:
        if m.kind == "undetected" and m.side != obs:
            return None  # ruling ASC-R-3: only the searching side hears of a failure
        if m.kind in OWN_SIGHT and not visible(state, obs, m.target or m.source):
            return None
        src, tgt = ref(state, obs, m.source), ref(state, obs, m.target)
        if src is None and tgt is None:
            return None
    text = EFFECT_TEXT.get(m.kind, m.kind)
    amount = m.amount
    if obs is not None and m.kind in SHOT_KINDS and not visible(state, obs, m.target):
        amount = None  # the strikes on an unseen target are withheld (ASC-R-18)
    if amount is not None and m.kind in ("hit", "direct", "damage"):
        text = f"{text}: {amount} damage" if m.kind != "damage" else f"{amount} damage"
    elif amount is not None and m.kind == "repair":
        text = f"{amount} point(s) repaired"
    at = _at(m.hexes[0]) if m.hexes and m.kind in ("destroyed", "undetected", "detected") else None
    kind = "damage" if m.kind == "damage" else ("hit" if m.kind == "direct" else m.kind)
    return Effect(n=m.n, kind=kind, text=text, source=src, target=tgt, at=at, amount=amount, rule=m.rule)


def markers(state: State, obs: str | None) -> list[Marker]:
    out = []
    for holder, locks in sorted(state.locks.items()):
        if obs is not None and state.specs[holder].side != obs:
            continue
        for lk in locks:
            out.append(
                Marker(
                    kind="lock",
                    at=_at(state.status[lk.target].hex),
                    piece=ref(state, obs, lk.target) if obs is not None else lk.target,
                    label=f"TTA lock by {state.specs[holder].name}",
                )
            )
    if obs in SIDES:
        for vid, spec in state.specs.items():
            if spec.side == obs and not state.status[vid].destroyed and detected_by(state, enemy(obs), vid):
                out.append(
                    Marker(kind="detected", at=_at(state.status[vid].hex), piece=vid, label="detected by the enemy")
                )
    return out


def plans(state: State, obs: str | None) -> list[Track]:
    """Sealed fire declarations, for the declaring side (and the umpire) only (ASC-R-4)."""
    out = []
    for d in state.declarations:
        if obs is not None and d.side != obs:
            continue
        a, b = state.status[d.vessel].hex, state.status[d.target].hex
        out.append(
            Track(
                kind="plan",
                points=(_at(a), _at(b)),
                piece=d.vessel,
                label=f"{d.weapon} at {state.specs[d.target].name} (declared)",
            )
        )
    return out


def draw(state: State, viewer: Viewer) -> Drawing:
    obs = observer(viewer)
    board = Board(kind="hex", units="hexes", radius=state.map_radius, orientation="flat", facings=FACING_NAMES)
    tracks = [t for t in (_track(state, obs, m) for m in state.marks if m.kind == "move") if t is not None]
    effects = [e for e in (_effect(state, obs, m) for m in state.marks if m.kind != "move") if e is not None]
    return Drawing(
        board=board,
        status=status(state, viewer),
        pieces=tuple(pieces(state, obs)),
        arcs=tuple(arcs(state, obs)),
        tracks=(*tracks, *plans(state, obs)),
        markers=tuple(markers(state, obs)),
        effects=tuple(effects),
        sides=SIDES,
    )
