"""Shared pieces of the browser tests: Chromium from Debian (no download), console watching."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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

    def watch(self, page, name: str):
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
