"""`salvo play` fills forms from typed answers: each kind of field, bad answers refused, and a GSC2 free
move composed at the prompt accepted by the live server."""

from __future__ import annotations

import pytest
from rich.console import Console
from salvo_client import SalvoClient
from salvo_client.compose import BadAnswer, build, parse
from salvo_client.models import Field, Form, Value
from salvo_client.play import fill

from tests.support.server import ServerProcess


def test_each_kind_of_field_parses_and_refuses_bad_answers() -> None:
    choice = Field(key="target", label="Target", kind="choice", values=[Value("a", "A"), Value("b", "B")])
    assert parse(choice, "2") == "b"
    with pytest.raises(BadAnswer):
        parse(choice, "3")
    number = Field(key="power", label="Power", kind="number", min=0, max=6, step=1)
    assert parse(number, "4") == 4
    with pytest.raises(BadAnswer):
        parse(number, "7")
    assert parse(Field(key="f", label="F", kind="flag"), "y") is True
    assert parse(Field(key="legs", label="Legs", kind="legs"), "30 4, -45 2.5") == [
        {"turn": 30, "distance": 4.0},
        {"turn": -45, "distance": 2.5},
    ]
    with pytest.raises(BadAnswer):
        parse(Field(key="legs", label="Legs", kind="legs"), "30")
    assert parse(Field(key="path", label="Path", kind="hexpath"), "1,0 2,-1") == [[1, 0], [2, -1]]
    assert parse(Field(key="n", label="N", kind="number", min=0, max=3, default=2), "") == 2


def test_build_follows_the_form_contract() -> None:
    listed = Form(command="x.orders", label="Orders", pieces=[], list_key="orders", fixed={"turn": 2})
    assert build(listed, [{"id": "a", "go": 1}]) == {"type": "x.orders", "turn": 2, "orders": [{"id": "a", "go": 1}]}
    single = Form(command="x.move", label="Move", pieces=[])
    assert build(single, [{"id": "a", "legs": []}]) == {"type": "x.move", "id": "a", "legs": []}


def test_a_free_move_typed_at_the_prompt_is_accepted(live_server: ServerProcess) -> None:
    with SalvoClient(live_server.url) as salvo:
        game = salvo.create_game("gsc2", "duel")
        gid = game.game_id
        players = {s: salvo.with_token(t) for s, t in game.seats.items()}
        for _ in range(10):  # the opening options (start, initiative) until a seat has a move form
            movers = [(s, c, o) for s, c in players.items() if (o := c.options(gid)).forms]
            if movers:
                break
            seat, client, opts = next((s, c, o) for s, c in players.items() if (o := c.options(gid)).options)
            client.command(gid, opts.options[0].command)
        seat, client, opts = movers[0]
        form = opts.forms[0]
        assert form.pieces[0].fields[0].kind == "legs"
        answers = iter(["0 4"])
        command = fill(form, lambda _prompt: next(answers), Console(file=None, quiet=True))
        assert command["type"] == form.command and command["legs"] == [{"turn": 0, "distance": 4.0}]
        accepted = client.command(gid, command, if_match=opts.version)
        assert accepted.events
