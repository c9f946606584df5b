"""Service settings, read once from the environment (SALVO_*) by the CLI or the app factory.

Every setting is documented in README.md ("Settings"); keep the two in step.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def _list(name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in _env(name, "").split(",") if item.strip())


_ON, _OFF = frozenset(("on", "1", "true", "yes")), frozenset(("off", "0", "false", "no"))


def fast_path_from_env() -> bool:
    """SALVO_FAST_PATH: ``on`` (the default) or ``off``. Also the default of ``Settings.fast_path``, so a
    process (a test run) started with SALVO_FAST_PATH=off builds every app on the plain path."""
    value = _env("SALVO_FAST_PATH", "on").strip().lower()
    if value not in _ON | _OFF:
        raise ValueError(f"SALVO_FAST_PATH: 'on' or 'off', not {value!r}")
    return value in _ON


@dataclass(frozen=True)
class Settings:
    database_url: str = "sqlite:///var/salvo.db"
    snapshot_every: int = 500
    max_body_bytes: int = 64 * 1024
    max_import_bytes: int = 64 * 1024 * 1024  # battle files are long logs
    max_import_events: int = 200_000  # event lines one battle file may hold
    head_cache_bytes: int = 256 * 1024 * 1024  # all cached heads' states, as encoded (LRU evicts past it)
    max_game_bytes: int = 16 * 1024 * 1024  # one game's state, as encoded: a larger game is refused (507/413)
    ws_queue_size: int = 1024
    ws_send_timeout: float = 10.0  # a socket that takes longer to accept one frame is a slow consumer
    ws_close_timeout: float = 30.0  # how long a slow consumer's close frame waits behind its backlog
    # a socket written directly (pre-framed fan-out) whose unsent bytes pass this is a slow consumer
    ws_buffer_limit: int = 1 << 20
    heartbeat_seconds: float = 15.0
    redis_url: str | None = None
    # what a replica hears from Redis: "all" (every game: a command replica's cached heads stay fresh) or
    # "games" (only games with a listener here: socket processes; reads then check the stored head)
    redis_subscribe: str = "all"
    plugin_rulesets: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    signing_key_file: str | None = None  # the battle-file signing key; None: kept in the database
    trusted_keys_file: str | None = None  # other servers' keys (the shape of GET /.well-known/salvo-keys)
    head_cache_size: int = 2000  # game heads kept in memory (least recently used evicted)
    token_cache_size: int = 100_000
    # rate limits ("N/second", "N/minute"...; "off" disables one)
    rate_commands_per_token: str = "100/second"
    rate_commands_per_address: str = "1000/second"
    rate_auth_failures_per_address: str = "30/minute"
    rate_imports_per_address: str = "30/minute"  # POST /v1/games/import
    rate_messages_per_token: str = "30/minute"  # table talk, per seat or umpire token (issue 39)
    rate_spectator_messages_per_address: str = "10/minute"  # the spectators' channel, per client address
    deadline_tick_seconds: float = 0.5  # how often due deadlines are looked for (docs/deadlines.md)
    ws_origins: tuple[str, ...] = ()  # extra Origins allowed on websockets (same-origin always is; "*": any)
    cors_origins: tuple[str, ...] = ()  # Origins allowed by CORS on the HTTP API (none by default)
    log_format: str = "json"  # or "text"
    # players and notifications (issue 40)
    rate_players_per_address: str = "20/hour"  # POST /v1/players (each a new identity)
    # webhook targets allowed although private, loopback or link-local: hosts, addresses or networks (CIDR)
    webhook_allow: tuple[str, ...] = ()
    webhook_timeout: float = 5.0  # seconds to connect, and again to read the answer
    notify_poll_seconds: float = 0.25  # how often the notifier looks for notifications due
    vapid_subject: str = "mailto:salvo@localhost"  # Web Push: the operator's contact push services are given
    # passkeys (WebAuthn): the relying party id ("": the host the page was loaded from) and the origins a
    # ceremony may come from (none: that host's own, https or http)
    webauthn_rp_id: str = ""
    webauthn_origins: tuple[str, ...] = ()
    # the fast transport (service/api: lean POST /commands, Salvo's uvicorn protocols, the pre-framed
    # fan-out); off: the plain FastAPI/Starlette/uvicorn path only, the reference (README, "Settings")
    fast_path: bool = field(default_factory=fast_path_from_env)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "database_url": _env("DATABASE_URL", _env("SALVO_DATABASE_URL", cls.database_url)),
            "snapshot_every": int(_env("SALVO_SNAPSHOT_EVERY", str(cls.snapshot_every))),
            "max_body_bytes": int(_env("SALVO_MAX_BODY_BYTES", str(cls.max_body_bytes))),
            "max_import_bytes": int(_env("SALVO_MAX_IMPORT_BYTES", str(cls.max_import_bytes))),
            "max_import_events": int(_env("SALVO_MAX_IMPORT_EVENTS", str(cls.max_import_events))),
            "head_cache_bytes": int(_env("SALVO_HEAD_CACHE_BYTES", str(cls.head_cache_bytes))),
            "max_game_bytes": int(_env("SALVO_MAX_GAME_BYTES", str(cls.max_game_bytes))),
            "ws_queue_size": int(_env("SALVO_WS_QUEUE_SIZE", str(cls.ws_queue_size))),
            "ws_send_timeout": float(_env("SALVO_WS_SEND_TIMEOUT", str(cls.ws_send_timeout))),
            "ws_close_timeout": float(_env("SALVO_WS_CLOSE_TIMEOUT", str(cls.ws_close_timeout))),
            "ws_buffer_limit": int(_env("SALVO_WS_BUFFER_LIMIT", str(cls.ws_buffer_limit))),
            "heartbeat_seconds": float(_env("SALVO_HEARTBEAT_SECONDS", str(cls.heartbeat_seconds))),
            "redis_url": os.environ.get("REDIS_URL") or None,
            "redis_subscribe": _env("SALVO_REDIS_SUBSCRIBE", cls.redis_subscribe),
            "signing_key_file": os.environ.get("SALVO_SIGNING_KEY_FILE") or None,
            "trusted_keys_file": os.environ.get("SALVO_TRUSTED_KEYS_FILE") or None,
            "plugin_rulesets": tuple(
                tuple(item.split("=", 1)) for item in _env("SALVO_RULESETS", "").split(",") if "=" in item
            ),
            "head_cache_size": int(_env("SALVO_HEAD_CACHE_SIZE", str(cls.head_cache_size))),
            "token_cache_size": int(_env("SALVO_TOKEN_CACHE_SIZE", str(cls.token_cache_size))),
            "rate_commands_per_token": _env("SALVO_RATE_COMMANDS_PER_TOKEN", cls.rate_commands_per_token),
            "rate_commands_per_address": _env("SALVO_RATE_COMMANDS_PER_ADDRESS", cls.rate_commands_per_address),
            "rate_auth_failures_per_address": _env(
                "SALVO_RATE_AUTH_FAILURES_PER_ADDRESS", cls.rate_auth_failures_per_address
            ),
            "rate_imports_per_address": _env("SALVO_RATE_IMPORTS_PER_ADDRESS", cls.rate_imports_per_address),
            "rate_messages_per_token": _env("SALVO_RATE_MESSAGES_PER_TOKEN", cls.rate_messages_per_token),
            "rate_spectator_messages_per_address": _env(
                "SALVO_RATE_SPECTATOR_MESSAGES_PER_ADDRESS", cls.rate_spectator_messages_per_address
            ),
            "deadline_tick_seconds": float(_env("SALVO_DEADLINE_TICK_SECONDS", str(cls.deadline_tick_seconds))),
            "ws_origins": _list("SALVO_WS_ORIGINS"),
            "cors_origins": _list("SALVO_CORS_ORIGINS"),
            "log_format": _env("SALVO_LOG_FORMAT", cls.log_format),
            "rate_players_per_address": _env("SALVO_RATE_PLAYERS_PER_ADDRESS", cls.rate_players_per_address),
            "webhook_allow": _list("SALVO_WEBHOOK_ALLOW"),
            "webhook_timeout": float(_env("SALVO_WEBHOOK_TIMEOUT", str(cls.webhook_timeout))),
            "notify_poll_seconds": float(_env("SALVO_NOTIFY_POLL_SECONDS", str(cls.notify_poll_seconds))),
            "vapid_subject": _env("SALVO_VAPID_SUBJECT", cls.vapid_subject),
            "webauthn_rp_id": _env("SALVO_WEBAUTHN_RP_ID", cls.webauthn_rp_id),
            "webauthn_origins": _list("SALVO_WEBAUTHN_ORIGINS"),
            "fast_path": fast_path_from_env(),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
