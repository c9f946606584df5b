"""Imports flow downward only (api -> events -> domain), the domain stays pure, and rulesets never import
each other (import-linter). The rulesets' independence contract is built from the registry, so a ruleset
added there cannot be left out of it."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from service.domain.core.registry import BUILTIN_RULESETS, ENTRY_POINT_GROUP, entry_point_rulesets

ROOT = Path(__file__).resolve().parents[1]
INDEPENDENCE = "Rulesets never import each other"


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def builtin_packages() -> list[str]:
    """The package of every built-in ruleset, from its registry target ("service.domain.gsc2:RULESET")."""
    return [target.partition(":")[0] for target in BUILTIN_RULESETS.values()]


def ruleset_packages() -> list[str]:
    """The package of every installed ruleset: the built-ins and every `salvo.rulesets` entry point (a club's
    package installed beside Salvo is kept apart from the others as well)."""
    targets = [*BUILTIN_RULESETS.values(), *entry_point_rulesets().values()]
    return sorted({target.partition(":")[0] for target in targets})


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def contracts_from_the_registry() -> str:
    """pyproject's import-linter configuration with the independence contract's modules taken from the
    registry, as TOML."""
    config = dict(pyproject()["tool"]["importlinter"])
    roots = sorted({config.pop("root_package"), *(p.split(".")[0] for p in ruleset_packages())})
    lines = ["[tool.importlinter]", f"root_packages = {toml_value(roots)}"]
    lines += [f"{key} = {toml_value(value)}" for key, value in config.items() if key != "contracts"]
    for contract in config["contracts"]:
        if contract["name"] == INDEPENDENCE:
            contract = {**contract, "modules": ruleset_packages()}
        lines.append("\n[[tool.importlinter.contracts]]")
        lines += [f"{key} = {toml_value(value)}" for key, value in contract.items()]
    return "\n".join(lines) + "\n"


def test_import_contracts_hold(tmp_path: Path) -> None:
    config = tmp_path / "importlinter.toml"
    config.write_text(contracts_from_the_registry(), encoding="utf-8")
    linter = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(linter), "--no-cache", str(config)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = len(pyproject()["tool"]["importlinter"]["contracts"])
    assert f"Contracts: {contracts} kept, 0 broken" in result.stdout, result.stdout
    for package in ruleset_packages():
        assert package in config.read_text(encoding="utf-8")


def test_pyprojects_independence_contract_lists_every_registered_ruleset() -> None:
    """`lint-imports` run by hand reads pyproject.toml: its list must be the registry's."""
    contracts = {c["name"]: c for c in pyproject()["tool"]["importlinter"]["contracts"]}
    assert sorted(contracts[INDEPENDENCE]["modules"]) == sorted(builtin_packages())


def test_pyprojects_entry_points_declare_the_builtin_rulesets() -> None:
    """An installed Salvo declares its own rulesets in the `salvo.rulesets` entry-point group, exactly the
    registry's built-in ones (a checkout run without installing falls back on the registry's list)."""
    declared = pyproject()["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert declared == BUILTIN_RULESETS


PRIVATE_SERVER_NAMES = (
    "HEADER_RE",
    "HEADER_VALUE_RE",
    "STATUS_LINE",
    "RequestResponseCycle",
    "HttpToolsProtocol",
    "WebSocketsSansIOProtocol",
    "ClientDisconnected",
    "apply_mask",
    "get_route_path",
)


def _private_imports(path: Path) -> list[str]:
    """Imports of a server's private module (a ``_``-prefixed part, uvicorn's protocol internals) or name."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            module, names = "", [a.name for a in node.names]
        else:
            continue
        for name in [module, *names]:
            parts = name.split(".")
            if parts[0] in ("uvicorn", "starlette", "websockets", "fastapi") and (
                any(p.startswith("_") for p in parts[1:])
                or name.startswith(("uvicorn.protocols", "websockets.speedups"))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n in PRIVATE_SERVER_NAMES]
    return found


def test_only_the_fast_transport_imports_private_server_names() -> None:
    """Issue 34's one seam: uvicorn's, Starlette's and websockets' internals are imported in service/api/fast
    alone (written against the pinned versions); everything else, the plain path included, uses their API."""
    fast = ROOT / "service" / "api" / "fast"
    outside = [
        hit
        for path in sorted((ROOT / "service").rglob("*.py"))
        if fast not in path.parents
        for hit in _private_imports(path)
    ]
    assert outside == []
    inside = [hit for path in sorted(fast.rglob("*.py")) for hit in _private_imports(path)]
    assert inside, "the fast transport imports no private name: the check above no longer checks anything"


WIRE_MODULES = ("service.api", "fastapi", "starlette", "uvicorn", "websockets", "wsproto", "httptools", "h11")


def test_the_events_layer_returns_values_and_encodes_no_transports_messages() -> None:
    """Issue 34: service/events hands back values (``CommandResult``, ``FreshEvent``s and their envelopes);
    HTTP bodies and websocket messages are built in service/api (``encoding.py``). No module of the events
    layer imports an HTTP/websocket library or the API layer, nor spells a websocket message's bytes."""
    import ast

    found = []
    for path in sorted((ROOT / "service" / "events").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, bytes) and b'"kind"' in node.value:
                names = ["a websocket message's bytes"]
            else:
                continue
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} {name}"
                for name in names
                if name == "a websocket message's bytes"
                or name.split(".")[0] in WIRE_MODULES
                or name.startswith(WIRE_MODULES)
            ]
    assert found == []
