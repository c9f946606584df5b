"""Links between rulesets: pure translations from one ruleset's facts into another's (no I/O).

A link package may import two rulesets; the rulesets themselves never import each other.
"""
