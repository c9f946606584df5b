"""A websocket command message decodes as the pipeline's CommandRequest itself (no second struct): what it
accepts and what it refuses, field by field, as before the two were one."""

from __future__ import annotations

import json

import pytest

from service.api.streaming import command_request, result_payload, socket_message
from service.events.application import CommandRequest
from service.events.errors import InvalidRequest


def test_a_command_message_is_the_request_with_its_command_bytes_and_salt():
    message = socket_message(
        b'{"kind":"command","ref":"r1","salt":"s","idempotency_key":"k",'
        b'"expected_version":3,"command":{"type":"tiny.shoot","shooter":"red"}}'
    )
    request = command_request(message)
    assert isinstance(request, CommandRequest)
    assert bytes(request.command) == b'{"type":"tiny.shoot","shooter":"red"}'
    assert request.salt == "s"
    assert (message.ref, message.idempotency_key, message.expected_version) == ("r1", "k", 3)


def test_defaults_are_the_requests():
    request = command_request(socket_message(b'{"kind":"command","command":{}}'))
    assert request.salt == "" and bytes(request.command) == b"{}"


@pytest.mark.parametrize(
    "raw, missing", [(b"{}", "command"), (b'{"command":{}}', "kind"), (b'{"kind":"command"}', "command")]
)
def test_a_message_missing_a_required_field_is_refused_naming_it(raw, missing):
    with pytest.raises(InvalidRequest) as caught:
        socket_message(raw)
    assert caught.value.field == "$" and f"`{missing}`" in caught.value.detail


def test_an_unknown_field_is_refused_as_before():
    with pytest.raises(InvalidRequest) as caught:
        socket_message(b'{"kind":"command","command":{},"colour":"red"}')
    assert "colour" in caught.value.detail


def test_an_unknown_kind_is_refused_naming_kind():
    with pytest.raises(InvalidRequest) as caught:
        command_request(socket_message(b'{"kind":"ping","command":{}}'))
    assert caught.value.field == "kind" and "ping" in caught.value.detail


@pytest.mark.parametrize("ref", [None, "r1", 'quote"d'])
@pytest.mark.parametrize("body", [b"{}", b'{"version":2,"after":1}'])
def test_result_payload_is_the_result_message_with_the_stored_body(ref, body):
    answer = json.loads(result_payload(ref, body))
    assert answer == {"kind": "result", "ref": ref, **json.loads(body)}
