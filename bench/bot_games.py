#!/usr/bin/env python3
"""Bots on every seat of every sample scenario (issue 36's done-when): stalls, refused options and winners.

    .venv/bin/python bench/bot_games.py [--games 20] [--ruleset starfinder ...] [--max-steps 3000]

Each game is played in process by tests/clients/botplay.py (the seat's view and options as the API shows them,
commands through the service's guards, the umpire doing only its pending duties), with the ruleset's rules bot
in every seat and its own dice per game (seed 0..N-1). A *stall* is a game that could not go on (no seat awaited
and no umpire duty) or found no end within ``--max-steps`` commands; a *refused option* is an option decide
refused when the seat sent it (a defect). Prints one line per scenario. The suite plays a few of these games
(tests/domain/*/test_bot.py); this plays them all. Not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.domain.core import find_ruleset  # noqa: E402
from service.events.bots import bots_of  # noqa: E402
from tests.clients.botplay import play  # noqa: E402

DEFAULT = ("gsc2", "asc", "starfinder", "ftcampaign")


def run(name: str, games: int, max_steps: int) -> list[str]:
    ruleset = find_ruleset(name)
    rules_bot = bots_of(ruleset)[0]["rules"]
    lines = []
    for scenario in sorted(ruleset.scenarios()):
        setup = ruleset.parse_setup(ruleset.scenarios()[scenario])
        bots = {s: rules_bot for s in ruleset.seats(setup)}
        stalls = refused = 0
        winners: Counter[str] = Counter()
        steps: list[int] = []
        started = time.process_time()
        for seed in range(games):
            game = play(ruleset, scenario, bots, seed=seed, max_steps=max_steps)
            stalls += game.stalled is not None
            refused += len(game.refused_options)
            winner = getattr(game.state, "winner", None)
            winners[str(winner) if winner else f"no winner ({game.result or 'unfinished'})"] += 1
            steps.append(game.steps)
            if game.stalled or game.refused_options:
                print(f"  {name}/{scenario} seed {seed}: {game.stalled or ''} {game.refused_options[:2]}", flush=True)
        cpu = time.process_time() - started
        tally = ", ".join(f"{w} {n}" for w, n in winners.most_common())
        lines.append(
            f"{name}/{scenario}: {games} games, {stalls} stalls, {refused} refused options; "
            f"results: {tally}; commands {min(steps)}-{max(steps)}; {cpu:.0f} s CPU"
        )
        print(lines[-1], flush=True)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ruleset", action="append", help=f"default: {', '.join(DEFAULT)}")
    parser.add_argument("--max-steps", type=int, default=3000)
    args = parser.parse_args()
    for name in args.ruleset or DEFAULT:
        run(name, args.games, args.max_steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
