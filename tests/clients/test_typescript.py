"""TypeScript types generated from the OpenAPI document (openapi-typescript, pinned in clients/package.json):
committed up to date, and every real answer of every operation type-checks against them (tsc --strict;
object literals with undocumented keys are errors)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.clients.exercise import exercise, ts_check_source

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
BIN = CLIENTS / "node_modules" / ".bin"
GENERATED = CLIENTS / "types" / "openapi.d.ts"
REGENERATE = "(cd clients && npm run types)"

pytestmark = pytest.mark.skipif(not (BIN / "tsc").exists(), reason="JS tools not installed (scripts/_node.sh)")


def test_committed_types_are_generated_from_the_committed_document(tmp_path: Path) -> None:
    fresh = tmp_path / "openapi.d.ts"
    subprocess.run(
        [
            str(BIN / "openapi-typescript"),
            str(ROOT / "openapi" / "openapi.json"),
            "-o",
            str(fresh),
            "--default-non-nullable",
            "false",
        ],
        check=True,
        capture_output=True,
        cwd=CLIENTS,
    )
    assert fresh.read_text() == GENERATED.read_text(), f"clients/types/openapi.d.ts is stale: run {REGENERATE}"


def tsc(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "answers.ts").write_text(source)
    (tmp_path / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "strict": True,
                    "noEmit": True,
                    "target": "ES2022",
                    "module": "ES2022",
                    "moduleResolution": "Bundler",
                    "types": [],
                    "skipLibCheck": False,
                },
                "files": ["answers.ts"],
            }
        )
    )
    return subprocess.run(
        [str(BIN / "tsc"), "-p", str(tmp_path / "tsconfig.json")], capture_output=True, text=True, cwd=tmp_path
    )


async def test_real_answers_of_every_operation_type_check(api: httpx.AsyncClient, tmp_path: Path) -> None:
    samples = await exercise(api)
    types = str(CLIENTS / "types" / "salvo")
    source = ts_check_source(samples, str(CLIENTS / "types" / "openapi"))
    source += f'import type {{ Answer }} from "{types}";\nexport const typed: Answer<"get_game", 200>["over"] = true;\n'
    result = tsc(tmp_path, source)
    assert result.returncode == 0, result.stdout[-3000:]
    assert source.count("export const sample") >= 30


async def test_a_wrong_answer_does_not_type_check(tmp_path: Path) -> None:
    """The check can fail: an undocumented key and a wrong type are both errors."""
    source = (
        f'import type {{ operations }} from "{CLIENTS / "types" / "openapi"}";\n'
        'export const a: operations["get_bots"]["responses"][200]["content"]["application/json"] = '
        '{"game_id": "g", "available": [], "bots": [], "extra": 1};\n'
        'export const b: operations["get_options"]["responses"][200]["content"]["application/json"] = '
        '{"version": "7", "viewer": "spectator", "options": [], "forms": []};\n'
    )
    result = tsc(tmp_path, source)
    assert result.returncode != 0
    assert "answers.ts(2," in result.stdout and "extra" in result.stdout  # the undocumented key
    assert "answers.ts(3," in result.stdout  # the version as a string
