"""ASC: the 2300AD space combat variant — hex movement, sensors, sealed commitments, hidden ships."""

from .ruleset import RULESET

__all__ = ["RULESET"]
