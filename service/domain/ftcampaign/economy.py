"""Money: set-up spending, purchases, building, maintenance and the economic turn (FTC-ECO, FTC-BLD)."""

from __future__ import annotations

from service.domain.core import Actor, RuleViolation
from service.domain.core.acc import Acc

from . import events as E
from .commands import (
    ApproveStandardNavy,
    ApproveTechnology,
    BuyDefences,
    BuyModule,
    BuyShip,
    BuySpares,
    LayKeel,
    PlaceDummy,
    RebuildDefences,
    SetMaintenance,
)
from .common import econ, new_id, own_world, player_of
from .scenario import ModuleSpec
from .state import (
    SHIP_CAP,
    TURNS_PER_ECONOMIC_TURN,
    Design,
    HexT,
    Keel,
    Ship,
    ShipSystem,
    State,
    StoredModule,
    SystemKit,
    ceil_pct,
    design,
    is_capital_ship,
    player_spec,
)

NON_WEAPONS = {
    "drive",
    "ftl",
    "core",
    "cargo",
    "armour",
    "fire_control",
    "screen",
    "shield",
    "sensor",
    "cloak",
    "biomass",
    "generator",
}


def at_economic_turn_start(state: State) -> bool:
    return state.turn >= 1 and (state.turn - 1) % TURNS_PER_ECONOMIC_TURN == 0


def setup_open(state: State, player: str) -> None:
    """FTC-ECO-1: set-up spending ends when the player declares ready."""
    if state.phase == "deployment" and econ(state, player).ready:
        raise RuleViolation("FTC-ECO-1", "set-up spending is closed: you have declared ready")


def spend(state: State, player: str, cost: int) -> None:
    """FTC-ECO-2: loose cash from economic turn 2 on; no credit."""
    if cost > 0 and state.phase != "deployment" and state.economic_turn < 2:
        raise RuleViolation("FTC-ECO-2", "loose cash can be spent only from economic turn 2")
    if cost > econ(state, player).cash:
        raise RuleViolation("FTC-ECO-2", f"costs {cost} pts but only {econ(state, player).cash} are held; no credit")


def freighter_exempt(d: Design) -> bool:
    """FTC-BLD-3: a freighter armed with at most 1 PDS or class-1 beam per 10 hull boxes."""
    if not d.freighter:
        return False
    arms = [s for s in d.systems if s.kind not in NON_WEAPONS]
    light = [s for s in arms if s.kind == "pds" or (s.kind == "beam" and s.rating <= 1)]
    return len(light) == len(arms) and len(arms) <= d.hull // 10


def alien_surcharge(state: State, player: str, kits: tuple[SystemKit | ShipSystem, ...], base_species: str) -> int:
    """FTC-BLD-5: +20% to install anything not indigenous to the player's technology."""
    species = player_spec(state, player).species
    return sum(ceil_pct(k.cost, 200) for k in kits if (k.species or base_species) != species or not k.standard)


def price_of(state: State, player: str, d: Design) -> int:
    spec = player_spec(state, player)
    base = d.cost
    if spec.ally_navy and d.navy == spec.ally_navy and d.species == spec.species:
        base = d.cost - d.cost * 20 // 100  # FTC-BLD-2 ally discount
    return base + alien_surcharge(state, player, d.systems, d.species)


def check_design(state: State, player: str, d: Design | None, did: str, bought: bool) -> Design:
    if d is None:
        raise RuleViolation("FTC-BLD-2", f"there is no design {did!r}")
    if d.biomass_tanker:
        raise RuleViolation("FTC-BLD-6", "Savasku biomass tankers are forbidden")
    if bought and not d.published:
        raise RuleViolation("FTC-BLD-2", f"{d.name} is not a published design; build it instead")
    if not d.standard and d.id not in econ(state, player).approved:
        raise RuleViolation("FTC-BLD-4", f"{d.name} is non-standard and has no umpire approval")
    return d


def make_ship(sid: str, player: str, d: Design, design_mass: int | None = None) -> Ship:
    systems = tuple(
        ShipSystem(
            id=k.id,
            kind=k.kind,
            rating=k.rating,
            cost=k.cost,
            mass=k.mass,
            species=k.species or d.species,
            standard=k.standard and d.standard,
        )
        for k in d.systems
    )
    return Ship(
        id=sid,
        owner=player,
        design=d.id,
        name=d.name,
        size_class=d.size_class,
        species=d.species,
        mass=d.mass,
        design_mass=design_mass or d.mass,
        cost=d.cost,
        hull=d.hull,
        hull_rows=d.hull_rows,
        thrust=d.thrust,
        hull_box_cost=d.hull_box_cost,
        systems=systems,
        freighter=freighter_exempt(d),
        cloak=d.cloak,
    )


def check_buy_ship(state: State, player: str, cmd: BuyShip) -> tuple[Design, int, bool, str | None, HexT]:
    """FTC-BLD-2, FTC-ECO-1, FTC-ECO-2: (design, price, under the cap, group joined, hex); raises if refused."""
    setup_open(state, player)
    d = check_design(state, player, design(state, cmd.design), cmd.design, bought=True)
    w = own_world(state, player, cmd.world, "FTC-BLD-2")
    if state.phase == "orders":
        if state.economic_turn < 2:
            raise RuleViolation("FTC-ECO-2", "loose cash can be spent only from economic turn 2")
        if not at_economic_turn_start(state):
            raise RuleViolation("FTC-BLD-2", "ships are bought only at the start of an economic turn")
    price = price_of(state, player, d)
    capped = state.phase == "deployment" and not freighter_exempt(d)
    if capped and econ(state, player).ship_spending + price > SHIP_CAP:
        raise RuleViolation("FTC-ECO-1", f"at most {SHIP_CAP} of the starting capital may go to ships")
    spend(state, player, price)
    if cmd.group is not None:
        g = state.groups.get(cmd.group)
        if g is None or g.owner != player or g.hex != w.hex or g.dummy:
            raise RuleViolation("FTC-TG-1", f"task group {cmd.group!r} is not one of yours at {cmd.world}")
    return d, price, capped, cmd.group, w.hex


def buy_ship(out: Acc[State], cmd: BuyShip, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    d, price, capped, joins, at = check_buy_ship(state, player, cmd)
    group = joins or new_id(state, player, "g")
    ship = make_ship(new_id(state, player, "s"), player, d)
    out.add(E.ShipBought(player=player, ship=ship, group=group, hex=at, price=price, capped=capped))


def check_buy_module(state: State, player: str, cmd: BuyModule) -> tuple[ModuleSpec, bool]:
    """FTC-ECO-6: (module, under the cap); raises if refused."""
    setup_open(state, player)
    m = next((m for m in state.setup.modules if m.id == cmd.module), None)
    if m is None:
        raise RuleViolation("FTC-ECO-6", f"there is no module {cmd.module!r}")
    own_world(state, player, cmd.world, "FTC-ECO-6")
    if state.phase == "orders" and state.economic_turn >= 2 and not at_economic_turn_start(state):
        raise RuleViolation("FTC-BLD-2", "modules are ship construction: bought at the start of an economic turn")
    capped = state.phase == "deployment"
    if capped and econ(state, player).ship_spending + m.cost > SHIP_CAP:
        raise RuleViolation("FTC-ECO-6", "modular fits count as ships, inside the 4000 cap")
    spend(state, player, m.cost)
    return m, capped


def buy_module(out: Acc[State], cmd: BuyModule, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    m, capped = check_buy_module(state, player, cmd)
    stored = StoredModule(id=new_id(state, player, "m"), module=m.id, world=cmd.world)
    out.add(E.ModuleBought(player=player, stored=stored, price=m.cost, capped=capped))


def check_buy_spares(state: State, player: str, cmd: BuySpares) -> tuple[int, bool]:
    """FTC-ECO-1: (price, arrives next economic turn); raises if refused."""
    setup_open(state, player)
    own_world(state, player, cmd.world, "FTC-ECO-1")
    if cmd.value <= 0:
        raise RuleViolation("FTC-ECO-1", "buy a positive value of spares")
    e = econ(state, player)
    pending = state.phase != "deployment"
    if pending:
        cap = e.spares_cap.get(cmd.world, 0)
        have = e.spares.get(cmd.world, 0) + e.spares_pending.get(cmd.world, 0)
        if cap == 0:
            raise RuleViolation("FTC-ECO-1", f"spares replenish only at worlds named at the start, not {cmd.world}")
        if have + cmd.value > cap:
            raise RuleViolation("FTC-ECO-1", f"spares at {cmd.world} replenish only to the starting level {cap}")
    price = ceil_pct(cmd.value, 750)
    spend(state, player, price)
    return price, pending


def buy_spares(out: Acc[State], cmd: BuySpares, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    price, pending = check_buy_spares(state, player, cmd)
    out.add(E.SparesBought(player=player, world=cmd.world, value=cmd.value, price=price, pending=pending))


def check_buy_defences(state: State, player: str, cmd: BuyDefences) -> None:
    """FTC-ECO-1: defences are bought at set-up, a point each; raises if refused."""
    setup_open(state, player)
    own_world(state, player, cmd.world, "FTC-ECO-1")
    if cmd.points <= 0:
        raise RuleViolation("FTC-ECO-1", "buy a positive number of defence points")
    spend(state, player, cmd.points)


def buy_defences(out: Acc[State], cmd: BuyDefences, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    check_buy_defences(state, player, cmd)
    out.add(E.DefencesBought(player=player, world=cmd.world, points=cmd.points))


def dummies_allowed(state: State, player: str) -> int:
    capitals = sum(1 for s in state.ships.values() if s.owner == player and not s.hulk and is_capital_ship(s))
    dummies = sum(1 for g in state.groups.values() if g.owner == player and g.dummy)
    return capitals - dummies


def check_place_dummy(state: State, player: str, cmd: PlaceDummy) -> HexT:
    """FTC-TG-2: one dummy counter per capital unit; the hex it is placed at, or raises."""
    setup_open(state, player)
    w = own_world(state, player, cmd.world, "FTC-TG-2")
    if dummies_allowed(state, player) <= 0:
        raise RuleViolation("FTC-TG-2", "one dummy counter per capital unit (BB, SDN, CVA, CVH, CVL)")
    return w.hex


def place_dummy(out: Acc[State], cmd: PlaceDummy, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    at = check_place_dummy(state, player, cmd)
    out.add(E.DummyPlaced(player=player, group=new_id(state, player, "g"), hex=at))


def set_maintenance(out: Acc[State], cmd: SetMaintenance, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    if cmd.rate not in ("full", "reduced"):
        raise RuleViolation("FTC-ECO-5", "maintenance is 'full' or 'reduced' (5%)")
    out.add(E.MaintenanceSet(player=player, rate=cmd.rate))


def check_lay_keel(state: State, player: str, cmd: LayKeel) -> tuple[Design, int, int]:
    """FTC-BLD-1, FTC-REP-7, FTC-ECO-2: (design, design weight, cost); raises if refused."""
    d = check_design(state, player, design(state, cmd.design), cmd.design, bought=False)
    own_world(state, player, cmd.world, "FTC-BLD-1")
    mass = cmd.design_mass or d.mass
    if mass < d.mass:
        raise RuleViolation("FTC-REP-7", f"design weight {mass} is below the launch weight {d.mass}")
    if state.economic_turn < 2:
        raise RuleViolation("FTC-ECO-2", "loose cash can be spent only from economic turn 2")
    return d, mass, d.cost + alien_surcharge(state, player, d.systems, d.species)


def lay_keel(out: Acc[State], cmd: LayKeel, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    d, mass, cost = check_lay_keel(state, player, cmd)
    keel = Keel(id=new_id(state, player, "k"), design=d.id, world=cmd.world, design_mass=mass, cost=cost)
    out.add(E.KeelLaid(player=player, keel=keel))


def work_keels(out: Acc[State]) -> None:
    """FTC-BLD-1: 100 pts per week per keel, paid from cash; a finished keel launches a ship."""
    for player in out.state.order:
        e = econ(out.state, player)
        if not e.keels:
            continue
        cash, paid, progress, stalled, done = e.cash, 0, {}, [], []
        for k in e.keels:
            step = min(100, k.cost - k.progress)
            w = out.state.worlds.get(k.world)
            if step > cash or w is None or w.owner != player:
                stalled.append(k.id)
                continue
            cash -= step
            paid += step
            progress[k.id] = k.progress + step
            if progress[k.id] >= k.cost:
                done.append(k)
        out.add(E.KeelsWorked(player=player, progress=progress, paid=paid, stalled=tuple(stalled)))
        for k in done:
            d = design(out.state, k.design)
            if d is None:
                continue
            ship = make_ship(new_id(out.state, player, "s"), player, d, k.design_mass)
            w = out.state.worlds[k.world]
            out.add(
                E.ShipBought(
                    player=player,
                    ship=ship,
                    group=new_id(out.state, player, "g"),
                    hex=w.hex,
                    price=0,
                    capped=False,
                    launched=k.id,
                )
            )


def approve_technology(out: Acc[State], cmd: ApproveTechnology, actor: Actor) -> None:
    state = out.state
    if cmd.player not in state.economies or design(state, cmd.design) is None:
        raise RuleViolation("FTC-BLD-4", "unknown player or design")
    out.add(E.TechnologyApproved(player=cmd.player, design=cmd.design, note=cmd.note))


def standard_navy_ok(state: State, player: str) -> str | None:
    """FTC-ECO-4: one hull design per size class, at most five classes (the service's part of the claim)."""
    classes: dict[str, set[str]] = {}
    for s in state.ships.values():
        if s.owner == player and not s.hulk:
            d = design(state, s.design)
            classes.setdefault(s.size_class, set()).add((d.hull_design or d.id) if d else s.design)
    if any(len(v) > 1 for v in classes.values()):
        return "a size class has more than one design"
    if len(classes) > 5:
        return "more than five size classes"
    return None


def approve_standard_navy(out: Acc[State], cmd: ApproveStandardNavy, actor: Actor) -> None:
    if cmd.player not in out.state.economies:
        raise RuleViolation("FTC-ECO-4", f"unknown player {cmd.player!r}")
    why = standard_navy_ok(out.state, cmd.player)
    if why:
        raise RuleViolation("FTC-ECO-4", f"not a standardised navy: {why}")
    out.add(E.StandardNavyApproved(player=cmd.player, text=cmd.text))


def check_rebuild_defences(state: State, player: str, cmd: RebuildDefences) -> tuple[int, int]:
    """FTC-DEF-4: (IDP rebuilt, cost); raises if refused."""
    w = own_world(state, player, cmd.world, "FTC-DEF-4")
    pending = sum(r.idp for r in econ(state, player).rebuilds if r.world == cmd.world)
    lost = w.idp_full - w.idp - pending
    if lost <= 0 or not 1 <= cmd.thirds <= 3:
        raise RuleViolation("FTC-DEF-4", f"{cmd.world} has no lost defences to rebuild in {cmd.thirds} third(s)")
    idp = min(lost, cmd.thirds * max(1, w.idp_full // 3))
    cost = 5 * idp
    spend(state, player, cost)
    return idp, cost


def rebuild_defences(out: Acc[State], cmd: RebuildDefences, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    idp, cost = check_rebuild_defences(state, player, cmd)
    out.add(
        E.DefenceRebuildOrdered(
            player=player, world=cmd.world, idp=idp, cost=cost, due_et=state.economic_turn + cmd.thirds
        )
    )


def maintenance_due(state: State, player: str, per_mille: int) -> int:
    base = sum(s.cost + s.module_cost for s in state.ships.values() if s.owner == player and not s.hulk)
    return ceil_pct(base, per_mille) + ceil_pct(econ(state, player).ordnance, 500)


def start_economic_turn(out: Acc[State]) -> None:
    """FTC-TIME-2 income (not from interdicted worlds), FTC-ECO-3..5 maintenance, arrivals and rebuilds."""
    state = out.state
    et = state.economic_turn
    out.add(E.EconomicTurnStarted(economic_turn=et, turn=state.turn))
    for player in state.order:
        e = econ(out.state, player)
        owned = sorted(k for k, w in out.state.worlds.items() if w.owner == player)
        paying = tuple(k for k in owned if not out.state.worlds[k].interdicted)
        interdicted = tuple(k for k in owned if out.state.worlds[k].interdicted)
        income = sum(out.state.worlds[k].income or 0 for k in paying)
        cash = e.cash + income
        rate = "reduced" if e.maintenance == "reduced" else "full"
        per_mille = (
            50
            if rate == "reduced"
            else (75 if e.standard_navy and standard_navy_ok(out.state, player) is None else 100)
        )
        due = maintenance_due(out.state, player, per_mille)
        if due > cash and per_mille > 50:  # FTC-ECO-5 ruling: put on 5% automatically
            per_mille, rate = 50, "reduced (forced)"
            due = maintenance_due(out.state, player, per_mille)
        paid = min(due, cash)
        rebuilt: dict[str, int] = {}
        for r in e.rebuilds:
            if r.due_et <= et:
                rebuilt[r.world] = rebuilt.get(r.world, 0) + r.idp
        out.add(
            E.EconomyReport(
                player=player,
                economic_turn=et,
                income=income,
                interdicted=interdicted,
                maintenance=paid,
                rate=f"{rate} ({per_mille / 10:g}%)",
                penalty=per_mille == 50,
                ordnance=e.ordnance,
                cash=cash - paid,
                income_worlds=paying,
                spares_arrived=dict(e.spares_pending),
                rebuilt=rebuilt,
            )
        )


def first_economic_turn(out: Acc[State]) -> None:
    """Economic turn 1 is paid for by the starting capital (FTC-R-3): no income, no maintenance."""
    out.add(E.EconomicTurnStarted(economic_turn=1, turn=1))
    for player in out.state.order:
        e = econ(out.state, player)
        owned = tuple(sorted(k for k, w in out.state.worlds.items() if w.owner == player))
        out.add(
            E.EconomyReport(
                player=player,
                economic_turn=1,
                income=0,
                interdicted=(),
                maintenance=0,
                rate="paid by the starting capital",
                penalty=e.maintenance == "reduced",
                ordnance=0,
                cash=e.cash,
                income_worlds=owned,
            )
        )
