"""kill -9 the real server between a linked tactical game's end and the campaign's record of it.

The service runs as its own process (tests.support.server). With the crash-test hook
(``SALVO_TEST_HOLD_BEFORE_LINKED_RESULT``, service/events/linked_battles.py) the process manager stops at
the exact point where the GSC2 game's last event is stored and the campaign's ``record_battle`` is not:
it writes the tactical game's id to a file and holds. The test sees the file, sends SIGKILL, restarts
the server without the hook on the same database, and finds the reconcile after start-up has linked the result
exactly once — then restarts again and finds it still once.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from service.events.linked_battles import HOLD_ENV
from tests.api.linked_battle_play import battle_records, get, pick_leaver, sail_off, start_linked_battle
from tests.support.server import ServerProcess

pytestmark = pytest.mark.slow
SEED = 3
HOLD_SECONDS = 600.0  # the wait for the hook (a loaded machine plays the game slowly)


def _play_until_held(
    url: str, tid: str, tokens: dict[str, str], leaver: str, hold: Path, failure: list[BaseException]
) -> None:
    """Play the tactical game to its end; the last command's answer never comes (the hook holds it)."""
    try:
        with httpx.Client(base_url=url, timeout=HOLD_SECONDS) as client:
            sail_off(client, tid, tokens, leaver)
    except httpx.HTTPError:
        if not hold.exists():  # the kill cut this request; anything else is a failure
            failure.append(AssertionError("the server went away before the hook held"))
    except BaseException as exc:  # noqa: BLE001 - reported to the test thread
        failure.append(exc)


def test_ftc_arr_8_kill_9_between_the_tactical_end_and_the_campaign_record(tmp_path) -> None:
    """FTC-ARR-8, FTC-R-LNK-6: a real SIGKILL at the hook; the restarted service records the battle once."""
    hold = tmp_path / "held"
    server = ServerProcess(
        f"sqlite:///{tmp_path}/linked.db",
        log_path=tmp_path / "server.log",
        env={HOLD_ENV: str(hold), "SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"},
    )
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=60.0) as client:
            game, battle, started = start_linked_battle(client, SEED)
            tid = started["tactical_game_id"]
            groups = {g["id"]: g for g in get(client, game["game_id"], "", game["umpire_token"])["state"]["groups"]}
            sides = [f["player"] for f in battle["forces"]]
            leaver = pick_leaver(client, tid, sides)  # the side that can disengage (GSC2-R-20)
            sides = [p for p in sides if p != leaver] + [leaver]  # stayer first, leaver second
        tokens = {p: game["seats"][p] for p in sides}
        failure: list[BaseException] = []
        player = threading.Thread(
            target=_play_until_held, args=(server.url, tid, tokens, sides[1], hold, failure), daemon=True
        )
        player.start()
        deadline = time.monotonic() + HOLD_SECONDS
        while not hold.exists() and player.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hold.exists(), f"the hook never held: {failure or 'timeout'}\n{server.tail()}"
        assert hold.read_text() == tid
        # held: the tactical game is over in the store, the campaign has not heard of it
        with httpx.Client(base_url=server.url, timeout=60.0) as client:
            assert get(client, tid, "", None)["over"]
            assert not battle_records(client, game, tid)
        server.kill()  # SIGKILL, right between the two appends
        assert server.proc is not None and server.proc.returncode == -9
        player.join(30)
        assert not player.is_alive() and not failure, failure

        del server.extra_env[HOLD_ENV]  # the restarted service runs as in production
        for _restart in range(2):  # the first start reconciles; the second finds nothing left to do
            server.start()
            with httpx.Client(base_url=server.url, timeout=60.0) as client:
                # the reconcile runs beside the started service (a start loads no game head): poll for it
                deadline = time.monotonic() + 60.0
                recorded = battle_records(client, game, tid)
                while not recorded and time.monotonic() < deadline:
                    time.sleep(0.1)
                    recorded = battle_records(client, game, tid)
                assert len(recorded) == 1, f"recorded {len(recorded)} times"
                rec = recorded[0]["data"]
                final = get(client, tid, "", None)["state"]
                assert rec["tactical_game_id"] == tid and rec["victor"] == final["winner"] == sides[0]
                force = next(f for f in battle["forces"] if f["player"] == sides[1])
                departing = sorted(g for g in force["groups"] if not groups[g]["cloaked"])  # FTC-ARR-10
                assert sorted(d["group"] for d in rec.get("left", ())) == departing  # FTC-R-LNK-6
                state = get(client, game["game_id"], "", game["umpire_token"])["state"]
                assert battle["id"] not in [b["id"] for b in state["battles"]]
            server.stop()
    finally:
        server.stop()
