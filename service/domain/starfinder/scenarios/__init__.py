"""Sample Starfinder scenarios (JSON), listed by RulesetBase.scenarios()."""
