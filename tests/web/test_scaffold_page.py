"""A ruleset made by `salvo new-ruleset` plays in the page with no file outside its package changed: the
package is written to a temporary directory and declared the way `pip install` declares it (a dist-info
with its `salvo.rulesets` entry point, on the server's PYTHONPATH: not named in SALVO_RULESETS, nothing of Salvo's
edited). The lobby lists it, creates a game of it, and a seat fires through the page's labelled options;
the page draws it from the view/draw/options contract alone."""

from __future__ import annotations

import os

import pytest

from service.scaffold import scaffold
from tests.contract.test_scaffold import install_without_pip
from tests.support.server import ROOT, ServerProcess
from tests.web.driver import Seat
from tests.web.support import ARTIFACTS, DESKTOP, Console, create_in_lobby

NAME = "clubduel"


@pytest.fixture(scope="module")
def club_server(tmp_path_factory):
    where = tmp_path_factory.mktemp("club")
    project = scaffold(NAME, where, title="Club duel: two ships trade shots")
    install_without_pip(project, where)
    db = where / "salvo.db"
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(project), str(where)]), "SALVO_HEARTBEAT_SECONDS": "1"}
    with ServerProcess(f"sqlite:///{db}", env=env) as srv:
        yield srv


def test_a_scaffolded_ruleset_is_created_and_played_in_the_page(browser, club_server):
    console = Console()
    ctx = browser.new_context(viewport=DESKTOP)
    try:
        lobby = console.watch(ctx.new_page(), "lobby")
        links = create_in_lobby(lobby, club_server.url, NAME, "duel")
        assert set(links) == {"seat:red", "seat:blue", "umpire", "spectator"}

        page = console.watch(ctx.new_page(), "red")
        page.goto(links["seat:red"])
        page.wait_for_selector("#conn[data-state=live]")
        page.wait_for_function("() => window.salvo && salvo.live")
        red = Seat(page, "red")
        assert page.get_attribute("#viewer", "data-viewer") == "seat:red"
        # the contract renderer: both ships drawn with their labels, red's orders labelled in words
        page.wait_for_selector("#board .piece[data-id='blue'] text.plabel", state="attached")
        assert f"{NAME}.fire" in red.option_types() and f"{NAME}.pass" in red.option_types()

        before = red.version()
        after = red.option(f"{NAME}.fire", "power 2")
        assert after > before
        assert red.state()["options"] == 0  # red has fired this turn: nothing more to do until blue has
        page.wait_for_selector("#board .fx", state="attached", timeout=5000)  # the shot, drawn from draw.effects
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "scaffolded-ruleset.png"))
        assert console.unexpected() == [], console.unexpected()
    finally:
        ctx.close()
