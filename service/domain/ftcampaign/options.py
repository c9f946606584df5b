"""What a viewer may do now: labelled options and the sealed-orders form (docs/view-contract.md).

The strategic orders are a ``Form``: one entry per task group (destination among the hexes one move
reaches, and arrival posture), composed by the page and submitted once — never every combination of
several groups' moves. Other commands are ``Option``s with words for labels. Built only from what the
viewer may know; free-text and open-ended commands are offered as one representative each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Command, RuleViolation, Viewer
from service.domain.core.choices import Field, Form, Option, PieceChoices, Value

from . import commands as C
from . import contacts, defences, economy, movement, repairs
from .common import econ, hulkless
from .decide import PATHS
from .economy import standard_navy_ok
from .movement import can_move, neighbours, reachable
from .starmap import unowned
from .state import POSTURES, Battle, Force, Group, HexT, State, SystemKit, ceil_pct, key
from .umpire import close_error
from .view import group_label
from .visibility import known_owner

POSTURE_LABELS = {"stand_off": "stand off", "attack": "attack", "withdraw": "withdraw if contested"}


Check = Callable[[State, str, Any], object]

# The rule modules' own checks (the ones their handlers run before any event or die), per command type.
# A command type not listed is offered only where it is legal by construction (its step is waiting, …).
CHECKS: dict[type[Command], Check] = {
    C.BuyShip: economy.check_buy_ship,
    C.BuyModule: economy.check_buy_module,
    C.BuySpares: economy.check_buy_spares,
    C.BuyDefences: economy.check_buy_defences,
    C.PlaceDummy: economy.check_place_dummy,
    C.LayKeel: economy.check_lay_keel,
    C.RebuildDefences: economy.check_rebuild_defences,
    C.CloseRoute: movement.check_close_route,
    C.Scout: movement.check_scout,
    C.SetCloak: movement.check_cloak,
    C.SplitGroup: movement.check_split,
    C.MergeGroups: movement.check_merge,
    C.RepairRepulse: defences.check_repair_repulse,
    C.AssaultDefences: defences.check_assault,
    C.Repair: repairs.check_repair,
    C.InspectJuryRig: repairs.check_inspect,
    C.Refit: repairs.check_refit,
    C.SwapModule: repairs.check_swap,
    C.RebuildCapture: repairs.check_rebuild_capture,
    C.SellCapture: repairs.check_sell_capture,
    C.RecordBattle: lambda st, _who, cmd: contacts.check_record_battle(st, cmd),
    C.ResolveDisengagement: lambda st, _who, cmd: contacts.check_disengagement(st, cmd),
}


def _legal(state: State, who: str, cands: list[Option]) -> list[Option]:
    """The candidates their path's phase and their rule's check accept (``who``: the player, or "" for the
    umpire)."""
    ok = []
    for o in cands:
        path = PATHS.get(type(o.command))
        if path is not None and path.phases and state.phase not in path.phases:
            continue
        check = CHECKS.get(type(o.command))
        if check is not None:
            try:
                check(state, who, o.command)
            except RuleViolation:
                continue
        ok.append(o)
    return ok


def place(state: State, h: HexT | list[int], obs: str | None) -> str:
    """A hex in words, as ``obs`` may know it."""
    k = key(h)
    if k not in state.worlds:
        return f"{k} empty"
    owner = known_owner(state, k, obs)
    return f"{k} {'yours' if owner == obs and obs else owner if owner else 'neutral'}"


# ---------------------------------------------------------------- the sealed-orders form (FTC-MOV-1)


def _destination_field(state: State, g: Group, obs: str) -> Field:
    assert g.hex is not None
    values = [Value(value=list(g.hex), label="hold", piece=key(g.hex))]
    if can_move(state, g) is None:
        for to, route in reachable(state, g.hex):
            values.append(
                Value(value=list(to), label=place(state, to, obs) + (" by route" if route else ""), piece=key(to))
            )
    return Field(key="to", label="to", kind="choice", values=tuple(values), default=list(g.hex))


POSTURE_FIELD = Field(
    key="posture",
    label="posture",
    kind="choice",
    default="stand_off",
    values=tuple(Value(value=p, label=p.replace("_", " ")) for p in POSTURES),
)


def orders_form(state: State, player: str) -> Form | None:
    if state.phase != "orders" or player in state.orders:
        return None
    pieces = []
    fields: dict[tuple[HexT, bool], Field] = {}  # groups in one place share their choices
    for g in sorted(state.groups.values(), key=lambda g: g.id):
        if g.owner != player or g.hex is None:
            continue  # a group in FTL has no order to give: its departure is its move (FTC-ARR-10)
        where = (tuple(g.hex), can_move(state, g) is None)
        if where not in fields:
            fields[where] = _destination_field(state, g, player)  # type: ignore[index]
        pieces.append(PieceChoices(piece=g.id, label=group_label(state, g), fields=(fields[where], POSTURE_FIELD)))  # type: ignore[index]
    return Form(
        command="ftcampaign.submit_orders",
        label=f"Sealed orders for turn {state.turn}",
        pieces=tuple(pieces),
        list_key="orders",
        piece_key="group",
        optional_pieces=True,
        group="orders",
        rule="FTC-MOV-1",
    )


# ---------------------------------------------------------------- options


def _opt(
    cmd: Command, label: str, group: str, rule: str, piece: str | None = None, target: str | None = None
) -> Option:
    return Option(command=cmd, label=label, group=group, rule=rule, piece=piece, target=target)


def _economy(state: State, player: str) -> list[Option]:  # noqa: C901 - one block per kind of purchase
    e = econ(state, player)
    mine = sorted(k for k, w in state.worlds.items() if w.owner == player)
    home = e.capital if e.capital in mine else (mine[0] if mine else None)
    other = "reduced" if e.maintenance == "full" else "full"
    out = [_opt(C.SetMaintenance(rate=other), f"Set maintenance to {other}", "economy", "FTC-ECO-5")]
    if home:
        # new ships join the first task group at home (split them off later), so groups do not multiply
        joins = next(
            (
                g
                for g in sorted(state.groups.values(), key=lambda g: g.id)
                if g.owner == player and g.hex is not None and key(g.hex) == home and not g.dummy
            ),
            None,
        )
        into = f", joining {joins.id}" if joins else ""
        # each purchase's label carries its price, as the rules charge it (discounts and surcharges in)
        for d in state.setup.designs:
            out.append(
                _opt(
                    C.BuyShip(design=d.id, world=home, group=joins.id if joins else None),
                    f"Buy a {d.name} ({d.size_class}) at {home}{into}: {economy.price_of(state, player, d)} pts",
                    "build",
                    "FTC-BLD-2",
                    target=home,
                )
            )
        out += [
            _opt(
                C.BuySpares(world=home, value=100),
                f"Buy 100 pts of spares at {home}: {ceil_pct(100, 750)} pts",
                "build",
                "FTC-ECO-1",
                target=home,
            ),
            _opt(C.PlaceDummy(world=home), f"Place a dummy counter at {home}", "build", "FTC-TG-2", target=home),
        ]
        out += [
            _opt(
                C.BuyModule(module=m.id, world=home),
                f"Buy module {m.name} at {home}: {m.cost} pts",
                "build",
                "FTC-ECO-6",
                target=home,
            )
            for m in state.setup.modules
        ]
    for w in mine[:3]:
        out.append(
            _opt(
                C.BuyDefences(world=w, points=10),
                f"Add 10 IDP of defences at {w}: 10 pts",
                "build",
                "FTC-ECO-1",
                target=w,
            )
        )
    if state.phase != "orders":
        return out
    if home:
        out += [
            _opt(
                C.LayKeel(design=d.id, world=home),
                f"Lay a keel for a {d.name} at {home}",
                "build",
                "FTC-BLD-1",
                target=home,
            )
            for d in state.setup.designs[:3]
        ]
        closed = state.worlds[home].closed
        out.append(
            _opt(
                C.CloseRoute(world=home, closed=not closed),
                f"{'Open' if closed else 'Close'} the charted route at {home}",
                "economy",
                "FTC-MOV-3",
                target=home,
            )
        )
    out += [
        _opt(
            C.RebuildDefences(world=w, thirds=1),
            f"Rebuild a third of the defences at {w}",
            "build",
            "FTC-DEF-4",
            target=w,
        )
        for w in mine
        if state.worlds[w].idp < state.worlds[w].idp_full
    ]
    out += _group_options(state, player)
    return out


def _group_options(state: State, player: str) -> list[Option]:
    out: list[Option] = []
    groups = sorted((g for g in state.groups.values() if g.owner == player), key=lambda g: g.id)
    for i, g in enumerate(groups):
        gid = g.id
        out += [
            _opt(
                C.Scout(group=gid),
                f"Scout the world at {key(g.hex or (0, 0))} with {gid}",
                "group",
                "FTC-WLD-5",
                piece=gid,
            ),
            _opt(C.RepairRepulse(group=gid), f"Repair {gid}'s repulse damage", "repair", "FTC-DEF-7", piece=gid),
            _opt(
                C.SetCloak(group=gid, on=not g.cloaked),
                f"Cloak {gid}" if not g.cloaked else f"Uncloak {gid}",
                "group",
                "FTC-MOV-6",
                piece=gid,
            ),
        ]
        if len(g.ships) > 1:
            out.append(
                _opt(
                    C.SplitGroup(group=gid, ships=g.ships[:1]),
                    f"Split {g.ships[0]} off {gid}",
                    "group",
                    "FTC-TG-1",
                    piece=gid,
                )
            )
        # one merge per place (the first two groups there), not every pair: repeated merges gather them all
        first = next((o for o in groups if o.hex == g.hex and not o.dummy), None)
        partner = next((o for o in groups[i + 1 :] if o.hex == g.hex and not o.dummy), None)
        if first is g and partner is not None:
            out.append(
                _opt(
                    C.MergeGroups(into=gid, other=partner.id),
                    f"Merge {partner.id} into {gid}",
                    "group",
                    "FTC-TG-1",
                    piece=gid,
                    target=partner.id,
                )
            )
        for sid in g.ships:
            out += _ship_options(state, player, g, sid)
    return out


def _ship_options(state: State, player: str, g: Group, sid: str) -> list[Option]:
    ship = state.ships[sid]
    out = []
    broken = tuple(s.id for s in ship.systems if s.damaged)
    if broken or ship.hull_lost:
        what = f"{broken[0]}" if broken else f"{min(ship.hull_lost, 2)} hull"
        out += [
            _opt(
                C.Repair(ship=sid, systems=broken[:1], hull=min(ship.hull_lost, 2)),
                f"Repair {sid}: {what} with new parts",
                "repair",
                "FTC-REP-2",
                piece=g.id,
            ),
            _opt(
                C.Repair(ship=sid, systems=broken[:1], source="spares"),
                f"Repair {sid} from stocked spares",
                "repair",
                "FTC-REP-2",
                piece=g.id,
            ),
        ]
        donor = next((d for d in hulkless(state, g) if d != sid), None)
        if donor is not None:
            out.append(
                _opt(
                    C.Repair(ship=sid, systems=broken[:1], source="identical", donor=donor),
                    f"Repair {sid} with parts from {donor}",
                    "repair",
                    "FTC-REP-2",
                    piece=g.id,
                )
            )
    if any(s.jury for s in ship.systems):
        out.append(
            _opt(C.InspectJuryRig(ship=sid), f"Inspect {sid}'s jury-rigged systems", "repair", "FTC-REP-3", piece=g.id)
        )
    if ship.hulk:
        out += [
            _opt(C.RebuildCapture(ship=sid), f"Rebuild captured {sid}", "repair", "FTC-CAP-2", piece=g.id),
            _opt(C.SellCapture(ship=sid), f"Sell captured {sid} for scrap", "repair", "FTC-CAP-3", piece=g.id),
        ]
    elif ship.systems:
        s0 = ship.systems[0]
        kit = SystemKit(id=s0.id, kind=s0.kind, rating=s0.rating, cost=s0.cost, mass=s0.mass)
        out.append(
            _opt(
                C.Refit(ship=sid, remove=s0.id, install=kit),
                f"Refit {sid}: a new {s0.kind} for {s0.id}",
                "repair",
                "FTC-REP-6",
                piece=g.id,
            )
        )
    out += [
        _opt(C.SwapModule(ship=sid, module=m.id), f"Fit module {m.module} to {sid}", "repair", "FTC-ECO-6", piece=g.id)
        for m in econ(state, player).modules
    ]
    return out


def _contacts(state: State, player: str) -> list[Option]:
    out: list[Option] = []
    for s in state.steps:
        if player not in s.awaiting:
            continue
        at = key(s.hex)
        if s.kind == "engage":
            out.append(
                _opt(C.Engage(step=s.id, stay=True), f"Stay and fight at {at}", "contact", "FTC-ARR-6", target=at)
            )
            gs = [g for g in state.groups.values() if g.owner == player and g.hex == s.hex and not g.dummy]
            back = next((g.origin for g in gs if g.origin is not None and g.origin != s.hex), None)
            to = back or neighbours(s.hex)[0]
            if _departs(state, s.hex, player, to):
                out.append(
                    _opt(
                        C.Engage(step=s.id, stay=False, to=to),
                        f"Disengage from {at} towards {key(to)}",
                        "contact",
                        "FTC-ARR-10",
                        target=at,
                    )
                )
        elif s.kind == "standoff":
            out += [
                _opt(
                    C.ChoosePosture(step=s.id, posture=p),
                    f"At {at}: {POSTURE_LABELS[p]}",
                    "contact",
                    "FTC-ARR-5",
                    target=at,
                )
                for p in POSTURES
            ]
        elif s.kind == "recon":
            out += [
                _opt(
                    C.Recon(step=s.id, choice=c),
                    f"After recon at {at}: {POSTURE_LABELS[c]}",
                    "contact",
                    "FTC-ARR-4",
                    target=at,
                )
                for c in POSTURES
            ]
        elif s.kind == "assault":
            ships = tuple(
                sid
                for g in state.groups.values()
                if g.owner == player and g.hex == s.hex and g.posture == "attack" and not g.dummy
                for sid in hulkless(state, g)
            )
            out += [
                _opt(
                    C.AssaultDefences(step=s.id, ships=ships),
                    f"Assault the defences at {at}",
                    "contact",
                    "FTC-DEF-1",
                    target=at,
                ),
                _opt(C.HoldOff(step=s.id), f"Hold off at {at}", "contact", "FTC-DEF-1", target=at),
            ]
    for b in state.battles:
        if player in [f.player for f in b.forces] and player not in b.formations:
            out.append(
                _opt(
                    C.DeclareFormation(battle=b.id, formation="line", speed=4),
                    f"Battle {b.id}: line formation, speed 4",
                    "contact",
                    "FTC-ARR-12",
                )
            )
    return out


def _battle_results(state: State) -> list[Option]:
    out: list[Option] = []
    for b in state.battles:
        if len(b.formations) < len(b.forces) or b.tactical_game_id is not None:
            continue  # a linked battle's result comes from its tactical game (FTC-R-LNK), not a hand entry
        out.append(
            _opt(
                C.RecordBattle(battle=b.id, tactical_game_id=None),
                f"Battle {b.id}: no victor, no losses",
                "umpire",
                "FTC-ARR-8",
            )
        )
        for f in b.forces:
            out += _victories(state, b, f)
        out += _disengagements(state, b)
    return out


def _victories(state: State, b: Battle, f: Force) -> list[Option]:
    """FTC-ARR-8, FTC-CAP-1: ``f`` wins by destroying, capturing or driving off the others (and, once per battle,
    the draw)."""
    rule = "FTC-ARR-8"
    others = [o for o in b.forces if o.player != f.player]
    lost = tuple(s for o in others for s in o.ships if s in state.ships)
    left = [
        C.Departure(group=gid, to=g.origin or neighbours(b.hex)[0])
        for o in others
        for gid in o.groups
        if (g := state.groups.get(gid)) is not None
    ]
    out = [
        _opt(
            C.RecordBattle(
                battle=b.id, victor=f.player, ships=tuple(C.ShipResult(ship=s, destroyed=True) for s in lost)
            ),
            f"Battle {b.id}: {f.player} wins, destroying every enemy ship",
            "umpire",
            rule,
        ),
        _opt(
            C.RecordBattle(battle=b.id, victor=f.player, captured=lost),
            f"Battle {b.id}: {f.player} wins and captures the enemy ships",
            "umpire",
            "FTC-CAP-1",
        ),
        _opt(
            C.RecordBattle(battle=b.id, victor=f.player, left=tuple(left), tactical_game_id="g_linked"),
            f"Battle {b.id}: {f.player} wins; the others leave (linked game)",
            "umpire",
            rule,
        ),
    ]
    if f is b.forces[0]:  # one draw per battle, not one per force
        out.append(_draw(state, b, f, lost))
    return out


def _draw(state: State, b: Battle, f: Force, lost: tuple[str, ...]) -> Option:
    """FTC-ARR-8: a draw with a hull box and a system lost on a ship of each side."""
    dmg = []
    for s in f.ships[:1] + lost[:1]:
        ship = state.ships.get(s)
        if ship is not None and ship.systems:
            dmg.append(
                C.ShipResult(
                    ship=s,
                    hull_lost=1,
                    damaged=(ship.systems[0].id,),
                    jury_rigged=tuple(x.id for x in ship.systems[1:2]),
                )
            )
    return _opt(
        C.RecordBattle(battle=b.id, ships=tuple(dmg), ordnance={f.player: 10}),
        f"Battle {b.id}: a draw with damage on both sides",
        "umpire",
        "FTC-ARR-8",
    )


def _disengagements(state: State, b: Battle) -> list[Option]:
    """FTC-ARR-11: each group in the battle may try to disengage towards where it came from."""
    out: list[Option] = []
    for f in b.forces:
        for gid in f.groups:
            g = state.groups.get(gid)
            if g is not None:
                to = g.origin or neighbours(b.hex)[0]
                out.append(
                    _opt(
                        C.ResolveDisengagement(
                            battle=b.id,
                            group=gid,
                            to=to,
                            distance_inches=36,
                            weapons_range_inches=36,
                            separation="unclear",
                        ),
                        f"Battle {b.id}: {gid} tries to disengage to {key(to)}",
                        "umpire",
                        "FTC-ARR-11",
                    )
                )
    return out


def _umpire(state: State) -> list[Option]:
    """The umpire's duties first (the map, battle results), then its other powers."""
    cands: list[Option] = []
    if state.phase == "map":
        cands.append(_opt(C.GenerateMap(), "Generate the star map", "umpire", "FTC-MAP-1"))
    cands += _battle_results(state)
    if close_error(state) is None:
        waiting = [p for p in state.order if p not in state.orders] if state.phase == "orders" else []
        label = f"Close turn {state.turn}: " + (
            f"{', '.join(waiting)} hold" if waiting else "open decisions take their defaults"
        )
        cands.append(_opt(C.CloseTurn(), label, "umpire", "FTC-MOV-1"))
    if state.phase in ("map", "homeworlds", "expansion", "deployment"):
        cands += [
            _opt(C.ApproveTechnology(player=p, design=d.id), f"Approve {d.name} for {p}", "umpire", "FTC-BLD-4")
            for p in state.order
            for d in state.setup.designs
            if not d.standard and d.id not in econ(state, p).approved
        ]
    if state.phase in ("deployment", "orders"):
        cands += [
            _opt(C.ApproveStandardNavy(player=p), f"Approve {p}'s standardised navy", "umpire", "FTC-ECO-4")
            for p in state.order
            if not econ(state, p).standard_navy and standard_navy_ok(state, p) is None
        ]
    return cands + [
        _opt(C.EndCampaign(reason="umpire's decision"), "End the campaign now", "umpire", "FTC-TIME-1"),
        _opt(C.RecordRuling(text="The umpire rules as written."), "Record a ruling", "umpire", "FTC-UMP-1"),
    ]


def _departs(state: State, h: HexT, player: str, to: HexT) -> bool:
    try:
        contacts.check_departure(state, h, player, to)
    except RuleViolation:
        return False
    return True


def options(state: State, viewer: Viewer) -> list[Option]:
    if viewer.kind == "spectator" or state.over:
        return []
    if viewer.is_umpire:
        return _legal(state, "", _umpire(state))
    player = viewer.seat or ""
    if player not in state.economies:
        return []
    cands: list[Option] = []
    if state.phase == "homeworlds" and state.current == player and unowned(state):
        cands = [_opt(C.ClaimHomeworld(), "Dice for your starting world", "setup", "FTC-WLD-1")]
    elif state.phase == "expansion" and state.current == player:
        cands = [
            _opt(C.Expand(world=k), f"Claim a world next to {k}", "setup", "FTC-WLD-2", target=k)
            for k, w in sorted(state.worlds.items())
            if w.owner == player
        ]
    elif state.phase == "deployment":
        ready = (
            []
            if econ(state, player).ready
            else [_opt(C.Ready(), "Finish set-up spending (ready)", "phase", "FTC-ECO-1")]
        )
        cands = [*ready, *_economy(state, player)]
    elif state.phase == "orders":
        hold = (
            []
            if player in state.orders
            else [_opt(C.SubmitOrders(orders=()), "Seal orders: every group holds", "orders", "FTC-MOV-1")]
        )
        cands = [*hold, *_economy(state, player)]
    elif state.phase == "contacts":
        cands = _contacts(state, player)
    return _legal(state, player, cands)


def forms(state: State, viewer: Viewer) -> list[Form]:
    if viewer.kind != "seat" or state.over or (viewer.seat or "") not in state.economies:
        return []
    form = orders_form(state, viewer.seat or "")
    return [form] if form is not None and form.pieces else []
