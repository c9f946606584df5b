"""`salvo play` when the game moves on while its menu is up (issue 35: 7 of 24 choices came back "the game moved
on meanwhile" while a bot acted). Against a live GSC2 duel, blue acts between red's menu and red's answer at
every prompt where it can: a choice still offered at the new version is sent again and done; one no longer
open (blue started the game first) is said so and the new menu shown; the prompt never fails a choice."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from salvo_client import SalvoClient
from salvo_client.models import GameSummary, OptionsResponse
from salvo_client.play import PROMPT, awaited, play

from tests.support.server import ServerProcess


class BlueMovesFirst:
    """Red's client for play(); blue (another seat, played here) takes its first option whenever red is not
    awaited, and (ask, below) between red's menu and red's answer, so the game moves on as with a bot."""

    def __init__(self, red: SalvoClient, blue: SalvoClient, game_id: str) -> None:
        self.red, self.blue, self.game_id = red, blue, game_id
        self.commands: list[tuple[dict[str, Any], int | None]] = []

    def blue_acts(self) -> bool:
        opts = self.blue.options(self.game_id)
        if not opts.options:
            return False
        self.blue.command(self.game_id, opts.options[0].command)
        return True

    def game(self, game_id: str) -> GameSummary:
        if not awaited(self.red.game(game_id), self.red.options(game_id)):
            self.blue_acts()  # red waits for blue: blue's move
        return self.red.game(game_id)

    def options(self, game_id: str) -> OptionsResponse:
        return self.red.options(game_id)

    def command(self, game_id: str, command: dict[str, Any], if_match: int | None = None) -> Any:
        self.commands.append((command, if_match))
        return self.red.command(game_id, command, if_match=if_match)


def test_play_resends_a_choice_still_open_and_redraws_one_that_is_not(live_server: ServerProcess) -> None:
    with SalvoClient(live_server.url) as salvo:
        game = salvo.create_game("gsc2", "duel")
        red = salvo.with_token(game.seats["red"])
        racing = BlueMovesFirst(red, salvo.with_token(game.seats["blue"]), game.game_id)
        out = io.StringIO()
        console = Console(file=out, width=200, highlight=False, color_system=None)
        prompts = {"n": 0}

        def ask(prompt: str) -> str:
            assert prompt == PROMPT
            prompts["n"] += 1
            text = out.getvalue()
            if text.count("sending it again") >= 3 or prompts["n"] > 60:
                return "q"
            racing.blue_acts()  # between red's menu and red's answer
            return "1"

        assert play(racing, game.game_id, console=console, ask=ask, poll_seconds=0) == 0  # type: ignore[arg-type]
    text = out.getvalue()
    assert "✗" not in text, text  # no choice failed
    # the opening: blue started the game first, so red's "Start the game" is no longer open
    assert text.count("no longer open") >= 1, text
    first_menu, after = text.split("no longer open", 1)
    assert "Start the game" in first_menu and "Start the game" not in after
    # later, in simultaneous phases (beams, boarding, repairs): red's choice still open is sent again, done
    resent = text.split("sending it again")[1:]
    assert len(resent) >= 3, text
    assert all(part.lstrip(" \n").startswith("✓ done") for part in resent), text
    # each sent again as itself, at a newer version than the one refused
    again = [(old, new) for old, new in zip(racing.commands, racing.commands[1:], strict=False) if old[0] == new[0]]
    assert len(again) >= 3 and all((new[1] or 0) > (old[1] or 0) for old, new in again), racing.commands
