"""GSC2: a pure event-sourced ruleset (see docs/rules/gsc2.md and docs/rulings-gsc2.md)."""

from .ruleset import RULESET

__all__ = ["RULESET"]
