"""Shared pieces of the browser tests: Chromium from Debian (no download), console watching."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import ROOT

CHROMIUM = os.environ.get("SALVO_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 10_000


def _need_browser():
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "the playwright package is not installed (pip install playwright==1.65.2)"
        sync_playwright = None
    if problem is None and not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        problem = f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or set SALVO_CHROMIUM)"
    if problem:
        if os.environ.get("SALVO_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required (SALVO_REQUIRE_BROWSER=1) but {problem}")
        pytest.skip(f"browser tests skipped: {problem}")
    return sync_playwright


class Console:
    """Collects console errors and uncaught exceptions of every page it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed_422 = 0  # rejections we provoke on purpose show up as failed resource loads

    def watch(self, page, name: str, skip_empty: bool = False):
        """Watch ``page``. Its player ends its own phases with nothing to do unless ``skip_empty`` (the page's
        default is to end them for the player, issue 38): tests that script every tap race the page otherwise."""
        if not skip_empty:
            page.add_init_script("try { localStorage.setItem('salvo.skipEmptyPhases', 'off'); } catch (e) {}")
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{name}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"{name}: uncaught {e}"))
        page.set_default_timeout(TIMEOUT_MS)
        return page

    def unexpected(self) -> list[str]:
        left = self.allowed_422
        out = []
        for e in self.errors:
            if left and "status of 422" in e:
                left -= 1
                continue
            out.append(e)
        return out


def page_url(base: str, game_id: str, token: str | None = None) -> str:
    """A page link as the lobby makes it: the game in the query, the token in the fragment."""
    return f"{base}/?game={game_id}" + (f"#token={token}" if token else "")


def token_free_query(url: str) -> bool:
    """No token in what a browser sends to a server or in a Referer: only the fragment may hold it."""
    from urllib.parse import parse_qs, urlsplit

    return "token" not in parse_qs(urlsplit(url).query)


def evaluate_in_fresh_page(browser, base: str, name: str, script: str, arg) -> tuple[Any, Console]:
    """Run ``script(arg)`` in a new page of the service (its modules importable from /static) and close it.

    Returns what the script returned and the console that watched the page (the caller checks it).
    """
    console = Console()
    ctx = browser.new_context()
    try:
        page = console.watch(ctx.new_page(), name)
        page.goto(base + "/")
        return page.evaluate(script, arg), console
    finally:
        ctx.close()


def create_in_lobby(lobby, base: str, ruleset: str, scenario: str) -> dict[str, str]:
    """Create a game with the lobby's form; returns its share links by role (``data-role``)."""
    lobby.goto(base + "/")
    lobby.wait_for_selector(f"#ruleset option[value={ruleset}]", state="attached")
    lobby.select_option("#ruleset", ruleset)
    lobby.wait_for_function("(s) => document.querySelector('#scenario')?.value === s", arg=scenario)
    lobby.click("#create")
    lobby.wait_for_selector("#created .links")
    return {
        row.get_attribute("data-role"): row.query_selector("input").input_value()
        for row in lobby.query_selector_all("#created .link-row")
    }
