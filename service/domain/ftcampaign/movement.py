"""Strategic movement: sealed orders, jumps, charted routes, task groups (FTC-MOV, FTC-TG)."""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from msgspec.structs import replace

from service.domain.core import Actor, Dice, RuleViolation
from service.domain.core.acc import Acc

from . import events as E
from .commands import CloseRoute, MergeGroups, Scout, SetCloak, SplitGroup, SubmitOrders
from .common import (
    dist,
    gather_all_intel,
    hexside_from,
    hulkless,
    is_lone_scout,
    new_id,
    on_map,
    own_group,
    own_world,
    player_of,
)
from .state import POSTURES, Formation, Group, HexT, Order, State, key


def route_graph(state: State) -> dict[HexT, list[HexT]]:
    return _graph(state.routes)


@lru_cache(maxsize=64)
def _graph(routes: tuple[tuple[HexT, HexT], ...]) -> dict[HexT, list[HexT]]:
    """The charted routes as adjacency lists (fixed once the map is diced, so computed once per map)."""
    graph: dict[HexT, list[HexT]] = {}
    for a, b in routes:
        a, b = (a[0], a[1]), (b[0], b[1])
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, []).append(a)
    return {k: sorted(v) for k, v in graph.items()}


def route_path(state: State, frm: HexT, to: HexT) -> list[HexT] | None:
    graph = route_graph(state)
    frm, to = (frm[0], frm[1]), (to[0], to[1])
    if frm not in graph or to not in graph:
        return None
    prev: dict[HexT, HexT | None] = {frm: None}
    queue = deque([frm])
    while queue:
        h = queue.popleft()
        if h == to:
            break
        for n in graph[h]:
            if n not in prev:
                prev[n] = h
                queue.append(n)
    if to not in prev:
        return None
    path = [to]
    while prev[path[-1]] is not None:
        path.append(prev[path[-1]])  # type: ignore[arg-type]
    return path[::-1]


def jump_error(state: State, frm: HexT, to: HexT, route: bool) -> tuple[str, str] | None:
    """Why a one-week move from ``frm`` to ``to`` is illegal, or None (FTC-MAP-1, FTC-MOV-2, FTC-MOV-3)."""
    if not on_map(state, to):
        return "FTC-MAP-1", f"{key(to)} is off the map"
    if route:
        if route_path(state, frm, to) is None or tuple(frm) == tuple(to):
            return "FTC-MOV-3", f"{key(frm)} and {key(to)} are not on one charted route"
        return None
    d = dist(frm, to)
    if d <= 1:
        return None
    if d == 2 and key(frm) in state.worlds and key(to) in state.worlds:
        between = [h for h in _neighbours(frm) if dist(h, to) == 1]
        if any(key(h) not in state.worlds for h in between):
            return None
        return "FTC-MOV-2", "a two-hex jump needs an empty hex between the two worlds"
    return "FTC-MOV-2", "one jump is one hex, or two hexes between worlds across an empty hex"


def neighbours(h: HexT) -> list[HexT]:
    return [(h[0] + dq, h[1] + dr) for dq, dr in ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))]


_neighbours = neighbours


def by_route(state: State, frm: HexT, to: HexT, route: bool | None) -> bool:
    """Whether an order moves by charted route. ``None`` (ruling FTC-R-20): by the route when a plain jump
    cannot reach the destination, or when the route links the two hexes directly (it cannot be blocked and
    gives the FTC-MOV-5 initiative bonus); otherwise a plain jump."""
    if route is not None:
        return route
    if tuple(frm) == tuple(to):
        return False
    path = route_path(state, frm, to)
    if path is None:
        return False
    return len(path) == 2 or jump_error(state, frm, to, False) is not None


def plain_reach(state: State, h: HexT) -> list[HexT]:
    """Hexes one plain jump from ``h`` reaches (FTC-MOV-2)."""
    near = [n for n in neighbours(h) if on_map(state, n)]
    if key(h) in state.worlds:
        near += sorted(w.hex for w in state.worlds.values() if dist(h, w.hex) == 2)
    return [n for n in near if jump_error(state, h, n, False) is None]


def route_reach(state: State, h: HexT) -> list[HexT]:
    """Hexes a charted route from ``h`` reaches in one move (FTC-MOV-3)."""
    graph = route_graph(state)
    start = (h[0], h[1])
    if start not in graph:
        return []
    seen, queue = {start}, deque([start])
    while queue:  # one search for the whole connected network
        for n in graph[queue.popleft()]:
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return sorted(seen - {start})


def reachable(state: State, h: HexT) -> list[tuple[HexT, bool]]:
    """Every destination of one strategic move from ``h`` and whether it goes by charted route (auto)."""
    found = {n: by_route(state, h, n, None) for n in plain_reach(state, h)}
    for n in route_reach(state, h):
        found[n] = by_route(state, h, n, None)
    return sorted(found.items())


def can_move(state: State, g: Group) -> tuple[str, str] | None:
    if g.hex is None:
        return "FTC-ARR-10", "the group is in FTL: its departure replaces this move (FTC-MOV-4)"
    if g.cloaked:
        return "FTC-MOV-6", "a cloaked fleet cannot jump"
    if any(state.ships[s].hulk for s in g.ships if s in state.ships):
        return "FTC-CAP-2", "a captured hulk cannot jump until it is rebuilt"
    if any(state.ships[s].busy_until > state.turn for s in g.ships if s in state.ships):
        return "FTC-REP-4", "a ship of the group is in dock"
    return None


def submit_orders(out: Acc[State], cmd: SubmitOrders, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    if player in state.orders:
        raise RuleViolation("FTC-MOV-1", "orders for this strategic turn are already sealed")
    seen: set[str] = set()
    resolved: list[Order] = []
    for o in cmd.orders:
        g = own_group(state, player, o.group)
        if o.group in seen:
            raise RuleViolation("FTC-MOV-1", f"task group {o.group!r} has two orders")
        seen.add(o.group)
        if o.posture not in POSTURES:
            raise RuleViolation("FTC-ARR-1", f"posture is one of {', '.join(POSTURES)}")
        problem = can_move(state, g)
        if problem and not (g.hex is not None and tuple(o.to) == tuple(g.hex) and problem[0] != "FTC-ARR-10"):
            raise RuleViolation(*problem)
        assert g.hex is not None  # can_move refuses a group in FTL
        route = by_route(state, g.hex, o.to, o.route)
        err = jump_error(state, g.hex, o.to, route)
        if err:
            raise RuleViolation(*err)
        resolved.append(replace(o, route=route))
    out.add(E.OrdersSubmitted(player=player, orders=tuple(resolved)))


def departure(state: State, frm: HexT, toward: HexT) -> tuple[HexT, bool]:
    """Where a departing group goes and whether by charted route (ruling FTC-R-22): a departure takes the
    place of the next normal move, so it reaches only what one move reaches — the hex it came from by a plain
    jump if one gets there (FTC-MOV-2), else back along the charted route it came by (FTC-MOV-3, blockages
    applying); failing both, the reachable hex nearest to it."""
    if jump_error(state, frm, toward, False) is None:
        return (toward[0], toward[1]), False
    if jump_error(state, frm, toward, True) is None:
        return (toward[0], toward[1]), True
    near = plain_reach(state, frm) or [(frm[0], frm[1])]
    return min(near, key=lambda h: (dist(h, toward), h)), False


def depart(
    out: Acc[State], player: str, gid: str, toward: HexT, reason: str, under_fire: Formation | None = None
) -> None:
    """FTC-ARR-10: the group enters FTL at once, its destination written now (within one move, FTC-R-22)."""
    g = out.state.groups[gid]
    frm = g.hex if g.hex is not None else toward
    to, route = departure(out.state, frm, toward)
    out.add(E.Departed(player=player, group=gid, to=to, reason=reason, under_fire=under_fire, route=route))


def along_route(state: State, player: str, frm: HexT, to: HexT) -> tuple[HexT, HexT, bool]:
    """(final hex, hex it entered from, stopped short) along a charted route (FTC-MOV-3)."""
    path = route_path(state, frm, to)
    assert path is not None
    for i, h in enumerate(path[1:-1], start=1):
        w = state.worlds.get(key(h))
        if w is not None and (w.interdicted or (w.closed and w.owner != player)):
            friendly = [j for j in range(1, i) if (fw := state.worlds.get(key(path[j]))) and fw.owner == player]
            stop = path[friendly[-1]] if friendly else path[0]
            idx = path.index(stop)
            return stop, path[idx - 1] if idx > 0 else path[0], True
    return path[-1], path[-2], False


def resolve_orders(out: Acc[State], dice: Dice, missing: tuple[str, ...] = ()) -> None:
    """All orders are in (or the umpire closed the turn): reveal and move simultaneously (FTC-MOV-1, -4)."""
    state = out.state
    out.add(E.OrdersRevealed(turn=state.turn, missing=missing))
    orders = {o.group: o for os in state.orders.values() for o in os}
    interdicted = [k for k, w in state.worlds.items() if w.interdicted]
    for gid in sorted(state.groups):
        g = state.groups[gid]
        if g.hex is None and g.ftl_to is not None:  # a departure replaces this move (FTC-ARR-10, FTC-R-22)
            frm = g.ftl_from or g.ftl_to
            to, via, short = along_route(state, g.owner, frm, g.ftl_to) if g.ftl_route else (g.ftl_to, frm, False)
            side = hexside_from(to, via) if tuple(via) != tuple(to) else None
            out.add(
                E.GroupMoved(
                    player=g.owner,
                    group=gid,
                    frm=frm,
                    to=to,
                    posture="stand_off",
                    route=g.ftl_route,
                    entry_side=side,
                    stopped_short=short,
                    under_fire=g.under_fire,
                )
            )
            continue
        o = orders.get(gid)
        if o is None or g.hex is None:
            continue
        if tuple(o.to) == tuple(g.hex):
            out.add(E.GroupMoved(player=g.owner, group=gid, frm=g.hex, to=g.hex, posture=o.posture))
            continue
        if o.route:
            to, via, short = along_route(state, g.owner, g.hex, o.to)
        else:
            to, via, short = tuple(o.to), tuple(g.hex), False  # type: ignore[assignment]
            if dist(g.hex, o.to) == 2:
                via = next(h for h in _neighbours(g.hex) if dist(h, o.to) == 1 and key(h) not in state.worlds)
        side = hexside_from(to, via) if tuple(to) != tuple(via) else None
        out.add(
            E.GroupMoved(
                player=g.owner,
                group=gid,
                frm=g.hex,
                to=to,
                posture=o.posture,
                route=bool(o.route),
                entry_side=side,
                stopped_short=short,
            )
        )
    for k in interdicted:  # interdiction lasts until the next movement (FTC-R-5)
        w = out.state.worlds[k]
        witnesses = {w.owner} | {g.owner for g in out.state.groups.values() if g.hex and key(g.hex) == k}
        out.add(E.InterdictionLifted(world=k, witnesses=tuple(p for p in out.state.order if p in witnesses)))
    gather_all_intel(out)  # FTC-TG-3: what each player's forces see on arrival


def check_split(state: State, player: str, cmd: SplitGroup) -> Group:
    """FTC-TG-1, FTC-TG-2: the group split, or raises."""
    g = own_group(state, player, cmd.group)
    if g.hex is None:
        raise RuleViolation("FTC-MOV-4", "a group in FTL cannot be reorganised")
    if not cmd.ships or len(set(cmd.ships)) != len(cmd.ships):
        raise RuleViolation("FTC-TG-2", "every counter that is not a dummy holds at least one ship")
    if any(s not in g.ships for s in cmd.ships):
        raise RuleViolation("FTC-TG-1", "those ships are not all in the group")
    if len(cmd.ships) == len(g.ships):
        raise RuleViolation("FTC-TG-2", "the group would be left empty; every counter holds at least one ship")
    return g


def split_group(out: Acc[State], cmd: SplitGroup, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    g = check_split(state, player, cmd)
    out.add(E.GroupSplit(player=player, group=g.id, new_group=new_id(state, player, "g"), ships=cmd.ships))


def check_merge(state: State, player: str, cmd: MergeGroups) -> Group:
    """FTC-TG-1, FTC-MOV-4, FTC-MOV-6: the group merged into, or raises."""
    a, b = own_group(state, player, cmd.into), own_group(state, player, cmd.other)
    if a.id == b.id or a.dummy or b.dummy:
        raise RuleViolation("FTC-TG-1", "merge two different task groups of ships")
    if a.hex is None or b.hex is None:
        raise RuleViolation("FTC-MOV-4", "fleets in FTL are inaccessible")
    if tuple(a.hex) != tuple(b.hex):
        raise RuleViolation("FTC-TG-1", "groups reorganise only in the same place")
    if a.cloaked != b.cloaked:
        raise RuleViolation("FTC-MOV-6", "cloak both groups or neither before merging")
    return a


def merge_groups(out: Acc[State], cmd: MergeGroups, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    a = check_merge(state, player, cmd)
    out.add(E.GroupsMerged(player=player, into=a.id, other=cmd.other))


def check_cloak(state: State, player: str, cmd: SetCloak) -> Group:
    """FTC-MOV-6: the group cloaked or uncloaked, or raises."""
    g = own_group(state, player, cmd.group)
    if g.hex is None:
        raise RuleViolation("FTC-MOV-6", "cloak and FTL are never on together")
    if cmd.on and (g.dummy or not all(state.ships[s].cloak for s in g.ships)):
        raise RuleViolation("FTC-MOV-6", "every ship of the group needs a cloaking field")
    if player in state.orders:
        raise RuleViolation("FTC-MOV-1", "orders are sealed for this turn")
    return g


def set_cloak(out: Acc[State], cmd: SetCloak, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    g = check_cloak(state, player, cmd)
    out.add(E.CloakSet(player=player, group=g.id, on=cmd.on))


def check_close_route(state: State, player: str, cmd: CloseRoute) -> None:
    """FTC-MOV-3: an owner may close the charted route at its world; raises if refused."""
    w = own_world(state, player, cmd.world, "FTC-MOV-3")
    if tuple(w.hex) not in route_graph(state):
        raise RuleViolation("FTC-MOV-3", f"{cmd.world} is not on a charted route")


def close_route(out: Acc[State], cmd: CloseRoute, actor: Actor) -> None:
    state = out.state
    player = player_of(state, actor)
    check_close_route(state, player, cmd)
    out.add(E.RouteClosed(player=player, world=cmd.world, closed=cmd.closed))


def scout(out: Acc[State], cmd: Scout, actor: Actor, dice: Dice) -> None:
    """FTC-WLD-5: a single light element reports a neutral world's worth to all, without risk."""
    from .defences import roll_neutral

    state = out.state
    player = player_of(state, actor)
    roll_neutral(out, check_scout(state, player, cmd), player, dice)


def check_scout(state: State, player: str, cmd: Scout) -> str:
    """FTC-WLD-5: the world a lone light element scouts, or raises."""
    g = own_group(state, player, cmd.group)
    w = state.worlds.get(key(g.hex)) if g.hex else None
    if w is None or w.owner is not None or w.income is not None:
        raise RuleViolation("FTC-WLD-5", "only an unscouted neutral world can be scouted")
    if g.dummy or not is_lone_scout(state, hulkless(state, g)):
        raise RuleViolation("FTC-WLD-5", "only a single light element scouts without risk")
    return key(w.hex)
