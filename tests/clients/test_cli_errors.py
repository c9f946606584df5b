"""The CLI's failures a person meets: one `error: …` line on stderr and a non-zero exit, never a traceback
(an unreachable server, a missing file, a file that is no battle file, a turn that is no number); `q` at
the `play` prompt leaves with exit 0. In process through `salvo` (service.cli.main, which runs the client's
verbs), and once from the client package installed alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from tests.support.server import ROOT, ServerProcess, free_port


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SALVO_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SALVO_URL", raising=False)
    return tmp_path


def salvo(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(args)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def one_error_line(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for word in words:
        assert word in lines[0], err


NOBODY = f"http://127.0.0.1:{free_port()}"  # a port nothing listens on


@pytest.mark.parametrize(
    "args",
    [
        ["new", "gsc2", "duel", "--url", NOBODY],
        ["watch", "g_1", "--once", "--url", NOBODY],
        ["replay", "g_1", "1", "--url", NOBODY],
        ["export", "g_1", "--url", NOBODY, "-o", "-"],
    ],
    ids=["new", "watch", "replay", "export"],
)
def test_an_unreachable_server_is_one_line_naming_it(home: Path, capsys, args: list[str]) -> None:
    code, _out, err = salvo(args, capsys)
    assert code == 1
    one_error_line(err, "cannot reach the Salvo server at", NOBODY)


def test_import_of_a_missing_file_names_it(home: Path, capsys) -> None:
    missing = home / "nope.salvo.jsonl"
    code, _out, err = salvo(["import", str(missing), "--url", NOBODY], capsys)
    assert code == 1
    one_error_line(err, str(missing), "No such file")


@pytest.mark.parametrize(
    "content",
    [b'{"openapi": "3.1.0"}\n', b"hello\nworld\n", b"", b"[1, 2]\n"],
    ids=["json-not-battle", "text", "empty", "array"],
)
def test_verify_of_a_file_that_is_no_battle_file_says_so(home: Path, capsys, content: bytes) -> None:
    path = home / "notes.txt"
    path.write_bytes(content)
    code, _out, err = salvo(["verify", str(path), "--url", NOBODY], capsys)
    assert code == 2
    one_error_line(err, str(path), "is not a battle file")


def test_verify_with_keys_from_an_unreachable_server_fails_in_one_line(home: Path, capsys) -> None:
    path = home / "b.jsonl"
    path.write_text('{"format": "salvo-battle/2", "game_id": "g_1", "events": 0}\n')
    code, _out, err = salvo(["verify", str(path), "--url", NOBODY], capsys)
    assert code == 1
    one_error_line(err, "cannot reach the Salvo server")
    code, _out, err = salvo(["verify", str(path), "--url", NOBODY, "--key", "ab" * 32], capsys)
    assert code == 2
    one_error_line(err, "--url", "--key", "not both")
    code, _out, err = salvo(["verify", str(path), "--key", "not-a-key"], capsys)
    assert code == 2
    one_error_line(err, "--key 'not-a-key'", "64 digits")


@pytest.mark.parametrize("turn", ["abc", "2-x", "0", "4-2", "-1"])
def test_replay_of_a_turn_that_is_no_turn_says_what_is_expected(home: Path, capsys, turn: str) -> None:
    code, _out, err = salvo(["replay", "g_1", turn, "--url", NOBODY], capsys)
    assert code == 2
    one_error_line(err, f"turn {turn!r}")


def test_a_bad_scenario_file_is_one_line(home: Path, capsys) -> None:
    scenario = home / "fleet.json"
    scenario.write_text("{not json")
    code, _out, err = salvo(["new", "gsc2", str(scenario), "--url", NOBODY], capsys)
    assert code == 2
    one_error_line(err, "fleet.json is not JSON")


def test_play_exits_0_on_q_and_at_the_end_of_input(live_server: ServerProcess, home: Path, capsys) -> None:
    code, out, _err = salvo(["new", "tiny", "duel", "--url", live_server.url], capsys)
    assert code == 0
    game = out.split()[1]
    env = {**os.environ, "SALVO_HOME": str(home / "home"), "PYTHONPATH": str(ROOT), "TERM": "dumb"}
    for answers in ("q\n", "", "r\nquit\n"):
        played = subprocess.run(
            [sys.executable, "-m", "service", "play", game, "--seat", "red"],
            input=answers,
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=60,
        )
        assert played.returncode == 0 and "Traceback" not in played.stderr, played.stdout + played.stderr
        assert "choose" in played.stdout  # it did reach the prompt before leaving


def test_the_installed_client_says_the_same_in_one_line(tmp_path_factory: pytest.TempPathFactory) -> None:
    from tests.clients.installed import install_client

    installed = install_client(tmp_path_factory.mktemp("installed-cli"))
    result = installed.run("watch", "g_1", "--once", "--url", NOBODY)
    assert result.returncode == 1
    one_error_line(result.stderr, "cannot reach the Salvo server at", NOBODY)
    result = installed.run("verify", str(installed.workdir / "missing.jsonl"))
    assert result.returncode == 1
    one_error_line(result.stderr, "missing.jsonl", "No such file")
