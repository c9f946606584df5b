"""Generated GSC2 fleets for property tests: random but valid scenarios (test-only randomness)."""

from __future__ import annotations

import random
from typing import Any

from service.domain.gsc2.ships import ARCS, BEAM_CLASSES

COUNTS = (
    "shields",
    "deflectors",
    "mds",
    "repair",
    "scanners",
    "transporters",
    "assault_squads",
    "heavy_assault_squads",
)


def _ship(rng: random.Random, sid: str, side: str, table: tuple[float, float]) -> dict[str, Any]:
    counts = {k: rng.choice((0, 0, 1, 2, 3)) for k in COUNTS}
    beams = [
        {
            "id": f"b{i}",
            "class": rng.choice(BEAM_CLASSES),
            "weapons": rng.randint(1, 4),
            "damage": rng.randint(1, 4),
            "targeting": rng.randint(3, 8),
            "arc": rng.choice(sorted(ARCS)),
        }
        for i in range(rng.randint(0, 3))
    ]
    missiles = [
        {"id": f"m{i}", "missiles": rng.randint(1, 3), "damage": rng.randint(1, 3), "carried": rng.randint(0, 6)}
        for i in range(rng.randint(0, 2))
    ]
    systems = (
        [{"id": "tb", "kind": "tractor_beam", "targeting": rng.randint(3, 7), "range": rng.choice((6, 12))}]
        if rng.random() < 0.3
        else []
    )
    names = [
        "drive",
        *(k for k, n in counts.items() if n),
        *(b["id"] for b in beams),
        *(m["id"] for m in missiles),
        *(s["id"] for s in systems),
    ]
    chart = [[rng.choice(names) for _ in range(rng.randint(1, 3))] for _ in range(10)]
    return {
        "id": sid,
        "name": sid.capitalize(),
        "side": side,
        "size": rng.randint(1, 18),
        "hull": rng.randint(2, 20),
        "armor": rng.randint(0, 8),
        "speed": rng.choice((0, 3, 6, 8, 10, 12)),
        "turn_distance": rng.choice((0, 2, 4, 6)),
        "crew": rng.randint(0, 12),
        "x": round(rng.uniform(0, table[0]), 1),
        "y": round(rng.uniform(0, table[1]), 1),
        "heading": rng.choice(range(0, 360, 45)),
        "aspect": rng.randint(0, 2),
        "assault_pods": rng.choice((0, 0, 1, 2)),
        "beams": beams,
        "missiles": missiles,
        "systems": systems,
        "chart": chart,
        **counts,
    }


def fleet_scenario(seed: int, sides: tuple[str, ...] = ("red", "blue")) -> dict[str, Any]:
    """A random battle; ``sides`` of three or more exercise GSC2-R-21..24 (first letters must differ)."""
    rng = random.Random(seed)
    table = (rng.choice((24.0, 48.0, 72.0)), rng.choice((24.0, 48.0)))
    ships = [_ship(rng, f"{side[0]}{i}x", side, table) for side in sides for i in range(rng.randint(1, 4))]
    terrain = [
        {
            "id": f"t{i}x",
            "kind": rng.choice(("asteroid", "dust", "satellite", "mine")),
            "x": rng.uniform(0, table[0]),
            "y": rng.uniform(0, table[1]),
            "radius": rng.uniform(0.5, 4),
            "dx": rng.choice((0, 0, 1, -1)),
            "dy": rng.choice((0, 0.5, -0.5)),
        }
        for i in range(rng.randint(0, 3))
    ]
    return {
        "name": f"generated-{seed}",
        "sides": list(sides),
        "table": {"width": table[0], "height": table[1]},
        "turn_limit": rng.choice((None, 3, 6)),
        "ships": ships,
        "terrain": terrain,
    }
