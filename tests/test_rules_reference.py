"""The rules reference (docs/rules/<ruleset>.md) is the project's own: one per built-in ruleset, every
rule id in it named by some test, and the page ships the same text (clients/web/rules/, rule links)."""

from pathlib import Path

import pytest

from scripts.rule_coverage import ROOT, missing_ids, rule_ids
from scripts.rule_coverage import tests_text as sources_under_tests
from service.domain.core.registry import BUILTIN_RULESETS

REFERENCE = ROOT / "docs" / "rules"


@pytest.mark.parametrize("name", sorted(BUILTIN_RULESETS))
def test_every_builtin_ruleset_has_a_rules_reference(name: str) -> None:
    reference = REFERENCE / f"{name}.md"
    assert reference.is_file(), f"docs/rules/{name}.md is missing"
    assert len(rule_ids(reference)) >= 10, "a rules reference lists its rules as '- ID text' lines"


def test_every_rule_id_is_named_by_a_test() -> None:
    text = sources_under_tests()
    missing = [i for ref in sorted(REFERENCE.glob("*.md")) for i in missing_ids(ref, text)]
    assert not missing, f"rule ids no test names: {missing}"


@pytest.mark.parametrize("reference", sorted(REFERENCE.glob("*.md")), ids=lambda p: p.stem)
def test_the_page_ships_the_same_rules_text(reference: Path) -> None:
    shipped = ROOT / "clients" / "web" / "rules" / reference.name
    assert shipped.read_text(encoding="utf-8") == reference.read_text(encoding="utf-8"), (
        f"copy docs/rules/{reference.name} to clients/web/rules/ (the page links rule ids to it)"
    )
