"""Repairs, refits, module swaps and captures (FTC-REP, FTC-CAP, FTC-ECO-6, FTC-BLD-5)."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Roll, RuleViolation
from service.domain.core.acc import Acc

from . import events as E
from .commands import InspectJuryRig, RebuildCapture, Refit, Repair, SellCapture, SwapModule
from .common import econ, group_of, intact_rows, own_ship, player_of
from .economy import spend
from .state import Group, Ship, ShipSystem, State, ceil_pct, family, key, player_spec

MAJOR_KINDS = {"wave_gun", "nova_cannon", "core", "ftl"}
RATED_KINDS = {"beam", "graser", "pulse_torpedo", "drive", "k_gun", "plasma", "stinger"}


def at_repair_world(state: State, player: str, g: Group | None) -> str:
    """FTC-REP-1: a world you drew income from this economic turn and still hold."""
    if g is None or g.hex is None:
        raise RuleViolation("FTC-REP-1", "repairs happen only at one of your income worlds")
    k = key(g.hex)
    w = state.worlds.get(k)
    if w is None or w.owner != player or k not in econ(state, player).income_worlds:
        raise RuleViolation(
            "FTC-REP-1", "repairs happen only at a world you drew income from this economic turn and still hold"
        )
    return k


def ready_ship(state: State, player: str, sid: str) -> tuple[Ship, Group, str]:
    ship = own_ship(state, player, sid)
    g = group_of(state, sid)
    world = at_repair_world(state, player, g)
    if ship.busy_until > state.turn:
        raise RuleViolation("FTC-REP-4", f"{sid} is already in dock until turn {ship.busy_until}")
    return ship, g, world  # type: ignore[return-value]


def alien(state: State, player: str, s: ShipSystem) -> bool:
    return s.species != player_spec(state, player).species or not s.standard


def is_major(s: ShipSystem) -> bool:
    """FTC-REP-4: weapons or drives rated above 3, wave guns, nova cannon, core systems, FTL, level-2 shields."""
    return s.kind in MAJOR_KINDS or (s.kind in RATED_KINDS and s.rating > 3) or (s.kind == "shield" and s.rating >= 2)


def system_cost(ship: Ship, s: ShipSystem) -> int:
    return ship.mass // 3 if s.kind == "core" else s.cost  # FTC-REP-4: core = a third of the keel cost


def check_repair(state: State, player: str, cmd: Repair) -> E.RepairOrdered:
    """FTC-REP-1..5, FTC-BLD-5: the repair as ordered (its cost and time), or raises."""
    ship, g, world = ready_ship(state, player, cmd.ship)
    systems = _repair_scope(ship, cmd)
    cost, spares_used, donor_systems = _parts(state, player, ship, g, world, cmd, systems)
    if cmd.source in ("new", "identical", "other"):
        cost += _alien_surcharge(state, player, ship, world, systems)
    per_box = 2 if ship.species == "savasku" else ship.hull_box_cost  # FTC-REP-5
    cost += cmd.hull * per_box + cmd.biomass
    cost, weeks = _repair_time(cmd, systems, cost)
    spend(state, player, cost)
    return E.RepairOrdered(
        player=player,
        ship=ship.id,
        systems=cmd.systems,
        hull=cmd.hull,
        biomass=cmd.biomass,
        source=cmd.source,
        donor=cmd.donor if donor_systems else None,
        cost=cost,
        until=state.turn + weeks,
        spares_used=spares_used,
        world=world,
        donor_systems=tuple(donor_systems),
    )


def _repair_scope(ship: Ship, cmd: Repair) -> list[ShipSystem]:
    """FTC-CAP-2, FTC-REP-2/5: the damaged systems, hull boxes and biomass the order names are the ship's to repair."""
    if ship.hulk:
        raise RuleViolation("FTC-CAP-2", "a captured hulk is rebuilt, not repaired")
    by_id = {s.id: s for s in ship.systems}
    if len(set(cmd.systems)) != len(cmd.systems) or any(
        sid not in by_id or not by_id[sid].damaged for sid in cmd.systems
    ):
        raise RuleViolation("FTC-REP-2", "repair only damaged systems of the ship")
    if cmd.hull < 0 or cmd.hull > ship.hull_lost or cmd.biomass < 0:
        raise RuleViolation("FTC-REP-2", f"{ship.id} has {ship.hull_lost} hull boxes to repair")
    if cmd.biomass and (ship.species != "savasku" or cmd.biomass > ship.biomass_expended):
        raise RuleViolation("FTC-REP-5", "only expended Savasku biomass is replaced (1 pt per box)")
    if not (cmd.systems or cmd.hull or cmd.biomass):
        raise RuleViolation("FTC-REP-2", "nothing to repair")
    return [by_id[s] for s in cmd.systems]


def _parts(
    state: State, player: str, ship: Ship, g: Group, world: str, cmd: Repair, systems: list[ShipSystem]
) -> tuple[int, int, list[str]]:
    """FTC-REP-2: where the parts come from; returns (cost, spares used, donor systems)."""
    base = sum(system_cost(ship, s) for s in systems)
    if cmd.source == "spares":  # FTC-REP-2: pre-positioned parts are free
        have = econ(state, player).spares.get(world, 0)
        if have < base:
            raise RuleViolation("FTC-REP-2", f"only {have} pts of spares are stocked at {world}")
        return 0, base, []
    if cmd.source in ("identical", "other"):
        donor_systems = _donor_parts(state, player, ship, g, cmd, systems)
        return ceil_pct(base, 100 if cmd.source == "identical" else 200), 0, donor_systems
    if cmd.source == "new":
        return base, 0, []
    raise RuleViolation("FTC-REP-2", "source is new, spares, identical or other")


def _donor_parts(state: State, player: str, ship: Ship, g: Group, cmd: Repair, systems: list[ShipSystem]) -> list[str]:
    """FTC-REP-2: parts cannibalised from another ship here of the same species, one identical part per system."""
    donor = own_ship(state, player, cmd.donor or "")
    dg = group_of(state, donor.id)
    if donor.id == ship.id or dg is None or dg.hex is None or tuple(dg.hex) != tuple(g.hex):  # type: ignore[arg-type]
        raise RuleViolation("FTC-REP-2", "the donor must be another ship here")
    if cmd.source == "identical" and (donor.design != ship.design or dg.id != g.id):
        raise RuleViolation("FTC-REP-2", "10% parts come from an identical ship in the same task group")
    if donor.species != ship.species:
        raise RuleViolation("FTC-REP-2", "parts are never moved across species")
    pool = [d for d in donor.systems if not d.damaged]
    donor_systems: list[str] = []
    for s in systems:
        part = next((d for d in pool if d.kind == s.kind and d.rating == s.rating and d.id not in donor_systems), None)
        if part is None:
            raise RuleViolation("FTC-REP-2", f"the donor has no functionally identical part for {s.id}")
        donor_systems.append(part.id)
    return donor_systems


def _alien_surcharge(state: State, player: str, ship: Ship, world: str, systems: list[ShipSystem]) -> int:
    """FTC-BLD-5: non-indigenous or non-standard systems are repaired only at the capital, at double cost."""
    extra = 0
    for s in systems:
        if alien(state, player, s):
            if econ(state, player).capital != world:
                raise RuleViolation(
                    "FTC-BLD-5",
                    f"{s.id} is non-indigenous or non-standard: repaired only at "
                    "the capital or from pre-positioned stocks",
                )
            extra += ceil_pct(system_cost(ship, s), 200)
    return extra


def _repair_time(cmd: Repair, systems: list[ShipSystem], cost: int) -> tuple[int, int]:
    """FTC-REP-4: a major repair takes two weeks, or one at double cost when rushed; returns (cost, weeks)."""
    major = any(is_major(s) for s in systems) or sum(1 for s in systems if s.kind == "hangar") > 1
    if cmd.rush:
        if not major:
            raise RuleViolation("FTC-REP-4", "only a major repair can be sped up")
        return 2 * cost, 1
    return cost, 2 if major else 1


def repair(out: Acc[State], cmd: Repair, actor: Actor) -> None:
    out.add(check_repair(out.state, player_of(out.state, actor), cmd))


def inspect_jury_rig(out: Acc[State], cmd: InspectJuryRig, actor: Actor, dice: Dice) -> None:
    state = out.state
    player = player_of(state, actor)
    ship, rigged = check_inspect(state, player, cmd)
    passed: list[str] = []
    failed: list[str] = []
    rolls: list[Roll] = []
    for s in rigged:
        r = dice.roll(6, f"refit inspection of {ship.id}/{s.id}", "FTC-REP-3", target=3)
        ok = r.value <= 3
        rolls.append(replace(r, outcome="passes" if ok else "must be replaced"))
        (passed if ok else failed).append(s.id)
    out.add(
        E.JuryRigInspected(player=player, ship=ship.id, passed=tuple(passed), failed=tuple(failed), rolls=tuple(rolls))
    )


def check_inspect(state: State, player: str, cmd: InspectJuryRig) -> tuple[Ship, list[ShipSystem]]:
    """FTC-REP-3: the ship and its jury-rigged systems, or raises (before any die)."""
    ship, _g, _w = ready_ship(state, player, cmd.ship)
    rigged = [s for s in ship.systems if s.jury]
    if not rigged:
        raise RuleViolation("FTC-REP-3", f"{ship.id} has no jury-rigged systems")
    return ship, rigged


def check_refit(state: State, player: str, cmd: Refit) -> E.Refitted:
    """FTC-REP-6, FTC-BLD-3, FTC-BLD-5: the refit as ordered, or raises."""
    ship, _g, world = ready_ship(state, player, cmd.ship)
    if ship.hulk:
        raise RuleViolation("FTC-CAP-2", "rebuild a captured hulk before refitting it")
    old = next((s for s in ship.systems if s.id == cmd.remove), None)
    if old is None:
        raise RuleViolation("FTC-REP-6", f"hull boxes are similar to nothing; {cmd.remove!r} is not a system of it")
    new = cmd.install
    mass_after = ship.mass - old.mass + new.mass
    if mass_after > ship.design_mass:
        raise RuleViolation("FTC-REP-6", f"a refit never exceeds the design weight {ship.design_mass}")
    same = family(old.kind) == family(new.kind) and old.mass == new.mass
    hangar_out = old.kind == "hangar" and new.kind != "hangar"
    cost = new.cost if (same or hangar_out) else ceil_pct(new.cost, 1200)
    if old.kind == "cargo":  # FTC-BLD-3: converting cargo space costs +20%
        cost += ceil_pct(new.cost, 200)
    installed = ShipSystem(
        id=new.id or old.id,
        kind=new.kind,
        rating=new.rating,
        cost=new.cost,
        mass=new.mass,
        species=new.species or ship.species,
        standard=new.standard,
    )
    if alien(state, player, installed):  # FTC-BLD-5
        if econ(state, player).capital != world:
            raise RuleViolation("FTC-BLD-5", "non-indigenous systems are installed only at the capital")
        cost += ceil_pct(new.cost, 200)
    spend(state, player, cost)
    weeks = 2 if is_major(installed) else 1
    return E.Refitted(
        player=player,
        ship=ship.id,
        removed=old.id,
        installed=installed,
        cost=cost,
        until=state.turn + weeks,
        mass_after=mass_after,
    )


def refit(out: Acc[State], cmd: Refit, actor: Actor) -> None:
    out.add(check_refit(out.state, player_of(out.state, actor), cmd))


def check_swap(state: State, player: str, cmd: SwapModule) -> E.ModuleSwapped:
    """FTC-ECO-6: the module swap, or raises."""
    ship = own_ship(state, player, cmd.ship)
    g = group_of(state, ship.id)
    stored = next((m for m in econ(state, player).modules if m.id == cmd.module), None)
    spec = next((m for m in state.setup.modules if stored and m.id == stored.module), None)
    d = next((d for d in state.setup.designs if d.id == ship.design), None)
    if stored is None or spec is None or d is None or not d.modular or spec.hull_design != (d.hull_design or d.id):
        raise RuleViolation("FTC-ECO-6", "that module is not stored for this modular hull")
    if g is None or g.hex is None or key(g.hex) != stored.world:
        raise RuleViolation("FTC-ECO-6", f"modules are swapped where they are stored ({stored.world})")
    if ship.busy_until > state.turn:
        raise RuleViolation("FTC-ECO-6", "one module at a time: the ship is busy")
    return E.ModuleSwapped(
        player=player,
        ship=ship.id,
        module=stored.id,
        removed=ship.module,
        world=stored.world,
        until=state.turn + 1,
        module_cost=spec.cost,
    )


def swap_module(out: Acc[State], cmd: SwapModule, actor: Actor) -> None:
    out.add(check_swap(out.state, player_of(out.state, actor), cmd))


def majors_working(ship: Ship) -> int:
    """Three core systems, main drive and FTL (FTC-CAP-2); unlisted ones count as working."""
    cores = [s for s in ship.systems if s.kind == "core"]
    working = 3 - sum(1 for s in cores if s.damaged)
    for kind in ("drive", "ftl"):
        listed = [s for s in ship.systems if s.kind == kind]
        working += 0 if listed and all(s.damaged for s in listed) else 1
    return working


def check_rebuild_capture(state: State, player: str, cmd: RebuildCapture) -> E.CaptureRebuilt:
    """FTC-CAP-2: the rebuild of a captured hulk, or raises."""
    ship, _g, _world = ready_ship(state, player, cmd.ship)
    if not ship.hulk:
        raise RuleViolation("FTC-CAP-2", f"{ship.id} is not a captured hulk")
    if intact_rows(ship) < 2 or majors_working(ship) < 3:
        raise RuleViolation("FTC-CAP-2", "rebuilding needs ≥ 2 intact hull rows and ≥ 3 of the 5 major systems")
    cost = sum(system_cost(ship, s) for s in ship.systems if s.damaged) + ship.hull_lost * ship.hull_box_cost
    in_service = any(s.design == ship.design and not s.hulk for s in state.ships.values() if s.owner == player)
    if not in_service:
        cost = ceil_pct(cost, 1200)
    spend(state, player, cost)
    return E.CaptureRebuilt(player=player, ship=ship.id, cost=cost, until=state.turn + 2)


def rebuild_capture(out: Acc[State], cmd: RebuildCapture, actor: Actor) -> None:
    out.add(check_rebuild_capture(out.state, player_of(out.state, actor), cmd))


def check_sell_capture(state: State, player: str, cmd: SellCapture) -> E.CaptureSold:
    """FTC-CAP-3: the scrap sale of a captured hulk, or raises."""
    ship = own_ship(state, player, cmd.ship)
    if not ship.hulk:
        raise RuleViolation("FTC-CAP-3", f"only a captured hulk is sold for scrap; {ship.id} is in service")
    price = ceil_pct(ship.cost, 100) * intact_rows(ship)
    return E.CaptureSold(player=player, ship=ship.id, price=price)


def sell_capture(out: Acc[State], cmd: SellCapture, actor: Actor) -> None:
    out.add(check_sell_capture(out.state, player_of(out.state, actor), cmd))
