"""AsyncAPI 3.0 for WS /v1/games/{game_id}/stream, generated from the same frame structs as the server's
(``contract.py``) and the same schema builder as the OpenAPI document. Prose: openapi/websocket.md.

Described from the service's side: it *sends* frames to a connection and *receives* commands, answering
each on the same socket (``reply``).
"""

from __future__ import annotations

from typing import Any

from . import contract as c
from . import player_contract as pc
from .openapi_schema import components_for

CHANNEL = "gameStream"
NOTIFY = "notifications"  # issue 40: what the service sends to a player's webhook or push endpoint


def _message(frame: type[Any]) -> dict[str, Any]:
    name = frame.__struct_config__.tag
    doc = (frame.__doc__ or name).strip()
    return {
        "name": name,
        "title": frame.__name__,
        "summary": doc.splitlines()[0],
        "contentType": "application/json",
        "payload": {"$ref": f"#/components/schemas/{frame.__name__}"},
    }


def _refs(frames: tuple[type[Any], ...]) -> list[dict[str, str]]:
    return [{"$ref": f"#/channels/{CHANNEL}/messages/{f.__struct_config__.tag}"} for f in frames]


def build_asyncapi(version: str) -> dict[str, Any]:
    frames = (*c.SERVER_FRAMES, *c.CLIENT_FRAMES)
    replies = (c.ResultFrame, c.ErrorFrame)
    security = [{"$ref": "#/components/securitySchemes/subprotocol"}, {"$ref": "#/components/securitySchemes/bearer"}]
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Salvo game stream",
            "version": version,
            "description": "Catch-up from ?after=SEQ, then live envelopes for the caller's view (seats, the "
            "umpire, spectators: each sees only what it may). Reconnect with after=<last seq "
            "seen> on any drop: nothing is lost or repeated. Close code 1013 with reason "
            '"slow consumer; resume after=N" asks for exactly that; 1008 follows an error '
            "frame (bad token, unknown game). Time and the table (issue 39) are envelopes like any other: "
            "table.message (table talk, only to its audience), deadline.set and deadline.passed, clock.set "
            "and clock.ran_out (the command the service appends follows each, as the umpire); the time "
            "left is GET /v1/games/{id}/deadline. The spectators' channel is never in the log: its "
            "messages come live as spectator_message frames to spectators' and the umpire's "
            "connections only. See openapi/websocket.md.",
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {"host": "127.0.0.1:8000", "protocol": "ws", "description": "salvo serve (use wss behind TLS)"},
            **NOTIFY_SERVERS,
        },
        "channels": {
            CHANNEL: {
                "address": "/v1/games/{game_id}/stream",
                "title": "One game's event stream",
                "servers": [{"$ref": "#/servers/local"}],
                "parameters": {"game_id": {"description": "the game's id, e.g. g_3f9a0c51d2e84b17"}},
                "messages": {f.__struct_config__.tag: _message(f) for f in frames},
                "bindings": {
                    "ws": {
                        "bindingVersion": "0.1.0",
                        "query": {
                            "type": "object",
                            "properties": {
                                "after": {
                                    "type": "integer",
                                    "minimum": 0,
                                    "default": 0,
                                    "description": "the last seq already seen (0: everything)",
                                },
                                "join": {
                                    "type": "string",
                                    "enum": ["present"],
                                    "description": "present: a `snapshot` frame (the view at the head) first, then "
                                    "only the events after it, whatever `after` says",
                                },
                                "own_events": {
                                    "type": "string",
                                    "enum": ["result"],
                                    "description": "result: the events of a command sent on this socket "
                                    "come in its `result` frame only, not again as `event` "
                                    "frames",
                                },
                                "frames": {
                                    "type": "string",
                                    "enum": ["view"],
                                    "description": "view: each update's last message carries `view`, the "
                                    "viewer's view and options after it (no GET per update)",
                                },
                                "history": {
                                    "type": "string",
                                    "enum": ["compact"],
                                    "description": "compact: catch-up comes as `events` pages (each entry "
                                    "only what differs from the entries before it) instead "
                                    "of one `event` frame per envelope",
                                },
                            },
                        },
                        # never a token in the URL (it would end up in logs): a ?token= is refused (1008)
                        "headers": {
                            "type": "object",
                            "properties": {
                                "Authorization": {"type": "string", "description": "Bearer <seat or umpire token>"},
                                "Sec-WebSocket-Protocol": {
                                    "type": "string",
                                    "description": "salvo.v1, salvo.token.<token> (browsers)",
                                },
                            },
                        },
                    }
                },
            },
            NOTIFY: NOTIFY_CHANNEL,
        },
        "operations": {
            "sendNotification": {
                "action": "send",
                "channel": {"$ref": f"#/channels/{NOTIFY}"},
                "summary": "A player's notification (your turn, a battle needs you, a ruling, a rewind, the game "
                "over, a subscription paused) to each of their subscriptions: at least once, one Idempotency-Key "
                "per notification, from the transactional outbox",
                "messages": [{"$ref": f"#/channels/{NOTIFY}/messages/{name}"} for name in NOTIFY_CHANNEL["messages"]],
            },
            "sendFrames": {
                "action": "send",
                "channel": {"$ref": f"#/channels/{CHANNEL}"},
                "summary": "Envelopes in seq order (or a snapshot, then the envelopes after it), caught_up "
                "once, heartbeats, the spectators' channel (spectators and the umpire); errors before a 1008 "
                "close",
                "messages": _refs(c.SERVER_FRAMES),
                "security": security,
            },
            "receiveCommand": {
                "action": "receive",
                "channel": {"$ref": f"#/channels/{CHANNEL}"},
                "summary": "A seat's or the umpire's command: the same decide path as POST /commands",
                "messages": _refs(c.CLIENT_FRAMES),
                "security": security,
                "reply": {"channel": {"$ref": f"#/channels/{CHANNEL}"}, "messages": _refs(replies)},
            },
        },
        "components": {
            # commands stay generic here, so this document changes only when the frames do
            "schemas": components_for([*frames, pc.Notification], with_commands=False),
            "securitySchemes": {
                "subprotocol": {
                    "type": "httpApiKey",
                    "in": "header",
                    "name": "Sec-WebSocket-Protocol",
                    "description": 'browsers: new WebSocket(url, ["salvo.v1", '
                    '"salvo.token.<token>"]); the server accepts salvo.v1',
                },
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "Authorization: Bearer <seat or umpire token> on the upgrade request",
                },
            },
        },
    }


# issue 40: notifications leave the service as HTTP POSTs to the URL a player subscribed (a webhook, or a
# browser's Web Push endpoint); docs/notifications.md
NOTIFY_SERVERS = {
    "subscriber": {
        "host": "{host}",
        "protocol": "https",
        "description": "a player's webhook receiver or a push service: the subscription's url (POST /v1/players/"
        "me/subscriptions); only public addresses unless SALVO_WEBHOOK_ALLOW names them",
        "variables": {"host": {"description": "the subscription url's host"}},
    }
}
_SIGNED = {
    "type": "object",
    "properties": {
        "X-Salvo-Signature": {
            "type": "string",
            "description": 'sha256=<hex HMAC-SHA256 of "<X-Salvo-Timestamp>." + body> under the subscription\'s secret',
        },
        "X-Salvo-Timestamp": {"type": "string", "description": "unix seconds"},
        "Idempotency-Key": {"type": "string", "description": "the notification's id, repeated on a redelivery"},
        "X-Salvo-Event": {"type": "string", "description": "the notification's type"},
    },
}


def _json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An inline payload as a multi-format schema object (AsyncAPI 3.0): the format named, then the schema."""
    return {"schemaFormat": "application/schema+json;version=draft-07", "schema": schema}


NOTIFY_CHANNEL: dict[str, Any] = {
    "address": None,  # the subscription's own url
    "title": "A player's notifications",
    "servers": [{"$ref": "#/servers/subscriber"}],
    "messages": {
        "notification": {
            "name": "notification",
            "title": "Notification",
            "summary": "kind json: the notification itself, signed (it carries only what its seat may see)",
            "contentType": "application/json",
            "headers": _SIGNED,
            "payload": {"$ref": "#/components/schemas/Notification"},
        },
        "chat": {
            "name": "chat",
            "title": "Chat notification",
            "summary": "kind discord ({content, allowed_mentions}) or slack ({text}): the notification's text, "
            "signed likewise",
            "contentType": "application/json",
            "headers": _SIGNED,
            "payload": _json_schema(
                {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string"},
                        "text": {"type": "string"},
                        "allowed_mentions": {"type": "object"},
                    },
                }
            ),
        },
        "push": {
            "name": "push",
            "title": "Web Push message",
            "summary": "kind webpush: the JSON notification encrypted to the browser's keys (aes128gcm, RFC "
            "8291), with a VAPID Authorization (RFC 8292; the key is GET /v1/push/key)",
            "contentType": "application/octet-stream",
            "payload": _json_schema({"type": "string", "format": "binary"}),
        },
    },
}
