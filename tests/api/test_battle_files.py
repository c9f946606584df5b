"""Battle files nobody can forge: the audit's forgeries, each refused with a problem naming the line or
field, through POST /v1/games/import (tiny ruleset; a forger here recomputes every digest and state hash
it can, and only the signature stays out of reach)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from service.api.app import create_app
from service.domain.core import find_ruleset
from service.events.battlefile import (
    BattleHeader,
    _decode_lines,
    record_hash,
    register_battle_upcaster,
    unregister_battle_upcaster,
    viewer_of,
)
from service.events.replay import Folder
from service.events.sealing import chain
from service.settings import Settings
from tests.api.helpers import SHOOT_RED, bearer, command, new_game

pytestmark = pytest.mark.asyncio
VERIFIER = Path(__file__).resolve().parents[2] / "clients" / "verify_dice.py"


# --- a forger's tools ----------------------------------------------------------------------------------


def split(content: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(ln) for ln in content.splitlines() if ln.strip()]
    return lines[0], lines[1:]


def dumps(value: Any) -> bytes:
    """The bytes the server writes for a line (compact, UTF-8): unchanged lines keep their chain value."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def join(header: dict[str, Any], envelopes: list[dict[str, Any]]) -> bytes:
    return b"\n".join(dumps(x) for x in [header, *envelopes]) + b"\n"


def reseal(header: dict[str, Any], envelopes: list[dict[str, Any]], refold: bool = True) -> bytes:
    """Recompute what a forger can: the hash chain, the event count and the state hash of the fold."""
    lines = [dumps(e) for e in envelopes]
    header = {**header, "digests": chain(lines), "events": len(lines)}
    if refold:
        parsed = msgspec.convert(header, type=BattleHeader)
        ruleset = find_ruleset(parsed.ruleset)
        setup = ruleset.parse_setup(parsed.setup)
        decoded = _decode_lines(ruleset, parsed, lines, set(ruleset.seats(setup)))
        state = Folder(ruleset).fold(ruleset.initial_state(setup), decoded)
        header["state_hash"] = record_hash(ruleset, state, viewer_of(parsed.viewer))
    return b"\n".join([dumps(header), *lines]) + b"\n"


async def played(api: httpx.AsyncClient, turns_and_a_half: bool = True) -> dict[str, Any]:
    """One whole turn (its seed revealed) and, optionally, shots of turn 2 (not revealed yet)."""
    game = await new_game(api, scenario="long")
    red, blue = game["seats"]["red"], game["seats"]["blue"]
    await command(api, game, red, SHOOT_RED)
    for _phase in range(2):
        for who, token in (("red", red), ("blue", blue)):
            assert (await command(api, game, token, {"type": "tiny.end_phase", "seat": who})).status_code == 201
    if turns_and_a_half:
        for _ in range(3):
            assert (await command(api, game, red, SHOOT_RED)).status_code == 201
    return game


async def export(api: httpx.AsyncClient, game: dict[str, Any], token: str | None = None) -> bytes:
    r = await api.get(f"/v1/games/{game['game_id']}/export", headers=bearer(token or game["umpire_token"]))
    assert r.status_code == 200
    return r.content


async def refused(api: httpx.AsyncClient, content: bytes, field: str, *words: str, **params: str) -> str:
    before = await _games_count(api)
    r = await api.post("/v1/games/import", content=content, params=params)
    assert r.status_code == 422, r.text
    problem = r.json()
    assert r.headers["content-type"].startswith("application/problem+json")
    assert problem["field"] == field, problem
    for word in words:
        assert word in problem["detail"], problem
    assert await _games_count(api) == before  # nothing was created
    return problem["detail"]


async def _games_count(api: httpx.AsyncClient) -> int:
    from sqlalchemy import func, select

    from service.events.tables import GAMES

    store = api.app.state.store  # type: ignore[attr-defined]
    return int((await store._run(store._fetch, select(func.count()).select_from(GAMES)))[0][0])


def verify(tmp_path: Path, content: bytes, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "battle.jsonl"
    path.write_bytes(content)
    return subprocess.run([sys.executable, str(VERIFIER), str(path), *args], capture_output=True, text=True)


def line_of(envelopes: list[dict[str, Any]], index: int) -> str:
    return f"line {index + 2}"


# --- the forgeries -----------------------------------------------------------------------------------


async def test_a_changed_roll_of_an_unrevealed_turn_is_refused_however_it_is_dressed(api):
    game = await played(api)
    header, envelopes = split(await export(api, game))
    index = max(i for i, e in enumerate(envelopes) if e["type"] == "tiny.shot")
    assert envelopes[index]["dice"]["turn"] == 2  # turn 2's seed is still secret: the dice cannot tell
    envelopes[index]["rolls"][0]["value"] = envelopes[index]["rolls"][0]["value"] % 10 + 1
    await refused(api, join(header, envelopes), line_of(envelopes, index), "chain breaks")
    await refused(api, join({**header, "digests": []}, envelopes), "line 1", "digests")
    await refused(api, reseal(header, envelopes), "line 1", "signature", "does not verify")
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    await refused(api, reseal(unsigned, envelopes), "line 1", "signature", "not signed", "allow_unverified")


async def test_a_changed_actor_is_refused(api):
    game = await played(api)
    header, envelopes = split(await export(api, game))
    index = next(i for i, e in enumerate(envelopes) if e["type"] == "tiny.shot")
    envelopes[index]["actor"] = "seat:blue"
    await refused(api, join(header, envelopes), line_of(envelopes, index), "chain breaks")
    await refused(api, reseal(header, envelopes), "line 1", "signature")
    envelopes[index]["actor"] = "seat:green"  # not even a seat of this game: named even when unsigned
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    await refused(
        api, reseal(unsigned, envelopes, refold=False), line_of(envelopes, index), "actor", allow_unverified="true"
    )


async def test_a_changed_setup_with_a_recomputed_state_hash_is_refused(api):
    game = await played(api)
    header, envelopes = split(await export(api, game))
    header["setup"]["hull"] = 99
    await refused(api, reseal(header, envelopes), "line 1", "setup", "game.created")
    envelopes[0]["data"]["setup"]["hull"] = 99  # the forger changes both copies
    await refused(api, reseal(header, envelopes), "line 1", "signature", "does not verify")


async def test_an_unknown_event_version_is_refused(api):
    game = await played(api)
    header, envelopes = split(await export(api, game))
    index = next(i for i, e in enumerate(envelopes) if e["type"] == "tiny.shot")
    envelopes[index]["v"] = 99
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    await refused(
        api,
        reseal(unsigned, envelopes, refold=False),
        line_of(envelopes, index),
        "v:",
        "version 99",
        allow_unverified="true",
    )


@pytest.mark.parametrize("how", ["removed", "reordered", "duplicated"])
async def test_removed_reordered_or_duplicated_lines_are_refused(api, how):
    game = await played(api)
    content = await export(api, game)
    lines = content.splitlines()
    if how == "removed":
        lines = lines[:5] + lines[6:]
    elif how == "reordered":
        lines[5], lines[6] = lines[6], lines[5]
    else:
        lines = lines[:6] + [lines[5]] + lines[6:]
    await refused(api, b"\n".join(lines) + b"\n", "line 6" if how != "duplicated" else "line 7", "chain breaks")


async def test_a_wrong_signature_is_refused_and_the_verifier_names_it(api, tmp_path):
    game = await played(api)
    content = await export(api, game)
    header, envelopes = split(content)
    value = header["signature"]["value"]
    header["signature"]["value"] = ("0" if value[0] != "0" else "1") + value[1:]
    forged = join(header, envelopes)
    await refused(api, forged, "line 1", "signature", "does not verify", allow_unverified="true")
    keys = tmp_path / "keys.json"
    keys.write_text((await api.get("/.well-known/salvo-keys")).text)
    result = verify(tmp_path, forged, "--keys", str(keys))
    assert result.returncode == 1 and result.stdout.startswith("MISMATCH signature"), result.stdout
    result = verify(tmp_path, content, "--keys", str(keys))
    key_id = header["signature"]["key_id"]
    assert result.returncode == 0 and f"signature: OK (Ed25519, key {key_id})" in result.stdout, result.stdout
    result = verify(tmp_path, content)  # without keys it says it did not check, and does not pretend
    assert result.returncode == 0 and "signature: not checked" in result.stdout
    assert verify(tmp_path, content, "--require-signature").returncode == 1
    # the standard library alone still verifies chain and dice, and says the signature needs cryptography
    without = subprocess.run(
        [
            sys.executable,
            "-c",
            "import runpy, sys; sys.modules['cryptography'] = None; "
            f"sys.argv = ['verify_dice.py', {str(tmp_path / 'battle.jsonl')!r}, '--keys', {str(keys)!r}]; "
            f"runpy.run_path({str(VERIFIER)!r}, run_name='__main__')",
        ],
        capture_output=True,
        text=True,
    )
    assert without.returncode == 0 and without.stdout.startswith("OK"), without.stdout + without.stderr
    assert "the cryptography package is not installed" in without.stdout


@pytest.mark.parametrize("claimed", ["0.9", "2.0", "", "9" * 500])
async def test_a_file_of_another_ruleset_version_names_both_versions(api, claimed):
    game = await played(api, turns_and_a_half=False)
    header, envelopes = split(await export(api, game))
    header["ruleset_version"] = claimed
    detail = await refused(api, join(header, envelopes), "line 1", "ruleset_version", "'1.0'")
    assert repr(claimed[:40]) in detail and len(detail) < 400
    if len(claimed) > 40:
        assert "cut from 500 characters" in detail


async def test_an_upcaster_maps_an_older_ruleset_version(api):
    game = await played(api, turns_and_a_half=False)
    header, envelopes = split(await export(api, game))
    header["ruleset_version"] = envelopes[0]["data"]["ruleset_version"] = "0.9"
    header["setup"]["hitpoints"] = header["setup"].pop("hull")  # what "0.9" called the hull
    envelopes[0]["data"]["setup"] = header["setup"]
    old = reseal({k: v for k, v in header.items() if k != "signature"}, envelopes, refold=False)
    await refused(api, old, "line 1", "ruleset_version", "'0.9'", "'1.0'", allow_unverified="true")

    def upcast(h: dict[str, Any], envs: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        h["setup"]["hull"] = h["setup"].pop("hitpoints")
        envs[0]["data"].update(ruleset_version="1.0", setup=h["setup"])
        return h, envs

    register_battle_upcaster("tiny", "0.9", "1.0", upcast)
    try:
        before = split(await export(api, game))[0]["state_hash"]
        header["state_hash"] = before
        r = await api.post(
            "/v1/games/import",
            params={"allow_unverified": "true"},
            content=reseal({k: v for k, v in header.items() if k != "signature"}, envelopes, refold=False),
        )
        assert r.status_code == 201, r.text
        assert r.json()["ruleset_version"] == "1.0" and r.json()["verified"] is False
    finally:
        unregister_battle_upcaster("tiny", "0.9")


# --- trust: own keys, rotation, trusted keys, unverified imports ----------------------------------------


async def test_the_well_known_endpoint_publishes_the_signing_key(api):
    keys = (await api.get("/.well-known/salvo-keys")).json()["keys"]
    assert [k["status"] for k in keys] == ["active"] and keys[0]["alg"] == "Ed25519"
    assert len(bytes.fromhex(keys[0]["public_key"])) == 32
    header, _ = split(await export(api, await played(api, turns_and_a_half=False)))
    assert header["signature"]["key_id"] == keys[0]["key_id"]


async def test_an_unverified_import_is_marked_in_its_view_and_every_later_export(api, tmp_path):
    game = await played(api)
    header, envelopes = split(await export(api, game))
    unsigned = join({k: v for k, v in header.items() if k != "signature"}, envelopes)
    await refused(api, unsigned, "line 1", "not signed")
    r = await api.post("/v1/games/import", content=unsigned, params={"allow_unverified": "true"})
    assert r.status_code == 201, r.text
    imported = r.json()
    assert imported["verified"] is False and "not signed" in imported["unverified"]
    view = (await api.get(f"/v1/games/{imported['game_id']}")).json()
    assert "not signed" in view["unverified"]
    assert (await api.get(f"/v1/games/{game['game_id']}")).json()["unverified"] is None
    again = await export(api, imported, imported["umpire_token"])
    assert "not signed" in split(again)[0]["unverified"]
    result = verify(tmp_path, again)
    assert result.returncode == 0 and "provenance: UNVERIFIED" in result.stdout
    r = await api.post("/v1/games/import", content=again)  # signed by us now, yet never laundered
    assert r.status_code == 201 and r.json()["verified"] is False and "not signed" in r.json()["unverified"]
    fork = await api.post(f"/v1/games/{imported['game_id']}/fork", headers=bearer(imported["umpire_token"]))
    assert "not signed" in (await api.get(f"/v1/games/{fork.json()['game_id']}")).json()["unverified"]
    r = await api.post("/v1/games/import", content=await export(api, game))
    assert r.status_code == 201 and r.json()["verified"] is True and r.json()["unverified"] is None


async def _other_server(tmp_path: Path, name: str, **settings: Any):
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/{name}.db", **settings))
    return app


async def test_a_file_signed_by_an_untrusted_key_is_refused_and_a_trusted_one_accepted(api, tmp_path):
    game = await played(api)
    content = await export(api, game)
    keys_file = tmp_path / "trusted.json"
    keys_file.write_text((await api.get("/.well-known/salvo-keys")).text)
    for trusting in (False, True):
        extra = {"trusted_keys_file": str(keys_file)} if trusting else {}
        other = await _other_server(tmp_path, f"other{trusting}", **extra)
        async with other.router.lifespan_context(other):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=other), base_url="http://o") as client:
                client.app = other  # type: ignore[attr-defined]
                if not trusting:
                    await refused(client, content, "line 1", "signature", "does not trust")
                    r = await client.post("/v1/games/import", content=content, params={"allow_unverified": "true"})
                    assert r.status_code == 201 and "does not trust" in r.json()["unverified"]
                else:
                    r = await client.post("/v1/games/import", content=content)
                    assert r.status_code == 201 and r.json()["verified"] is True, r.text


async def test_keys_persist_across_restarts_and_rotate(tmp_path):
    from service.events.signing import rotate

    url = f"sqlite:///{tmp_path}/keys.db"
    app = create_app(Settings(database_url=url))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s") as client:
            first = (await client.get("/.well-known/salvo-keys")).json()["keys"]
            game = await played(client, turns_and_a_half=False)
            old_file = await export(client, game)
    app = create_app(Settings(database_url=url))
    async with app.router.lifespan_context(app):
        assert app.state.keyring.active_id == first[0]["key_id"]  # the same key after a restart
        app.state.keyring = rotate(app.state.store.engine)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s") as client:
            keys = (await client.get("/.well-known/salvo-keys")).json()["keys"]
            assert {k["key_id"]: k["status"] for k in keys}[first[0]["key_id"]] == "retired"
            assert [k["status"] for k in keys].count("active") == 1
            r = await client.post("/v1/games/import", content=old_file)  # a retired key still verifies
            assert r.status_code == 201 and r.json()["verified"] is True
            new_file = await export(client, r.json(), r.json()["umpire_token"])
            assert split(new_file)[0]["signature"]["key_id"] != first[0]["key_id"]


async def test_a_configured_key_file_is_created_once_and_kept(tmp_path):
    key_file = tmp_path / "keys" / "salvo.key"
    ids = []
    for _ in range(2):
        app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/k.db", signing_key_file=str(key_file)))
        async with app.router.lifespan_context(app):
            ids.append(app.state.keyring.active_id)
    assert ids[0] == ids[1] and key_file.stat().st_mode & 0o777 == 0o600


# --- seat exports --------------------------------------------------------------------------------------


async def test_a_seat_export_is_a_verifiable_record_not_an_importable_game(api, tmp_path):
    game = await played(api)
    content = await export(api, game, game["seats"]["blue"])
    header, _ = split(content)
    assert header["viewer"] == "seat:blue"
    await refused(api, content, "line 1", "viewer", "seat:blue", "redacted record", allow_unverified="true")
    keys = tmp_path / "keys.json"
    keys.write_text((await api.get("/.well-known/salvo-keys")).text)
    result = verify(tmp_path, content, "--keys", str(keys))
    assert (
        result.returncode == 0 and "signature: OK" in result.stdout and "seat:blue's redacted export" in result.stdout
    ), result.stdout
    # mid-game, blue checks the rolls of turn 1 it saw by the slot keys it was given; turn 2 awaits its end
    assert result.stdout.startswith("OK 1 rolls verified over 1 revealed turns (3 rolls await a reveal")
    assert "slot keys: 1 of them" in result.stdout


async def test_an_asc_seat_export_gets_a_clear_answer(api, tmp_path):
    rulesets = {r["name"]: r for r in (await api.get("/v1/rulesets")).json()["rulesets"]}
    scenario = rulesets["asc"]["scenarios"][0]
    game = await new_game(api, "asc", scenario)
    seat = next(iter(game["seats"]))
    content = await export(api, game, game["seats"][seat])
    detail = await refused(api, content, "line 1", "viewer", f"seat:{seat}", allow_unverified="true")
    assert "bogeys" not in detail
    result = verify(tmp_path, content)
    assert result.returncode == 0 and f"seat:{seat}'s redacted export" in result.stdout, result.stdout


async def test_the_keys_command_lists_and_rotates(tmp_path, capsys):
    from service.cli import main

    url = f"sqlite:///{tmp_path}/cli.db"
    with pytest.raises(SystemExit) as done:
        main(["keys", "list", "--database-url", url])
    assert done.value.code == 0
    [first] = json.loads(capsys.readouterr().out)["keys"]
    with pytest.raises(SystemExit):
        main(["keys", "rotate", "--database-url", url])
    keys = {k["key_id"]: k["status"] for k in json.loads(capsys.readouterr().out)["keys"]}
    assert keys[first["key_id"]] == "retired" and list(keys.values()).count("active") == 1


async def test_a_commitment_root_that_the_seed_does_not_give_is_refused(api, tmp_path):
    game = await played(api)
    header, envelopes = split(await export(api, game))
    committed = next(i for i, e in enumerate(envelopes) if e["type"] == "dice.committed")
    envelopes[committed]["data"]["root"] = "0" * 64
    reveal = next(i for i, e in enumerate(envelopes) if e["type"] == "dice.revealed")
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    forged = reseal(unsigned, envelopes, refold=False)
    await refused(api, forged, line_of(envelopes, reveal), "Merkle root", allow_unverified="true")
    result = verify(tmp_path, forged)
    assert result.returncode == 1 and "does not give the committed Merkle root" in result.stdout


async def test_a_seat_given_a_wrong_slot_key_sees_it_does_not_match_the_root(api, tmp_path):
    game = await played(api)
    header, envelopes = split(await export(api, game, game["seats"]["blue"]))
    reveal = next(i for i, e in enumerate(envelopes) if e["type"] == "dice.revealed")
    assert envelopes[reveal]["data"]["keys"]
    envelopes[reveal]["data"]["keys"][0]["key"] = "ab" * 32
    result = verify(tmp_path, reseal(header, envelopes, refold=False))
    assert result.returncode == 1 and "not under its committed Merkle root" in result.stdout, result.stdout


async def test_a_seat_export_of_an_open_information_game_imports(api):
    """Nothing is hidden in GSC2: a seat's record is the whole game, and its view hash is checked."""
    game = await new_game(api, "gsc2", "duel")
    seat = next(iter(game["seats"]))
    content = await export(api, game, game["seats"][seat])
    r = await api.post("/v1/games/import", content=content)
    assert r.status_code == 201 and r.json()["verified"] is True, r.text
    header, envelopes = split(content)
    header["state_hash"] = "0" * 64
    await refused(api, join(header, envelopes), "line 1", "state_hash")
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    await refused(api, join(unsigned, envelopes), "line 1", "state_hash", allow_unverified="true")
