"""Helpers for ASC games played through the real HTTP + websocket API (test support).

The oracle is built from the UMPIRE's view of the truth: the umpire's event log (nothing redacted) is
decoded and folded with the ruleset, giving the true state after every seq. From that state, ``seen()``
says which vessels a viewer may identify at that point (own side, wrecks it saw destroyed, enemies its
side holds a TTA lock on or that radiate actively; a spectator follows the same rule for both sides).
Every JSON document a non-umpire receives is then checked against the hidden set *at the seq it
describes*.
"""

from __future__ import annotations

import json
import random
from contextlib import ExitStack
from typing import Any

from starlette.testclient import TestClient

from service.domain.asc import RULESET as R
from service.domain.asc.state import State
from service.events.head import codec_for
from service.events.replay import Folder
from tests.api.watched_game import WatchedGame
from tests.support.asc_sight import seen

SIDES = ("advantaged", "disadvantaged")
VIEWERS = ("spectator", "advantaged", "disadvantaged")  # non-umpire audiences
NO_SUCH = "zz-no-such-vessel"
_codec = codec_for(R)
_folder = Folder(R)


def label(viewer: str) -> str:
    return viewer if viewer in ("spectator", "umpire") else f"seat:{viewer}"


# ------------------------------------------------------------------------------------------- oracle


class Truth:
    """The true state after every seq, folded from the umpire's (unredacted) event stream."""

    def __init__(self) -> None:
        self.states: dict[int, State] = {}
        self.last = 0
        self.state: State | None = None

    def feed(self, envelopes: list[dict[str, Any]]) -> None:
        for env in envelopes:
            assert env["seq"] == self.last + 1, ("umpire stream not dense", env["seq"], self.last)
            if env["type"] == "game.created":
                self.state = R.initial_state(R.parse_setup(env["data"]["setup"]))
                self.states[0] = self.state  # "before seq 1" (a replay of turn 1 starts there)
            else:
                event = _codec.decode(
                    env["type"], env["v"], json.dumps(env["data"]).encode(), json.dumps(env.get("rolls", [])).encode()
                )
                self.state = _folder.apply(self.state, event)
            self.last = env["seq"]
            self.states[self.last] = self.state

    def at(self, seq: int) -> State:
        return self.states[seq]

    def hidden(self, seq: int, viewer: str) -> set[str]:
        state = self.states[seq]
        return set(state.specs) - seen(state, viewer)


def assert_no_leak(doc: Any, state: State, hidden: set[str], where: str, allow: tuple[str, ...] = ()) -> None:
    """No id or name of a hidden vessel anywhere in the JSON text of ``doc``."""
    text = doc if isinstance(doc, str) else json.dumps(doc)
    for a in allow:
        text = text.replace(a, "")
    for vid in sorted(hidden):
        name = state.specs[vid].name
        assert vid not in text, f"{where}: hidden vessel id {vid!r} leaked: {_around(text, vid)}"
        assert name not in text, f"{where}: hidden vessel name {name!r} ({vid}) leaked: {_around(text, name)}"


def _around(text: str, needle: str) -> str:
    i = text.find(needle)
    return text[max(0, i - 300) : i + 300]


def _is_token(name: Any) -> bool:
    return isinstance(name, str) and name.startswith("bogey-")


def check_envelope(env: dict[str, Any], truth: Truth, viewer: str, where: str) -> None:
    """Identity/stats/facing/damage of undetected vessels, and sealed content, for one envelope."""
    seq = env["seq"]
    state = truth.at(seq)
    hidden = truth.hidden(seq, viewer)
    assert_no_leak(env, state, hidden, f"{where} seq {seq} {env['type']} for {viewer}")
    t, d, rolls = env["type"], env["data"], env.get("rolls", [])
    own = viewer if viewer in SIDES else None
    if t == "game.created":
        setup = d.get("setup")
        assert all(v["side"] == own for v in setup["vessels"]), f"{where}: enemy data sheet in setup"
        assert all(set(b) == {"bogey", "hex"} for b in setup.get("bogeys", []))
    elif t == "asc.fire_declared":
        assert d.get("declaration")["side"] == own, f"{where}: sealed fire declaration of another side shown: {d}"
    elif t == "asc.sensors_committed":
        if d.get("side") != own:
            assert d.get("entries") is None, f"{where}: unrevealed commitment leaked: {d}"
    elif t == "asc.sensors_revealed":
        for e in d.get("entries") or []:
            if state.specs[e["vessel"]].side != own:
                assert e.get("screen") is None and e.get("active"), f"{where}: enemy screen / passive entry: {e}"
    elif t == "asc.moved":
        if _is_token(d.get("vessel")):
            assert d.get("facing") is None and d.get("path") is None, f"{where}: facing/path of a bogey: {d}"
    elif t == "asc.all_stopped":
        assert not _is_token(d.get("vessel")), f"{where}: All Stop of a bogey shown: {d}"
    elif t == "asc.detection_attempted":
        if d.get("vessel") is None or _is_token(d.get("vessel")):
            assert d.get("sensor") is None and not d.get("rating") and not rolls, f"{where}: hidden detector: {env}"
        if d.get("side") != own:
            assert d.get("success", False), f"{where}: another side's failed detection attempt shown"
    elif t == "asc.lock_taken":
        if d.get("vessel") is None or _is_token(d.get("vessel")):
            assert not d.get("rating"), f"{where}: hidden lock holder's sensor rating: {d}"
    elif t == "asc.shot_resolved":
        if d.get("vessel") is None or _is_token(d.get("vessel")):
            assert d.get("weapon") is None, f"{where}: hidden firer's weapon: {d}"
            assert d.get("launcher_turn") is None and not d.get("firer_destroyed"), f"{where}: hidden firer: {d}"
            assert not any(r["rule"] in ("ASC-FIRE-5", "ASC-FIRE-4") for r in rolls), f"{where}: {rolls}"
        if d.get("target") is None or _is_token(d.get("target")):
            assert not d.get("strikes") and not rolls and d.get("screen_after") is None, f"{where}: {env}"
        target_side = state.specs[d.get("target")].side if d.get("target") in state.specs else None
        if target_side != own:
            assert d.get("screen_after") is None, f"{where}: enemy screen rating shown: {d}"
            assert all(r.get("target") is None for r in rolls if r["rule"].startswith("ASC-SCR")), (where, rolls)
    elif t in ("asc.damage_taken", "asc.backup_took_over", "asc.repairs_rolled", "asc.continuing_damage"):
        assert d.get("vessel") in state.specs and d.get("vessel") not in hidden
        if state.specs[d.get("vessel")].side != own:
            assert d["status"].get("screen") is None, f"{where}: enemy screen rating in a status: {d}"
    elif t == "asc.vessel_destroyed":
        if _is_token(d.get("vessel")):
            assert not d.get("cause"), f"{where}: how a bogey died: {d}"
        assert not d.get("seen_by")


def check_view(view: dict[str, Any], truth: Truth, seq: int, viewer: str, where: str) -> None:
    state = truth.at(seq)
    hidden = truth.hidden(seq, viewer)
    assert_no_leak(view, state, hidden, f"{where} (seq {seq}) for {viewer}")
    own = viewer if viewer in SIDES else None
    assert {v["id"] for v in view["vessels"]} <= seen(state, viewer)
    for b in view["bogeys"]:
        assert set(b) == {"bogey", "hex"} and _is_token(b["bogey"]), b
    for v in view["vessels"]:
        if v["side"] != own:
            assert "screen" not in v["status"], f"{where}: screen setting of {v['id']} shown to {viewer}"
            assert "passive_signature" not in v["derived"]
    draw = view.get("draw")
    if draw is not None:  # the drawing: bogeys by token only, and every reference to a visible vessel or token
        tokens = {b["bogey"] for b in view["bogeys"]}
        for p in draw["pieces"]:
            if p["kind"] == "bogey":
                assert p["id"] in tokens and p["side"] is None and p["facing"] is None and not p["bars"], p
                assert p["label"] == "Bogey " + p["id"].split("-")[1]
            elif p["kind"] != "terrain":
                assert p["id"] in seen(state, viewer), f"{where}: drawn piece {p['id']} hidden from {viewer}"
        refs = [x for e in draw["effects"] for x in (e["source"], e["target"])]
        refs += [t["piece"] for t in draw["tracks"]] + [m["piece"] for m in draw["markers"]]
        for ref in refs:
            assert ref is None or _is_token(ref) or ref in seen(state, viewer), f"{where}: drawn {ref} for {viewer}"
        if own is None:
            assert not draw["arcs"] and not [t for t in draw["tracks"] if t["kind"] == "plan"]
    for k in ("commitments", "fire_declarations", "pending_damage"):
        assert k not in view, f"{where}: umpire-only {k!r} shown to {viewer}"
    for e in view.get("my_commitment", []):
        assert state.specs[e["vessel"]].side == own
    for d in view.get("my_fire_declarations", []):
        assert d["side"] == own
    if own is None:
        assert "my_commitment" not in view and "my_fire_declarations" not in view


def check_options(
    commands: list[dict[str, Any]],
    truth: Truth,
    seq: int,
    viewer: str,
    forms: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> None:
    """Options and forms name only what the seat may see, and act only for its own vessels."""
    state = truth.at(seq)
    hidden = truth.hidden(seq, viewer)
    assert_no_leak(commands, state, hidden, f"options (seq {seq}) for {viewer}")
    assert_no_leak(list(forms), state, hidden, f"forms (seq {seq}) for {viewer}")
    if viewer == "spectator":
        assert commands == [] and not forms
    for c in commands:
        if "vessel" in c:
            assert state.specs[c["vessel"]].side == viewer
    for form in forms:
        for pc in form["pieces"]:
            assert state.specs[pc["piece"]].side == viewer, f"a form for another side's vessel: {form}"


# --------------------------------------------------------------------------------------------- play


class AscGame(WatchedGame):
    """One ASC game driven over HTTP, with one live websocket per non-umpire viewer."""

    ruleset = "asc"

    def __init__(self, client: TestClient, scenario: str, stack: ExitStack) -> None:
        super().__init__(client, scenario, stack, Truth())

    def check_envelope(self, env: dict[str, Any], viewer: str, where: str) -> None:
        check_envelope(env, self.truth, viewer, where)


def pick(rng: random.Random, state: State, options: list[dict[str, Any]]) -> dict[str, Any]:
    """Prefer shots, then moves closing on the enemy, then the rest; end the phase otherwise."""
    by = lambda t: [o for o in options if o["type"] == t]  # noqa: E731
    fires, moves, ends = by("asc.fire"), by("asc.move"), by("asc.end_phase")
    others = [o for o in options if o["type"] not in ("asc.fire", "asc.move", "asc.end_phase")]
    r = rng.random()
    if fires and r < 0.7:
        return rng.choice(fires)
    if moves and r < 0.6:

        def distance(m: dict[str, Any]) -> int:
            from service.domain.asc.paths import steps_for, trace
            from service.domain.core.hexgrid import Hex

            st = state.status[m["vessel"]]
            steps = tuple(m.get("path", ()))
            if m.get("hexes"):
                steps = steps_for(st.hex, st.facing, tuple(Hex(q, r) for q, r in m["hexes"]), None)
            assert isinstance(steps, tuple)
            hexes, _ = trace(st.hex, st.facing, steps)
            side = state.specs[m["vessel"]].side
            foes = [s.hex for v, s in state.status.items() if state.specs[v].side != side and not s.destroyed]
            return min((hexes[-1].distance_to(h) for h in foes), default=0)

        best = min(distance(m) for m in moves)
        return rng.choice([m for m in moves if distance(m) == best])
    if others and r < 0.85:
        return rng.choice(others)
    if ends:
        return ends[0]
    return rng.choice(options)
