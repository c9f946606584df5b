"""Sample GSC2 scenarios (JSON), listed by RulesetBase.scenarios()."""
