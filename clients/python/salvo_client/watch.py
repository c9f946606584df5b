"""`salvo watch` (a live terminal view of a game) and `salvo replay` (a turn, explained), with rich."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from .client import SalvoClient
from .errors import UsageError
from .models import CaughtUpFrame, Envelope, ErrorFrame, EventFrame, GameSummary, TurnReplay
from .stream import SyncGameStream

HISTORY = 8  # events shown in "last events"; the view opens with the game's last ones


def _bars(piece: dict[str, Any]) -> str:
    return "  ".join(f"{b['label']} {b['value']:g}/{b['max']:g}" for b in piece.get("bars", ()))


def _gist(data: dict[str, Any], width: int = 70) -> str:
    """The scalar fields of an event's data, shortened to a line."""
    parts = [f"{k}={v}" for k, v in data.items() if isinstance(v, str | int | float | bool) and k != "type"]
    text = " ".join(parts)
    return text if len(text) <= width else text[: width - 1] + "…"


def event_line(e: Envelope) -> str:
    return f"{e.seq:>5}  t{e.turn} {e.phase:<12.12}  {e.actor:<14.14}  {e.type}  {_gist(e.data)}"


def who_acts(status: dict[str, Any]) -> str:
    acting = [s["seat"] for s in status.get("seats", ()) if s.get("must_act")]
    if status.get("umpire"):
        acting.append("umpire")
    return ", ".join(acting) or "nobody (waiting)"


def render(summary: GameSummary, recent: list[str], live: bool = False) -> Group:
    status = summary.status
    head = Text.from_markup(
        f"[bold]{summary.game_id}[/bold] · {escape(summary.ruleset)} · turn {summary.turn} · "
        f"{escape(status.get('phase_label') or summary.phase)} · version {summary.version}"
        + (" · [green]live[/green]" if live and not summary.over else "")
    )
    if summary.over:
        head.append_text(
            Text.from_markup(f"\n[bold red]Game over: {escape(str(status.get('result') or 'finished'))}[/bold red]")
        )
    else:
        head.append(f"\nto act: {who_acts(status)}")
    seats = "  ".join(
        f"{s['seat']}: {'to act' if s['must_act'] else s.get('why') or 'waiting'}" for s in status.get("seats", ())
    )
    if seats:
        head.append("\n" + seats)
    table = Table("piece", "side", "at", "status", "bars", expand=True)
    for piece in (summary.draw or {}).get("pieces", ()):
        at = piece.get("at") or {}
        table.add_row(
            escape(piece["label"]),
            escape(str(piece.get("side") or "?")),
            f"{at.get('x', 0):g}, {at.get('y', 0):g}",
            escape(piece.get("status", "")),
            _bars(piece),
        )
    effects = [e["text"] for e in (summary.draw or {}).get("effects", ())[-5:]]
    return Group(
        Panel(head, title="Salvo watch"),
        table,
        Panel(Text("\n".join(recent[-HISTORY:]) or "—", no_wrap=True, overflow="ellipsis"), title="last events"),
        Panel(Text("\n".join(effects) or "—"), title="just happened"),
    )


class _View:
    """What the live view shows: the game's summary (fetched again as the game moves) and its last events."""

    def __init__(self, client: SalvoClient, game_id: str) -> None:
        self.client, self.game_id = client, game_id
        self.summary = client.game(game_id)
        self.events: list[Envelope] = []

    @property
    def recent(self) -> list[str]:
        return [event_line(e) for e in self.events]

    def note(self, event: Envelope) -> None:
        self.events = [*self.events[-(HISTORY - 1) :], event]

    def refresh(self) -> None:
        self.summary = self.client.game(self.game_id)


def _follow(view: _View, stream: SyncGameStream, update: Callable[[], None]) -> int:
    """Frames as they arrive: every event goes to "last events"; once caught up with the log, each one
    refreshes the summary (status, whose turn, pieces) and the screen. Ends when the game does."""
    caught_up = False
    for frame in stream.frames():
        if isinstance(frame, EventFrame):
            view.note(frame.event)
            if not caught_up:
                continue
        elif isinstance(frame, CaughtUpFrame):
            caught_up = True
        elif isinstance(frame, ErrorFrame) and frame.ref is None:
            raise SystemExit(f"the stream was refused: {frame.title}: {frame.detail}")
        else:
            continue
        view.refresh()
        update()
        if view.summary.over:
            return 0
    view.refresh()  # the server closed the stream: show where the game stands
    update()
    return 0


def watch(client: SalvoClient, game_id: str, console: Console | None = None, once: bool = False) -> int:
    """A live view (rich Live) redrawn as stream frames arrive; on a terminal that cannot redraw (a pipe,
    TERM=dumb) one line per event and per change of whose turn it is instead."""
    console = console or Console(highlight=False)
    view = _View(client, game_id)
    if once or view.summary.over:
        for event in client.events(game_id, after=max(0, view.summary.version - HISTORY), limit=HISTORY).events:
            view.note(event)
        console.print(render(view.summary, view.recent))
        return 0
    after = max(0, view.summary.version - HISTORY)
    try:
        with SyncGameStream(client.base_url, game_id, client.token, after=after) as stream:
            if console.is_terminal and not console.is_dumb_terminal:
                with Live(
                    render(view.summary, view.recent, live=True),
                    console=console,
                    refresh_per_second=8,
                    vertical_overflow="visible",
                ) as live:
                    # refresh=True: every frame is drawn as it arrives (at 8 redraws/s a fast game's frames scrolled
                    # out of "last events" between two redraws)
                    return _follow(
                        view, stream, lambda: live.update(render(view.summary, view.recent, live=True), refresh=True)
                    )
            return _follow(view, stream, _printer(view, console))
    except KeyboardInterrupt:
        return 0


def _printer(view: _View, console: Console) -> Callable[[], None]:
    """The view as lines: each new event once, and the status whenever it changes."""
    printed = {"seq": 0, "status": ""}

    def update() -> None:
        for event in view.events:
            if event.seq > printed["seq"]:
                console.print(event_line(event), markup=False, soft_wrap=True)
                printed["seq"] = event.seq
        s = view.summary
        line = (
            f"Game over: {s.status.get('result') or 'finished'}"
            if s.over
            else f"turn {s.turn} · {s.status.get('phase_label') or s.phase} · to act: {who_acts(s.status)}"
        )
        if line != printed["status"]:
            console.print(line, markup=False)
            printed["status"] = line

    return update


def render_turn(replay: TurnReplay) -> Table:
    title = f"Turn {replay.turn}" + (f" · {replay.phase}" if replay.phase else "")
    table = Table("seq", "who", "what happened", title=f"{title} (seq {replay.from_seq}–{replay.to_seq})")
    for step in replay.events:
        table.add_row(str(step.event.seq), escape(step.event.actor), escape(step.text))
    return table


def turn_numbers(turns: str) -> list[int]:
    """ "3" -> [3], "2-4" -> [2, 3, 4]; anything else is a UsageError saying what is expected."""
    first, dash, last = turns.partition("-")
    if not first.isdigit() or (dash and not last.isdigit()) or int(first) < 1:
        raise UsageError(f"turn {turns!r}: expected a turn number (1, 2…), a range such as 2-4, or all")
    if dash and int(last) < int(first):
        raise UsageError(f"turn {turns!r}: the range ends before it starts")
    return list(range(int(first), int(last if dash else first) + 1))


def replay(
    client: SalvoClient, game_id: str, turns: str, phase: str | None = None, console: Console | None = None
) -> int:
    """``turns``: a number, a range "2-4", or "all"."""
    console = console or Console()
    numbers = list(range(1, client.game(game_id).turn + 1)) if turns == "all" else turn_numbers(turns)
    replays = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("replaying", total=len(numbers))
        for n in numbers:
            replays.append(client.turn(game_id, n, phase))
            progress.advance(task)
    for r in replays:
        console.print(render_turn(r))
    return 0
