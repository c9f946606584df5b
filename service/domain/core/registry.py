"""Rulesets found by name, python-chess style. Entries are import paths ("package.module:ATTR"), loaded
on first use; each names a ``core.spec.RulesetSpec`` (or an object with every part of one, as tests' small
class-written rulesets were).

Names come from three places: the built-in rulesets below; the ``salvo.rulesets`` entry-point group of
every installed distribution (a club's ruleset is a package that ``pip install`` makes available, as pytest
finds its plugins); and ``register_ruleset`` (``SALVO_RULESETS``, tests). A ruleset that is named but cannot
be loaded is an error (``RulesetLoadError``), never a silent absence: ``available_rulesets`` raises it as
well, so a broken package fails ``salvo serve`` at start-up (``check_rulesets``) and fails the contract suite,
instead of quietly vanishing from ``GET /v1/rulesets``.
"""

from __future__ import annotations

import importlib
from importlib import metadata

from .protocol import Ruleset
from .spec import RulesetSpec, spec_parts

# What an object other than a RulesetSpec must have to be loaded as a ruleset (a wrapper standing in for
# one, as the conformance kit's planted defects do): every part the service reads of a spec.
RULESET_PARTS = tuple(p for p in spec_parts() if p not in ("scenario_package", "validate_setup"))

ENTRY_POINT_GROUP = "salvo.rulesets"

# Also declared as entry points in pyproject.toml (a test keeps the two equal); listed here too so that a
# checkout run from its directory without being installed still has them.
BUILTIN_RULESETS: dict[str, str] = {
    "gsc2": "service.domain.gsc2:RULESET",
    "asc": "service.domain.asc:RULESET",
    "starfinder": "service.domain.starfinder:RULESET",
    "ftcampaign": "service.domain.ftcampaign:RULESET",
}
_PATHS: dict[str, str] = dict(BUILTIN_RULESETS)
_LOADED: dict[str, Ruleset] = {}
_CONFLICTS: dict[str, str] = {}  # name -> why it cannot be loaded (declared twice, differently)
_FROM_ENTRY_POINTS: set[str] = set()
_discovered = False


class UnknownRuleset(LookupError):
    """No ruleset of that name is declared anywhere."""


class RulesetLoadError(RuntimeError):
    """A declared ruleset that cannot be loaded: its module fails to import, lacks the named object, the
    object is not a ruleset, or two declarations disagree. The message names the ruleset and the cause."""

    def __init__(self, name: str, target: str, reason: str) -> None:
        super().__init__(f"ruleset {name!r} ({target}) cannot be loaded: {reason}")
        self.name = name
        self.target = target
        self.reason = reason


def entry_point_rulesets() -> dict[str, str]:
    """The ``salvo.rulesets`` entry points of the installed distributions: name -> "module:ATTR"."""
    found: dict[str, str] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.dist is not None and ep.dist.name == "salvo" and ep.name in BUILTIN_RULESETS:
            continue  # Salvo's own, as installed: the code's list wins over metadata a reinstall has not refreshed
        if ep.name in found and found[ep.name] != ep.value:
            _CONFLICTS[ep.name] = f"declared twice as an entry point: {found[ep.name]} and {ep.value}"
        found.setdefault(ep.name, ep.value)
    return found


def _discover() -> None:
    """Read the entry points once. An explicit registration keeps its own path; a built-in name claimed by
    another target is a conflict (an installed package must not silently replace a built-in ruleset)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for name, target in entry_point_rulesets().items():
        if name in BUILTIN_RULESETS and target != BUILTIN_RULESETS[name]:
            _CONFLICTS[name] = f"an entry point names {target}, the built-in ruleset is {BUILTIN_RULESETS[name]}"
        if name not in _PATHS:
            _PATHS[name] = target
            _FROM_ENTRY_POINTS.add(name)
    for name in _CONFLICTS:
        _LOADED.pop(name, None)  # a conflict found now outranks what was loaded before


def rediscover() -> None:
    """Forget what the entry points said and read them again (after installing a package; tests)."""
    global _discovered
    for name in _FROM_ENTRY_POINTS:
        _PATHS.pop(name, None)
        _LOADED.pop(name, None)
    _FROM_ENTRY_POINTS.clear()
    _CONFLICTS.clear()
    _discovered = False


def register_ruleset(name: str, path_or_ruleset: str | Ruleset) -> None:
    """Add a ruleset by import path ("pkg.mod:NAME") or instance (tests register tiny ones)."""
    _discover()
    _CONFLICTS.pop(name, None)
    if isinstance(path_or_ruleset, str):
        _PATHS[name] = path_or_ruleset
        _LOADED.pop(name, None)
    else:
        problem = not_a_ruleset(path_or_ruleset)
        if problem:
            raise RulesetLoadError(name, f"<instance {name}>", f"not a ruleset ({problem})")
        _PATHS[name] = f"<instance {name}>"
        _LOADED[name] = path_or_ruleset


def unregister_ruleset(name: str) -> None:
    _PATHS.pop(name, None)
    _LOADED.pop(name, None)
    _CONFLICTS.pop(name, None)


def declared_rulesets() -> dict[str, str]:
    """Every declared name and its target, loaded or not."""
    _discover()
    return dict(_PATHS)


def available_rulesets() -> list[str]:
    """Every declared ruleset's name, each loaded; raises ``RulesetLoadError`` for the first that fails."""
    _discover()
    names = list(_PATHS)
    for name in names:
        find_ruleset(name)
    return names


def check_rulesets() -> list[RulesetLoadError]:
    """Load every declared ruleset and return what failed (empty: all load). For start-up checks that
    report every broken ruleset at once rather than the first."""
    _discover()
    failures = []
    for name in list(_PATHS):
        try:
            find_ruleset(name)
        except RulesetLoadError as exc:
            failures.append(exc)
    return failures


def not_a_ruleset(candidate: object) -> str:
    """Why ``candidate`` cannot serve as a ruleset ("" if it can): a ``RulesetSpec`` always can; anything else
    needs every part of one."""
    if isinstance(candidate, RulesetSpec):
        return ""
    missing = [part for part in RULESET_PARTS if not hasattr(candidate, part)]
    if missing:
        return f"a {type(candidate).__name__}, not a RulesetSpec, without {', '.join(missing)}"
    return ""


def load_target(name: str, path: str) -> Ruleset:
    """Import ``path`` ("package.module:ATTR") and check it is a ruleset; ``RulesetLoadError`` naming
    ``name`` and the cause otherwise (also what the conformance kit loads a package's ruleset with)."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise RulesetLoadError(name, path, "the target must read 'package.module:ATTR'")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - whatever breaks an import, the operator must see it
        raise RulesetLoadError(name, path, f"importing {module_name} failed: {type(exc).__name__}: {exc}") from exc
    ruleset = getattr(module, attr, None)
    if ruleset is None:
        raise RulesetLoadError(name, path, f"module {module_name} has no {attr!r}")
    problem = not_a_ruleset(ruleset)
    if problem:
        raise RulesetLoadError(name, path, f"{attr} is not a ruleset ({problem})")
    return ruleset  # type: ignore[no-any-return]


def ruleset_modules() -> dict[str, str]:
    """Every declared ruleset's module (the target's part before ':'), by name: what the import contract
    that rulesets never import each other lists (tests/test_layers.py)."""
    return {name: target.partition(":")[0] for name, target in declared_rulesets().items() if ":" in target}


def find_ruleset(name: str) -> Ruleset:
    _discover()
    if name in _LOADED:
        return _LOADED[name]
    path = _PATHS.get(name)
    if path is None:
        raise UnknownRuleset(name)
    if name in _CONFLICTS:
        raise RulesetLoadError(name, path, _CONFLICTS[name])
    ruleset = load_target(name, path)
    _LOADED[name] = ruleset
    return ruleset
