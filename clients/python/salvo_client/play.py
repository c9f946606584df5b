"""`salvo play`: an interactive prompt over the seat's options and forms, until the game ends.

Each turn it shows whose move it is (the drawing's status, in words), numbers what the seat may do now,
and sends the chosen command with the version it showed (If-Match). When the game moved on meanwhile
(a bot or another player acted while the menu was up: 409), the choice is not lost: if the seat is still
offered exactly that option (or that order form) at the new version, it is sent again there; only when it
is no longer open is the new menu shown instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from rich.console import Console
from rich.markup import escape

from .client import SalvoClient
from .compose import BadAnswer, build, describe, parse
from .errors import ApiError
from .models import Form, GameSummary, OptionsResponse

PROMPT = "choose> "
RESENDS = 3  # a choice still open after the game moved on is sent again at most this many times
Ask = Callable[[str], str]


def awaited(summary: GameSummary, opts: OptionsResponse) -> bool:
    you = summary.status.get("you")
    return bool(opts.options or opts.forms) and (you is None or bool(you.get("must_act")))


def menu(summary: GameSummary, opts: OptionsResponse) -> list[str]:
    status = summary.status
    you = status.get("you") or {}
    lines = [
        f"[bold]Turn {summary.turn} · {escape(status.get('phase_label') or summary.phase)}[/bold]"
        + (f" — {escape(you['why'])}" if you.get("why") else "")
    ]
    lines += [f"  {i}. {escape(o.label)}" for i, o in enumerate(opts.options, 1)]
    base = len(opts.options)
    lines += [
        f"  {base + i}. [italic]{escape(f.label)}[/italic] (an order to fill in)" for i, f in enumerate(opts.forms, 1)
    ]
    return lines


def fill(form: Form, ask: Ask, console: Console) -> dict[str, Any]:
    entries = []
    for pc in form.pieces:
        if form.optional_pieces and ask(f"  order for {pc.label}? [Y/n] ").strip().lower() in ("n", "no"):
            continue
        entry: dict[str, Any] = {form.piece_key: pc.piece, **pc.fixed}
        for field in pc.fields:
            while True:
                try:
                    value = parse(field, ask(f"  {pc.label} · {field.label} ({describe(field)}): "))
                    break
                except BadAnswer as exc:
                    console.print(f"  [red]{escape(str(exc))}[/red]")
            if value is not None or field.required:
                entry[field.key] = value
        entries.append(entry)
    return build(form, entries)


class Choice(NamedTuple):
    command: dict[str, Any]
    form: Form | None  # the order form it was filled in (None: a listed option)

    def still_open(self, opts: OptionsResponse) -> bool:
        """Whether the seat may still make this choice: the same option, or the same order form, offered."""
        if self.form is None:
            return any(o.command == self.command for o in opts.options)
        return any(f.command == self.form.command and f.label == self.form.label for f in opts.forms)


def choose(opts: OptionsResponse, answer: str, ask: Ask, console: Console) -> Choice | None:
    """The choice picked by ``answer`` (a number), or None when the answer picks nothing."""
    if not answer.isdigit() or not 1 <= int(answer) <= len(opts.options) + len(opts.forms):
        console.print(f"[red]choose 1-{len(opts.options) + len(opts.forms)}, r to refresh or q to quit[/red]")
        return None
    n = int(answer) - 1
    if n < len(opts.options):
        return Choice(opts.options[n].command, None)
    form = opts.forms[n - len(opts.options)]
    return Choice(fill(form, ask, console), form)


def send(client: SalvoClient, game_id: str, choice: Choice, version: int, console: Console) -> None:
    """Send ``choice`` as of ``version``; when the game moved on (409), send it again at the new version
    while the seat is still offered it (a few times: a busy game may move on again), else say so."""
    for _attempt in range(RESENDS + 1):
        try:
            accepted = client.command(game_id, choice.command, if_match=version)
        except ApiError as exc:
            if exc.status != 409:
                named = exc.rule or exc.field
                console.print(
                    f"[red]✗ {escape(exc.problem.title)}: {escape(exc.problem.detail)}"
                    + (f" ({escape(named)})" if named else "")
                    + "[/red]"
                )
                return
        else:
            console.print(f"[green]✓ done[/green] ({len(accepted.events)} events, version {accepted.version})")
            return
        fresh = client.options(game_id)
        if not choice.still_open(fresh):
            console.print(
                "[yellow]The game moved on meanwhile and that choice is no longer open: here it is now.[/yellow]"
            )
            return
        console.print("[dim]… the game moved on meanwhile; your choice is still open: sending it again[/dim]")
        version = fresh.version
    console.print("[yellow]The game keeps moving on: here it is now.[/yellow]")


def play(
    client: SalvoClient, game_id: str, console: Console | None = None, ask: Ask = input, poll_seconds: float = 0.25
) -> int:
    console = console or Console(highlight=False)
    waiting_for: str | None = None
    while True:
        summary = client.game(game_id)
        if summary.over:
            result = summary.status.get("result") or summary.state.get("result") or "finished"
            console.print(f"[bold]Game over:[/bold] {escape(str(result))}")
            return 0
        opts = client.options(game_id)
        if not awaited(summary, opts):
            why = (summary.status.get("you") or {}).get("why") or "waiting for the other side"
            if why != waiting_for:
                console.print(f"[dim]… {escape(why)}[/dim]")
                waiting_for = why
            time.sleep(poll_seconds)
            continue
        waiting_for = None
        for line in menu(summary, opts):
            console.print(line)
        answer = ask(PROMPT).strip().lower()
        if answer in ("q", "quit"):
            return 0  # leaving is what was asked for: not a failure
        choice = None if answer in ("r", "") else choose(opts, answer, ask, console)
        if choice is not None:
            send(client, game_id, choice, opts.version, console)
