"""What a seat may do now, as the page and bots meet it (docs/view-contract.md, "Options").

``Option``: one complete command ``decide`` accepts now, with a human label and the pieces it
concerns (so a page can put it on the map). ``Form``: an order composed piece by piece — the fields
each piece must fill and the values each may take — submitted once as one command. Forms keep options
small when the choices multiply (a fleet's sealed orders, sensor settings for every vessel, a free
move): they list each piece's choices, never every combination. ``decide`` validates a composed
order exactly as any other command.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Union

import msgspec

from .protocol import Command

FieldKind = Literal["choice", "number", "legs", "hexpath", "flag"]


class Option(msgspec.Struct, frozen=True, kw_only=True):
    command: Command
    label: str  # "Fire lance A at Hood (hit on 7+)": words, never JSON
    piece: str | None = None  # the piece acting, if any
    target: str | None = None  # the piece or place acted on, if any (a tap target on the map)
    group: str | None = None  # how a page groups buttons: "move" | "fire" | "phase" | "umpire" | …
    rule: str | None = None


class Value(msgspec.Struct, frozen=True):
    """One value a choice field may take: the JSON to put in the command, and its label."""

    value: Any
    label: str
    piece: str | None = None  # a piece or place this value points at (a target, a destination)


class Field(msgspec.Struct, frozen=True, kw_only=True):
    """One thing to fill in for a piece.

    - ``choice``: one of ``values``.
    - ``number``: ``min``..``max`` in steps of ``step`` (``unit`` names it).
    - ``flag``: true or false.
    - ``legs``: a free move on a plane, a list of {"turn": degrees, "distance": inches} (GSC2);
      ``limits`` holds the ruleset's move limits (max distance, turn steps and costs) for live checks.
    - ``hexpath``: a list of [q, r] hexes from ``limits["start"]``, each adjacent to the last, at most
      ``limits["max_cost"]`` in all.
    """

    key: str  # the command field it fills
    label: str
    kind: FieldKind
    values: tuple[Value, ...] = ()
    min: float | None = None
    max: float | None = None
    step: float | None = None
    unit: str | None = None
    default: Any = None
    required: bool = True
    limits: dict[str, Any] = {}


class PieceChoices(msgspec.Struct, frozen=True, kw_only=True):
    piece: str
    label: str
    fields: tuple[Field, ...]
    fixed: dict[str, Any] = {}  # fields of this piece's entry that are already decided


class Form(msgspec.Struct, frozen=True, kw_only=True):
    """A command built piece by piece.

    The command is ``{"type": command, **fixed, list_key: [entry per piece]}`` when ``list_key`` is set
    (one entry per piece: ``{piece_key: piece, **entry.fixed, **filled fields}``), else
    ``{"type": command, **fixed, piece_key: piece, **filled fields}`` for the one piece in ``pieces``.
    ``optional_pieces``: pieces may be left out of the list (e.g. a group with no new order).
    """

    command: str  # the command's type tag
    label: str
    pieces: tuple[PieceChoices, ...]
    fixed: dict[str, Any] = {}
    list_key: str | None = None
    piece_key: str = "id"
    optional_pieces: bool = False
    group: str | None = None
    rule: str | None = None


Picker = Callable[[Field, int], Any]


def first_value(field: Field, _index: int) -> Any:
    """The default pick: a field's default, else its first value or its minimum."""
    if field.default is not None:
        return field.default
    if field.kind == "choice":
        return field.values[0].value if field.values else None
    if field.kind == "number":
        return field.min if field.min is not None else 0
    if field.kind == "flag":
        return False
    return []


def compose(form: Form, pick: Picker = first_value) -> dict[str, Any]:
    """A command (as JSON builtins) filled in by ``pick(field, piece_index)``: for tests, bots, the CLI."""
    entries = []
    for i, pc in enumerate(form.pieces):
        entry: dict[str, Any] = {form.piece_key: pc.piece, **pc.fixed}
        for f in pc.fields:
            value = pick(f, i)
            if value is not None or f.required:
                entry[f.key] = value
        entries.append(entry)
    body: dict[str, Any] = {"type": form.command, **form.fixed}
    if form.list_key is not None:
        body[form.list_key] = entries
    elif entries:
        body.update(entries[0])
    return body


def to_command(body: dict[str, Any], command_types: Sequence[type[Command]]) -> Command:
    """Decode a composed command as the service does (unknown fields refused)."""
    union: Any = command_types[0] if len(command_types) == 1 else Union[tuple(command_types)]  # noqa: UP007
    return msgspec.convert(body, union)


def option_commands(items: Sequence[Option]) -> list[Command]:
    """The bare commands of a ruleset's options."""
    return [item.command for item in items]
