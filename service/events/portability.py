"""Battle files (export / import as JSON lines) and forks. Both create games that inherit events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from service.domain.core import Viewer

from .application import CreatedGame, GameService, Lineage, now_iso
from .battlefile import (
    BattleFile,
    BattleHeader,
    bad,
    check_battle_file,
    parse_battle_file,
    record_hash,
    state_hash,
    validate_battle_file,
)
from .envelope import SERVICE_EVENT_TYPES, GameCreated, GameRewound
from .errors import Forbidden, ImportTooLarge, InvalidRequest
from .reading import GameReader
from .replay import Decoded, command_end, decode_rows, effective_rewinds, superseded_seqs
from .sealing import FORMAT, chain, signed_message
from .signing import Keyring, SignatureProblem

EXPORT_PAGE_ROWS = 1000


async def export_game(service: GameService, game_id: str, viewer: Viewer, keyring: Keyring) -> bytes:
    """Header line, then every envelope the viewer may see (superseded ones marked), as JSON lines; the
    lines are hash-chained and the header signed with this server's active key."""
    reader = GameReader(service)
    head = await service.head(game_id)
    game_row = await service.store.game(game_id)
    assert game_row is not None  # service.head found the game
    setup = msgspec.json.decode(game_row.setup)
    encoder = msgspec.json.Encoder()
    # a page of the log at a time, each envelope encoded at once: the export holds its lines, not the log's
    # envelopes (nor its states: the fold goes on from the state after the previous page)
    lines: list[bytes] = []
    created_data: dict[str, Any] | None = None
    state = None if viewer.is_umpire else head.ruleset.initial_state(head.setup)
    after = 0
    while after < head.seq:
        rows = await service.store.read_events(game_id, after=after, upto=head.seq, limit=EXPORT_PAGE_ROWS)
        if not rows:
            break
        envelopes, state = await reader.render_from(head, viewer, after, rows, state)
        if created_data is None and envelopes:
            created_data = envelopes[0].data
        lines += [encoder.encode(e) for e in envelopes]
        after = int(rows[-1].seq)
    header = BattleHeader(
        format=FORMAT,
        game_id=game_id,
        ruleset=head.ruleset.name,
        ruleset_version=game_row.ruleset_version,
        setup=setup if viewer.is_umpire else head.ruleset.redact_setup(setup, viewer),
        events=head.seq,
        state_hash=record_hash(head.ruleset, head.state, viewer),
        exported_at=now_iso(),
        scenario_name=game_row.scenario_name,
        viewer=viewer.label,
        digests=chain(lines),
        unverified=_unverified(created_data) if created_data is not None else None,
    )
    raw_header = msgspec.to_builtins(header)
    raw_header["signature"] = keyring.sign(signed_message(raw_header))
    return b"\n".join([encoder.encode(raw_header), *lines]) + b"\n"


def _unverified(created_data: dict[str, Any]) -> str | None:
    reason = created_data.get("options", {}).get("unverified")
    return str(reason) if reason else None


def check_signature(battle: BattleFile, keyring: Keyring, allow_unverified: bool) -> str | None:
    """None when a key this server trusts signed the file; else why not, when the caller accepts that.

    A signature that does not verify with a trusted key is a forgery and is always refused; an unsigned
    file, or one signed by a key this server does not know, is refused unless the caller asks for it.
    """
    signature = battle.raw_header.get("signature")
    if signature is None:
        reason = f"the file is not signed ({battle.header.format})"
    else:
        try:
            keyring.verify(signature, signed_message(battle.raw_header))
            return battle.header.unverified  # a trusted server's record of an unverified game stays unverified
        except SignatureProblem as exc:
            if signature.get("key_id") in keyring.own or signature.get("key_id") in keyring.trusted:
                raise bad(1, f"signature: {exc} (the file was altered after it was signed)") from None
            reason = str(exc)
    if not allow_unverified:
        raise bad(1, f"signature: {reason}; import it with allow_unverified=true to accept it, marked unverified")
    return reason


def effective_ruleset_events(decoded: list[Decoded], upto: int) -> list[tuple[Any, Any]]:
    """The events a fork or import inherits: effective (not superseded), ruleset events, up to a seq."""
    within = [d for d in decoded if d.seq <= upto]
    rewinds = [(d.seq, d.event.to_seq) for d in within if isinstance(d.event, GameRewound)]
    superseded = superseded_seqs(effective_rewinds(rewinds), (d.seq for d in within))
    return [
        (d.row, d.event) for d in within if d.seq not in superseded and not isinstance(d.event, SERVICE_EVENT_TYPES)
    ]


@dataclass(frozen=True)
class ImportLimits:
    """What one battle file may hold (operator settings: SALVO_MAX_IMPORT_EVENTS, SALVO_MAX_GAME_BYTES)."""

    max_events: int | None = None
    max_state_bytes: int | None = None


async def import_game(
    service: GameService,
    body: bytes,
    keyring: Keyring,
    allow_unverified: bool = False,
    limits: ImportLimits = ImportLimits(),
) -> tuple[CreatedGame, BattleHeader, str | None]:
    """A new game from a battle file: (created game, header, why it is unverified or None)."""
    if limits.max_events is not None:
        lines = body.count(b"\n") + (0 if body.endswith(b"\n") else 1)
        if lines - 1 > limits.max_events:
            raise ImportTooLarge(
                f"the file holds {lines - 1:,} event lines, more than this server imports "
                f"({limits.max_events:,}, SALVO_MAX_IMPORT_EVENTS)",
                field="events",
            )
    battle = parse_battle_file(body)
    header, decoded, _state = check_battle_file(battle, limits.max_state_bytes)
    unverified = check_signature(battle, keyring, allow_unverified)
    inherited = effective_ruleset_events(decoded, upto=len(decoded))
    options: dict[str, Any] = {"imported_from": header.game_id}
    if unverified:
        options["unverified"] = unverified
    created = await service.create_game(
        header.ruleset,
        header.setup,
        options,
        lineage=Lineage(header.game_id, len(decoded), inherited),
    )
    return created, header, unverified


async def fork_game(service: GameService, game_id: str, viewer: Viewer, at: int | None) -> CreatedGame:
    head = await service.head(game_id)
    if not viewer.is_umpire and head.ruleset.hidden_information:
        raise Forbidden("only the umpire may fork a game with hidden information (a fork's umpire sees all)")
    at = head.seq if at is None else at
    if not 1 <= at <= head.seq:
        raise InvalidRequest(f"at must be between 1 and {head.seq}", field="at")
    at = await command_end(service.store, game_id, at, head.seq)  # a fork goes on from a command boundary
    rows = await service.store.read_events(game_id, upto=at)
    decoded = decode_rows(head.codec, rows)
    created_event = decoded[0].event
    assert isinstance(created_event, GameCreated)
    options: dict[str, Any] = {"fork_of": game_id, "at": at}
    if created_event.options.get("unverified"):
        options["unverified"] = created_event.options["unverified"]  # a fork of an unverified game is too
    created = await service.create_game(
        head.ruleset.name,
        created_event.setup,
        options,
        lineage=Lineage(game_id, at, effective_ruleset_events(decoded, at)),
    )
    created.forked_at = at
    return created


__all__ = ["BattleHeader", "export_game", "fork_game", "import_game", "state_hash", "validate_battle_file"]
