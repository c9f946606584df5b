"""clients/python against a live server: every operation, sync and async, the stream, typed failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from salvo_client import ApiError, AsyncSalvoClient, GameStream, SalvoClient, SyncGameStream
from salvo_client import models as m
from salvo_client.models import CaughtUpFrame, ErrorFrame, EventFrame, ResultFrame

from tests.support.server import ServerProcess

DOC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
START = {"type": "gsc2.start"}


def test_every_operation_sync(live_server: ServerProcess) -> None:
    with SalvoClient(live_server.url) as salvo:
        assert "gsc2" in {r.name for r in salvo.rulesets().rulesets}
        assert salvo.scenario("gsc2", "duel").scenario
        game = salvo.create_game("gsc2", "duel")
        gid = game.game_id
        red, umpire = salvo.with_token(game.seats["red"]), salvo.with_token(game.umpire_token)
        assert red.game(gid).viewer == "seat:red"
        opts = red.options(gid)
        assert isinstance(opts.options[0], m.Option) and opts.options[0].label
        accepted = red.command(gid, opts.options[0].command, if_match=opts.version)
        assert accepted.version > opts.version and accepted.events
        assert umpire.events(gid).events[0].type == "game.created"
        assert red.turn(gid, 1).events
        assert red.game(gid, at=1).at == 1
        forked = red.fork(gid)
        assert forked.forked_from == gid
        battle = umpire.export(gid)
        imported = salvo.import_game(battle.encode())
        assert imported.imported_from == gid
        seated = umpire.seat_bot(gid, "blue", "random")
        assert seated.seat == "blue" and umpire.bots(gid).bots[0].seat == "blue"
        umpire.unseat_bot(gid, "blue")
        assert umpire.rewind(gid, to_seq=accepted.version - len(accepted.events)).rewound_to > 0


def test_failures_are_typed_problems(live_server: ServerProcess) -> None:
    with SalvoClient(live_server.url) as salvo:
        game = salvo.create_game("gsc2", "duel")
        red = salvo.with_token(game.seats["red"])
        red.command(game.game_id, START)
        with pytest.raises(ApiError) as refused:
            red.command(game.game_id, START)
        assert refused.value.status == 422 and refused.value.rule == "GSC2-SEQ-1"
        with pytest.raises(ApiError) as stale:
            red.command(game.game_id, START, if_match=1)
        assert stale.value.status == 409 and stale.value.field == "If-Match"
        with pytest.raises(ApiError) as unknown:
            salvo.with_token("nope").game(game.game_id)
        assert unknown.value.status == 401
        with pytest.raises(ApiError) as spectator:
            salvo.command(game.game_id, START)
        assert spectator.value.status == 403


async def test_every_read_and_write_async(live_server: ServerProcess) -> None:
    async with AsyncSalvoClient(live_server.url) as salvo:
        game = await salvo.create_game("gsc2", "duel")
        red = salvo.with_token(game.seats["red"])
        summary = await red.game(game.game_id)
        assert summary.turn == 1 and not summary.over
        opts = await red.options(game.game_id)
        accepted = await red.command(game.game_id, opts.options[0].command)
        assert (await red.events(game.game_id, after=accepted.version - 1)).events[-1].seq == accepted.version
        assert (await red.turn(game.game_id, 1)).turn == 1
        assert (await salvo.rulesets()).rulesets and (await salvo.scenario("gsc2", "duel")).ruleset == "gsc2"
        assert (await red.bots(game.game_id)).available


async def test_the_stream_async_with_commands_on_the_socket(live_server: ServerProcess) -> None:
    async with AsyncSalvoClient(live_server.url) as salvo:
        game = await salvo.create_game("gsc2", "duel")
    kinds: list[Any] = []
    async with GameStream(live_server.url, game.game_id, game.seats["red"]) as stream:
        async for frame in stream:
            kinds.append(type(frame))
            if isinstance(frame, CaughtUpFrame):
                await stream.command(START, ref="r1")
            elif isinstance(frame, ResultFrame):
                assert frame.ref == "r1" and frame.events
                await stream.command(START, ref="r2")
            elif isinstance(frame, ErrorFrame):
                assert frame.ref == "r2" and frame.rule == "GSC2-SEQ-1"
                break
    assert EventFrame in kinds and stream.resume.last >= 2


def test_the_stream_sync_resumes_after_the_last_seq(live_server: ServerProcess) -> None:
    with SalvoClient(live_server.url) as salvo:
        game = salvo.create_game("gsc2", "duel")
        salvo.with_token(game.seats["red"]).command(game.game_id, START)
    with SyncGameStream(live_server.url, game.game_id, after=2) as stream:
        seqs = []
        for frame in stream.frames(timeout=10):
            if isinstance(frame, EventFrame):
                seqs.append(frame.event.seq)
            if isinstance(frame, CaughtUpFrame):
                break
    assert seqs and seqs[0] == 3 and seqs == sorted(set(seqs))


MODELS = {
    "Problem": m.Problem,
    "GameCreatedResponse": m.GameCreated,
    "GameSummary": m.GameSummary,
    "CommandAccepted": m.CommandAccepted,
    "OptionsResponse": m.OptionsResponse,
    "Option": m.Option,
    "Form": m.Form,
    "Field": m.Field,
    "PieceChoices": m.PieceChoices,
    "Value": m.Value,
    "EventsPage": m.EventsPage,
    "Envelope": m.Envelope,
    "TurnReplay": m.TurnReplay,
    "TurnStep": m.TurnStep,
    "RulesetList": m.RulesetList,
    "RulesetInfo": m.RulesetInfo,
    "ScenarioResponse": m.ScenarioResponse,
    "Rewound": m.Rewound,
    "SeatedBot": m.SeatedBot,
    "BotListing": m.BotListing,
    "BotSeatInfo": m.BotSeatInfo,
    "BotOffer": m.BotOffer,
    "Links": m.Links,
    "EventFrame": m.EventFrame,
    "CaughtUpFrame": m.CaughtUpFrame,
    "ResultFrame": m.ResultFrame,
    "ErrorFrame": m.ErrorFrame,
}


@pytest.mark.parametrize("schema_name", sorted(MODELS))
def test_client_models_have_the_documents_fields(schema_name: str) -> None:
    schemas = DOC["components"]["schemas"]
    schema = schemas[schema_name]
    if schema_name == "Envelope":  # a union by type: every variant has the envelope's fields
        schema = schemas[schema["oneOf"][0]["$ref"].rsplit("/", 1)[1]]
    model = MODELS[schema_name]
    tag = {"kind"} if schema_name.endswith("Frame") else set()  # a frame's tag is not a struct field
    fields = {f.encode_name for f in msgspec.structs.fields(model)}
    assert fields == set(schema["properties"]) - tag
    required = {f.encode_name for f in msgspec.structs.fields(model) if f.required}
    assert required == set(schema.get("required", ())) - tag


def test_resuming_skips_what_was_seen_and_stops_when_refused() -> None:
    from salvo_client.stream import _Resume, stream_url
    from websockets.exceptions import ConnectionClosed
    from websockets.frames import Close

    def event(seq: int) -> EventFrame:
        return msgspec.convert(
            {
                "kind": "event",
                "event": {
                    "game_id": "g",
                    "seq": seq,
                    "type": "x",
                    "v": 1,
                    "turn": 1,
                    "phase": "p",
                    "actor": "system",
                    "recorded_at": "t",
                    "data": {},
                },
            },
            m.ServerFrame,
        )

    resume = _Resume(after=3)
    assert not resume.seen(event(3)) and resume.seen(event(4)) and resume.last == 4
    assert resume.again(ConnectionClosed(Close(1013, "slow consumer; resume after=4"), None))
    assert stream_url("https://h", "g", resume.last) == "wss://h/v1/games/g/stream?after=4"  # no token in URLs
    assert not resume.again(ConnectionClosed(Close(1008, "Unknown token"), None))
    assert not resume.again(ConnectionClosed(Close(1000, "bye"), None))
