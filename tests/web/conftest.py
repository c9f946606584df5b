"""Browser-test fixtures: one headless Chromium and one real server per test module."""

from __future__ import annotations

import pytest

from tests.support.server import TINY, ServerProcess
from tests.web.support import ARGS, CHROMIUM, DESKTOP, _need_browser


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _need_browser()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("web") / "salvo.db"
    # a short heartbeat: an idle stream handler notices a closed browser at its next ping, and the
    # server's graceful stop waits for those handlers
    # skirmish: a test ruleset speaking the whole view contract (tests/web/skirmish.py)
    env = {"SALVO_HEARTBEAT_SECONDS": "1", "SALVO_RULESETS": f"{TINY},skirmish=tests.web.skirmish:RULESET"}
    with ServerProcess(f"sqlite:///{db}", env=env) as srv:
        yield srv


@pytest.fixture
def desk(browser):
    """A desktop browser context (1440×900), closed after the test."""
    ctx = browser.new_context(viewport=DESKTOP)
    try:
        yield ctx
    finally:
        ctx.close()
