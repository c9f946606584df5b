"""`salvo watch` (a live terminal view of a game) and `salvo replay` (a turn, explained), with rich."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.progress import Progress
from rich.table import Table

from .client import SalvoClient
from .models import EventFrame, GameSummary, TurnReplay
from .stream import SyncGameStream


def _bars(piece: dict[str, Any]) -> str:
    return "  ".join(f"{b['label']} {b['value']:g}/{b['max']:g}" for b in piece.get("bars", ()))


def render(summary: GameSummary, recent: list[str]) -> Group:
    status = summary.status
    seats = "  ".join(f"{s['seat']}: {'[bold]to act[/bold]' if s['must_act'] else escape(s['why'])}"
                      for s in status.get("seats", ()))
    head = (f"[bold]{summary.game_id}[/bold] · {summary.ruleset} · turn {summary.turn} · "
            f"{escape(status.get('phase_label') or summary.phase)}")
    if summary.over:
        head += f"\n[bold red]Game over: {escape(str(status.get('result') or 'finished'))}[/bold red]"
    table = Table("piece", "side", "at", "status", "bars", expand=True)
    for piece in (summary.draw or {}).get("pieces", ()):
        at = piece.get("at") or {}
        table.add_row(escape(piece["label"]), escape(str(piece.get("side") or "?")),
                      f"{at.get('x', 0):g}, {at.get('y', 0):g}", escape(piece.get("status", "")), _bars(piece))
    effects = [escape(e["text"]) for e in (summary.draw or {}).get("effects", ())[-5:]]
    return Group(Panel(head + ("\n" + seats if seats else "")), table,
                 Panel("\n".join(effects or recent[-5:]) or "—", title="just happened"))


def watch(client: SalvoClient, game_id: str, console: Console | None = None, once: bool = False) -> int:
    console = console or Console()
    summary = client.game(game_id)
    if once or summary.over:
        console.print(render(summary, []))
        return 0
    recent: list[str] = []
    with Live(render(summary, recent), console=console, refresh_per_second=4) as live, \
            SyncGameStream(client.base_url, game_id, client.token) as stream:
        for frame in stream.frames():
            if isinstance(frame, EventFrame):
                recent.append(f"{frame.event.seq} {frame.event.actor}: {frame.event.type}")
                summary = client.game(game_id)
                live.update(render(summary, recent))
                if summary.over:
                    break
    return 0


def render_turn(replay: TurnReplay) -> Table:
    title = f"Turn {replay.turn}" + (f" · {replay.phase}" if replay.phase else "")
    table = Table("seq", "who", "what happened", title=f"{title} (seq {replay.from_seq}–{replay.to_seq})")
    for step in replay.events:
        table.add_row(str(step.event.seq), escape(step.event.actor), escape(step.text))
    return table


def replay(client: SalvoClient, game_id: str, turns: str, phase: str | None = None,
           console: Console | None = None) -> int:
    """``turns``: a number, a range "2-4", or "all"."""
    console = console or Console()
    if turns == "all":
        numbers = list(range(1, client.game(game_id).turn + 1))
    elif "-" in turns:
        first, last = (int(x) for x in turns.split("-", 1))
        numbers = list(range(first, last + 1))
    else:
        numbers = [int(turns)]
    replays = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("replaying", total=len(numbers))
        for n in numbers:
            replays.append(client.turn(game_id, n, phase))
            progress.advance(task)
    for r in replays:
        console.print(render_turn(r))
    return 0
