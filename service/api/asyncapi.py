"""AsyncAPI 3.0 for WS /v1/games/{game_id}/stream, generated from the same frame structs as the server's
(``contract.py``) and the same schema builder as the OpenAPI document. Prose: openapi/websocket.md.

Described from the service's side: it *sends* frames to a connection and *receives* commands, answering
each on the same socket (``reply``).
"""

from __future__ import annotations

from typing import Any

from . import contract as c
from .openapi_schema import components_for

CHANNEL = "gameStream"


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
            "local": {"host": "127.0.0.1:8000", "protocol": "ws", "description": "salvo serve (use wss behind TLS)"}
        },
        "channels": {
            CHANNEL: {
                "address": "/v1/games/{game_id}/stream",
                "title": "One game's event stream",
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
            }
        },
        "operations": {
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
            "schemas": components_for(list(frames), with_commands=False),
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
