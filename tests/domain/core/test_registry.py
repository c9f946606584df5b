"""The ruleset registry: found by name from the built-ins, installed packages' `salvo.rulesets` entry points
and explicit registrations (SALVO_RULESETS); a declared ruleset that cannot load is an error, never a
ruleset that silently disappears."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.domain.core import SPECTATOR, UMPIRE, Dice, InvalidScenario, RulesetSpec, registry
from service.domain.core.registry import (
    BUILTIN_RULESETS,
    RulesetLoadError,
    UnknownRuleset,
    available_rulesets,
    check_rulesets,
    find_ruleset,
    register_ruleset,
    unregister_ruleset,
)
from service.domain.core.spec import required_parts
from tests.support.template import RULESET as TEMPLATE
from tests.support.template import commands as template_commands

ROOT = Path(__file__).resolve().parents[3]
BROKEN_MODULE = "from service.domain.core import NoSuchThing  # the package's own bug\n"


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path where a test installs modules and distributions (dist-info with entry
    points, which is all `pip install` leaves for importlib.metadata to find)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.rediscover()
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("club_")]:
        del sys.modules[name]
    monkeypatch.undo()
    registry.rediscover()


def install(where: Path, distribution: str, entry_points: dict[str, str]) -> None:
    info = where / f"{distribution}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")
    registry.rediscover()


def test_the_builtin_rulesets_load() -> None:
    names = available_rulesets()
    assert set(BUILTIN_RULESETS) <= set(names)
    assert find_ruleset("gsc2").name == "gsc2"


def test_an_unknown_name_is_unknown() -> None:
    with pytest.raises(UnknownRuleset):
        find_ruleset("no-such-ruleset")


def test_a_ruleset_whose_import_fails_is_an_error_not_an_absence(packages: Path) -> None:
    (packages / "club_broken.py").write_text(BROKEN_MODULE, encoding="utf-8")
    register_ruleset("broken", "club_broken:RULESET")
    try:
        with pytest.raises(RulesetLoadError) as failed:
            find_ruleset("broken")
        assert failed.value.name == "broken"
        assert "ImportError" in str(failed.value) and "NoSuchThing" in str(failed.value)
        with pytest.raises(RulesetLoadError, match="'broken'"):
            available_rulesets()  # the listing (GET /v1/rulesets) fails too, rather than leaving it out
        assert [f.name for f in check_rulesets()] == ["broken"]
    finally:
        unregister_ruleset("broken")
    assert check_rulesets() == []


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("club_missing_module:RULESET", "ModuleNotFoundError"),
        ("club_rules:NOPE", "has no 'NOPE'"),
        ("club_rules:NOT_A_RULESET", "is not a ruleset"),
        ("club_rules", "package.module:ATTR"),
    ],
)
def test_every_way_a_target_cannot_load_names_the_cause(packages: Path, target: str, reason: str) -> None:
    (packages / "club_rules.py").write_text("NOT_A_RULESET = object()\n", encoding="utf-8")
    register_ruleset("club", target)
    try:
        with pytest.raises(RulesetLoadError, match=reason):
            find_ruleset("club")
    finally:
        unregister_ruleset("club")


def test_an_installed_package_declares_a_ruleset_by_entry_point(packages: Path) -> None:
    install(packages, "club_rulesets", {"club": "tests.support.template:RULESET"})
    assert "club" in available_rulesets()
    assert find_ruleset("club") is TEMPLATE
    registry.rediscover()  # still there when read again
    assert "club" in registry.declared_rulesets()


def test_an_installed_package_that_cannot_import_is_reported(packages: Path) -> None:
    (packages / "club_broken_pkg.py").write_text(BROKEN_MODULE, encoding="utf-8")
    install(packages, "club_broken_pkg", {"clubbroken": "club_broken_pkg:RULESET"})
    assert [f.name for f in check_rulesets()] == ["clubbroken"]
    with pytest.raises(RulesetLoadError, match="clubbroken"):
        available_rulesets()


def test_an_entry_point_cannot_replace_a_builtin_ruleset(packages: Path) -> None:
    install(packages, "club_impostor", {"gsc2": "tests.support.template:RULESET"})
    with pytest.raises(RulesetLoadError, match="the built-in ruleset is service.domain.gsc2:RULESET"):
        find_ruleset("gsc2")


def test_salvos_own_stale_metadata_does_not_override_the_code(packages: Path) -> None:
    """An editable install's entry points go stale until it is reinstalled: for its own built-in names the
    code's list wins."""
    install(packages, "salvo", {"gsc2": "service.domain.gsc2:OLD_NAME"})
    assert find_ruleset("gsc2").name == "gsc2"


def test_two_packages_declaring_one_name_differently_conflict(packages: Path) -> None:
    install(packages, "club_one", {"club": "tests.support.template:RULESET"})
    install(packages, "club_two", {"club": "tests.support.tiny:RULESET"})
    with pytest.raises(RulesetLoadError, match="declared twice"):
        find_ruleset("club")


def test_salvo_serve_refuses_to_start_with_a_broken_ruleset(tmp_path: Path) -> None:
    """The operator sees the failure at start-up (exit status and log), before any port is bound."""
    (tmp_path / "club_broken.py").write_text(BROKEN_MODULE, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "SALVO_RULESETS": "broken=club_broken:RULESET",
    }
    result = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--port", "1", "--database-url", f"sqlite:///{tmp_path}/s.db"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "not starting" in result.stderr
    assert "ruleset 'broken' (club_broken:RULESET) cannot be loaded" in result.stderr
    assert "NoSuchThing" in result.stderr
    assert not (tmp_path / "s.db").exists()  # refused before touching the database


def test_a_ruleset_is_a_spec_or_has_every_part_of_one(packages: Path) -> None:
    """The registry loads a RulesetSpec; anything else must have every part the service reads of one, and
    is refused naming what it lacks."""
    (packages / "club_half.py").write_text(
        "class Half:\n    name = 'half'\n    def decide(self, *a): return []\nRULESET = Half()\n", encoding="utf-8"
    )
    register_ruleset("half", "club_half:RULESET")
    try:
        with pytest.raises(RulesetLoadError, match=r"a Half, not a RulesetSpec, without .*evolve.*bots"):
            find_ruleset("half")
    finally:
        unregister_ruleset("half")
    with pytest.raises(RulesetLoadError, match="not a ruleset"):
        register_ruleset("half", object())  # type: ignore[arg-type]
    assert all(isinstance(find_ruleset(name), RulesetSpec) for name in BUILTIN_RULESETS)


def test_a_spec_fills_in_its_defaults() -> None:
    spec = dataclasses.replace(TEMPLATE, name="bare", bots={}, properties={})
    bare = RulesetSpec(
        **{f: getattr(spec, f) for f in required_parts()},
    )
    state = bare.initial_state(bare.parse_setup({"name": "x"}))
    assert bare.scenarios() == {} and bare.bots == {} and bare.properties == {}
    assert bare.forms(state, UMPIRE) == [] and bare.secrets(state, UMPIRE) == ()
    event = TEMPLATE.decide(state, template_commands.Pass(side="red"), UMPIRE, Dice(b"k", "g", 1))[0]
    assert bare.redact(event, SPECTATOR, state) is event and bare.explain(event) == "template.held"
    assert bare.result(state) == ""  # the state's own field (is_over false: no outcome yet)
    assert bare.parse_setup({"name": "x", "hull": 0}).hull == 0  # no validate_setup declared: types only
    with pytest.raises(InvalidScenario, match="hull"):
        bare.parse_setup({"name": "x", "hull": "four"})
    with pytest.raises(InvalidScenario):
        bare.parse_setup({"name": "x", "hull": 10**30})  # every number bounded first (core/numbers.py)
    scenario = dataclasses.replace(bare, scenario_package="tests.support.template.scenarios")
    assert sorted(scenario.scenarios()) == ["duel", "standoff"]


def test_ruleset_modules_are_the_declared_targets_modules() -> None:
    modules = registry.ruleset_modules()
    assert {modules[name] for name in BUILTIN_RULESETS} == {t.partition(":")[0] for t in BUILTIN_RULESETS.values()}
