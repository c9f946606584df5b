"""Application-level failures, each mapped to one HTTP status by the API."""

from __future__ import annotations


class AppError(Exception):
    status = 400
    title = "Bad request"

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field


class GameNotFound(AppError):
    status = 404
    title = "Game not found"


class NotFound(AppError):
    status = 404
    title = "Not found"


class Forbidden(AppError):
    status = 403
    title = "Forbidden"


class Unauthorized(AppError):
    status = 401
    title = "Unknown token"


class VersionConflict(AppError):
    status = 409
    title = "Version conflict"


class IdempotencyMismatch(AppError):
    status = 422
    title = "Idempotency-Key reused with a different request"


class MalformedCommand(AppError):
    status = 422
    title = "Malformed command"


class GameTooLarge(AppError):
    """A game whose state is past this server's memory budget for one game: refused, never folded into an
    out-of-memory (SALVO_MAX_GAME_BYTES)."""

    status = 507
    title = "Game too large"


class ImportTooLarge(AppError):
    """A battle file past the operator's import limits (events, bytes, or the state it folds to)."""

    status = 413
    title = "Battle file too large"


class InvalidRequest(AppError):
    status = 422
    title = "Invalid request"


def field_of(message: str) -> str:
    """msgspec names the offending field as "... - at `$.a.b`"; "$" when it is the whole value."""
    return message.rsplit("at `", 1)[-1].rstrip("`") if "at `" in message else "$"
