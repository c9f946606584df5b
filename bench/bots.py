#!/usr/bin/env python3
"""Win rates of each ruleset's rules-aware bot against the random bot (docs/benchmarks.md, "Bots").

    .venv/bin/python bench/bots.py [--games 100] [--ruleset gsc2 ...] [--markdown]

Each game is played in process by tests/clients/botplay.py (the seat's view and options as the API
shows them, commands through the service's guards). The rules bot plays every seat of one side, the
random bot the other; sides alternate from game to game and every game has its own dice. A game ended
by a turn limit without a winner counts as a draw (a campaign naming no winner: see ``winner_of``).
Not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from service.domain.core import Ruleset, available_rulesets, find_ruleset, seat  # noqa: E402
from service.events.bots import bots_of  # noqa: E402
from tests.clients.botplay import play  # noqa: E402

# a two-sided sample scenario per ruleset (the first one with two sides otherwise)
SCENARIO = {"gsc2": "duel", "asc": "ambush", "starfinder": "duel", "ftcampaign": "intro-duel"}


@dataclass
class Tally:
    ruleset: str
    scenario: str
    stand_in: bool
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    stalls: int = 0
    turns: list[int] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def sides_of(ruleset: Ruleset[Any, Any], scenario: str) -> dict[str, str]:
    """Seat -> side, from what each seat's drawing says it commands."""
    setup = ruleset.parse_setup(ruleset.scenarios()[scenario])
    state = ruleset.initial_state(setup)
    out = {}
    for name in ruleset.seats(setup):
        drawing = ruleset.draw(state, seat(name))
        mine = [p.side for p in (drawing.pieces if drawing else ()) if p.mine and p.side]
        out[name] = mine[0] if mine else _side_in_state(state, name)
    return out


def _side_in_state(state: Any, seat_name: str) -> str:
    """A ruleset not drawing yet: a crew seat "ship/role" sides with its ship; else the seat is the side."""
    ship = getattr(state, "ships", {}).get(seat_name.split("/")[0])
    return str(getattr(ship, "side", None) or seat_name)


def winner_of(state: Any) -> str | None:
    """The ruleset's winner; a campaign that names none (FT club campaign) is judged here by the worlds
    each side holds at the end (most worlds wins, a tie is a draw) — this benchmark's judgement only."""
    if hasattr(state, "winner"):
        return state.winner  # type: ignore[no-any-return]
    held: dict[str, int] = {}
    for world in getattr(state, "worlds", {}).values():
        if getattr(world, "owner", None):
            held[world.owner] = held.get(world.owner, 0) + 1
    ranked = sorted(held.items(), key=lambda kv: -kv[1])
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def bench(name: str, games: int, progress: Progress) -> Tally:
    ruleset = find_ruleset(name)
    scenario = SCENARIO.get(name) or sorted(ruleset.scenarios())[0]
    bots, stand_ins = bots_of(ruleset)
    sides = sides_of(ruleset, scenario)
    order = sorted(set(sides.values()))
    tally = Tally(name, scenario, "rules" in stand_ins)
    task = progress.add_task(f"{name} {scenario}", total=games)
    for n in range(games):
        rules_side = order[n % len(order)]
        seated = {s: bots["rules"] if side == rules_side else bots["random"] for s, side in sides.items()}
        game = play(ruleset, scenario, seated, seed=1000 + n)
        winner = winner_of(game.state)
        tally.games += 1
        tally.turns.append(game.turn)
        if game.stalled and not game.over:
            tally.stalls += 1
        if winner == rules_side:
            tally.wins += 1
        elif winner is None:
            tally.draws += 1
        else:
            tally.losses += 1
        progress.advance(task)
    return tally


def table(tallies: list[Tally]) -> Table:
    t = Table(
        "ruleset",
        "scenario",
        "rules bot",
        "games",
        "wins",
        "draws",
        "losses",
        "win rate",
        "stalls",
        "mean turns",
        title="Rules bot vs random bot",
    )
    for r in tallies:
        t.add_row(
            r.ruleset,
            r.scenario,
            "random stand-in" if r.stand_in else "own",
            str(r.games),
            str(r.wins),
            str(r.draws),
            str(r.losses),
            f"{r.win_rate:.0%}",
            str(r.stalls),
            f"{sum(r.turns) / max(1, len(r.turns)):.1f}",
        )
    return t


def markdown(tallies: list[Tally]) -> str:
    lines = [
        "| ruleset | scenario | rules bot | games | wins | draws | losses | win rate | stalls | mean turns |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in tallies:
        lines.append(
            f"| {r.ruleset} | {r.scenario} | {'random stand-in' if r.stand_in else 'own'} | {r.games} | "
            f"{r.wins} | {r.draws} | {r.losses} | {r.win_rate:.0%} | {r.stalls} | "
            f"{sum(r.turns) / max(1, len(r.turns)):.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--ruleset", action="append", default=None)
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    args = parser.parse_args()
    names = args.ruleset or [n for n in available_rulesets() if n != "tiny"]
    console = Console()
    with Progress(console=console) as progress:
        tallies = [bench(name, args.games, progress) for name in names]
    console.print(table(tallies))
    if args.markdown:
        print(markdown(tallies))


if __name__ == "__main__":
    main()
