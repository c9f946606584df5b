"""Starfinder starship combat: a pure event-sourced ruleset (see docs/rules/starfinder.md and
docs/rulings-starfinder.md). Every crew member is a seat ("ship/crew")."""

from .ruleset import RULESET

__all__ = ["RULESET"]
