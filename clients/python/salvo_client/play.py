"""`salvo play`: an interactive prompt over the seat's options and forms, until the game ends.

Each turn it shows whose move it is (the drawing's status, in words), numbers what the seat may do now,
and sends the chosen command with the version it showed (If-Match), so a move made against a stale
screen is refused (409) and the screen is refreshed instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape

from .client import SalvoClient
from .compose import BadAnswer, build, describe, parse
from .errors import ApiError
from .models import Form, GameSummary, OptionsResponse

PROMPT = "choose> "
Ask = Callable[[str], str]


def awaited(summary: GameSummary, opts: OptionsResponse) -> bool:
    you = summary.status.get("you")
    return bool(opts.options or opts.forms) and (you is None or bool(you.get("must_act")))


def menu(summary: GameSummary, opts: OptionsResponse) -> list[str]:
    status = summary.status
    you = status.get("you") or {}
    lines = [f"[bold]Turn {summary.turn} · {escape(status.get('phase_label') or summary.phase)}[/bold]"
             + (f" — {escape(you['why'])}" if you.get("why") else "")]
    lines += [f"  {i}. {escape(o.label)}" for i, o in enumerate(opts.options, 1)]
    base = len(opts.options)
    lines += [f"  {base + i}. [italic]{escape(f.label)}[/italic] (an order to fill in)"
              for i, f in enumerate(opts.forms, 1)]
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


def choose(opts: OptionsResponse, answer: str, ask: Ask, console: Console) -> Any:
    """The command picked by ``answer`` (a number), or None when the answer picks nothing."""
    if not answer.isdigit() or not 1 <= int(answer) <= len(opts.options) + len(opts.forms):
        console.print(f"[red]choose 1-{len(opts.options) + len(opts.forms)}, r to refresh or q to quit[/red]")
        return None
    n = int(answer) - 1
    if n < len(opts.options):
        return opts.options[n].command
    return fill(opts.forms[n - len(opts.options)], ask, console)


def play(client: SalvoClient, game_id: str, console: Console | None = None, ask: Ask = input,
         poll_seconds: float = 0.25) -> int:
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
        command = None if answer in ("r", "") else choose(opts, answer, ask, console)
        if command is None:
            continue
        try:
            accepted = client.command(game_id, command, if_match=opts.version)
        except ApiError as exc:
            if exc.status == 409:
                console.print("[yellow]The game moved on meanwhile: here it is now.[/yellow]")
            else:
                named = exc.rule or exc.field
                console.print(f"[red]✗ {escape(exc.problem.title)}: {escape(exc.problem.detail)}"
                              + (f" ({escape(named)})" if named else "") + "[/red]")
            continue
        console.print(f"[green]✓ done[/green] ({len(accepted.events)} events, version {accepted.version})")
