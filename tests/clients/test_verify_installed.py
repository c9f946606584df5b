"""`salvo-client verify FILE [--url BASE | --key KEY]` from the client package installed alone in a fresh
virtualenv (tests/clients/installed.py) refuses every tamper class the import refuses
(service/events/battlefile.py, tests/api/test_battle_files.py), naming the check that failed, and holds an
untouched export: hash chain, signature, record and every revealed roll, OK only when all hold.

A forger without the server's key can break only the chain or, resealing it, the signature. The dice and
record checks are also put to the test on their own: the forger signs with a key of its own and the verifier
is told to trust it, so only the check under test can catch the forgery.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.events.sealing import chain, signed_message
from tests.api.helpers import SHOOT_RED
from tests.api.test_battle_files import join, reseal, split
from tests.clients.installed import InstalledClient, install_client
from tests.support.server import ServerProcess

Lines = tuple[dict[str, Any], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> InstalledClient:
    return install_client(tmp_path_factory.mktemp("installed"))


@pytest.fixture(scope="module")
def exported(live_server: ServerProcess) -> bytes:
    """A tiny game's umpire export: turn 1 played and its seed revealed, turn 2's shots not yet."""
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        game = http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        red, blue = game["seats"]["red"], game["seats"]["blue"]

        def command(token: str, body: dict[str, Any]) -> None:
            r = http.post(
                f"/v1/games/{game['game_id']}/commands",
                json={"command": body},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 201, r.text

        command(red, SHOOT_RED)
        for _phase in range(2):
            for seat, token in (("red", red), ("blue", blue)):
                command(token, {"type": "tiny.end_phase", "seat": seat})
        for _ in range(3):
            command(red, SHOOT_RED)
        r = http.get(f"/v1/games/{game['game_id']}/export", headers={"Authorization": f"Bearer {game['umpire_token']}"})
        assert r.status_code == 200
        return r.content


@pytest.fixture
def verify(
    installed: InstalledClient, live_server: ServerProcess, tmp_path: Path
) -> Iterator[Callable[..., tuple[int, str]]]:
    def run(content: bytes, *args: str) -> tuple[int, str]:
        path = tmp_path / "battle.salvo.jsonl"
        path.write_bytes(content)
        result = installed.run("verify", str(path), *(args or ("--url", live_server.url)))
        assert "Traceback" not in result.stderr, result.stderr
        return result.returncode, result.stdout

    yield run


def failed(code: int, out: str, check: str, *words: str) -> None:
    """Refused: non-zero, the first line names ``check`` among the failed, its line says why."""
    assert code == 1, out
    first, *rest = out.splitlines()
    assert first.startswith("FAILED") and check in first, out
    line = next(x for x in rest if x.startswith(f"{check}: FAILED"))
    for word in words:
        assert word in line, out


# --- a forger's tools (the chain and state hash as the import tests' forger recomputes them) -----------------


def unsigned(header: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in header.items() if k != "signature"}


FORGER = Ed25519PrivateKey.generate()
FORGER_PUBLIC = FORGER.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def forger_signed(header: dict[str, Any], envelopes: list[dict[str, Any]], key_id: str = "forger") -> bytes:
    """Rechained and signed with the forger's own key (its header's state hash left as it was)."""
    lines = [json.dumps(e, separators=(",", ":"), ensure_ascii=False).encode() for e in envelopes]
    header = {**unsigned(header), "digests": chain(lines), "events": len(lines)}
    header["signature"] = {"alg": "Ed25519", "key_id": key_id, "value": FORGER.sign(signed_message(header)).hex()}
    return join(header, envelopes)


def index_of(envelopes: list[dict[str, Any]], kind: str, turn: int | None = None, last: bool = False) -> int:
    found = [
        i
        for i, e in enumerate(envelopes)
        if e["type"] == kind and (turn is None or (e.get("dice") or e["data"]).get("turn") == turn)
    ]
    return found[-1] if last else found[0]


# --- an untouched file ------------------------------------------------------------------------------------


def test_an_untouched_export_holds_with_the_servers_published_keys(
    verify, exported: bytes, live_server, tmp_path: Path
) -> None:
    code, out = verify(exported)
    assert code == 0, out
    assert out.startswith("OK: hash chain, signature, record and every revealed roll")
    assert "signature: OK (Ed25519, key" in out and "chain: OK over" in out
    assert "dice: OK 1 rolls verified over 1 revealed turns (3 rolls await a reveal" in out
    keys = tmp_path / "keys.json"
    keys.write_text(httpx.get(f"{live_server.url}/.well-known/salvo-keys").text)
    assert verify(exported, "--key", str(keys))[0] == 0  # a saved keys file, no server


def test_the_installed_package_has_no_path_into_the_repository(installed: InstalledClient) -> None:
    probe = (
        "import importlib.util, salvo_client.verify as v, salvo_client.cli; "
        "print(v.__file__); print(importlib.util.find_spec('service') is None, "
        "importlib.util.find_spec('clients') is None, importlib.util.find_spec('tests') is None)"
    )
    result = subprocess.run(
        [str(installed.python), "-c", probe],
        capture_output=True,
        text=True,
        cwd=installed.workdir,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    where, found = result.stdout.splitlines()
    assert where.startswith(str(installed.venv)) and found == "True True True"


# --- tamper classes the chain catches (the line is named) ------------------------------------------------


def edited_roll(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    index = index_of(envelopes, "tiny.shot", last=True)
    envelopes[index]["rolls"][0]["value"] = envelopes[index]["rolls"][0]["value"] % 10 + 1
    return join(header, envelopes)


def edited_actor(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    envelopes[index_of(envelopes, "tiny.shot")]["actor"] = "seat:blue"
    return join(header, envelopes)


def edited_event_version(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    envelopes[index_of(envelopes, "tiny.shot")]["v"] = 99
    return join(header, envelopes)


def removed_line(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    return join(header, envelopes[:4] + envelopes[5:])


def reordered_lines(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    envelopes[4], envelopes[5] = envelopes[5], envelopes[4]
    return join(header, envelopes)


def duplicated_line(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    return join(header, envelopes[:5] + [envelopes[4]] + envelopes[5:])


def dropped_last_line(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    return join(header, envelopes[:-1])


def dropped_digests(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    return join({**header, "digests": []}, envelopes)


@pytest.mark.parametrize(
    "tamper",
    [
        edited_roll,
        edited_actor,
        edited_event_version,
        removed_line,
        reordered_lines,
        duplicated_line,
        dropped_last_line,
        dropped_digests,
    ],
)
def test_a_line_changed_without_resealing_breaks_the_chain(verify, exported: bytes, tamper) -> None:
    code, out = verify(tamper(*split(exported)))
    failed(code, out, "chain", "line")


# --- tamper classes only the signature catches (the forger rechains and recomputes the state hash) ---------


def resealed_roll(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    index = index_of(envelopes, "tiny.shot", last=True)
    envelopes[index]["rolls"][0]["value"] = envelopes[index]["rolls"][0]["value"] % 10 + 1
    return reseal(header, envelopes)


def resealed_actor(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    envelopes[index_of(envelopes, "tiny.shot")]["actor"] = "seat:green"  # not a seat of this game
    return reseal(header, envelopes, refold=False)


def resealed_event_version(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    envelopes[index_of(envelopes, "tiny.shot")]["v"] = 99
    return reseal(header, envelopes, refold=False)


def resealed_setup(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    header["setup"]["hull"] = 99
    envelopes[0]["data"]["setup"]["hull"] = 99  # both copies
    return reseal(header, envelopes)


def claimed_ruleset_version(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    header["ruleset_version"] = envelopes[0]["data"]["ruleset_version"] = "0.9"
    return reseal(header, envelopes, refold=False)


def changed_state_hash(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    return join({**header, "state_hash": "0" * 64}, envelopes)


@pytest.mark.parametrize(
    "tamper",
    [
        resealed_roll,
        resealed_actor,
        resealed_event_version,
        resealed_setup,
        claimed_ruleset_version,
        changed_state_hash,
    ],
)
def test_a_resealed_forgery_fails_the_signature(verify, exported: bytes, tamper) -> None:
    code, out = verify(tamper(*split(exported)))
    failed(code, out, "signature", "does not verify")
    assert "chain: OK" in out  # the chain was recomputed: only the signature could tell


def test_an_altered_signature_value_fails_the_signature(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    value = header["signature"]["value"]
    header["signature"]["value"] = ("0" if value[0] != "0" else "1") + value[1:]
    failed(*verify(join(header, envelopes)), "signature", "does not verify")


def test_an_unsigned_file_fails_the_signature(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    failed(*verify(join(unsigned(header), envelopes)), "signature", "not signed")


def test_a_file_signed_by_an_untrusted_key_fails_the_signature(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    failed(*verify(forger_signed(header, envelopes)), "signature", "forger", "not among the trusted keys")
    # the server's own key id, the forger's key: it does not verify
    failed(*verify(forger_signed(header, envelopes, header["signature"]["key_id"])), "signature", "does not verify")


# --- the dice and the record, each alone: a forger's key the verifier is told to trust -------------------


def test_a_revealed_roll_that_its_seed_does_not_give_fails_the_dice(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    index = index_of(envelopes, "tiny.shot", turn=1)
    envelopes[index]["rolls"][0]["value"] = envelopes[index]["rolls"][0]["value"] % 10 + 1
    code, out = verify(forger_signed(header, envelopes), "--key", FORGER_PUBLIC)
    failed(code, out, "dice", f"seq {envelopes[index]['seq']} roll 0", "the revealed seed gives")
    assert "signature: OK" in out and "chain: OK" in out


def test_a_seed_that_is_not_the_one_committed_fails_the_dice(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    index = index_of(envelopes, "dice.revealed")
    envelopes[index]["data"]["seed"] = "ab" * 32
    failed(*verify(forger_signed(header, envelopes), "--key", FORGER_PUBLIC), "dice", "not the one committed")


def test_a_commitment_root_the_seed_does_not_give_fails_the_dice(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    envelopes[index_of(envelopes, "dice.committed")]["data"]["root"] = "0" * 64
    failed(*verify(forger_signed(header, envelopes), "--key", FORGER_PUBLIC), "dice", "Merkle root")


def test_events_not_dense_or_of_another_game_fail_the_record(verify, exported: bytes) -> None:
    header, envelopes = split(exported)
    gap = [dict(e, seq=e["seq"] + 1) if i >= 3 else e for i, e in enumerate(envelopes)]
    failed(*verify(forger_signed(header, gap), "--key", FORGER_PUBLIC), "record", "line 5", "seq 5")
    foreign = [dict(e, game_id="g_other") if i == 2 else e for i, e in enumerate(envelopes)]
    failed(*verify(forger_signed(header, foreign), "--key", FORGER_PUBLIC), "record", "line 4", "g_other")
    counted = forger_signed({**header}, envelopes)
    top, rest = counted.split(b"\n", 1)
    miscounted = json.loads(top)
    miscounted["events"] += 1
    miscounted["signature"]["value"] = FORGER.sign(signed_message(miscounted)).hex()
    failed(*verify(json.dumps(miscounted).encode() + b"\n" + rest, "--key", FORGER_PUBLIC), "record", "counts")
