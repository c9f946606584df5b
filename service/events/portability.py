"""Battle files (export / import as JSON lines) and forks. Both create games that inherit events."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from service.domain.core import Viewer, derive_face, find_ruleset
from service.domain.core.registry import UnknownRuleset

from .application import CreatedGame, GameService, Lineage, now_iso
from .envelope import (
    SERVICE_EVENT_TYPES,
    DiceCommitted,
    DiceDisclosed,
    DiceRevealed,
    Envelope,
    GameCreated,
    GameRewound,
)
from .errors import Forbidden, InvalidRequest
from .head import codec_for
from .reading import GameReader
from .replay import Decoded, Folder, decode_rows, effective_rewinds, superseded_seqs

FORMAT = "salvo-battle/1"


class BattleHeader(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    game_id: str
    ruleset: str
    ruleset_version: str
    setup: dict[str, Any]
    events: int
    state_hash: str
    exported_at: str
    scenario_name: str | None = None
    viewer: str = "umpire"
    digests: list[str] = []  # sha256 (first 16 hex) of each event line: names the first altered line


def state_hash(state: Any) -> str:
    return hashlib.sha256(msgspec.json.encode(msgspec.to_builtins(state), order="sorted")).hexdigest()


async def export_game(service: GameService, game_id: str, viewer: Viewer) -> bytes:
    """Header line, then every envelope the viewer may see (superseded ones marked), as JSON lines."""
    reader = GameReader(service)
    head = await service.head(game_id)
    game_row = await service.store.game(game_id)
    assert game_row is not None  # service.head found the game
    envelopes = await reader.events(game_id, viewer, after=0, upto=head.seq)
    setup = msgspec.json.decode(game_row.setup)
    header = BattleHeader(
        format=FORMAT, game_id=game_id, ruleset=head.ruleset.name, ruleset_version=game_row.ruleset_version,
        setup=setup if viewer.is_umpire else head.ruleset.redact_setup(setup, viewer),
        events=head.seq, state_hash=state_hash(head.state), exported_at=now_iso(),
        scenario_name=game_row.scenario_name, viewer=viewer.label,
    )
    encoder = msgspec.json.Encoder()
    lines = [encoder.encode(e) for e in envelopes]
    header.digests = [_digest(line) for line in lines]
    return b"\n".join([encoder.encode(header), *lines]) + b"\n"


def _digest(line: bytes) -> str:
    return hashlib.sha256(line.strip()).hexdigest()[:16]


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


def bad(line: int, detail: str) -> InvalidRequest:
    return InvalidRequest(f"line {line}: {detail}", field=f"line {line}")


def validate_battle_file(body: bytes) -> tuple[BattleHeader, list[Decoded], Any]:
    """Replay and check a whole battle file; raise naming the first bad line."""
    lines = [ln for ln in body.split(b"\n") if ln.strip()]
    if not lines:
        raise bad(1, "the file is empty")
    try:
        header = msgspec.json.decode(lines[0], type=BattleHeader)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise bad(1, f"not a battle file header: {exc}") from None
    if header.format != FORMAT:
        raise bad(1, f"unknown format {header.format!r}, expected {FORMAT}")
    try:
        ruleset = find_ruleset(header.ruleset)
    except UnknownRuleset:
        raise bad(1, f"unknown ruleset {header.ruleset!r}") from None
    try:
        setup = ruleset.parse_setup(header.setup)
    except Exception as exc:  # noqa: BLE001 - any scenario failure is a bad header
        raise bad(1, f"invalid setup: {exc}") from None
    codec = codec_for(ruleset)
    decoded: list[Decoded] = []
    seeds: dict[int, bytes] = {}
    commitments: dict[int, list[str]] = {}
    if header.digests and len(header.digests) != len(lines) - 1:
        raise bad(1, f"the header lists {len(header.digests)} events, the file has {len(lines) - 1}")
    for number, raw in enumerate(lines[1:], start=2):
        if header.digests and _digest(raw) != header.digests[number - 2]:
            raise bad(number, "the line differs from the one exported (digest mismatch)")
        try:
            env = msgspec.json.decode(raw, type=Envelope)
            line = _Line(env)
            event = codec.decode(line.type, line.v, line.data, line.rolls)
        except Exception as exc:  # noqa: BLE001
            raise bad(number, f"not a valid event: {exc}") from None
        expected = len(decoded) + 1
        if env.seq != expected:
            raise bad(number, f"seq {env.seq} where {expected} was expected (events must be dense)")
        if env.game_id != header.game_id:
            raise bad(number, f"game id {env.game_id} differs from the header's {header.game_id}")
        if isinstance(event, DiceCommitted):
            commitments.setdefault(event.turn, []).append(event.commitment)
        opened = ({event.turn: event.seed} if isinstance(event, DiceRevealed)
                  else {int(t): s for t, s in event.seeds.items()} if isinstance(event, DiceDisclosed) else {})
        for turn, seed_hex in opened.items():
            if not seed_hex:
                continue  # withheld from this viewer until the game ends
            seed = bytes.fromhex(seed_hex)
            if hashlib.sha256(seed).hexdigest() not in commitments.get(turn, []):
                raise bad(number, f"the seed opened for turn {turn} does not match its commitment")
            seeds[turn] = seed
        decoded.append(Decoded(line, event))
    for number, d in enumerate(decoded, start=2):  # every roll of a revealed turn must re-derive
        material = msgspec.json.decode(d.row.dice, type=_Material) if d.row.dice else None
        if material is None or material.origin not in (None, header.game_id) or material.turn not in seeds:
            continue
        for roll in d.event.rolls:
            sides = int(roll.die.lstrip("d"))
            face = derive_face(seeds[material.turn], header.game_id, material.base, roll.i, sides, material.salt)
            if face != roll.value:
                raise bad(number, f"roll {roll.i} ({roll.purpose}) records {roll.value}, the dice give {face}")
    try:
        state = Folder(ruleset).fold(ruleset.initial_state(setup), decoded)
    except Exception as exc:  # noqa: BLE001
        raise bad(len(decoded) + 1, f"the events do not fold: {exc}") from None
    if state_hash(state) != header.state_hash:
        raise bad(1, "state_hash does not match the fold of the events (the file was altered)")
    return header, decoded, state


class _Material(msgspec.Struct):
    turn: int
    base: int
    salt: str = ""
    origin: str | None = None


def effective_ruleset_events(decoded: list[Decoded], upto: int) -> list[tuple[Any, Any]]:
    """The events a fork or import inherits: effective (not superseded), ruleset events, up to a seq."""
    within = [d for d in decoded if d.seq <= upto]
    rewinds = [(d.seq, d.event.to_seq) for d in within if isinstance(d.event, GameRewound)]
    superseded = superseded_seqs(effective_rewinds(rewinds), (d.seq for d in within))
    return [(d.row, d.event) for d in within
            if d.seq not in superseded and not isinstance(d.event, SERVICE_EVENT_TYPES)]


async def import_game(service: GameService, body: bytes) -> tuple[CreatedGame, BattleHeader]:
    header, decoded, _state = validate_battle_file(body)
    inherited = effective_ruleset_events(decoded, upto=len(decoded))
    created = await service.create_game(
        header.ruleset, header.setup, {"imported_from": header.game_id},
        lineage=Lineage(header.game_id, len(decoded), inherited),
    )
    return created, header


async def fork_game(service: GameService, game_id: str, viewer: Viewer, at: int | None) -> CreatedGame:
    head = await service.head(game_id)
    if not viewer.is_umpire and head.ruleset.hidden_information:
        raise Forbidden("only the umpire may fork a game with hidden information (a fork's umpire sees all)")
    at = head.seq if at is None else at
    if not 1 <= at <= head.seq:
        raise InvalidRequest(f"at must be between 1 and {head.seq}", field="at")
    rows = await service.store.read_events(game_id, upto=at)
    decoded = decode_rows(head.codec, rows)
    created_event = decoded[0].event
    assert isinstance(created_event, GameCreated)
    return await service.create_game(
        head.ruleset.name, created_event.setup, {"fork_of": game_id, "at": at},
        lineage=Lineage(game_id, at, effective_ruleset_events(decoded, at)),
    )
