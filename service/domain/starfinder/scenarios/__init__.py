"""Sample Starfinder scenarios (JSON), listed by the spec's scenario_package."""
