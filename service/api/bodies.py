"""Request bodies decoded by msgspec (errors name the field) and the shared shape of a created game."""

from __future__ import annotations

from typing import Any, TypeVar

from service.events.application import CreatedGame
from service.events.inputs import decode_json

T = TypeVar("T")


def decode_body(raw: bytes, type_: type[T]) -> T:
    return decode_json(raw, type_)


def created_body(created: CreatedGame, **extra: Any) -> dict[str, Any]:
    """What POST /v1/games, /fork and /import answer: the tokens are shown here once, never again."""
    base = f"/v1/games/{created.game_id}"
    return {
        "game_id": created.game_id,
        "ruleset": created.ruleset,
        "ruleset_version": created.ruleset_version,
        "seats": created.seat_tokens,
        "umpire_token": created.umpire_token,
        "dice_commitment": created.commitment,
        "version": created.version,
        "links": {"self": base, "stream": f"{base}/stream", "spectate": f"/?game={created.game_id}"},
        **extra,
    }
