"""The CLI in a terminal (pexpect): `salvo new` a GSC2 duel with a bot in blue, then `salvo play` red to the
end by answering the prompt like a person would, then replay, export, verify and import it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx
import pexpect
import pytest

from tests.support.server import ServerProcess

SALVO = [sys.executable, "-m", "service"]
ROOT = Path(__file__).resolve().parents[2]


def salvo(args: list[str], env: dict[str, str], timeout: float = 60) -> pexpect.spawn:
    return pexpect.spawn(
        SALVO[0], [*SALVO[1:], *args], env=env, cwd=str(ROOT), encoding="utf-8", timeout=timeout, dimensions=(50, 160)
    )


@pytest.fixture
def env(live_server: ServerProcess, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SALVO_HOME": str(tmp_path / "home"),
        "SALVO_URL": live_server.url,
        "TERM": "dumb",
        "PYTHONPATH": str(ROOT),
    }


def test_salvo_play_a_gsc2_duel_against_a_bot_to_the_end(env: dict[str, str], tmp_path: Path) -> None:
    new = salvo(["new", "gsc2", "duel", "--bot", "blue=rules"], env)
    new.expect(r"game (g_[0-9a-f]+)")
    game_id = new.match.group(1)
    new.expect(pexpect.EOF)
    play = salvo(["play", game_id, "--seat", "red"], env, timeout=30)
    moves = 0
    while True:
        i = play.expect([r"choose> ", r"\): ", r"Game over: ([^\r\n]+)", pexpect.EOF])
        if i == 0:
            play.sendline("1")  # the first thing on offer, every time
            moves += 1
        elif i == 1:
            play.sendline("")  # a form field: take its default (or stay put)
        elif i == 2:
            result = play.match.group(1)
            break
        else:
            pytest.fail(f"salvo play ended before the game did:\n{play.before}")
        assert moves < 400, "the duel did not end"
    play.expect(pexpect.EOF)
    play.close()
    assert play.exitstatus == 0 and moves > 3 and result.strip()

    replay = salvo(["replay", game_id, "1", "--seat", "umpire"], env)
    replay.expect(r"Turn 1")
    replay.expect(pexpect.EOF)
    battle = tmp_path / "duel.salvo.jsonl"
    export = salvo(["export", game_id, "--seat", "umpire", "-o", str(battle)], env)
    export.expect(pexpect.EOF)
    assert battle.read_text().count("\n") > moves
    verify = salvo(["verify", str(battle)], env)
    verify.expect(r"OK (\d+) rolls verified")
    verify.expect(pexpect.EOF)
    imported = salvo(["import", str(battle)], env)
    imported.expect(r"imported as (g_[0-9a-f]+)")
    imported.expect(pexpect.EOF)
    watch = salvo(["watch", game_id, "--once"], env)
    watch.expect(r"Game over")
    watch.expect(pexpect.EOF)


def test_a_player_joins_with_a_token_and_a_bad_answer_is_explained(env: dict[str, str], tmp_path: Path) -> None:
    new = salvo(["new", "gsc2", "duel"], env)
    new.expect(r"game (g_[0-9a-f]+)")
    game_id = new.match.group(1)
    new.expect(r"seat red: (\S+)")
    red_token = new.match.group(1)
    new.expect(pexpect.EOF)
    friend = {**env, "SALVO_HOME": str(tmp_path / "friend")}  # another person, given the red token
    join = salvo(["join", game_id, red_token], friend)
    join.expect(r"joined g_[0-9a-f]+ as red")
    join.expect(pexpect.EOF)
    play = salvo(["play", game_id], friend)
    play.expect("choose> ")
    play.sendline("99")
    play.expect(r"choose 1-\d+")
    play.expect("choose> ")
    play.sendline("q")
    play.expect(pexpect.EOF)


def test_two_salvo_bot_clients_play_a_duel_to_the_end(env: dict[str, str]) -> None:
    new = salvo(["new", "gsc2", "duel"], env)
    new.expect(r"game (g_[0-9a-f]+)")
    game_id = new.match.group(1)
    new.expect(pexpect.EOF)
    bots = [
        salvo(["bot", game_id, "--seat", seat, "--bot", bot, "--poll", "0.02"], env, timeout=120)
        for seat, bot in (("red", "rules"), ("blue", "random"))
    ]
    for bot in bots:
        bot.expect(r"game over after (\d+) moves")
        assert int(bot.match.group(1)) > 0
        bot.expect(pexpect.EOF)


def test_new_from_a_scenario_file_and_a_live_watch_to_the_end(env: dict[str, str], tmp_path: Path) -> None:
    from service.domain.core import find_ruleset

    scenario = tmp_path / "my-duel.json"
    scenario.write_text(json.dumps(find_ruleset("gsc2").scenarios()["duel"]))
    new = salvo(["new", "gsc2", str(scenario), "--bot", "red=random", "--bot", "blue=random"], env)
    new.expect(r"game (g_[0-9a-f]+)")
    game_id = new.match.group(1)
    new.expect(pexpect.EOF)
    watch = salvo(["watch", game_id], env, timeout=120)
    watch.expect(r"Game over")
    watch.expect(pexpect.EOF)
    watch.close()
    assert watch.exitstatus == 0


def test_salvo_watch_redraws_as_the_stream_moves_the_game(env: dict[str, str]) -> None:
    """A live view on a terminal that can redraw (rich Live): opened on a game nobody plays yet, it shows
    whose turn it is, then — as bots are seated and play — the stream's events and a new version, until the
    game is over; the watcher itself sends nothing."""
    new = salvo(["new", "gsc2", "duel"], env)
    new.expect(r"game (g_[0-9a-f]+)")
    game_id = new.match.group(1)
    new.expect(r"umpire: (\S+)")
    umpire = new.match.group(1)
    new.expect(pexpect.EOF)
    watch = salvo(["watch", game_id, "--seat", "umpire"], {**env, "TERM": "xterm-256color"}, timeout=120)
    watch.expect(r"version (\d+)")
    opened_at = int(watch.match.group(1))
    watch.expect("live")
    watch.expect(r"to act: [a-z]+")
    assert "bot.seated" not in watch.before
    with httpx.Client(base_url=env["SALVO_URL"], headers={"Authorization": f"Bearer {umpire}"}) as api:
        for seat in ("red", "blue"):
            assert api.post(f"/v1/games/{game_id}/bots", json={"seat": seat, "bot": "random"}).status_code == 201
    watch.expect(r"bot\.seated")  # a frame of the stream, drawn in "last events"
    watch.expect(r"gsc2\.\w+")  # and the bots' moves
    versions = []
    while True:
        i = watch.expect([r"version (\d+)", r"Game over: "])
        if i == 1:
            break
        versions.append(int(watch.match.group(1)))
    assert versions and max(versions) > opened_at + 2  # redrawn as the game moved, not printed once
    watch.expect(pexpect.EOF)
    watch.close()
    assert watch.exitstatus == 0
