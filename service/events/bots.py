"""Computer opponents in the service: which bots a ruleset offers, what a bot seat sees, one bot move.

A bot sees exactly what a person holding the seat's token sees over HTTP: the view (``GET /v1/games/{id}``
``state``, with ``draw``) and the options and forms (``GET /options``), as JSON builtins decoded the same
way a remote bot decodes them. Its command goes through ``GameService.handle_command`` — the same decode,
guards, rules, log and replay as anyone's — with the version it looked at as the expected version, so a
game that moved on while it was thinking refuses it (409) and it looks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

import msgspec

from service.domain.core import Ruleset, RuleViolation, Viewer, seat
from service.domain.core.bot import Bot, RandomBot
from service.domain.core.choices import Form, Option

from .application import GameService
from .errors import AppError, InvalidRequest, MalformedCommand, VersionConflict
from .reading import GameReader

RETRIES = 3  # fresh keys tried when a bot's composed order is refused, before falling back to its options
Outcome = Literal["acted", "wait", "over", "moved", "stuck"]


def bots_of(ruleset: Ruleset[Any, Any]) -> tuple[dict[str, Bot], set[str]]:
    """The ruleset's bots by name, and the names standing in with the random bot because the ruleset has
    not (yet) listed its own: every ruleset offers "random" and "rules"."""
    bots: dict[str, Bot] = {"random": RandomBot(), **ruleset.bots}
    stand_ins = set()
    if "rules" not in bots:
        bots["rules"] = RandomBot()
        stand_ins.add("rules")
    return bots, stand_ins


def find_bot(ruleset: Ruleset[Any, Any], name: str) -> Bot:
    bots, _ = bots_of(ruleset)
    if name not in bots:
        raise InvalidRequest(
            f"ruleset {ruleset.name} has no bot {name!r} (it has {', '.join(sorted(bots))})", field="bot"
        )
    return bots[name]


_to_builtins = msgspec.json.Decoder()
_encode = msgspec.json.Encoder().encode


def as_json(value: Any) -> Any:
    """What a client receives: the value encoded as the API encodes it, decoded to builtins."""
    return _to_builtins.decode(_encode(value))


def command_union(ruleset: Ruleset[Any, Any]) -> Any:
    types = tuple(ruleset.command_types)
    return types[0] if len(types) == 1 else Union[types]  # noqa: UP007 - built at run time


def decode_options(ruleset: Ruleset[Any, Any], payload: Mapping[str, Any]) -> tuple[list[Option], list[Form]]:
    """``GET /options`` JSON back into ``Option`` and ``Form`` (the bot protocol's types)."""
    union = command_union(ruleset)
    options = [
        Option(command=msgspec.convert(o["command"], union), **{k: v for k, v in o.items() if k != "command"})
        for o in payload.get("options", ())
    ]
    forms = [msgspec.convert(f, Form) for f in payload.get("forms", ())]
    return options, forms


def must_act(view: Mapping[str, Any]) -> bool:
    """The drawing's word on whether the seat is awaited (a ruleset without a drawing: always ask)."""
    status = (view.get("draw") or {}).get("status") or {}
    you = status.get("you")
    if status.get("over"):
        return False
    return True if you is None else bool(you.get("must_act"))


_NO_MORE = object()


def candidates(
    bot: Bot, view: Mapping[str, Any], options: Sequence[Option], forms: Sequence[Form], me: str, key: int
) -> Iterator[Any]:
    """The bot's choice, its choices under fresh keys, then every option in order (each is a command decide
    accepts now; a refused one is the ruleset's defect, and the next one keeps the game going)."""
    seen = set()

    def fresh(command: Any) -> bool:
        body = _encode(command)
        if body in seen:
            return False
        seen.add(body)
        return True

    for attempt in range(RETRIES + 1):
        command = bot.choose(view, options, forms, me, key + attempt * 7919)
        if command is None:
            if attempt == 0:
                return  # the bot chooses to wait
            continue
        if fresh(command):
            yield command
    for option in options:
        if fresh(option.command):
            yield option.command


@dataclass
class BotMove:
    outcome: Outcome
    command: Any = None
    refused: tuple[str, ...] = ()  # "RULE: detail" of every candidate decide refused before this move


# (game id, the seat's viewer, the request body, the expected version) -> the command's result
Submit = Callable[[str, Viewer, bytes, int], Awaitable[Any]]


async def bot_move(
    service: GameService, reader: GameReader, game_id: str, seat_name: str, bot: Bot, submit: Submit | None = None
) -> BotMove:
    """Look at the game as ``seat_name`` and, if it is awaited, submit the bot's command (through
    ``submit``: the API passes its admission gate, so bots are counted and logged like everyone)."""
    if submit is None:
        submit = _direct(service)
    viewer: Viewer = seat(seat_name)
    summary = await reader.summary(game_id, viewer)
    if summary["over"]:
        return BotMove("over")
    head = await service.head(game_id)
    options, forms = decode_options(head.ruleset, as_json(await reader.options(game_id, viewer)))
    view = as_json(summary["state"])
    if not (options or forms) or not must_act(view):
        return BotMove("wait")
    version = int(summary["version"])
    refused: list[str] = []
    choices = candidates(bot, view, options, forms, seat_name, version)
    # a rules bot may think for a while: off the event loop, one choice at a time
    while (command := await asyncio.to_thread(next, choices, _NO_MORE)) is not _NO_MORE:
        outcome, why = await _offer(submit, game_id, viewer, command, version)
        if outcome is None:
            refused.append(why)
            continue
        return BotMove(outcome, command if outcome == "acted" else None, tuple(refused))
    return BotMove("stuck", refused=tuple(refused))


def _direct(service: GameService) -> Submit:
    async def submit(game: str, viewer: Viewer, body: bytes, expected: int) -> Any:
        return await service.handle_command(game, viewer, body, expected_version=expected)

    return submit


async def _offer(
    submit: Submit, game_id: str, viewer: Viewer, command: Any, version: int
) -> tuple[Outcome | None, str]:
    """Submit one candidate: the move's outcome ("acted", "moved", "wait"), or None and why decide refused it
    ("RULE: detail", then the next candidate is tried)."""
    body = b'{"command":' + _encode(command) + b"}"
    try:
        await submit(game_id, viewer, body, version)
    except VersionConflict:
        return "moved", ""
    except RuleViolation as exc:
        return None, f"{exc.rule}: {exc.detail}"
    except MalformedCommand as exc:  # a composed order the command types do not accept
        return None, f"malformed: {exc.detail}"
    except AppError as exc:
        if exc.status in (429, 503, 507):  # over a rate limit, or the storage away or full (logged
            # there): look again at the next change or heartbeat
            return "wait", ""
        raise
    return "acted", ""
