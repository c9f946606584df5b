"""Every registered ruleset, and the template, passes the conformance kit (service/testing/kit.py): other
seats refused as not-your-piece, decide's state the fold of its events, same dice same events, every die a
recorded fact, every option accepted, the outcome consistent with the declared properties, no secret served.
Collected from the registry, so a ruleset that cannot load fails here (RulesetLoadError at collection)
instead of silently dropping out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.domain.core import available_rulesets, find_ruleset, register_ruleset, unregister_ruleset
from service.testing import kit

TEMPLATE = ("template", "tests.support.template:RULESET")
NAMES = sorted({*available_rulesets(), TEMPLATE[0]})


@pytest.fixture(autouse=True, scope="module")
def _template_registered() -> Iterator[None]:
    register_ruleset(*TEMPLATE)
    yield
    unregister_ruleset(TEMPLATE[0])


@pytest.mark.parametrize("name", NAMES)
def test_ruleset_passes_the_conformance_kit(name: str) -> None:
    found = kit.findings(find_ruleset(name))
    assert not found, "\n".join(str(f) for f in found)
