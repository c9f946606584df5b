"""Full Thrust club campaign: the strategic layer (star map, economy, sealed moves, linked battles)."""

from .ruleset import RULESET

__all__ = ["RULESET"]
