"""`salvo new-ruleset NAME` writes a package that stands alone: installed (here without pip: its
entry point in a dist-info on sys.path, which is all `pip install` leaves for the registry to find), it
loads by name, passes the conformance kit (its own tests/test_conformance.py) and the contract suite, and
its code passes ruff. Nothing of Salvo's is edited: the browser test (tests/web/test_scaffold_page.py)
plays it in the page."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.cli import main
from service.domain.core import RulesetSpec
from service.domain.core.registry import ENTRY_POINT_GROUP, find_ruleset, rediscover
from service.scaffold import ScaffoldError, scaffold
from service.testing import kit
from tests.contract import test_ruleset_contract as contract

ROOT = Path(__file__).resolve().parents[2]
NAME = "scaffolded"


def install_without_pip(project: Path, site: Path) -> None:
    """What `pip install` leaves for importlib.metadata: a dist-info holding the project's entry points."""
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{meta['name']}-{meta['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n", encoding="utf-8"
    )
    lines = [
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in meta["entry-points"].items()
    ]
    (info / "entry_points.txt").write_text("".join(lines), encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("scaffold")
    assert main_exit(["new-ruleset", NAME, "--into", str(where)]) == 0
    project = where / NAME
    install_without_pip(project, where)
    sys.path[:0] = [str(project), str(where)]
    rediscover()
    try:
        yield project
    finally:
        for path in (str(project), str(where)):
            sys.path.remove(path)
        for module in [m for m in sys.modules if m == NAME or m.startswith(NAME + ".")]:
            del sys.modules[module]
        rediscover()


def test_the_package_declares_itself_and_loads_by_name(project: Path) -> None:
    declared = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"][ENTRY_POINT_GROUP] == {NAME: f"{NAME}:RULESET"}
    ruleset = find_ruleset(NAME)
    assert isinstance(ruleset, RulesetSpec) and ruleset.name == NAME
    assert sorted(ruleset.scenarios()) == ["duel", "standoff"]


def test_its_own_conformance_test_passes(project: Path) -> None:
    spec = importlib.util.spec_from_file_location("scaffolded_conformance", project / "tests" / "test_conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for check in kit.CHECKS:
        module.test_conformance(check)
    assert kit.findings(find_ruleset(NAME), seeds=(1, 2, 3)) == []


def test_it_passes_the_contract_suite(project: Path) -> None:
    cases = [
        f
        for n, f in vars(contract).items()
        if n.startswith("test_") and callable(f) and list(inspect.signature(f).parameters) == ["name"]
    ]
    assert len(cases) >= 10
    for case in cases:
        case(NAME)


def test_its_code_is_clean(project: Path) -> None:
    ruff = Path(sys.executable).with_name("ruff")
    for args in (["check"], ["format", "--check"]):
        done = subprocess.run(
            [str(ruff), *args, "--config", str(ROOT / "pyproject.toml"), str(project)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_a_taken_or_bad_name_is_refused(tmp_path: Path) -> None:
    for name in ("gsc2", "Club", "class", "x", "with-dash"):
        with pytest.raises(ScaffoldError):
            scaffold(name, tmp_path)
    scaffold("club", tmp_path)
    with pytest.raises(ScaffoldError, match="exists"):
        scaffold("club", tmp_path)
    assert main_exit(["new-ruleset", "gsc2", "--into", str(tmp_path)]) == 2


def main_exit(argv: list[str]) -> int | str | None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    return done.value.code


def test_the_import_contract_keeps_it_apart_from_the_other_rulesets(project: Path) -> None:
    """Installed, it joins the rulesets-never-import-each-other contract built from the registry."""
    from tests.test_layers import INDEPENDENCE, contracts_from_the_registry

    config = tomllib.loads(contracts_from_the_registry())["tool"]["importlinter"]
    assert NAME in config["root_packages"] and "service" in config["root_packages"]
    independence = next(c for c in config["contracts"] if c["name"] == INDEPENDENCE)
    assert NAME in independence["modules"] and "service.domain.gsc2" in independence["modules"]
