"""Reading and checking a battle file (JSON lines: header, then envelopes), naming the first bad line.

Everything but the signature policy lives here (portability.py decides what a signature means for an
import): the header's shape, format and ruleset version (with battle upcasters), the hash chain, each
event's version, actor and seq, every seed against its commitment, every roll of a revealed turn, and the
fold against the header's state hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from service.domain.core import Ruleset, Viewer, find_ruleset, seeded_face
from service.domain.core.guards import full_view
from service.domain.core.merkle import SlotTree
from service.domain.core.registry import UnknownRuleset

from .codec import UnknownEventType
from .envelope import (
    SERVICE_EVENT_TYPES,
    BotSeated,
    BotUnseated,
    DiceCommitted,
    DiceDisclosed,
    DiceMaterial,
    DiceRevealed,
    Envelope,
    GameCreated,
    GameRewound,
)
from .errors import ImportTooLarge, InvalidRequest
from .head import codec_for
from .replay import Decoded, Folder, Walker
from .sealing import FORMAT, LEGACY_FORMAT, first_break, legacy_digest
from .table_events import ClockSet, DeadlineSet, TableMessage

MAX_VERSION_CHARS = 40  # a version is shown back in problems; longer claims are cut there


class BattleHeader(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    format: str
    game_id: str
    ruleset: str
    ruleset_version: str
    setup: dict[str, Any]
    events: int
    state_hash: str  # sha256 of the state the exporting viewer may see (the full state for the umpire)
    exported_at: str
    scenario_name: str | None = None
    viewer: str = "umpire"
    digests: list[str] = []  # salvo-battle/2: the hash chain after each event line (see sealing.py)
    signature: dict[str, str] | None = None  # {alg, key_id, value} over header + chain head
    unverified: str | None = None  # why this game's origin could not be verified, carried forever


# (ruleset, from version) -> (to version, function mapping (header, envelopes) of the old version)
BattleUpcaster = Callable[[dict[str, Any], list[dict[str, Any]]], tuple[dict[str, Any], list[dict[str, Any]]]]
_BATTLE_UPCASTERS: dict[tuple[str, str], tuple[str, BattleUpcaster]] = {}


def register_battle_upcaster(ruleset: str, from_version: str, to_version: str, upcast: BattleUpcaster) -> None:
    _BATTLE_UPCASTERS[(ruleset, from_version)] = (to_version, upcast)


def unregister_battle_upcaster(ruleset: str, from_version: str) -> None:
    _BATTLE_UPCASTERS.pop((ruleset, from_version), None)


def bad(line: int, detail: str) -> InvalidRequest:
    return InvalidRequest(f"line {line}: {detail}", field=f"line {line}")


def state_hash(state: Any) -> str:
    """sha256 of the state's builtins, keys sorted; a field a ruleset added to a state after battle files were
    exported (named in its struct's ``HASH_NEUTRAL``) is left out while it holds its default, so a file
    exported before the field existed still matches the fold of its events."""
    builtins = msgspec.to_builtins(state)
    _drop_neutral(state, builtins)
    return hashlib.sha256(msgspec.json.encode(builtins, order="sorted")).hexdigest()


def _drop_neutral(value: Any, built: Any) -> None:
    """Walk ``value`` and its builtins together, deleting hash-neutral fields at their defaults."""
    if isinstance(value, msgspec.Struct):
        neutral = getattr(type(value), "HASH_NEUTRAL", ())
        for field in msgspec.structs.fields(value):
            inner = getattr(value, field.name)
            if field.name in neutral and inner == field.default:
                built.pop(field.encode_name, None)
            elif field.encode_name in built:
                _drop_neutral(inner, built[field.encode_name])
    elif isinstance(value, dict) and isinstance(built, dict) and len(value) == len(built):
        for inner, inner_built in zip(value.values(), built.values(), strict=True):
            _drop_neutral(inner, inner_built)
    elif isinstance(value, list | tuple) and isinstance(built, list | tuple) and len(value) == len(built):
        for inner, inner_built in zip(value, built, strict=True):
            _drop_neutral(inner, inner_built)


def record_hash(ruleset: Ruleset, state: Any, viewer: Viewer) -> str:
    """What an export's header hashes: the full state for the umpire, the viewer's view otherwise (a hash
    of the full state would let a seat test guesses about what is hidden from it)."""
    return state_hash(state) if viewer.is_umpire else state_hash(full_view(ruleset, state, viewer))


def viewer_of(label: str) -> Viewer:
    if label in ("umpire", "spectator"):
        return Viewer(label)
    if label.startswith("seat:") and len(label) > 5:
        return Viewer("seat", label[5:])
    raise bad(1, f"viewer {label[:MAX_VERSION_CHARS]!r} is not umpire, spectator or seat:<name>")


@dataclass
class BattleFile:
    raw_header: dict[str, Any]  # as written (the signature covers exactly this)
    header: BattleHeader
    lines: list[bytes]  # the event lines as written


def parse_battle_file(body: bytes) -> BattleFile:
    """Split, decode the header and check the format and the line digests (the hash chain)."""
    lines = [ln.strip() for ln in body.split(b"\n") if ln.strip()]
    if not lines:
        raise bad(1, "the file is empty")
    try:
        raw = json.loads(lines[0])
        header = msgspec.convert(raw, type=BattleHeader)
    except (ValueError, msgspec.ValidationError) as exc:
        raise bad(1, f"not a battle file header: {exc}") from None
    if header.format not in (FORMAT, LEGACY_FORMAT):
        raise bad(1, f"format: unknown format {header.format[:MAX_VERSION_CHARS]!r}, expected {FORMAT}")
    events = lines[1:]
    if header.format == FORMAT:
        _check_chain(header, events)
    elif header.digests:
        _check_legacy_digests(header, events)
    if header.events != len(events):
        raise bad(1, f"events: the header counts {header.events} events, the file has {len(events)}")
    return BattleFile(raw, header, events)


def _check_chain(header: BattleHeader, events: list[bytes]) -> None:
    """salvo-battle/2: each event line's digest chains the one before; the first break names its line."""
    if events and not header.digests:
        raise bad(1, "digests: a salvo-battle/2 header chains a digest per event line; this one has none")
    broken = first_break(events, header.digests)
    if broken is not None:
        raise bad(
            broken + 2,
            "the line differs from the one exported (the hash chain breaks here: "
            "a line was edited, removed, reordered or duplicated)",
        )


def _check_legacy_digests(header: BattleHeader, events: list[bytes]) -> None:
    """The legacy format: one digest per line, each on its own."""
    for index, line in enumerate(events):
        if index >= len(header.digests) or legacy_digest(line) != header.digests[index]:
            raise bad(index + 2, "the line differs from the one exported (digest mismatch)")


def upcast_battle_file(battle: BattleFile) -> tuple[Ruleset, BattleHeader, list[bytes]]:
    """The ruleset, and the file mapped to the ruleset version this server plays (or a problem naming both)."""
    header = battle.header
    try:
        ruleset = find_ruleset(header.ruleset)
    except UnknownRuleset:
        raise bad(1, f"ruleset: unknown ruleset {header.ruleset[:MAX_VERSION_CHARS]!r}") from None
    lines = battle.lines
    version = header.ruleset_version
    seen = set()
    while version != ruleset.version and (header.ruleset, version) in _BATTLE_UPCASTERS and version not in seen:
        seen.add(version)
        version, upcast = _BATTLE_UPCASTERS[(header.ruleset, version)]
        raw_header, envelopes = upcast(msgspec.to_builtins(header), [json.loads(ln) for ln in lines])
        raw_header["ruleset_version"] = version
        header = msgspec.convert(raw_header, type=BattleHeader)
        lines = [msgspec.json.encode(e) for e in envelopes]
    if version != ruleset.version:
        claimed = header.ruleset_version
        shown = repr(claimed[:MAX_VERSION_CHARS]) + (
            f" (cut from {len(claimed)} characters)" if len(claimed) > MAX_VERSION_CHARS else ""
        )
        raise bad(
            1,
            f"ruleset_version: the file is {header.ruleset} version {shown}; this server plays "
            f"{header.ruleset} version {ruleset.version!r} and no upcaster maps one to the other",
        )
    return ruleset, header, lines


def validate_battle_file(body: bytes) -> tuple[BattleHeader, list[Decoded], Any]:
    """Replay and check a whole battle file (all but the signature); raise naming the first bad line."""
    return check_battle_file(parse_battle_file(body))


STATE_CHECK_EVERY = 1000  # events folded between two checks of the state's size against the budget


def check_battle_file(
    battle: BattleFile, max_state_bytes: int | None = None
) -> tuple[BattleHeader, list[Decoded], Any]:
    """``max_state_bytes``: the state the events fold to may not encode to more (checked as it folds, so a
    file built to exhaust memory is refused on its way, never folded to the end)."""
    ruleset, header, lines = upcast_battle_file(battle)
    viewer = viewer_of(header.viewer)
    if not viewer.is_umpire and ruleset.hidden_information:
        raise bad(
            1,
            f"viewer: this is {header.viewer}'s redacted record of a {ruleset.name} game (hidden "
            "information); it can be verified (clients/verify_dice.py) but not imported: only the "
            "umpire's export holds what every seat saw",
        )
    try:
        setup = ruleset.parse_setup(header.setup)
    except Exception as exc:  # noqa: BLE001 - any scenario failure is a bad header
        raise bad(1, f"setup: invalid setup: {exc}") from None
    decoded = _decode_lines(ruleset, header, lines, set(ruleset.seats(setup)))
    _check_created(header, decoded)
    _check_rolls(header, decoded)
    state = _fold_within(ruleset, setup, decoded, max_state_bytes)
    if record_hash(ruleset, state, viewer) != header.state_hash:
        raise bad(1, "state_hash: it does not match the fold of the events (the file was altered)")
    return header, decoded, state


def _fold_within(ruleset: Ruleset, setup: Any, decoded: list[Decoded], max_state_bytes: int | None) -> Any:
    targets = {d.event.to_seq for d in decoded if isinstance(d.event, GameRewound)}
    step = Walker(Folder(ruleset), ruleset.initial_state(setup), targets).step
    state = None
    for number, d in enumerate(decoded, start=2):
        try:
            state = step(d)
        except Exception as exc:  # noqa: BLE001
            raise bad(number, f"the events do not fold: {exc}") from None
        if max_state_bytes is not None and (number % STATE_CHECK_EVERY == 0 or number == len(decoded) + 1):
            size = len(msgspec.json.encode(state))
            if size > max_state_bytes:
                raise ImportTooLarge(
                    f"line {number}: the game's state reaches {size:,} bytes, more than this "
                    f"server's budget of {max_state_bytes:,} for one game (SALVO_MAX_GAME_BYTES)",
                    field=f"line {number}",
                )
    return state if decoded else ruleset.initial_state(setup)


class _Line:
    """A stored-row lookalike built from an imported envelope."""

    def __init__(self, env: Envelope) -> None:
        self.seq = env.seq
        self.type = env.type
        self.v = env.v
        self.turn = env.turn
        self.phase = env.phase
        self.actor = env.actor
        self.recorded_at = env.recorded_at
        self.command_id = env.command_id
        self.data = msgspec.json.encode(env.data)
        self.rolls = msgspec.json.encode(env.rolls)
        self.dice = msgspec.json.encode(env.dice) if env.dice else None


def _decode_lines(ruleset: Ruleset, header: BattleHeader, lines: list[bytes], seats: set[str]) -> list[Decoded]:
    codec = codec_for(ruleset)
    decoded: list[Decoded] = []
    commitments: dict[int, list[DiceCommitted]] = {}
    for number, raw in enumerate(lines, start=2):
        try:
            env = msgspec.json.decode(raw, type=Envelope)
            known = codec.event_type(env.type).version
        except (msgspec.ValidationError, msgspec.DecodeError, UnknownEventType) as exc:
            raise bad(number, f"not a valid event: {exc}") from None
        if env.v > known:
            raise bad(number, f"v: {env.type} version {env.v} is unknown (this server knows up to v{known})")
        line = _Line(env)
        try:
            event = codec.decode(line.type, line.v, line.data, line.rolls)
        except Exception as exc:  # noqa: BLE001 - a bad event of any kind names its line
            raise bad(number, f"not a valid event: {exc}") from None
        expected = len(decoded) + 1
        if env.seq != expected:
            raise bad(number, f"seq {env.seq} where {expected} was expected (events must be dense)")
        if env.game_id != header.game_id:
            raise bad(number, f"game id {env.game_id} differs from the header's {header.game_id}")
        _check_actor(number, env.actor, event, seats)
        if isinstance(event, DiceCommitted):
            commitments.setdefault(event.turn, []).append(event)
        for turn, seed_hex in _opened(event).items():
            _check_seed(number, turn, bytes.fromhex(seed_hex), commitments.get(turn, []))
        decoded.append(Decoded(line, event))
    return decoded


def _check_seed(number: int, turn: int, seed: bytes, committed: list[DiceCommitted]) -> None:
    """An opened seed must hash to the turn's commitment and give the committed Merkle root."""
    matching = [c for c in committed if c.commitment == hashlib.sha256(seed).hexdigest()]
    if not matching:
        raise bad(number, f"the seed opened for turn {turn} does not match its commitment")
    for c in matching:
        if c.root and SlotTree.build(seed, turn, c.slots).root != c.root:
            raise bad(number, f"the seed opened for turn {turn} does not give the committed Merkle root")


def _check_actor(number: int, actor: str, event: Any, seats: set[str]) -> None:
    if isinstance(event, GameRewound):
        allowed = {"umpire"}
    elif isinstance(event, BotSeated | BotUnseated):  # the umpire, or the seat's holder handing it over
        allowed = {"umpire", f"seat:{event.seat}"}
    elif isinstance(event, TableMessage):  # its writer, and only its writer
        allowed = {event.sender} & {"umpire", *(f"seat:{s}" for s in seats)}
    elif isinstance(event, DeadlineSet | ClockSet):
        allowed = {"umpire"}
    elif isinstance(event, SERVICE_EVENT_TYPES):
        allowed = {"system"}
    else:
        allowed = {"system", "umpire", *(f"seat:{s}" for s in seats)}
    if actor not in allowed:
        raise bad(
            number,
            f"actor: {actor[:MAX_VERSION_CHARS]!r} cannot have appended a {type(event).__name__} "
            f"(expected one of {sorted(allowed)})",
        )


def _opened(event: Any) -> dict[int, str]:
    """Seeds an event opens (a withheld seed, "", opens nothing)."""
    if isinstance(event, DiceRevealed):
        opened = {event.turn: event.seed}
    elif isinstance(event, DiceDisclosed):
        opened = {int(t): s for t, s in event.seeds.items()}
    else:
        return {}
    return {t: s for t, s in opened.items() if s}


def _check_created(header: BattleHeader, decoded: list[Decoded]) -> None:
    created = decoded[0].event if decoded else None
    if not isinstance(created, GameCreated):
        raise bad(2, "the first event must be game.created")
    if (created.ruleset, created.ruleset_version) != (header.ruleset, header.ruleset_version):
        raise bad(
            2,
            f"ruleset_version: game.created says {created.ruleset} {created.ruleset_version[:40]!r}, "
            f"the header {header.ruleset} {header.ruleset_version[:40]!r}",
        )
    if header.viewer == "umpire" and msgspec.to_builtins(created.setup) != header.setup:
        raise bad(1, "setup: it differs from the setup of the game.created event (line 2)")


def _check_rolls(header: BattleHeader, decoded: list[Decoded]) -> None:
    """Every roll of a turn whose seed is open must re-derive from it."""
    seeds = {turn: bytes.fromhex(s) for d in decoded for turn, s in _opened(d.event).items()}
    for number, d in enumerate(decoded, start=2):
        material = msgspec.json.decode(d.row.dice, type=DiceMaterial) if d.row.dice else None
        if material is None or material.origin not in (None, header.game_id) or material.turn not in seeds:
            continue
        for roll in d.event.rolls:
            sides = int(roll.die.lstrip("d"))
            face = seeded_face(
                seeds[material.turn],
                header.game_id,
                material.turn,
                material.base,
                material.slot,
                roll.i,
                sides,
                material.salt_of(roll.i),
            )
            if face != roll.value:
                raise bad(number, f"roll {roll.i} ({roll.purpose}) records {roll.value}, the dice give {face}")


__all__ = ["BattleFile", "BattleHeader", "parse_battle_file", "state_hash", "validate_battle_file"]
