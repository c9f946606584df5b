"""Sample GSC2 scenarios (JSON), listed by the spec's scenario_package."""
