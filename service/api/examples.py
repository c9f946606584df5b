"""Examples shown in the OpenAPI document (what the service really answers, abridged)."""

from __future__ import annotations

from typing import Any

GAME = "g_3f9a0c51d2e84b17"


def _problem(status: int, kind: str, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"type": f"/problems/{kind}", "title": title, "status": status, "detail": detail, **extra}


PROBLEM_EXAMPLES: dict[int, dict[str, Any]] = {
    401: {"unknown-token": _problem(401, "Unauthorized", "Unknown token", "the token is not valid for this game")},
    403: {
        "spectator": _problem(
            403,
            "rule/NO-SEAT",
            "Not your piece",
            "spectators issue no commands: send a seat or umpire token",
            rule="NO-SEAT",
        )
    },
    404: {"no-game": _problem(404, "GameNotFound", "Game not found", f"no game {GAME!r}")},
    409: {
        "moved-on": _problem(
            409, "VersionConflict", "Version conflict", "expected version 41, the game is at 43", field="If-Match"
        )
    },
    413: {"too-large": _problem(413, "TooLarge", "Request body too large", "bodies are limited to 65536 bytes")},
    422: {
        "rule": _problem(
            422, "rule/GSC2-SEQ-1", "Rule violation", "the game has already started", rule="GSC2-SEQ-1", code="rule"
        ),
        "field": _problem(
            422,
            "MalformedCommand",
            "Malformed command",
            "Expected `int`, got `str` - at `$.command.distance`",
            field="$.command.distance",
        ),
    },
    429: {
        "slow-down": _problem(
            429, "TooManyRequests", "Too many requests", "too many commands (limit 100 per 1 second); retry later"
        )
    },
}

REQUEST_EXAMPLES: dict[str, dict[str, Any]] = {
    "create_game": {"sample-scenario": {"ruleset": "gsc2", "scenario": "duel"}},
    "post_command": {
        "start": {"command": {"type": "gsc2.start"}},
        "salted": {"command": {"type": "gsc2.start"}, "salt": "my-own-entropy"},
    },
    "post_bot": {"play-against-the-computer": {"seat": "blue", "bot": "rules"}},
    "post_rewind": {"to-a-turn": {"turn": 2, "reason": "the blue player misread the range"}},
}

RESPONSE_EXAMPLES: dict[str, Any] = {
    "GameCreatedResponse": {
        "game_id": GAME,
        "ruleset": "gsc2",
        "ruleset_version": "1.0",
        "seats": {"red": "Zr0…(shown once)", "blue": "q8W…(shown once)"},
        "umpire_token": "u1K…(shown once)",
        "dice_commitment": "5d41402abc4b2a76b9719d911017c592…",
        "version": 2,
        "links": {"self": f"/v1/games/{GAME}", "stream": f"/v1/games/{GAME}/stream", "spectate": f"/?game={GAME}"},
    },
    "SeatedBot": {
        "game_id": GAME,
        "seat": "blue",
        "bot": "rules",
        "stand_in": False,
        "moves": 0,
        "state": "waiting",
        "error": None,
        "refused": [],
    },
    "Rewound": {"version": 58, "rewound_to": 40},
}
