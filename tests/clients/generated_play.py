"""Run by tests/clients/test_generated_sdk.py in a subprocess whose path holds only the Python client that
openapi-python-client generated from openapi/openapi.json (package ``salvo_client``, named from the
document's title): it plays a GSC2 duel to its end as red (the first option each time, with If-Match)
against the server's rules bot in blue, reads the game as a spectator (no token), exports the battle file
and imports it back. Prints one JSON line of what it saw.

    python generated_play.py BASE_URL
"""

from __future__ import annotations

import io
import json
import sys
import time

from salvo_client import AuthenticatedClient, Client
from salvo_client.api.bots import post_bot
from salvo_client.api.games import create_game, get_events, get_game, get_options, post_command
from salvo_client.api.replay import get_export, post_import
from salvo_client.models import (
    CommandAccepted,
    CommandRequest,
    CreateGame,
    GameCreatedResponse,
    GameSummary,
    Problem,
    SeatBot,
)
from salvo_client.types import File


def main(base: str) -> None:
    spectator = Client(base_url=base, raise_on_unexpected_status=True)
    game = create_game.sync(client=spectator, body=CreateGame(ruleset="gsc2", scenario="duel"))
    assert isinstance(game, GameCreatedResponse), game
    umpire = AuthenticatedClient(base_url=base, token=game.umpire_token, raise_on_unexpected_status=True)
    red = AuthenticatedClient(base_url=base, token=game.seats["red"], raise_on_unexpected_status=True)
    seated = post_bot.sync(game.game_id, client=umpire, body=SeatBot(seat="blue", bot="rules"))
    assert not isinstance(seated, Problem), seated
    commands = conflicts = 0
    answered: set[str] = set()
    summary = get_game.sync(game.game_id, client=spectator)
    deadline = time.monotonic() + 120
    while isinstance(summary, GameSummary) and not summary.over and time.monotonic() < deadline:
        opts = get_options.sync(game.game_id, client=red)
        if opts.options:
            answer = post_command.sync(
                game.game_id,
                client=red,
                if_match=str(opts.version),
                body=CommandRequest(command=opts.options[0].command),
            )
            if isinstance(answer, Problem):
                assert answer.status == 409, answer.to_dict()  # the bot moved first: a typed conflict
                conflicts += 1
            else:
                assert isinstance(answer, CommandAccepted)
                commands += 1
                answered |= {type(e).__name__ for e in answer.events}
        else:
            time.sleep(0.05)
        summary = get_game.sync(game.game_id, client=spectator)
    events = get_events.sync(game.game_id, client=spectator).events
    battle = get_export.sync(game.game_id, client=umpire)
    content = battle.payload.read()
    imported = post_import.sync(client=spectator, body=File(payload=io.BytesIO(content), file_name="duel.jsonl"))
    print(
        json.dumps(
            {
                "over": bool(isinstance(summary, GameSummary) and summary.over),
                "commands": commands,
                "conflicts": conflicts,
                "answered": sorted(answered),
                "events": [[e.type_, type(e).__name__, type(e.data).__name__] for e in events],  # `type` is type_ there
                "export_lines": content.count(b"\n"),
                "imported": isinstance(imported, GameCreatedResponse) and imported.verified is True,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
