"""Rulesets found by name, python-chess style. Entries are import paths, loaded on first use."""

from __future__ import annotations

import importlib

from .protocol import Ruleset

BUILTIN_RULESETS: dict[str, str] = {
    "gsc2": "service.domain.gsc2:RULESET",
    "asc": "service.domain.asc:RULESET",
    "starfinder": "service.domain.starfinder:RULESET",
    "ftcampaign": "service.domain.ftcampaign:RULESET",
}
_PATHS: dict[str, str] = dict(BUILTIN_RULESETS)
_LOADED: dict[str, Ruleset] = {}


class UnknownRuleset(LookupError):
    pass


def register_ruleset(name: str, path_or_ruleset: str | Ruleset) -> None:
    """Add a ruleset by import path ("pkg.mod:NAME") or instance (tests register tiny ones)."""
    if isinstance(path_or_ruleset, str):
        _PATHS[name] = path_or_ruleset
        _LOADED.pop(name, None)
    else:
        _PATHS[name] = f"<instance {name}>"
        _LOADED[name] = path_or_ruleset


def unregister_ruleset(name: str) -> None:
    _PATHS.pop(name, None)
    _LOADED.pop(name, None)


def available_rulesets() -> list[str]:
    names = []
    for name in _PATHS:
        try:
            find_ruleset(name)
        except (UnknownRuleset, ImportError, AttributeError):
            continue  # a ruleset whose package is not installed yet is simply not offered
        names.append(name)
    return names


def find_ruleset(name: str) -> Ruleset:
    if name in _LOADED:
        return _LOADED[name]
    path = _PATHS.get(name)
    if path is None:
        raise UnknownRuleset(name)
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise UnknownRuleset(name) from exc
        raise
    ruleset: Ruleset = getattr(module, attr)
    _LOADED[name] = ruleset
    return ruleset
