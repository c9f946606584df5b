"""Tokens the CLI holds, per game (``$SALVO_HOME/sessions.json``, default ~/.salvo): what `salvo new`
was shown once, or what `salvo join` was given. Tokens are secrets: the file is created private."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def home() -> Path:
    return Path(os.environ.get("SALVO_HOME") or Path.home() / ".salvo")


def _path() -> Path:
    return home() / "sessions.json"


def load() -> dict[str, Any]:
    try:
        return dict(json.loads(_path().read_text()))
    except (OSError, ValueError):
        return {}


def remember(game_id: str, url: str, ruleset: str, tokens: dict[str, str]) -> None:
    sessions = load()
    entry = sessions.setdefault(game_id, {"url": url, "ruleset": ruleset, "tokens": {}})
    entry["tokens"].update(tokens)
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(sessions, fh, indent=2)


def token_for(game_id: str, seat: str | None) -> str | None:
    """The token held for ``seat`` ("umpire" for the umpire); with no seat named, the only seat held."""
    tokens: dict[str, str] = load().get(game_id, {}).get("tokens", {})
    if seat is not None:
        return tokens.get(seat)
    seats = [s for s in tokens if s != "umpire"]
    return tokens[seats[0]] if len(seats) == 1 else None


def url_for(game_id: str) -> str | None:
    url = load().get(game_id, {}).get("url")
    return str(url) if url else None
