"""`salvo bot`: a computer opponent playing a seat from outside, as a client holding the seat's token.

It sees what the seat sees over HTTP (the view with its drawing, the options and forms), asks the
ruleset's bot (``service.events.bots``: the same choice and fallbacks as the in-process runner) and sends
the command with the version it looked at, exactly as a person's client would.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from service.domain.core import find_ruleset
from service.events.bots import candidates, decode_options, find_bot, must_act

from .clientpath import salvo_client


def play_seat(
    url: str, game_id: str, token: str, bot_name: str = "rules", poll_seconds: float = 0.2, log: Any = print
) -> int:
    client_module = salvo_client()
    with client_module.SalvoClient(url, token) as client:
        summary = client.game(game_id)
        me = summary.viewer.removeprefix("seat:")
        if not summary.viewer.startswith("seat:"):
            log("a bot needs a seat token")
            return 2
        ruleset = find_ruleset(summary.ruleset)
        bot = find_bot(ruleset, bot_name)
        log(f"bot {bot_name} plays {me} in {game_id}")
        moves = 0
        while not summary.over:
            payload = msgspec.to_builtins(client.options(game_id))
            options, forms = decode_options(ruleset, payload)
            if (options or forms) and must_act(summary.state):
                moves += _move(client, client_module.ApiError, game_id, summary, bot, options, forms, me)
            else:
                time.sleep(poll_seconds)
            summary = client.game(game_id)
        log(f"game over after {moves} moves of {me}: {summary.status.get('result') or 'finished'}")
    return 0


def _move(
    client: Any, api_error: type[Exception], game_id: str, summary: Any, bot: Any, options: Any, forms: Any, me: str
) -> int:
    for command in candidates(bot, summary.state, options, forms, me, summary.version):
        try:
            client.command(game_id, msgspec.to_builtins(command), if_match=summary.version)
            return 1
        except api_error as exc:
            if getattr(exc, "status", None) == 409:
                return 0  # the game moved on: look again
    return 0
