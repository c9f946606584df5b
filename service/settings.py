"""Service settings, read once from the environment (SALVO_*) by the CLI or the app factory."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


@dataclass(frozen=True)
class Settings:
    database_url: str = "sqlite:///var/salvo.db"
    snapshot_every: int = 500
    max_body_bytes: int = 64 * 1024
    max_import_bytes: int = 64 * 1024 * 1024  # battle files are long logs
    ws_queue_size: int = 1024
    ws_send_timeout: float = 10.0
    heartbeat_seconds: float = 15.0
    redis_url: str | None = None
    plugin_rulesets: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    signing_key_file: str | None = None  # the battle-file signing key; None: kept in the database
    trusted_keys_file: str | None = None  # other servers' keys (the shape of GET /.well-known/salvo-keys)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "database_url": _env("DATABASE_URL", _env("SALVO_DATABASE_URL", cls.database_url)),
            "snapshot_every": int(_env("SALVO_SNAPSHOT_EVERY", str(cls.snapshot_every))),
            "max_body_bytes": int(_env("SALVO_MAX_BODY_BYTES", str(cls.max_body_bytes))),
            "ws_queue_size": int(_env("SALVO_WS_QUEUE_SIZE", str(cls.ws_queue_size))),
            "heartbeat_seconds": float(_env("SALVO_HEARTBEAT_SECONDS", str(cls.heartbeat_seconds))),
            "redis_url": os.environ.get("REDIS_URL") or None,
            "signing_key_file": os.environ.get("SALVO_SIGNING_KEY_FILE") or None,
            "trusted_keys_file": os.environ.get("SALVO_TRUSTED_KEYS_FILE") or None,
            "plugin_rulesets": tuple(
                tuple(item.split("=", 1)) for item in _env("SALVO_RULESETS", "").split(",") if "=" in item
            ),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
