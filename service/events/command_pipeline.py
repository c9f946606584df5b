"""The command pipeline: decode the request, replay an idempotent retry, check the expected version,
decide and append under the game's lock (again after a racing writer's Conflict), then publish."""

from __future__ import annotations

import hashlib
from typing import Any, Union

import msgspec

from service.domain.core import Actor, Command, Ruleset

from .decide_append import CommandResult, CommandWriter
from .errors import Forbidden, IdempotencyMismatch, MalformedCommand, VersionConflict, field_of
from .event_store import Conflict, EventStore
from .frames import Publisher
from .head_cache import HeadCache
from .inputs import decode_json

ATTEMPTS = 5


class CommandRequest(msgspec.Struct, forbid_unknown_fields=True):
    command: msgspec.Raw
    salt: str = ""


_decoders: dict[str, msgspec.json.Decoder[Any]] = {}


def command_decoder(ruleset: Ruleset) -> msgspec.json.Decoder[Any]:
    decoder = _decoders.get(ruleset.name)
    if decoder is None:
        types = tuple(ruleset.command_types)
        union: Any = types[0] if len(types) == 1 else Union[types]  # noqa: UP007 - built at run time
        decoder = _decoders[ruleset.name] = msgspec.json.Decoder(union)
    return decoder


def decode_command(ruleset: Ruleset, body: bytes) -> tuple[CommandRequest, Command]:
    request = decode_json(body, CommandRequest, MalformedCommand)
    try:
        command = command_decoder(ruleset).decode(request.command)
    except msgspec.ValidationError as exc:
        path = "$.command" + field_of(str(exc))[1:]
        raise MalformedCommand(str(exc).replace("`$", "`$.command"), field=path) from None
    return request, command


def request_fingerprint(actor: Actor, command: Command, salt: str) -> str:
    """What an Idempotency-Key is bound to: who sent which decoded command with which salt, in one
    canonical form (sorted keys), so the same command over HTTP and the websocket is the same request
    whatever the spacing, key order or defaults of its JSON."""
    canonical = msgspec.json.encode([actor.label, msgspec.to_builtins(command), salt], order="sorted")
    return hashlib.sha256(canonical).hexdigest()


class CommandPipeline:
    def __init__(self, store: EventStore, heads: HeadCache, writer: CommandWriter,
                 publish: Publisher | None = None) -> None:
        self.store = store
        self.heads = heads
        self.writer = writer
        self.publish = publish

    async def handle(
        self,
        game_id: str,
        actor: Actor,
        body: bytes,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        if actor.kind == "spectator":
            raise Forbidden("spectators cannot issue commands; use a seat or umpire token")
        request, command = decode_command((await self.heads.get(game_id)).ruleset, body)
        request_hash = request_fingerprint(actor, command, request.salt)
        for _attempt in range(ATTEMPTS):
            async with self.heads.lock(game_id):
                head = await self.heads.get_locked(game_id)
                if idempotency_key:
                    done = await self.store.idempotency(game_id, idempotency_key)
                    if done is not None:
                        if done.request_hash != request_hash:
                            raise IdempotencyMismatch(
                                "this Idempotency-Key was used with a different command (or salt, or sender)",
                                field="Idempotency-Key",
                            )
                        return CommandResult(int(done.status), bytes(done.response))
                if expected_version is not None and expected_version != head.seq:
                    raise VersionConflict(
                        f"expected version {expected_version}, the game is at {head.seq}", field="If-Match"
                    )
                try:
                    result, new_events = await self.writer.decide_and_append(
                        head, actor, command, request.salt, idempotency_key, request_hash
                    )
                except Conflict:
                    self.heads.forget(game_id)  # another process appended: reload and decide again
                    continue
            if self.publish is not None and new_events:
                await self.publish(game_id, new_events)
            return result
        raise VersionConflict("the game kept changing under this command; retry", field=None)
