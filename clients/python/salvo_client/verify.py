#!/usr/bin/env python3
"""Standalone verifier for Salvo battle files (GET /v1/games/{id}/export). Standard library only; the
signature check uses the `cryptography` package where it is installed (and says so when it is not).

    python clients/verify_dice.py game.salvo.jsonl [--keys keys.json | --server https://salvo.example]
                                  [--require-signature]

1. The hash chain (salvo-battle/2): digests[k] = sha256(digests[k-1] "\\n" line k), from
   sha256("salvo-battle/2"); the first line that breaks it is named.
2. The signature (Ed25519) over the header's canonical form and the chain head, with the keys in
   --keys (a saved GET /.well-known/salvo-keys) or fetched from --server. Without keys it is not checked.
3. The dice (docs/dice.md): every opened seed against its turn's commitment and Merkle root; every slot
   key a viewer was given against the root (with the reveal's proof); then every roll it can: slot r's face is the
   unbiased map of HMAC-SHA256(key_r, "game|turn|r|salt|counter") onto the die, key_r =
   HMAC-SHA256(seed, "salvo-slot|turn|r") (older games: HMAC-SHA256(seed, "game|base|i|salt|counter")).
A seat's export is that seat's redacted record: it verifies the rolls that seat saw, nothing more.
Prints OK (first line) or MISMATCH naming the line, seq or roll; exits non-zero on any mismatch.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import urllib.request
from typing import Any

FORMAT = "salvo-battle/2"
CHAIN_START = hashlib.sha256(FORMAT.encode()).hexdigest()


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


# --- the seal: hash chain and signature (mirrors service/events/sealing.py) -----------------------


def check_chain(header: dict[str, Any], raw_lines: list[bytes]) -> tuple[bool, str]:
    if header.get("format") != FORMAT:
        return True, f"chain: none ({header.get('format')} files are not chained)"
    digests = header.get("digests") or []
    if raw_lines and not digests:
        return False, "MISMATCH line 1: the header has no digests (salvo-battle/2 chains every line)"
    previous = CHAIN_START
    for index, line in enumerate(raw_lines):
        previous = hashlib.sha256(previous.encode() + b"\n" + line.strip()).hexdigest()
        if index >= len(digests) or digests[index] != previous:
            return False, (f"MISMATCH line {index + 2}: the hash chain breaks here (a line was edited, "
                           "removed, reordered or duplicated)")
    if len(digests) != len(raw_lines):
        return False, (f"MISMATCH line {len(raw_lines) + 2}: the header chains {len(digests)} lines, "
                       f"the file has {len(raw_lines)}")
    return True, f"chain: OK over {len(raw_lines)} lines"


def signed_message(header: dict[str, Any]) -> bytes:
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    digests = header.get("digests") or []
    head = digests[-1] if digests else CHAIN_START
    canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return FORMAT.encode() + b"\n" + canonical + b"\n" + str(head).encode()


def check_signature(header: dict[str, Any], keys: dict[str, str] | None) -> tuple[bool | None, str]:
    """(True: valid, False: invalid, None: not checked) and why."""
    signature = header.get("signature")
    if not signature:
        return None, "signature: none (the file is not signed)"
    if keys is None:
        return None, f"signature: not checked (give --keys or --server to check key {signature.get('key_id')})"
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return None, "signature: not checked (the cryptography package is not installed: pip install cryptography)"
    public = keys.get(str(signature.get("key_id")))
    if public is None:
        return False, f"MISMATCH signature: key {signature.get('key_id')} is not among the trusted keys"
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(signature["value"]), signed_message(header))
    except (ValueError, InvalidSignature):
        return False, f"MISMATCH signature: it does not verify with key {signature['key_id']} (the file was altered)"
    return True, f"signature: OK (Ed25519, key {signature['key_id']})"


def load_keys(keys_file: str | None, server: str | None) -> dict[str, str] | None:
    if keys_file:
        with open(keys_file, encoding="utf-8") as fh:
            data = json.load(fh)
    elif server:
        with urllib.request.urlopen(server.rstrip("/") + "/.well-known/salvo-keys", timeout=10) as response:
            data = json.load(response)
    else:
        return None
    return {k["key_id"]: k["public_key"] for k in data.get("keys", [])}


# --- the dice (mirrors service/domain/core/dice.py and merkle.py) --------------------------------------

TREE_SLOTS = 1024


def slot_key(seed: bytes, turn: int, slot: int) -> bytes:
    return hmac.new(seed, f"salvo-slot|{turn}|{slot}".encode(), hashlib.sha256).digest()


def merkle_root(seed: bytes, turn: int, slots: int) -> str:
    level = [hashlib.sha256(b"\x00" + slot_key(seed, turn, r)).digest() for r in range(slots)]
    while len(level) > 1:
        level = [hashlib.sha256(b"\x01" + level[k] + level[k + 1]).digest() for k in range(0, len(level), 2)]
    return level[0].hex()


def proof_root(keys: dict[int, bytes], proof: dict[str, str], slots: int) -> str | None:
    """The root that ``keys`` (slot -> key) and the reveal's ``proof`` ("level:index" -> hash) give."""
    level = {r: hashlib.sha256(b"\x00" + k).digest() for r, k in keys.items() if 0 <= r < slots}
    depth = 0
    while slots > 1 and level:
        parents: dict[int, bytes] = {}
        for index, value in level.items():
            sibling = level.get(index ^ 1)
            if sibling is None:
                given = proof.get(f"{depth}:{index ^ 1}")
                if given is None:
                    return None
                sibling = bytes.fromhex(given)
            pair = sibling + value if index & 1 else value + sibling
            parents[index // 2] = hashlib.sha256(b"\x01" + pair).digest()
        level, slots, depth = parents, slots // 2, depth + 1
    return level[0].hex() if 0 in level else None


class Dice:
    """Seeds and slot keys opened so far, each checked against its turn's commitment."""

    def __init__(self) -> None:
        self.commitments: dict[int, list[dict[str, Any]]] = {}
        self.seeds: dict[int, bytes] = {}
        self.keys: dict[tuple[int, int], bytes] = {}

    def read(self, env: dict[str, Any]) -> str | None:
        """Take what one envelope opens; a message when it does not match what was committed."""
        data = env["data"]
        if env["type"] == "dice.committed":
            self.commitments.setdefault(data["turn"], []).append(data)
        elif env["type"] in ("dice.revealed", "dice.disclosed"):
            # a hidden-information game withholds seeds ("") until it ends, then discloses them all
            opened = ({data["turn"]: data["seed"]} if env["type"] == "dice.revealed"
                      else {int(turn): seed for turn, seed in data["seeds"].items()})
            for turn, seed_hex in opened.items():
                if seed_hex:
                    problem = self._open_seed(turn, bytes.fromhex(seed_hex))
                    if problem:
                        return f"MISMATCH seq {env['seq']}: {problem}"
            if data.get("keys"):  # the slot keys of the rolls this viewer saw, and their Merkle proof
                keys = {k["slot"]: bytes.fromhex(k["key"]) for k in data["keys"]}
                committed = [c for c in self.commitments.get(data["turn"], []) if c.get("root")]
                if not any(proof_root(keys, data.get("proof", {}), c["slots"]) == c["root"] for c in committed):
                    return (f"MISMATCH seq {env['seq']}: the slot keys opened for turn {data['turn']} are not "
                            "under its committed Merkle root")
                self.keys.update({(data["turn"], slot): key for slot, key in keys.items()})
        return None

    def _open_seed(self, turn: int, seed: bytes) -> str | None:
        matching = [c for c in self.commitments.get(turn, []) if c["commitment"] == hashlib.sha256(seed).hexdigest()]
        if not matching:
            return f"the seed opened for turn {turn} is not the one committed"
        for c in matching:
            if c.get("root") and merkle_root(seed, turn, c["slots"]) != c["root"]:
                return f"the seed opened for turn {turn} does not give the committed Merkle root"
        self.seeds[turn] = seed
        return None

    def face(self, game_id: str, dice: dict[str, Any], roll: dict[str, Any]) -> tuple[int | None, str]:
        """(recomputed face or None when this viewer cannot yet, and by what: "seed" or "key")."""
        sides, i, turn = int(roll["die"].lstrip("d")), roll["i"], dice["turn"]
        salts = dice.get("salts") or []
        salt = salts[i] if i < len(salts) else dice.get("salt", "")
        slot = dice.get("slot")
        if slot is None:  # a game from before slots: by the seed and the base seq
            seed = self.seeds.get(turn)
            return (None, "") if seed is None else (derive_face(seed, game_id, dice["base"], i, sides, salt), "seed")
        seed = self.seeds.get(turn)
        key = slot_key(seed, turn, slot + i) if seed is not None else self.keys.get((turn, slot + i))
        if key is None:
            return None, ""
        return derive_face(key, game_id, turn, slot + i, sides, salt), "seed" if seed is not None else "key"


def verify(lines: list[dict[str, Any]]) -> tuple[bool, str]:
    header, events = lines[0], lines[1:]
    game_id = header["game_id"]
    dice = Dice()
    for env in events:
        problem = dice.read(env)
        if problem:
            return False, problem
    checked = pending = inherited = by_key = 0
    turns: set[int] = set()
    for env in events:
        material = env.get("dice")
        if not material or not env.get("rolls"):
            continue
        if material.get("origin") not in (None, game_id):
            inherited += len(env["rolls"])  # rolled in the origin game: verify them there
            continue
        for roll in env["rolls"]:
            face, how = dice.face(game_id, material, roll)
            if face is None:
                pending += 1
                continue
            if face != roll["value"]:
                return False, (f"MISMATCH seq {env['seq']} roll {roll['i']} ({roll['purpose']}, {roll['rule']}): "
                               f"recorded {roll['value']}, the revealed {how} gives {face}")
            checked += 1
            by_key += how == "key"
            turns.add(material["turn"])
    note = (f"OK {checked} rolls verified over {len(turns | set(dice.seeds))} revealed turns"
            f" ({pending} rolls await a reveal, {inherited} inherited from an origin game)")
    if by_key:
        note += f"\nslot keys: {by_key} of them by the slot keys and Merkle proofs given to this viewer"
    return True, note


def verify_file(raw: bytes, keys: dict[str, str] | None = None, require_signature: bool = False) -> tuple[bool, str]:
    """The whole check: chain, signature, dice. The first line of the message is OK or MISMATCH."""
    raw_lines = [ln for ln in raw.split(b"\n") if ln.strip()]
    lines = [json.loads(ln) for ln in raw_lines]
    header = lines[0]
    chained, chain_note = check_chain(header, raw_lines[1:])
    signed, signature_note = check_signature(header, keys)
    if signed is None and require_signature:
        signed, signature_note = False, "MISMATCH " + signature_note
    ok, dice_note = verify(lines)
    viewer = header.get("viewer", "umpire")
    # a wrong roll is named first (it settles a dispute), then a broken chain, then a bad signature
    notes = [dice_note, chain_note, signature_note]
    notes.sort(key=lambda note: not note.startswith("MISMATCH"))
    if viewer != "umpire":
        notes.append(f"record: {viewer}'s redacted export (it verifies what {viewer} saw, nothing more)")
    if header.get("unverified"):
        notes.append(f"provenance: UNVERIFIED origin ({header['unverified']})")
    return ok and chained and signed is not False, "\n".join(notes)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--keys", help="trusted keys: a saved GET /.well-known/salvo-keys answer")
    parser.add_argument("--server", help="fetch the trusted keys from this Salvo server")
    parser.add_argument("--require-signature", action="store_true", help="fail unless the signature checks")
    args = parser.parse_args(argv[1:])
    with open(args.file, "rb") as fh:
        raw = fh.read()
    ok, message = verify_file(raw, load_keys(args.keys, args.server), args.require_signature)
    print(message)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
