"""One hash of what seeded random play of every ruleset stores (events, seeds, idempotency records,
snapshots), answers and frames through GameService: compare two checkouts (a change that must keep the
stored bytes, the results and the frames identical gives the same hash).

    PYTHONHASHSEED=0 .venv/bin/python bench/store_fingerprint.py /tmp/base
    PYTHONHASHSEED=0 .venv/bin/python bench/store_fingerprint.py .

Ids and seeds come from a seeded ``secrets`` (tests.support.seeded), the recorded time from a counter;
seat tokens are not hashed (drawn from the real ``secrets``).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import sys
from typing import Any

SALVO = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
RULESETS = ["tiny", "gsc2", "asc", "starfinder", "ftcampaign"]
TABLES = ("_games", "_seeds", "_events", "_idempotency", "_snapshots")


async def play() -> str:
    import msgspec

    from service.domain.core import UMPIRE, RuleViolation, find_ruleset, register_ruleset, seat
    from service.events import creation, decide_append, ids
    from service.events.application import GameService
    from service.events.memory_store import MemoryEventStore
    from tests.support import tiny
    from tests.support.randomplay import choices_for
    from tests.support.seeded import SeededSecrets

    assert decide_append.__file__.startswith(SALVO), decide_append.__file__
    register_ruleset("tiny", tiny.RULESET)
    ids.secrets = SeededSecrets("fingerprint")  # type: ignore[assignment]
    clock = [0]

    def fixed_now() -> str:
        clock[0] += 1
        return f"2026-12-01T14:23:{clock[0] // 1000000 % 60:02d}.{clock[0] % 1000000:06d}Z"

    decide_append.now_iso = fixed_now  # type: ignore[assignment]
    if hasattr(creation, "now_iso"):
        creation.now_iso = fixed_now  # type: ignore[assignment]
    digest = hashlib.sha256()
    frames: list[bytes] = []

    async def publish(game_id: str, items: Any) -> None:
        frames.append(msgspec.json.encode([[s, per] for s, per in items]))

    store = MemoryEventStore()
    service = GameService(store, snapshot_every=7, publish=publish)
    played = {}
    for name in RULESETS:
        ruleset = find_ruleset(name)
        for scenario in list(ruleset.scenarios())[:2]:
            gid = (await service.create_game(name, scenario)).game_id
            rng = random.Random(name + scenario)
            n = 0
            for step in range(150):
                head = await service.head(gid)
                if ruleset.is_over(head.state):
                    break
                seats = ruleset.seats(head.setup)
                choices = [(seat(s), c) for s in seats for c, _ in choices_for(ruleset, head.state, seat(s), rng)]
                if not choices:
                    choices = [(UMPIRE, c) for c, _ in choices_for(ruleset, head.state, UMPIRE, rng)]
                if not choices:
                    break
                rng.shuffle(choices)
                for actor, command in choices[:10]:
                    body = msgspec.json.encode({"command": msgspec.to_builtins(command), "salt": f"s{step % 3}"})
                    key = f"k{step}" if step % 5 == 0 else None
                    try:
                        result = await service.handle_command(gid, actor, body, idempotency_key=key)
                    except RuleViolation as exc:
                        digest.update(exc.rule.encode())
                        continue
                    digest.update(result.body)
                    if key:  # the idempotent replay answers the same bytes
                        again = await service.handle_command(gid, actor, body, idempotency_key=key)
                        assert again.body == result.body
                    n += 1
                    break
            played[f"{name}/{scenario}"] = n
    for table in TABLES:
        data = getattr(store, table)
        digest.update(repr(sorted((repr(k), repr(v)) for k, v in data.items())).encode())
    for frame in frames:
        digest.update(frame)
    print(played, f"{len(frames)} publications")
    return digest.hexdigest()


def main() -> None:
    sys.path.insert(0, SALVO)
    os.environ.setdefault("SALVO_RULESETS", "tiny=tests.support.tiny:RULESET")
    print(asyncio.run(play()))


if __name__ == "__main__":
    main()
