"""A template ruleset: the smallest game in the common shape (docs/adding-a-ruleset.md walks through it).

Two ships trade shots across a table until one is wrecked. Every file plays the role docs/view-contract.md gives
it, and the contract suite (tests/contract/test_ruleset_contract.py) runs against it like any real ruleset.
"""

from .ruleset import RULESET

__all__ = ["RULESET"]
