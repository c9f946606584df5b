"""The one application service: load → decide → append → publish. Route handlers only call this."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Union

import msgspec

from service.domain.core import (
    UMPIRE,
    Actor,
    Command,
    Dice,
    Event,
    InvalidScenario,
    Ruleset,
    RuleViolation,
    Viewer,
    commitment,
    find_ruleset,
)
from service.domain.core.guards import guarded_decide
from service.domain.core.registry import UnknownRuleset

from .envelope import DiceCommitted, DiceDisclosed, DiceMaterial, DiceRevealed, Envelope, GameCreated
from .errors import (
    Forbidden,
    GameNotFound,
    IdempotencyMismatch,
    InvalidRequest,
    MalformedCommand,
    Unauthorized,
    VersionConflict,
    field_of,
)
from .head import MARKER_TYPES, GameHead, build_head, codec_for, decode_state, encode_state
from .replay import Decoded, envelope_for
from .store import Conflict, SqlEventStore, WriteBatch

# (game id, [(seq, {audience: frame bytes or None})]) -> published to live streams
Publisher = Callable[[str, list[tuple[int, dict[str, bytes | None] | None]]], Awaitable[None]]


@dataclass
class Lineage:
    """Where a fork or an imported game comes from, and the effective events it inherits."""

    source_game: str
    source_seq: int
    events: list[tuple[Any, Event]]  # (stored row, decoded event), ruleset events only, in order

    def inherit(self, game_id: str, codec: Any, first_seq: int) -> list[tuple[dict[str, Any], Event]]:
        out = []
        for offset, (row, event) in enumerate(self.events):
            material = _material_decoder.decode(row.dice) if row.dice else None
            if material is not None and material.origin is None:
                material = msgspec.structs.replace(material, origin=self.source_game)
            new = _row(codec, game_id, first_seq + offset, event, int(row.turn), row.phase, row.actor,
                       row.command_id, row.recorded_at, material)
            out.append((new, event))
        return out


_material_decoder = msgspec.json.Decoder(DiceMaterial)


class CommandRequest(msgspec.Struct, forbid_unknown_fields=True):
    command: msgspec.Raw
    salt: str = ""


@dataclass
class CommandResult:
    status: int
    body: bytes  # JSON {"version": N, "events": [...]}, stored for idempotent retries


@dataclass
class CreatedGame:
    game_id: str
    ruleset: str
    ruleset_version: str
    seat_tokens: dict[str, str]
    umpire_token: str
    commitment: str
    version: int


_envelope_list = msgspec.json.Encoder()
_decoders: dict[str, msgspec.json.Decoder[Any]] = {}


def command_decoder(ruleset: Ruleset) -> msgspec.json.Decoder[Any]:
    decoder = _decoders.get(ruleset.name)
    if decoder is None:
        types = tuple(ruleset.command_types)
        union: Any = types[0] if len(types) == 1 else Union[types]  # noqa: UP007 - built at run time
        decoder = _decoders[ruleset.name] = msgspec.json.Decoder(union)
    return decoder


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def audiences(head: GameHead) -> list[Viewer]:
    return [UMPIRE, Viewer("spectator"), *(Viewer("seat", s) for s in head.seats)]


def audience_key(viewer: Viewer) -> str:
    return viewer.label


class GameService:
    def __init__(
        self,
        store: SqlEventStore,
        snapshot_every: int = 500,
        publish: Publisher | None = None,
        listening: Callable[[str], set[str]] | None = None,
    ):
        self.store = store
        self.snapshot_every = snapshot_every
        self.publish = publish
        # which audiences have a live socket on a game: frames are encoded for those only
        self.listening = listening
        self._heads: dict[str, GameHead] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._tokens: dict[str, tuple[str, Viewer]] = {}

    # --- games -------------------------------------------------------------------------------------

    async def create_game(
        self,
        ruleset_name: str,
        scenario: str | dict[str, Any],
        options: dict[str, Any] | None = None,
        lineage: Lineage | None = None,
    ) -> CreatedGame:
        try:
            ruleset = find_ruleset(ruleset_name)
        except UnknownRuleset:
            raise InvalidRequest(f"unknown ruleset {ruleset_name!r}", field="ruleset") from None
        scenario_name: str | None = None
        if isinstance(scenario, str):
            scenario_name = scenario
            samples = ruleset.scenarios()
            if scenario not in samples:
                raise InvalidRequest(f"ruleset {ruleset_name} has no scenario {scenario!r}", field="scenario")
            raw_setup = samples[scenario]
        else:
            raw_setup = scenario
        try:
            setup = ruleset.parse_setup(raw_setup)
        except InvalidScenario as exc:
            raise InvalidRequest(exc.detail, field=f"scenario.{exc.path}") from None
        game_id = "g_" + secrets.token_hex(8)
        seats = ruleset.seats(setup)
        seat_tokens = {s: secrets.token_urlsafe(24) for s in seats}
        umpire_token = secrets.token_urlsafe(24)
        state = ruleset.initial_state(setup)
        start = ruleset.clock(state)
        codec = codec_for(ruleset)
        inherited = lineage.inherit(game_id, codec, first_seq=2) if lineage else []
        for _row_dict, event in inherited:
            state = ruleset.evolve(state, event)
        clock = ruleset.clock(state)
        seed = secrets.token_bytes(32)
        created = GameCreated(
            ruleset=ruleset.name,
            ruleset_version=ruleset.version,
            scenario_name=scenario_name,
            setup=msgspec.to_builtins(raw_setup),
            options=options or {},
            forked_from=lineage.source_game if lineage else None,
            forked_at=lineage.source_seq if lineage else None,
        )
        committed = DiceCommitted(turn=clock.turn, commitment=commitment(seed))
        recorded_at = now_iso()
        rows = [
            _row(codec, game_id, 1, created, start.turn, start.phase, "system", None, recorded_at, None),
            *(row for row, _event in inherited),
        ]
        rows.append(_row(codec, game_id, len(rows) + 1, committed, clock.turn, clock.phase, "system", None,
                         recorded_at, None))
        batch = WriteBatch(
            game_id=game_id,
            game={
                "id": game_id,
                "ruleset": ruleset.name,
                "ruleset_version": ruleset.version,
                "scenario_name": scenario_name,
                "setup": msgspec.json.encode(raw_setup).decode(),
                "created_at": recorded_at,
            },
            seats=[
                *({"token_hash": hash_token(t), "game_id": game_id, "role": "seat", "seat": s}
                  for s, t in seat_tokens.items()),
                {"token_hash": hash_token(umpire_token), "game_id": game_id, "role": "umpire", "seat": None},
            ],
            seeds=[{"game_id": game_id, "turn": clock.turn, "seed": seed.hex(), "commitment": committed.commitment}],
            events=rows,
        )
        await self.store.write(batch)
        return CreatedGame(game_id, ruleset.name, ruleset.version, seat_tokens, umpire_token,
                           committed.commitment, len(rows))

    async def authenticate(self, game_id: str, token: str | None) -> Viewer:
        await self.head(game_id)  # 404 before 401
        if not token:
            return Viewer("spectator")
        digest = hash_token(token)
        known = self._tokens.get(digest)
        if known is None:
            row = await self.store.seat_for_token(digest)
            if row is None:
                raise Unauthorized("the token is not valid for this game")
            known = (row.game_id, UMPIRE if row.role == "umpire" else Viewer("seat", row.seat))
            if len(self._tokens) < 100_000:  # tokens never change; the cache only saves a read
                self._tokens[digest] = known
        if known[0] != game_id:
            raise Unauthorized("the token is not valid for this game")
        return known[1]

    async def head(self, game_id: str) -> GameHead:
        head = self._heads.get(game_id)
        if head is None:
            async with self._lock(game_id):
                head = self._heads.get(game_id)
                if head is None:
                    head = await self._load(game_id)
        return head

    async def _load(self, game_id: str) -> GameHead:
        """Latest usable snapshot + the tail after it (a snapshot taken after the earliest rewind target
        cannot be used: the fold must pass that target to restore it)."""
        game_row = await self.store.game(game_id)
        if game_row is None:
            raise GameNotFound(f"no game {game_id!r}")
        ruleset = find_ruleset(game_row.ruleset)
        setup = ruleset.parse_setup(msgspec.json.decode(game_row.setup))
        markers = await self.store.read_events_of_types(game_id, MARKER_TYPES)
        targets = [int(msgspec.json.decode(m.data)["to_seq"]) for m in markers if m.type == "game.rewound"]
        limit = min(targets) if targets else None
        snap = await self.store.snapshot(game_id, limit if limit is not None else 2**31 - 1)
        if snap is None:
            start_state, start_seq = ruleset.initial_state(setup), 0
        else:
            start_state, start_seq = decode_state(ruleset, bytes(snap.state)), int(snap.seq)
        tail = await self.store.read_events(game_id, after=start_seq)
        head = build_head(game_id, ruleset, setup, start_state, start_seq, tail, markers)
        self._heads[game_id] = head
        return head

    def _lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def forget(self, game_id: str) -> None:
        self._heads.pop(game_id, None)

    def note_remote_append(self, game_id: str, seq: int) -> None:
        """Another replica appended up to ``seq``: a cached head that is behind must be refolded."""
        head = self._heads.get(game_id)
        if head is not None and head.seq < seq:
            self.forget(game_id)

    # --- commands ----------------------------------------------------------------------------------

    async def handle_command(
        self,
        game_id: str,
        actor: Actor,
        body: bytes,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        if actor.kind == "spectator":
            raise Forbidden("spectators cannot issue commands; use a seat or umpire token")
        request_hash = hashlib.sha256(actor.label.encode() + b"\0" + body).hexdigest()
        await self.head(game_id)
        for _attempt in range(5):
            async with self._lock(game_id):
                head = self._heads.get(game_id) or await self._load(game_id)
                if idempotency_key:
                    done = await self.store.idempotency(game_id, idempotency_key)
                    if done is not None:
                        if done.request_hash != request_hash:
                            raise IdempotencyMismatch(
                                "this Idempotency-Key was used with a different body", field="Idempotency-Key"
                            )
                        return CommandResult(int(done.status), bytes(done.response))
                if expected_version is not None and expected_version != head.seq:
                    raise VersionConflict(
                        f"expected version {expected_version}, the game is at {head.seq}", field="If-Match"
                    )
                request, command = self._decode(head.ruleset, body)
                try:
                    result, new_events = await self._decide_and_append(
                        head, actor, command, request.salt, idempotency_key, request_hash
                    )
                except Conflict:
                    self.forget(game_id)  # another process appended: reload and decide again
                    continue
            if self.publish is not None and new_events:
                await self.publish(game_id, new_events)
            return result
        raise VersionConflict("the game kept changing under this command; retry", field=None)

    def _decode(self, ruleset: Ruleset, body: bytes) -> tuple[CommandRequest, Command]:
        try:
            request = msgspec.json.decode(body, type=CommandRequest)
        except msgspec.ValidationError as exc:
            raise MalformedCommand(str(exc), field=field_of(str(exc))) from None
        except msgspec.DecodeError as exc:
            raise MalformedCommand(f"the body is not valid JSON: {exc}", field="$") from None
        try:
            command = command_decoder(ruleset).decode(request.command)
        except msgspec.ValidationError as exc:
            path = "$.command" + field_of(str(exc))[1:]
            raise MalformedCommand(str(exc).replace("`$", "`$.command"), field=path) from None
        return request, command

    async def _decide_and_append(
        self,
        head: GameHead,
        actor: Actor,
        command: Command,
        salt: str,
        idempotency_key: str | None,
        request_hash: str,
    ) -> tuple[CommandResult, list[tuple[int, dict[str, bytes | None] | None]]]:
        ruleset = head.ruleset
        seed = await self._seed(head, head.dice_turn)
        if head.dice_turn in head.revealed:
            salt = ""  # after a rewind into a revealed turn the seed is public: a salt would let a seat pick faces
        dice = Dice(seed, head.game_id, head.effective + 1, salt)
        events = guarded_decide(ruleset, head.state, command, actor, dice)  # raises RuleViolation
        if not events:
            raise RuleViolation("SALVO-EMPTY", "the command changed nothing")
        command_id = "c_" + secrets.token_hex(8)
        material = DiceMaterial(turn=head.dice_turn, base=head.effective + 1, salt=salt) if dice.count else None
        state = head.state
        staged: list[tuple[Event, Any, str]] = []  # (event, state after, actor label)
        for event in events:
            state = ruleset.evolve(state, event)
            staged.append((event, state, actor.label))
        new_seeds, service_events = await self._dice_bookkeeping(head, state)
        for event in service_events:
            staged.append((event, state, "system"))
        codec = head.codec
        recorded_at = now_iso()
        before = ruleset.clock(head.state)
        rows, decoded = [], []
        for offset, (event, after, label) in enumerate(staged):
            seq = head.seq + 1 + offset
            # a reveal belongs to the turn whose dice it opens, not to the turn the command started
            clock = before if isinstance(event, DiceRevealed) and event.turn == before.turn else ruleset.clock(after)
            row = _row(codec, head.game_id, seq, event, clock.turn, clock.phase, label, command_id, recorded_at,
                       material if event.rolls else None)
            rows.append(row)
            decoded.append((Decoded(_RowView(row), event), after))
        actor_view = actor if actor.kind != "spectator" else Viewer("spectator")
        visible = [
            e for d, after in decoded
            if (e := envelope_for(codec, ruleset, head.game_id, d, actor_view, after)) is not None
        ]
        new_seq = head.seq + len(rows)
        body = _envelope_list.encode({"version": new_seq, "events": visible})
        batch = WriteBatch(game_id=head.game_id, events=rows, seeds=new_seeds)
        if idempotency_key:
            batch.idempotency = {"game_id": head.game_id, "key": idempotency_key,
                                 "request_hash": request_hash, "status": 201, "response": body}
        if new_seq // self.snapshot_every > head.seq // self.snapshot_every:
            batch.snapshot = {"game_id": head.game_id, "seq": new_seq, "state": encode_state(state)}
        await self.store.write(batch)  # durable before anyone hears of it
        for seed_row in new_seeds:
            head.seeds[seed_row["turn"]] = bytes.fromhex(seed_row["seed"])
        head.state = state
        head.seq = new_seq
        head.effective += len(rows)
        for event, _after, _label in staged:
            if isinstance(event, DiceCommitted):
                head.committed.add(event.turn)
            elif isinstance(event, DiceRevealed):
                head.revealed.add(event.turn)
            elif isinstance(event, DiceDisclosed):
                head.disclosed = True
        if not ruleset.is_over(state):  # a finished game keeps the seed of its last turn
            head.dice_turn = ruleset.clock(state).turn
        frames = self._frames(head, decoded) if self.publish is not None else []
        return CommandResult(201, body), frames

    async def _dice_bookkeeping(self, head: GameHead, state: Any) -> tuple[list[dict[str, Any]], list[Event]]:
        """Reveal the seed of a turn that ended (or of the last turn, once the game is over) and
        commit a fresh seed for a new turn, before any command of that turn is accepted."""
        ruleset = head.ruleset
        new_turn = ruleset.clock(state).turn
        over = ruleset.is_over(state)
        seeds: list[dict[str, Any]] = []
        events: list[Event] = []
        if (new_turn != head.dice_turn or over) and head.dice_turn not in head.revealed:
            old_seed = await self._seed(head, head.dice_turn)
            events.append(DiceRevealed(turn=head.dice_turn, seed=old_seed.hex()))
        if over and ruleset.hidden_information and not head.disclosed:
            stored = await self.store.all_seeds(head.game_id)
            events.append(DiceDisclosed(seeds={str(turn): seed for turn, seed in stored.items()}))
        if new_turn != head.dice_turn and not over and new_turn not in head.committed:
            existing = head.seeds.get(new_turn) or await self.store.seed(head.game_id, new_turn)
            if existing is None:
                seed = secrets.token_bytes(32)
                seeds.append({"game_id": head.game_id, "turn": new_turn, "seed": seed.hex(),
                              "commitment": commitment(seed)})
                events.append(DiceCommitted(turn=new_turn, commitment=commitment(seed)))
        return seeds, events

    async def _seed(self, head: GameHead, turn: int) -> bytes:
        seed = head.seeds.get(turn)
        if seed is None:
            row = await self.store.seed(head.game_id, turn)
            if row is None:
                raise RuntimeError(f"game {head.game_id} has no dice seed for turn {turn}")
            seed = head.seeds[turn] = bytes.fromhex(row.seed)
        return seed

    def _frames(
        self, head: GameHead, decoded: list[tuple[Decoded, Any]]
    ) -> list[tuple[int, dict[str, bytes | None] | None]]:
        """Each new event encoded once per listening audience (not once per connection); an audience
        missing from the frames reads the event from the store."""
        out: list[tuple[int, dict[str, bytes | None] | None]] = []
        wanted = self.listening(head.game_id) if self.listening is not None else None
        viewers = [v for v in audiences(head) if wanted is None or audience_key(v) in wanted]
        for d, after in decoded:
            per: dict[str, bytes | None] = {}
            for viewer in viewers:
                env = envelope_for(head.codec, head.ruleset, head.game_id, d, viewer, after)
                per[audience_key(viewer)] = None if env is None else _frame_encoder.encode(
                    {"kind": "event", "event": env})
            out.append((d.seq, per))
        return out


_frame_encoder = msgspec.json.Encoder()


class _RowView:
    """Attribute access over a row dict, so fresh rows render like stored ones."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.__dict__.update(row)


def _row(
    codec: Any, game_id: str, seq: int, event: Event, turn: int, phase: str, actor: str,
    command_id: str | None, recorded_at: str, material: DiceMaterial | None,
) -> dict[str, Any]:
    tag, version, data, rolls = codec.encode(event)
    return {
        "game_id": game_id, "seq": seq, "type": tag, "v": version, "data": data.decode(),
        "rolls": rolls.decode(), "turn": turn, "phase": phase, "actor": actor, "command_id": command_id,
        "recorded_at": recorded_at, "dice": msgspec.json.encode(material).decode() if material else None,
    }


__all__ = ["CommandRequest", "CommandResult", "CreatedGame", "Envelope", "GameService", "hash_token"]

