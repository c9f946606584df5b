"""The battle-file verifier (GET /v1/games/{id}/export): standard library only, so it also runs as the
single file behind clients/verify_dice.py; the signature check uses the `cryptography` package (a dependency
of salvo-client; the standalone script says so when it is missing).

`salvo verify FILE [--url BASE | --key KEY]` runs ``check_battle`` and holds a file only when every check does:

1. chain: the hash chain (salvo-battle/2): digests[k] = sha256(digests[k-1] "\\n" line k), from
   sha256("salvo-battle/2"); the first line that breaks it is named.
2. signature: Ed25519 over the header's canonical form and the chain head, with trusted keys (a saved or
   fetched GET /.well-known/salvo-keys, or a bare public key).
3. record: events dense from seq 1, all of the header's game, as many as the header counts, game.created first.
4. dice (docs/dice.md): every opened seed against its turn's commitment and Merkle root; every slot key a viewer
   was given against the root (with the reveal's proof); then every roll it can: slot r's face is the unbiased
   map of HMAC-SHA256(key_r, "game|turn|r|salt|counter") onto the die, key_r = HMAC-SHA256(seed,
   "salvo-slot|turn|r") (older games: HMAC-SHA256(seed, "game|base|i|salt|counter")).
A seat's export is that seat's redacted record: it verifies the rolls that seat saw, nothing more. What needs
the rules themselves (actors, event versions, the fold's state hash) is covered by the signature: a server
signs only what it checked.

``verify_file`` (the standalone script's check) prints OK (first line) or MISMATCH naming the line, seq or
roll; the signature is checked there only when keys are given.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import urllib.request
from dataclasses import dataclass
from typing import Any

FORMAT = "salvo-battle/2"
CHAIN_START = hashlib.sha256(FORMAT.encode()).hexdigest()


class NotABattleFile(ValueError):
    """The file is no battle file at all (not JSON lines, or no header): nothing to verify."""


def read_battle(raw: bytes) -> tuple[list[bytes], list[dict[str, Any]]]:
    """The file's non-empty lines as written, and decoded; NotABattleFile when it is none."""
    raw_lines = [ln for ln in raw.split(b"\n") if ln.strip()]
    if not raw_lines:
        raise NotABattleFile("the file is empty")
    lines: list[dict[str, Any]] = []
    for number, line in enumerate(raw_lines, start=1):
        try:
            value = json.loads(line)
        except ValueError:
            raise NotABattleFile(f"line {number} is not JSON (a battle file is JSON lines)") from None
        if not isinstance(value, dict):
            raise NotABattleFile(f"line {number} is not a JSON object")
        lines.append(value)
    header = lines[0]
    if not isinstance(header.get("format"), str) or not str(header["format"]).startswith("salvo-battle/"):
        raise NotABattleFile("line 1 is not a battle file header (no salvo-battle format)")
    if not isinstance(header.get("game_id"), str):
        raise NotABattleFile("line 1 is not a battle file header (no game_id)")
    for number, env in enumerate(lines[1:], start=2):
        if not {"seq", "type", "data"} <= env.keys() or not isinstance(env["data"], dict):
            raise NotABattleFile(f"line {number} is not an event (seq, type and data are missing)")
    return raw_lines, lines


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
            return False, (
                f"MISMATCH line {index + 2}: the hash chain breaks here (a line was edited, "
                "removed, reordered or duplicated)"
            )
    if len(digests) != len(raw_lines):
        return False, (
            f"MISMATCH line {len(raw_lines) + 2}: the header chains {len(digests)} lines, the file has {len(raw_lines)}"
        )
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
    if not isinstance(signature, dict) or not isinstance(signature.get("value"), str):
        return False, "MISMATCH signature: the header's signature is not {alg, key_id, value}"
    if keys is None:
        return None, f"signature: not checked (give --keys or --server to check key {signature.get('key_id')})"
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:
        return None, "signature: not checked (the cryptography package is not installed: pip install cryptography)"
    public = keys.get(str(signature.get("key_id")), keys.get(ANY_KEY_ID))
    if public is None:
        return False, f"MISMATCH signature: key {signature.get('key_id')} is not among the trusted keys"
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(signature["value"]), signed_message(header)
        )
    except (ValueError, InvalidSignature):
        return False, f"MISMATCH signature: it does not verify with key {signature['key_id']} (the file was altered)"
    return True, f"signature: OK (Ed25519, key {signature['key_id']})"


ANY_KEY_ID = "*"  # a bare public key given by hand: trusted whatever key id the file names


def published_keys(data: Any) -> dict[str, str]:
    """key id -> public key (hex) from a GET /.well-known/salvo-keys answer; ValueError when it is none."""
    try:
        return {str(k["key_id"]): str(k["public_key"]) for k in data["keys"]}
    except (KeyError, TypeError):
        raise ValueError('not a salvo-keys document ({"keys": [{"key_id", "public_key"}...]})') from None


def fetch_keys(server: str, timeout: float = 10) -> dict[str, str]:
    with urllib.request.urlopen(server.rstrip("/") + "/.well-known/salvo-keys", timeout=timeout) as response:
        return published_keys(json.load(response))


def load_keys(keys_file: str | None, server: str | None) -> dict[str, str] | None:
    if keys_file:
        with open(keys_file, encoding="utf-8") as fh:
            return published_keys(json.load(fh))
    if server:
        return fetch_keys(server)
    return None


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
            opened = (
                {data["turn"]: data["seed"]}
                if env["type"] == "dice.revealed"
                else {int(turn): seed for turn, seed in data["seeds"].items()}
            )
            for turn, seed_hex in opened.items():
                if seed_hex:
                    problem = self._open_seed(turn, bytes.fromhex(seed_hex))
                    if problem:
                        return f"MISMATCH seq {env['seq']}: {problem}"
            if data.get("keys"):  # the slot keys of the rolls this viewer saw, and their Merkle proof
                keys = {k["slot"]: bytes.fromhex(k["key"]) for k in data["keys"]}
                committed = [c for c in self.commitments.get(data["turn"], []) if c.get("root")]
                # a turn's tree may be extended (a later commitment, twice the leaves, the first tree its
                # left half): every key under every root that covers it, so a key of the turn's first tree
                # is checked against the root committed before the turn's first command
                covering = [c for c in committed if any(r < c["slots"] for r in keys)]
                if (
                    not covering
                    or any(r >= max(c["slots"] for c in committed) for r in keys)
                    or any(proof_root(keys, data.get("proof", {}), c["slots"]) != c["root"] for c in covering)
                ):
                    return (
                        f"MISMATCH seq {env['seq']}: the slot keys opened for turn {data['turn']} are not "
                        "under its committed Merkle root"
                    )
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
                return False, (
                    f"MISMATCH seq {env['seq']} roll {roll['i']} ({roll['purpose']}, {roll['rule']}): "
                    f"recorded {roll['value']}, the revealed {how} gives {face}"
                )
            checked += 1
            by_key += how == "key"
            turns.add(material["turn"])
    note = (
        f"OK {checked} rolls verified over {len(turns | set(dice.seeds))} revealed turns"
        f" ({pending} rolls await a reveal, {inherited} inherited from an origin game)"
    )
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


# --- the whole check, each part named (salvo verify) -------------------------------------------------


@dataclass(frozen=True)
class Check:
    name: str  # chain, signature, record, dice
    ok: bool
    note: str


def check_record(header: dict[str, Any], events: list[dict[str, Any]]) -> tuple[bool, str]:
    """What the file says of itself: dense seqs from 1, one game, the header's count, game.created first."""
    for number, env in enumerate(events, start=2):
        if env.get("seq") != number - 1:
            return False, f"line {number}: seq {env.get('seq')!r} where {number - 1} was expected"
        if env.get("game_id", header["game_id"]) != header["game_id"]:
            return False, f"line {number}: game {env.get('game_id')!r} is not the header's {header['game_id']}"
    if header.get("events") != len(events):
        return False, f"line 1: the header counts {header.get('events')!r} events, the file has {len(events)}"
    if events and events[0]["type"] != "game.created":
        return False, "line 2: the first event is not game.created"
    if events and events[0]["data"].get("ruleset") != header.get("ruleset"):
        return False, "line 2: game.created names another ruleset than the header"
    return True, f"{len(events)} events of game {header['game_id']}"


def _dice_check(lines: list[dict[str, Any]]) -> tuple[bool, str]:
    try:
        ok, note = verify(lines)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return False, f"an event's dice cannot be read ({type(exc).__name__}: {exc})"
    return ok, note


def check_battle(raw: bytes, keys: dict[str, str] | None) -> list[Check]:
    """Every check of a battle file, in order: chain, signature, record, dice. Without trusted keys (None)
    or without `cryptography` the signature check fails: nothing here passes unchecked."""
    raw_lines, lines = read_battle(raw)
    header, events = lines[0], lines[1:]
    if header.get("format") == FORMAT:
        chained, chain_note = check_chain(header, raw_lines[1:])
    else:
        chained, chain_note = False, f"chain: none ({header.get('format')} files are not chained)"
    signed, signature_note = check_signature(header, keys)
    recorded, record_note = check_record(header, events)
    rolled, dice_note = _dice_check(lines)
    return [
        Check("chain", chained, _bare(chain_note, "chain")),
        Check("signature", signed is True, _bare(signature_note, "signature")),
        Check("record", recorded, record_note),
        Check("dice", rolled, _bare(dice_note, "dice")),
    ]


def _bare(note: str, name: str) -> str:
    """A note without the verdict words the report puts in front of it."""
    for prefix in ("MISMATCH ", f"{name}: ", "MISMATCH ", "OK "):
        note = note.removeprefix(prefix)
    return note


def report(checks: list[Check], header: dict[str, Any] | None = None) -> str:
    """OK (first line) only when every check holds, else FAILED naming each check that did not."""
    failed = [c.name for c in checks if not c.ok]
    lines = [f"FAILED {', '.join(failed)}" if failed else "OK: hash chain, signature, record and every revealed roll"]
    lines += [f"{c.name}: {'OK' if c.ok else 'FAILED'} {c.note}" for c in checks]
    viewer = (header or {}).get("viewer", "umpire")
    if viewer != "umpire":
        lines.append(f"viewer: {viewer}'s redacted export (it verifies what {viewer} saw, nothing more)")
    if header and header.get("unverified"):
        lines.append(f"provenance: UNVERIFIED origin ({header['unverified']})")
    return "\n".join(lines)


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
