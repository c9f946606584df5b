#!/usr/bin/env python3
"""Standalone dice verifier for Salvo battle files (GET /v1/games/{id}/export). Standard library only.

    python clients/verify_dice.py game.salvo.jsonl

For every revealed turn it checks sha256(seed) against the turn's public commitment, then recomputes each
roll of that turn: face = unbiased map of HMAC-SHA256(seed, "game|base|i|salt|counter") onto the die.
Prints OK, or the first roll that does not match, and exits non-zero on any mismatch.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from typing import Any


def derive_face(seed: bytes, game_id: str, base: int, i: int, sides: int, salt: str = "") -> int:
    limit = (1 << 32) - ((1 << 32) % sides)
    counter = 0
    while True:
        digest = hmac.new(seed, f"{game_id}|{base}|{i}|{salt}|{counter}".encode(), hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            word = int.from_bytes(digest[offset : offset + 4], "big")
            if word < limit:
                return word % sides + 1
        counter += 1


def verify(lines: list[dict[str, Any]]) -> tuple[bool, str]:
    header, events = lines[0], lines[1:]
    game_id = header["game_id"]
    commitments: dict[int, set[str]] = {}
    seeds: dict[int, bytes] = {}
    for env in events:
        if env["type"] == "dice.committed":
            commitments.setdefault(env["data"]["turn"], set()).add(env["data"]["commitment"])
        elif env["type"] in ("dice.revealed", "dice.disclosed"):
            # a hidden-information game withholds seeds ("") until it ends, then discloses them all
            opened = ({env["data"]["turn"]: env["data"]["seed"]} if env["type"] == "dice.revealed"
                      else {int(turn): seed for turn, seed in env["data"]["seeds"].items()})
            for turn, seed_hex in opened.items():
                if not seed_hex:
                    continue
                seed = bytes.fromhex(seed_hex)
                if hashlib.sha256(seed).hexdigest() not in commitments.get(turn, set()):
                    return False, f"MISMATCH seq {env['seq']}: the seed opened for turn {turn} is not the one committed"
                seeds[turn] = seed
    checked = pending = inherited = 0
    for env in events:
        dice = env.get("dice")
        if not dice or not env.get("rolls"):
            continue
        if dice.get("origin") not in (None, game_id):
            inherited += len(env["rolls"])  # rolled in the origin game: verify them there
            continue
        seed = seeds.get(dice["turn"])
        if seed is None:
            pending += len(env["rolls"])
            continue
        for roll in env["rolls"]:
            sides = int(roll["die"].lstrip("d"))
            face = derive_face(seed, game_id, dice["base"], roll["i"], sides, dice.get("salt", ""))
            if face != roll["value"]:
                return False, (f"MISMATCH seq {env['seq']} roll {roll['i']} ({roll['purpose']}, {roll['rule']}): "
                               f"recorded {roll['value']}, the revealed seed gives {face}")
            checked += 1
    return True, (f"OK {checked} rolls verified over {len(seeds)} revealed turns"
                  f" ({pending} rolls await a reveal, {inherited} inherited from an origin game)")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    ok, message = verify(lines)
    print(message)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
