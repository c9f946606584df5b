"""``salvo new-ruleset NAME``: a ruleset package of its own, ready to install and to grow.

The files under ``files/`` (``*.tmpl``, so no tool takes them for Salvo's own code) are copied with
``{{name}}`` (the package and ruleset name), ``{{title}}`` and ``{{RULE}}`` (the rule-id prefix) filled in::

    NAME/
      pyproject.toml          the salvo.rulesets entry point: NAME = "NAME:RULESET"
      README.md               the rules, with ids
      NAME/                   commands, events, scenario, state, rules, decide (core.decider), evolve,
                              options, view (view and draw), explain, bot, ruleset (RULESET = RulesetSpec(...)),
                              scenarios/*.json
      tests/test_conformance.py   the conformance kit on it

The game it starts from is the smallest in the common shape (two ships trade shots); it passes the contract
suite and the conformance kit, and plays in the page with nothing else changed (tests/contract/test_scaffold.py,
tests/web/test_scaffold_page.py).
"""

from __future__ import annotations

import keyword
import re
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

NAME = re.compile(r"[a-z][a-z0-9_]{1,23}")
SUFFIX = ".tmpl"


class ScaffoldError(ValueError):
    """The name cannot be a ruleset's, or the directory exists."""


def check_name(name: str) -> None:
    if not NAME.fullmatch(name) or keyword.iskeyword(name):
        raise ScaffoldError(f"{name!r}: a ruleset's name is a Python package name: a-z, 0-9 and _, 2 to 24 long")
    from service.domain.core.registry import declared_rulesets

    if name in declared_rulesets() or name in ("service", "tests", "salvo"):
        raise ScaffoldError(f"{name!r} is taken: a ruleset of that name is already declared")


def _files(root: Traversable, prefix: str = "") -> list[tuple[str, str]]:
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            out += _files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(SUFFIX):
            out.append((prefix + entry.name[: -len(SUFFIX)], entry.read_text(encoding="utf-8")))
    return out


def scaffold(name: str, where: Path, title: str | None = None) -> Path:
    """Write the package ``name`` into ``where/name`` and return that directory."""
    check_name(name)
    target = Path(where) / name
    if target.exists():
        raise ScaffoldError(f"{target} exists: choose another directory or name")
    fills = {
        "{{name}}": name,
        "{{title}}": title or f"{name.replace('_', ' ').title()}: two ships trade shots",
        "{{RULE}}": name.upper().replace("_", "-"),
    }
    for relative, text in _files(resources.files(__name__) / "files"):
        relative = relative.replace("package/", f"{name}/", 1) if relative.startswith("package/") else relative
        for key, value in fills.items():
            text = text.replace(key, value)
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target
