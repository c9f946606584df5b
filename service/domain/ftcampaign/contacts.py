"""Arrival, contact and battle (FTC-ARR), and the end of the strategic turn (FTC-TIME)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Modifier, Roll, RuleViolation, seat
from service.domain.core.acc import Acc

from . import events as E
from .commands import (
    ChoosePosture,
    DeclareFormation,
    Engage,
    HoldOff,
    LinkBattle,
    Recon,
    RecordBattle,
    ResolveDisengagement,
)
from .common import (
    econ,
    gather_all_intel,
    groups_at_hex,
    hulkless,
    is_lone_scout,
    phase,
    player_of,
    record_intel,
    witnesses_at,
)
from .defences import allocate_repulse, hold_off, open_assault
from .economy import start_economic_turn, work_keels
from .movement import depart, jump_error
from .state import Battle, Force, Formation, HexT, State, Step, key

DEFAULT_FORMATION = Formation(formation="line", speed=0)


# ---------------------------------------------------------------- what happens next


def mobile(state: State, h: HexT) -> dict[str, list[str]]:
    """Player -> non-dummy group ids at ``h``, in turn order."""
    found: dict[str, list[str]] = {}
    for g in sorted(groups_at_hex(state, h), key=lambda g: g.id):
        if not g.dummy and g.ships:
            found.setdefault(g.owner, []).append(g.id)
    return {p: found[p] for p in state.order if p in found}


def posture_of(state: State, gids: list[str]) -> str:
    ps = {state.groups[g].posture for g in gids}
    return "attack" if "attack" in ps else "withdraw" if ps == {"withdraw"} else "stand_off"


def occupied(state: State) -> list[HexT]:
    return sorted({tuple(g.hex) for g in state.groups.values() if g.hex is not None})  # type: ignore[misc]


def advance(out: Acc[State], dice: Dice) -> None:
    """Resolve contacts system by system until a decision is needed or the turn is over."""
    for _guard in range(500):
        st = out.state
        if st.phase != "contacts" or st.steps or st.battles:
            return
        if not _next_situation(out, dice):
            end_turn(out, dice)
            return
    raise AssertionError("contact resolution did not settle")  # pragma: no cover


def _next_situation(out: Acc[State], dice: Dice) -> bool:  # noqa: C901 - one branch per situation, in order
    st = out.state
    for h in occupied(st):
        k = key(h)
        here = groups_at_hex(st, h)
        owners = {g.owner for g in here if not g.dummy and g.ships}
        dummies = [g.id for g in here if g.dummy and any(o != g.owner for o in owners)]
        if dummies:  # contact reveals a dummy counter (FTC-TG-2, FTC-TG-3)
            out.add(E.DummiesRevealed(hex=h, groups=tuple(sorted(dummies)), witnesses=witnesses_at(st, h)))
            return True
        forces = mobile(st, h)
        if k in st.settled:
            continue
        for p, gids in forces.items():  # FTC-ARR-4: withdraw if contested
            if len(forces) > 1 and any(st.groups[g].posture == "withdraw" for g in gids):
                for gid in gids:
                    g = st.groups[gid]
                    if g.posture == "withdraw":
                        if g.origin is None or tuple(g.origin) == tuple(h):
                            out.add(E.GroupMoved(player=p, group=gid, frm=h, to=h, posture="stand_off"))
                        else:
                            depart(out, p, gid, g.origin, "withdrew: contested")
                record_intel(out, h, (p,), composition=False)
                return True
        if len(forces) > 1:
            attackers = [p for p, gids in forces.items() if posture_of(st, gids) == "attack"]
            if attackers:
                others = tuple(p for p in forces if p not in attackers)
                if not others:
                    _start_battle(out, h, dice)
                    return True
                _open(out, "engage", h, tuple(forces), others)
                return True
            _open(out, "standoff", h, tuple(forces), tuple(forces))
            return True
        w = st.worlds.get(k)
        if len(forces) == 1 and w is not None:
            ((p, gids),) = forces.items()
            if w.owner != p:
                posture = posture_of(st, gids)
                if posture == "attack":
                    open_assault(out, h, p, dice)
                    return True
                if posture == "withdraw":
                    _open(out, "recon", h, (p,), (p,))
                    return True
    return False


def _open(out: Acc[State], kind: str, h: HexT, players: tuple[str, ...], awaiting: tuple[str, ...]) -> None:
    st = out.state
    step = Step(id=f"x{st.counter + 1}", kind=kind, hex=h, players=players, awaiting=awaiting)
    out.add(E.StepOpened(step=step, witnesses=players))


def _step(state: State, sid: str, player: str, kind: str, rule: str) -> Step:
    s = next((s for s in state.steps if s.id == sid), None)
    if s is None or s.kind != kind or player not in s.awaiting:
        raise RuleViolation(rule, f"no {kind} decision {sid!r} is waiting for you")
    return s


# ---------------------------------------------------------------- decisions


def engage(out: Acc[State], cmd: Engage, actor: Actor, dice: Dice) -> None:
    st = out.state
    player = player_of(st, actor)
    s = _step(st, cmd.step, player, "engage", "FTC-ARR-6")
    if not cmd.stay:
        check_departure(st, s.hex, player, cmd.to)
    out.add(
        E.ChoiceMade(
            step=s.id,
            player=player,
            choice="stay" if cmd.stay else "disengage",
            to=None if cmd.stay else cmd.to,
            witnesses=s.players,
        )
    )
    if not _find(out.state, s.id).awaiting:
        _resolve_engage(out, _find(out.state, s.id), dice)
        advance(out, dice)


def _find(state: State, sid: str) -> Step:
    return next(s for s in state.steps if s.id == sid)


def check_departure(st: State, h: HexT, player: str, to: HexT | None) -> None:
    gids = mobile(st, h).get(player, [])
    if any(st.groups[g].cloaked for g in gids):
        raise RuleViolation("FTC-ARR-10", "cloaked ships cannot depart")
    if to is None:
        raise RuleViolation("FTC-ARR-10", "a departure writes its destination at once")
    if jump_error(st, h, to, False) and jump_error(st, h, to, True):
        raise RuleViolation(*jump_error(st, h, to, False))  # type: ignore[misc]


def _resolve_engage(out: Acc[State], s: Step, dice: Dice) -> None:
    st = out.state
    r = dice.roll(6, f"range at {key(s.hex)} (d6 + 6 feet)", "FTC-ARR-6")
    rng = r.value + 6
    table = st.setup.table_length_feet
    far = rng > table
    r = replace(
        r, outcome=f"{rng} feet: " + ("too far for one table, disengagement is automatic" if far else "on the table")
    )
    out.add(
        E.StepResolved(
            step=s.id,
            kind="engage",
            hex=s.hex,
            choices=dict(s.choices),
            witnesses=s.players,
            range_feet=rng,
            rolls=(r,),
        )
    )
    leavers = [p for p, c in s.choices.items() if c == "disengage"]
    if far:
        for p in leavers:
            for gid in mobile(out.state, s.hex).get(p, []):
                depart(out, p, gid, s.destinations[p], "disengaged (out of range)")
        remaining = mobile(out.state, s.hex)
        if len(remaining) == 1:
            _maybe_bonus_after_leave(out, s.hex, leavers)
    if len(mobile(out.state, s.hex)) > 1:
        _start_battle(out, s.hex, dice, rng)


def _maybe_bonus_after_leave(out: Acc[State], h: HexT, leavers: list[str]) -> None:
    """A fleet that elects to leave is defeated (FTC-ARR-9); the +1 applies against the world's own fleet."""
    w = out.state.worlds.get(key(h))
    if w is not None and w.owner in leavers and key(h) not in out.state.bonus:
        out.add(E.StepResolved(step="-", kind="defeat", hex=h, choices={}, witnesses=witnesses_at(out.state, h)))


def choose_posture(out: Acc[State], cmd: ChoosePosture, actor: Actor, dice: Dice) -> None:
    st = out.state
    player = player_of(st, actor)
    s = _step(st, cmd.step, player, "standoff", "FTC-ARR-5")
    if cmd.posture not in ("stand_off", "attack", "withdraw"):
        raise RuleViolation("FTC-ARR-1", "posture is stand_off, attack or withdraw")
    out.add(E.ChoiceMade(step=s.id, player=player, choice=cmd.posture, witnesses=s.players))
    s = _find(out.state, s.id)
    if not s.awaiting:
        _resolve_postures(out, s)
        advance(out, dice)


def _resolve_postures(out: Acc[State], s: Step) -> None:
    """FTC-ARR-5: fresh postures revealed together; all stand off = stay to the end of the turn."""
    choices = dict(s.choices)
    postures = {p: ("stand_off" if c == "withdraw" else c) for p, c in choices.items()}
    leaving = [
        (p, gid, out.state.groups[gid].origin)
        for p, c in choices.items()
        if c == "withdraw"
        for gid in mobile(out.state, s.hex).get(p, [])
    ]
    leaving = [x for x in leaving if x[2] is not None and tuple(x[2]) != tuple(s.hex)]
    settle = "attack" not in choices.values() and not leaving
    out.add(
        E.StepResolved(
            step=s.id, kind=s.kind, hex=s.hex, choices=choices, witnesses=s.players, postures=postures, settle=settle
        )
    )
    for p, gid, origin in leaving:
        depart(out, p, gid, origin, "withdrew")  # type: ignore[arg-type]


def recon(out: Acc[State], cmd: Recon, actor: Actor, dice: Dice) -> None:
    st = out.state
    player = player_of(st, actor)
    s = _step(st, cmd.step, player, "recon", "FTC-ARR-4")
    if cmd.choice not in ("attack", "stand_off", "withdraw"):
        raise RuleViolation("FTC-ARR-4", "after recon: attack, stand_off or withdraw")
    out.add(E.ChoiceMade(step=s.id, player=player, choice=cmd.choice, witnesses=(player,)))
    _resolve_postures(out, _find(out.state, s.id))
    advance(out, dice)


# ---------------------------------------------------------------- battles


def _start_battle(out: Acc[State], h: HexT, dice: Dice, rng: int | None = None) -> None:
    rolls: list[Roll] = []
    if rng is None:
        r = dice.roll(6, f"range at {key(h)} (d6 + 6 feet)", "FTC-ARR-6")
        rng = r.value + 6
        rolls.append(replace(r, outcome=f"{rng} feet"))
    _allocate_repulses(out, h, dice)
    st = out.state
    forces: list[Force] = []
    totals: dict[str, int] = {}
    for p, gids in mobile(st, h).items():
        force, totals[p], roll = _force(st, p, gids, dice)
        forces.append(force)
        rolls.append(roll)
    drop, changes = _drop(totals)
    late = tuple(f.player for f in forces if f.initiative == 1)
    battle = Battle(
        id=f"b{st.counter + 1}",
        hex=h,
        forces=tuple(forces),
        range_feet=rng,
        formations={f.player: f.preset for f in forces if f.preset is not None},
    )
    designs = {s: st.ships[s].design for f in forces for s in f.ships}
    players = tuple(f.player for f in forces)
    out.add(
        E.BattleStarted(
            battle=battle,
            designs=designs,
            priority=_priority(st, h, forces),
            drop=drop,
            drop_changes=changes,
            late=late,
            witnesses=players,
            rolls=tuple(rolls),
        )
    )
    record_intel(out, h, players, composition=True)


def _allocate_repulses(out: Acc[State], h: HexT, dice: Dice) -> None:
    """FTC-DEF-7: unrepaired repulse damage is allocated before fighting."""
    for gids in mobile(out.state, h).values():
        for gid in gids:
            if out.state.groups[gid].repulse is not None:
                allocate_repulse(out, out.state.groups[gid], dice)


def _force(st: State, p: str, gids: list[str], dice: Dice) -> tuple[Force, int, Roll]:
    """FTC-ARR-7: a player's force in the battle and its initiative roll; returns (force, total, the roll shown)."""
    groups = [st.groups[g] for g in gids]
    posture = posture_of(st, gids)
    route = any(g.via_route for g in groups)
    mods = []
    if posture == "attack":
        mods.append(Modifier("FTC-ARR-1", "attack posture", 1))
    if route:
        mods.append(Modifier("FTC-MOV-5", "arrived by charted route", 1))
    r = dice.roll(6, f"initiative of {p}", "FTC-ARR-7", modifiers=tuple(mods))
    total = r.value + sum(m.value for m in mods)
    shown = replace(r, outcome=f"{total}" + (" (natural 1: arrives late)" if r.value == 1 else ""))
    force = Force(
        player=p,
        groups=tuple(gids),
        ships=tuple(s for g in groups for s in hulkless(st, g)),
        posture=posture,
        initiative=r.value,
        route=route,
        entry_side=next((g.entry_side for g in groups if g.entry_side), None),
        penalty=econ(st, p).penalty,
        preset=next((g.under_fire for g in groups if g.under_fire is not None), None),
    )
    return force, total, shown


def _drop(totals: dict[str, int]) -> tuple[str | None, int]:
    """FTC-ARR-7: the highest initiative has the drop and changes half the margin (at most 2); a tie: no one."""
    ranked = sorted(totals.values(), reverse=True)
    if len(ranked) > 1 and ranked[0] > ranked[1]:  # FTC-ARR-7 ruling: a tie gives no one the drop
        drop = next(p for p, t in totals.items() if t == ranked[0])
        return drop, min(2, (ranked[0] - ranked[1]) // 2)
    return None, 0


def _priority(st: State, h: HexT, forces: list[Force]) -> dict[str, tuple[str, ...]]:
    """FTC-ARR-3: fleets on attack orders fire at fleets on attack orders, then stand off, then the defences."""
    w = st.worlds.get(key(h))
    priority: dict[str, tuple[str, ...]] = {}
    for f in forces:
        if f.posture != "attack":
            continue
        first = [o.player for o in forces if o.player != f.player and o.posture == "attack"]
        then = [o.player for o in forces if o.player != f.player and o.posture != "attack"]
        tail = ["defences"] if w is not None and w.owner != f.player else []
        priority[f.player] = tuple(first + then + tail)
    return priority


def declare_formation(out: Acc[State], cmd: DeclareFormation, actor: Actor) -> None:
    st = out.state
    player = player_of(st, actor)
    b = next((b for b in st.battles if b.id == cmd.battle), None)
    if b is None or player not in [f.player for f in b.forces]:
        raise RuleViolation("FTC-ARR-12", f"you are not in battle {cmd.battle!r}")
    if player in b.formations:
        raise RuleViolation(
            "FTC-ARR-12",
            "formation and speed are already recorded (a fleet that left under fire keeps the ones it had)",
        )
    if cmd.speed < 0 or not cmd.formation:
        raise RuleViolation("FTC-ARR-12", "name a formation and a speed ≥ 0")
    out.add(
        E.FormationDeclared(
            battle=b.id,
            player=player,
            formation=Formation(formation=cmd.formation, speed=cmd.speed),
            witnesses=tuple(f.player for f in b.forces),
        )
    )


def check_umpire(st: State, name: str | None, involved: tuple[str, ...] | list[str]) -> None:
    """FTC-UMP-1: a dispute is decided by an umpire not involved in it."""
    if name is None:
        return
    u = next((u for u in st.setup.umpires if u.id == name), None)
    if u is None:
        raise RuleViolation("FTC-UMP-1", f"{name!r} is not an umpire of this campaign")
    if u.plays is not None and u.plays in involved:
        raise RuleViolation("FTC-UMP-1", f"umpire {name} plays {u.plays}, who is involved; another umpire decides")


def link_battle(out: Acc[State], cmd: LinkBattle, actor: Actor) -> None:
    """FTC-ARR-8: the umpire's (the service's) record that the battle is fought as a linked game."""
    st = out.state
    b = next((b for b in st.battles if b.id == cmd.battle), None)
    if b is None:
        raise RuleViolation("FTC-ARR-8", f"no battle {cmd.battle!r} is waiting for a result")
    if b.tactical_game_id is not None:
        raise RuleViolation("FTC-ARR-8", f"battle {b.id} is already fought as {b.tactical_game_id}")
    missing = [f.player for f in b.forces if f.player not in b.formations]
    if missing:
        raise RuleViolation("FTC-ARR-12", f"formation and speed not yet recorded for {', '.join(missing)}")
    out.add(
        E.BattleLinked(
            battle=b.id, hex=b.hex, tactical_game_id=cmd.tactical_game_id, witnesses=tuple(f.player for f in b.forces)
        )
    )


def check_record_battle(st: State, cmd: RecordBattle) -> Battle:  # noqa: C901 - one check per field
    """FTC-ARR-8, FTC-ARR-10, FTC-ARR-12, FTC-CAP-1, FTC-UMP-1: the battle recorded, or raises."""
    b = next((b for b in st.battles if b.id == cmd.battle), None)
    if b is None:
        raise RuleViolation("FTC-ARR-8", f"no battle {cmd.battle!r} is waiting for a result")
    if b.tactical_game_id is not None and cmd.tactical_game_id != b.tactical_game_id:
        raise RuleViolation(
            "FTC-ARR-8",
            f"battle {b.id} is fought as the linked game {b.tactical_game_id}: its result comes from that game",
        )
    players = [f.player for f in b.forces]
    check_umpire(st, cmd.umpire, players)
    missing = [p for p in players if p not in b.formations]
    if missing:
        raise RuleViolation("FTC-ARR-12", f"formation and speed not yet recorded for {', '.join(missing)}")
    in_battle = {s: f.player for f in b.forces for s in f.ships}
    groups = {g: f.player for f in b.forces for g in f.groups}
    if any(r.ship not in in_battle for r in cmd.ships) or len({r.ship for r in cmd.ships}) != len(cmd.ships):
        raise RuleViolation("FTC-ARR-8", "results name ships that did not fight in this battle")
    for r in cmd.ships:
        ship = st.ships[r.ship]
        ids = {s.id for s in ship.systems}
        if r.hull_lost < 0 or any(x not in ids for x in (*r.damaged, *r.jury_rigged)):
            raise RuleViolation("FTC-ARR-8", f"unknown systems or negative damage for {r.ship}")
    if cmd.victor is not None and cmd.victor not in players:
        raise RuleViolation("FTC-ARR-8", f"{cmd.victor} did not fight here")
    destroyed = {r.ship for r in cmd.ships if r.destroyed}
    if cmd.captured:
        if cmd.victor is None:
            raise RuleViolation("FTC-CAP-1", "drifting ships are captured by the victor; name one")
        if any(in_battle.get(s) in (None, cmd.victor) or s in destroyed for s in cmd.captured):
            raise RuleViolation("FTC-CAP-1", "only the defeated side's surviving ships can be captured")
    for d in cmd.left:
        if d.group not in groups or d.group not in st.groups:
            raise RuleViolation("FTC-ARR-10", f"task group {d.group!r} is not in this battle")
        if st.groups[d.group].cloaked:
            raise RuleViolation("FTC-ARR-10", "cloaked ships cannot depart")
        if jump_error(st, b.hex, d.to, False) and jump_error(st, b.hex, d.to, True):
            raise RuleViolation(*jump_error(st, b.hex, d.to, False))  # type: ignore[misc]
    return b


def record_battle(out: Acc[State], cmd: RecordBattle, actor: Actor, dice: Dice) -> None:
    st = out.state
    b = check_record_battle(st, cmd)
    players = [f.player for f in b.forces]
    groups = {g: f.player for f in b.forces for g in f.groups}
    destroyed = {r.ship for r in cmd.ships if r.destroyed}
    lost = destroyed | set(cmd.captured)
    leaving = {d.group for d in cmd.left}
    defeated = []
    for f in b.forces:
        stays = [
            g for g in f.groups if g not in leaving and any(s not in lost for s in st.groups[g].ships if g in st.groups)
        ]
        if f.player != cmd.victor and not stays:
            defeated.append(f.player)
    w = st.worlds.get(key(b.hex))
    bonus = bool(
        cmd.victor
        and w is not None
        and w.owner in defeated
        and w.owner != cmd.victor
        and not is_lone_scout(st, next(f.ships for f in b.forces if f.player == w.owner))
    )
    survivors = {f.player for f in b.forces if f.player not in defeated}
    settle = len(survivors) > 1
    cap_group = f"{cmd.victor}-c{b.id}" if cmd.captured and cmd.victor else None
    out.add(
        E.BattleRecorded(
            battle=b.id,
            hex=b.hex,
            tactical_game_id=cmd.tactical_game_id,
            victor=cmd.victor,
            ships=cmd.ships,
            left=cmd.left,
            captured=cmd.captured,
            captured_group=cap_group,
            defeated=tuple(defeated),
            formations=dict(b.formations),
            ordnance=dict(cmd.ordnance),
            bonus=bonus,
            witnesses=tuple(players),
            settle=settle,
        )
    )
    for d in cmd.left:
        if d.group in out.state.groups:
            depart(
                out,
                groups[d.group],
                d.group,
                d.to,
                "left the battle",
                under_fire=Formation(formation=d.formation, speed=d.speed),
            )
    record_intel(out, b.hex, tuple(players), composition=True)
    advance(out, dice)


def check_disengagement(st: State, cmd: ResolveDisengagement) -> tuple[Battle, Force]:
    """FTC-ARR-10, FTC-ARR-11: the battle and the departing force, or raises."""
    b = next((b for b in st.battles if b.id == cmd.battle), None)
    force = next((f for f in b.forces if cmd.group in f.groups), None) if b else None
    if b is None or force is None or cmd.group not in st.groups:
        raise RuleViolation("FTC-ARR-11", f"task group {cmd.group!r} is not fighting in {cmd.battle!r}")
    need = min(cmd.weapons_range_inches, 36)
    if cmd.distance_inches < need:
        raise RuleViolation("FTC-ARR-11", f'first get out of weapons range: {cmd.distance_inches}" < {need}"')
    if cmd.separation not in ("grows", "shrinks", "unclear"):
        raise RuleViolation("FTC-ARR-11", "separation grows, shrinks or is unclear")
    g = st.groups[cmd.group]
    if g.cloaked:
        raise RuleViolation("FTC-ARR-10", "cloaked ships cannot depart")
    if jump_error(st, b.hex, cmd.to, False) and jump_error(st, b.hex, cmd.to, True):
        raise RuleViolation(*jump_error(st, b.hex, cmd.to, False))  # type: ignore[misc]
    return b, force


def resolve_disengagement(out: Acc[State], cmd: ResolveDisengagement, actor: Actor, dice: Dice) -> None:
    st = out.state
    b, force = check_disengagement(st, cmd)
    g = st.groups[cmd.group]
    rolls: list[Roll] = []
    escaped = cmd.separation == "grows"
    if cmd.separation == "unclear":
        mine = min((st.ships[s].thrust for s in g.ships if s in st.ships), default=0)
        theirs = min(
            (st.ships[s].thrust for f in b.forces if f.player != force.player for s in f.ships if s in st.ships),
            default=0,
        )
        m1 = (Modifier("FTC-ARR-11", "poorest-accelerating ship has the higher thrust", 1),) if mine > theirs else ()
        m2 = (Modifier("FTC-ARR-11", "poorest-accelerating ship has the higher thrust", 1),) if theirs > mine else ()
        a = dice.roll(6, f"disengagement of {cmd.group}", "FTC-ARR-11", modifiers=m1)
        p = dice.roll(6, "pursuit", "FTC-ARR-11", modifiers=m2)
        escaped = a.value + len(m1) > p.value + len(m2)
        rolls = [replace(a, outcome="escapes" if escaped else "caught"), replace(p, outcome="pursuer")]
    witnesses = tuple(f.player for f in b.forces)
    out.add(
        E.DisengagementResolved(
            battle=b.id,
            player=force.player,
            group=cmd.group,
            escaped=escaped,
            to=cmd.to,
            separation=cmd.separation,
            witnesses=witnesses,
            rolls=tuple(rolls),
        )
    )
    if escaped:
        depart(out, force.player, cmd.group, cmd.to, "disengaged under fire", under_fire=b.formations.get(force.player))


# ---------------------------------------------------------------- intelligence and the end of the turn


def end_turn(out: Acc[State], dice: Dice) -> None:
    gather_all_intel(out)
    work_keels(out)
    st = out.state
    out.add(E.TurnEnded(turn=st.turn))
    if st.turn >= st.setup.last_turn:
        out.add(E.CampaignEnded(reason=f"turn {st.turn} was the campaign's last"))
        return
    out.add(E.TurnStarted(turn=st.turn + 1, economic_turn=(st.turn) // 6 + 1))
    if (out.state.turn - 1) % 6 == 0:
        for g in sorted(out.state.groups.values(), key=lambda g: g.id):  # FTC-DEF-7: not repaired in time
            if g.repulse is not None and g.repulse.due_et < out.state.economic_turn:
                allocate_repulse(out, g, dice)
        start_economic_turn(out)


def close_contacts(out: Acc[State], dice: Dice) -> None:
    """Umpire closes the turn during contacts: every open decision takes its default (FTC-R-6)."""
    st = out.state
    phase(st, "contacts")
    for b in st.battles:
        for f in b.forces:
            if f.player not in b.formations:
                out.add(
                    E.FormationDeclared(
                        battle=b.id,
                        player=f.player,
                        formation=DEFAULT_FORMATION,
                        witnesses=tuple(x.player for x in b.forces),
                    )
                )
    for s in list(out.state.steps):
        s = _find(out.state, s.id)
        for p in s.awaiting:
            if s.kind == "assault":
                hold_off(out, HoldOff(step=s.id), seat(p))
                break
            choice = {"engage": "stay", "standoff": "stand_off", "recon": "stand_off"}[s.kind]
            out.add(E.ChoiceMade(step=s.id, player=p, choice=choice, witnesses=s.players))
        if s.kind == "assault":
            continue
        s = _find(out.state, s.id)
        if s.kind == "engage":
            _resolve_engage(out, s, dice)
        else:
            _resolve_postures(out, s)
    advance(out, dice)
