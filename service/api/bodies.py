"""Request bodies decoded by msgspec (errors name the field) and the shared shape of a created game."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from service.events.application import CreatedGame
from service.events.errors import InvalidRequest, field_of

T = TypeVar("T")


def decode_body(raw: bytes, type_: type[T]) -> T:
    try:
        return msgspec.json.decode(raw, type=type_)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(str(exc), field=field_of(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise InvalidRequest(f"the body is not valid JSON: {exc}", field="$") from None


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
