"""An integrator's TypeScript client from the committed document, with no patching (issue 35): openapi-typescript
generates openapi.d.ts from openapi/openapi.json into a fresh directory, tsc --strict checks
tests/clients/ts/play_gsc2.ts against it (events narrowed by ``type``, stream frames by ``kind``, a 409 as a
Problem), and node runs it with openapi-fetch (both pinned in clients/package.json): a GSC2 duel played to its
end against a live server, watched on a plain websocket."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
MODULES = CLIENTS / "node_modules"
BIN = MODULES / ".bin"
PROGRAM = Path(__file__).parent / "ts" / "play_gsc2.ts"
# openapi-typescript's one option the project sets (clients/package.json's "types" script, README): by default it
# makes every property with a `default` required, in request bodies too (CreateGame.options, CommandRequest.salt),
# where a default means the caller may leave it out.
TYPES_OPTIONS = ["--default-non-nullable", "false"]

pytestmark = pytest.mark.skipif(
    not (MODULES / "openapi-fetch").exists(), reason="JS tools not installed (scripts/_node.sh)"
)


def run(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The program compiled beside the freshly generated types; node_modules is the pinned one."""
    out = tmp_path_factory.mktemp("ts-client")
    (out / "node_modules").symlink_to(MODULES, target_is_directory=True)
    (out / "package.json").write_text(json.dumps({"type": "module", "private": True}))
    generated = run(
        [
            str(BIN / "openapi-typescript"),
            str(ROOT / "openapi" / "openapi.json"),
            "-o",
            str(out / "openapi.d.ts"),
            *TYPES_OPTIONS,
        ],
        out,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    (out / "play_gsc2.ts").write_text(PROGRAM.read_text())
    (out / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "strict": True,
                    "target": "ES2022",
                    "module": "NodeNext",
                    "moduleResolution": "NodeNext",
                    "lib": ["ES2022", "DOM", "DOM.Iterable"],
                    "types": [],
                    "outDir": "dist",
                    "skipLibCheck": True,
                },
                "files": ["play_gsc2.ts"],
            }
        )
    )
    checked = run([str(BIN / "tsc"), "-p", "tsconfig.json"], out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return out / "dist" / "play_gsc2.js"


def node_command() -> list[str]:
    """Node 20 has the WHATWG WebSocket behind a flag; 22 and later have it on."""
    probe = run(["node", "-p", "typeof WebSocket"], ROOT, timeout=30)
    return ["node"] if probe.stdout.strip() == "function" else ["node", "--experimental-websocket"]


@pytest.mark.slow
def test_the_generated_typescript_client_plays_a_gsc2_duel_to_its_end(
    compiled: Path, live_server: ServerProcess
) -> None:
    result = run([*node_command(), str(compiled), live_server.url], compiled.parent, timeout=170)
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["over"] and seen["commands"] > 3 and seen["imported"], seen
    events = seen["events"]
    assert seen["streamed"] == [seq for seq, _type, _text in events]  # the stream: every event, in order, no gap
    assert {"event", "caught_up"} <= set(seen["frame_kinds"]), seen["frame_kinds"]
    assert seen["export_lines"] == len(events) + 1  # the header, then one envelope per line
    assert seen["at_1"] == 1
    described = {kind: text for _seq, kind, text in events}  # read through each event's own payload type
    assert described["game.created"] == "created gsc2"
    assert " moved " in described["gsc2.ship_moved"], described
    assert described["gsc2.game_over"].startswith("over: "), described
    assert seen["winner"] is None or described["gsc2.game_over"].endswith(f"winner {seen['winner']}")


def test_a_wrongly_typed_use_does_not_compile(compiled: Path) -> None:
    """The type check can fail: a payload field another event type has, read on game_over, is an error."""
    wrong = compiled.parent.parent / "play_gsc2.ts"
    source = wrong.read_text().replace("`over: ${event.data.reason}", "`over: ${event.data.path}")
    assert source != wrong.read_text()
    broken = compiled.parent.parent / "broken"
    broken.mkdir(exist_ok=True)
    for name in ("node_modules", "package.json", "openapi.d.ts"):
        target = broken / name
        if not target.exists():
            target.symlink_to(compiled.parent.parent / name)
    (broken / "play_gsc2.ts").write_text(source)
    config = json.loads((compiled.parent.parent / "tsconfig.json").read_text())
    config["compilerOptions"]["noEmit"] = True
    (broken / "tsconfig.json").write_text(json.dumps(config))
    checked = run([str(BIN / "tsc"), "-p", "tsconfig.json"], broken)
    assert checked.returncode != 0 and "play_gsc2.ts" in checked.stdout and "path" in checked.stdout, checked.stdout
