"""Mutation testing of the rules: does each ruleset's domain test suite notice a wrong rule?

A small self-written mutator (no extra dependency). For a ruleset it lists every candidate mutation in the
ruleset's rule modules (MODULES below; presentation modules such as view, explain and bot are left out), draws a
seeded sample of them, and runs the ruleset's domain tests (``tests/domain/<ruleset>``) once per mutant. A mutant
is *killed* when a test fails (or the run exceeds the timeout, a mutant that loops forever); it *survives* when
every test passes. The always-included mutations (MUST) are the survivors an earlier round found.

The mutant never touches the working tree: the test process loads the mutated module's source through an import
hook (``--mutant`` below), so several people can work in the tree while this runs.

Mutation operators (one change per mutant):
- comparison: ``==``<->``!=``, ``<``<->``<=``, ``>``<->``>=``, ``in``<->``not in``, ``is``<->``is not``;
- integer constant: ``n`` -> ``n + 1`` where it is compared with or used in arithmetic;
- boolean: ``and``<->``or``; ``not x`` -> ``x``;
- arithmetic: ``+``<->``-``.

Usage: ``.venv/bin/python scripts/mutate.py [ruleset ...] [--sample N] [--seed S] [--floor 95] [--list]``.
Exits 1 when a ruleset's kill rate is below the floor. Figures: docs/mutation-testing.md.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# presentation and bot modules: what a page shows or a computer player weighs, not what the rules decide
PRESENTATION = {"__init__.py", "view.py", "explain.py", "effects.py", "bot.py", "tactics.py", "names.py", "status.py"}
RULESETS = ("ftcampaign", "gsc2", "starfinder", "asc")
# The survivors of the first round (issue 36): always in the sample.
MUST = {
    "ftcampaign": [
        ("movement.py", "d == 2", "d in (2, 3)"),
        ("economy.py", "cost > econ(state, player).cash", "cost >= econ(state, player).cash"),
        ("repairs.py", "majors_working(ship) < 3", "majors_working(ship) < 2"),
    ],
}
# Mutants judged equivalent (no input tells them apart), left out of the sample; each says why.
EQUIVALENT: dict[tuple[str, str, str], str] = {
    (
        "movement.py",
        "delta < -EPSILON",
        "delta <= -EPSILON",
    ): "gsc2 table_exit: differs only when a run's x or y change is exactly -1e-9 inch (the tolerance itself)",
    (
        "options.py",
        "d <= MISSILE_MOVE + EPSILON",
        "d < MISSILE_MOVE + EPSILON",
    ): 'gsc2 salvo label: differs only at exactly 12" + 1e-9; 12" itself is inside both (the tolerance)',
}
SWAP_CMP: dict[type, type] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    module: str  # file name inside service/domain/<ruleset>/
    line: int
    col: int  # where ``before`` starts on the line (-1: its first occurrence)
    before: str
    after: str
    text: str = ""  # the line, stripped: the mutant is found again by it when lines move

    def key(self, seed: int) -> str:
        """The sampling key: stable while the line itself is unchanged, wherever it moves."""
        indent = len(self.text) - len(self.text.lstrip()) if self.text else 0
        raw = f"{seed}:{self.module}:{self.text.strip()}:{self.col - indent}:{self.before}:{self.after}"
        return hashlib.sha256(raw.encode()).hexdigest()

    def label(self) -> str:
        return f"{self.module}:{self.line}: {self.before!r} -> {self.after!r}"


def modules(ruleset: str) -> list[Path]:
    base = ROOT / "service" / "domain" / ruleset
    return sorted(p for p in base.glob("*.py") if p.name not in PRESENTATION)


def _in_fstring(tree: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inside.update(id(n) for n in ast.walk(node))
    return inside


def candidates(path: Path) -> list[Mutant]:
    """Every single-change mutation of one module, as (segment before, segment after) at a line."""
    src = path.read_text()
    lines = src.splitlines()
    tree = ast.parse(src)
    skip = _in_fstring(tree)
    out: list[Mutant] = []

    def add(node: ast.AST, mutated: ast.AST) -> None:
        before = ast.get_source_segment(src, node)
        if before is None or "\n" in before:
            return
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        out.append(Mutant(path.name, line, col, before, ast.unparse(mutated), lines[line - 1]))

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in SWAP_CMP:
                    ops = list(node.ops)
                    ops[i] = SWAP_CMP[type(op)]()
                    add(node, ast.Compare(left=node.left, ops=ops, comparators=node.comparators))
            for i, c in enumerate(node.comparators):
                if isinstance(c, ast.Constant) and type(c.value) is int:
                    comps = list(node.comparators)
                    comps[i] = ast.Constant(c.value + 1)
                    add(node, ast.Compare(left=node.left, ops=node.ops, comparators=comps))
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, (ast.Add, ast.Sub)):
                arith: ast.operator = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
                if not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
                    add(node, ast.BinOp(left=node.left, op=arith, right=node.right))
            for side in ("left", "right"):
                c = getattr(node, side)
                if isinstance(c, ast.Constant) and type(c.value) is int:
                    parts = {"left": node.left, "right": node.right, side: ast.Constant(c.value + 1)}
                    add(node, ast.BinOp(left=parts["left"], op=node.op, right=parts["right"]))
        elif isinstance(node, ast.BoolOp):
            flip = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            add(node, ast.BoolOp(op=flip, values=node.values))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add(node, node.operand)
    return out


def relocate(src: str, m: Mutant) -> Mutant | None:
    """The mutant at its line's current place (the file may have changed since the sample was drawn)."""
    if not m.text:
        return m
    lines = src.splitlines()
    if m.line <= len(lines) and lines[m.line - 1] == m.text:
        return m
    found = [i + 1 for i, t in enumerate(lines) if t == m.text]
    if not found:
        return None
    line = min(found, key=lambda n: abs(n - m.line))
    return Mutant(m.module, line, m.col, m.before, m.after, m.text)


def apply(src: str, m: Mutant) -> str:
    lines = src.splitlines(keepends=True)
    line = lines[m.line - 1].encode()  # ast columns count UTF-8 bytes
    col = line.find(m.before.encode()) if m.col < 0 else m.col
    assert line[col : col + len(m.before.encode())] == m.before.encode(), m.label()
    after = f"({m.after})".encode()
    lines[m.line - 1] = (line[:col] + after + line[col + len(m.before.encode()) :]).decode()
    mutated = "".join(lines)
    compile(mutated, m.module, "exec")
    return mutated


def must_mutants(ruleset: str) -> list[Mutant]:
    out = []
    for module, before, after in MUST.get(ruleset, []):
        text = (ROOT / "service" / "domain" / ruleset / module).read_text().splitlines()
        line = next(i + 1 for i, t in enumerate(text) if before in t)
        out.append(Mutant(module, line, -1, before, after))
    return out


def equivalent(m: Mutant) -> str | None:
    """Why a mutant cannot change behaviour (then it is left out of the sample), or None."""
    return EQUIVALENT.get((m.module, m.before, m.after))


def sample(ruleset: str, n: int, seed: int) -> list[Mutant]:
    """The MUST mutants, then the ``n`` candidates with the smallest sampling keys (seeded hashes of the line's
    text and the change, so editing one place of a module leaves the rest of the sample as it was)."""
    pool = {m.key(seed): m for p in modules(ruleset) for m in candidates(p) if not equivalent(m)}
    picked = [pool[k] for k in sorted(pool)[:n]]
    return must_mutants(ruleset) + sorted(picked, key=lambda m: (m.module, m.line))


def run_mutant(ruleset: str, m: Mutant, timeout: float) -> tuple[bool | None, str]:
    """(killed, or None when the line is gone; how): runs the ruleset's domain tests (not the slow ones) with
    the mutated module loaded in place of the file."""
    path = ROOT / "service" / "domain" / ruleset / m.module
    src = path.read_text()
    here = relocate(src, m)
    if here is None:
        return None, "stale: the line changed since the sample was drawn"
    payload = json.dumps(
        {"module": f"service.domain.{ruleset}.{m.module[:-3]}", "path": str(path), "source": apply(src, here)}
    )
    env = {**os.environ, "SALVO_MUTANT": payload, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-p",
        "no:cacheprovider",
        "-p",
        "scripts.mutant_hook",
        "-m",
        "not slow",
        f"tests/domain/{ruleset}",
    ]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, "timeout"
    if "SALVO_MUTANT loaded" not in proc.stdout + proc.stderr and proc.returncode == 0:
        raise SystemExit(f"the mutant hook did not load for {m.label()}")
    last = (proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode != 0, last


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulesets", nargs="*", default=list(RULESETS))
    ap.add_argument("--sample", type=int, default=30, help="random mutants per ruleset (plus the MUST ones)")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--floor", type=float, default=95.0, help="minimum kill rate in percent")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--list", action="store_true", help="print the sample without running it")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args()
    results: dict[str, dict[str, object]] = {}
    failed = False
    for rs in args.rulesets:
        mutants = sample(rs, args.sample, args.seed)
        if args.list:
            for m in mutants:
                print(rs, m.label())
            continue
        survivors: list[str] = []
        stale = 0
        started = time.monotonic()
        for i, m in enumerate(mutants, 1):
            killed, how = run_mutant(rs, m, args.timeout)
            word = "stale   " if killed is None else "killed  " if killed else "SURVIVED"
            print(f"[{rs} {i}/{len(mutants)}] {word} {m.label()}  ({how})", flush=True)
            stale += killed is None
            if killed is False:
                survivors.append(m.label())
        ran = len(mutants) - stale
        rate = 100.0 * (ran - len(survivors)) / max(1, ran)
        results[rs] = {
            "mutants": ran,
            "killed": ran - len(survivors),
            "rate": round(rate, 1),
            "stale": stale,
            "survivors": survivors,
            "seconds": round(time.monotonic() - started),
        }
        print(f"== {rs}: {ran - len(survivors)}/{ran} killed ({rate:.1f} %)", flush=True)
        failed |= rate < args.floor
    if args.json and results:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
