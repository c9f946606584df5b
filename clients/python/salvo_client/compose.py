"""Filling a form from typed answers: each field's text parsed and checked against its own limits."""

from __future__ import annotations

import json
from typing import Any

from .models import Field, Form


class BadAnswer(ValueError):
    pass


def parse(field: Field, text: str) -> Any:
    """The value a field takes from what was typed ("" = its default)."""
    text = text.strip()
    if not text and field.default is not None:
        return field.default
    if field.kind == "choice":
        return _choice(field, text)
    if field.kind == "number":
        return _number(field, text)
    if field.kind == "flag":
        if text.lower() not in ("y", "yes", "n", "no", "true", "false"):
            raise BadAnswer("answer y or n")
        return text.lower() in ("y", "yes", "true")
    if field.kind == "legs":
        return _legs(text)
    if field.kind == "hexpath":
        return _hexes(text)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadAnswer(f"{field.label}: not JSON ({exc})") from None


def _choice(field: Field, text: str) -> Any:
    if not text.isdigit() or not 1 <= int(text) <= len(field.values):
        raise BadAnswer(f"choose 1-{len(field.values)}")
    return field.values[int(text) - 1].value


def _number(field: Field, text: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise BadAnswer("a number, please") from None
    if (field.min is not None and value < field.min) or (field.max is not None and value > field.max):
        raise BadAnswer(f"between {field.min} and {field.max}")
    return int(value) if value.is_integer() and (field.step or 1) >= 1 else value


def _legs(text: str) -> list[dict[str, float | int]]:
    """ "30 4, -60 2.5": turn 30° then 4", turn -60° then 2.5"; "" = stay put."""
    legs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        bits = part.split()
        if len(bits) != 2:
            raise BadAnswer('each leg is "turn distance", e.g. "30 4"')
        try:
            turn = float(bits[0])
            # whole degrees are sent as integers (a ruleset may count turns in whole degrees)
            legs.append({"turn": int(turn) if turn.is_integer() else turn, "distance": float(bits[1])})
        except ValueError:
            raise BadAnswer("turn and distance are numbers") from None
    return legs


def _hexes(text: str) -> list[list[int]]:
    """ "1,0 2,-1": the hexes to enter, in order."""
    try:
        return [[int(a), int(b)] for a, b in (p.split(",") for p in text.split())]
    except ValueError:
        raise BadAnswer('hexes as "q,r q,r"') from None


def build(form: Form, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The command: ``{"type", **fixed, list_key: entries}``, or the one entry's fields at top level."""
    body: dict[str, Any] = {"type": form.command, **form.fixed}
    if form.list_key is not None:
        body[form.list_key] = entries
    elif entries:
        body.update(entries[0])
    return body


def describe(field: Field) -> str:
    """What to type for a field, in words."""
    if field.kind == "choice":
        return " ".join(f"{i}) {v.label}" for i, v in enumerate(field.values, 1))
    if field.kind == "number":
        unit = f" {field.unit}" if field.unit else ""
        return f"{field.min:g}..{field.max:g}{unit}" if field.min is not None and field.max is not None else "a number"
    if field.kind == "flag":
        return "y/n"
    if field.kind == "legs":
        left = field.limits.get("max_distance_left", field.limits.get("max_distance"))
        return 'legs "turn distance, …" (empty: stay)' + (f", at most {left} in all" if left is not None else "")
    if field.kind == "hexpath":
        return f'hexes "q,r q,r" from {field.limits.get("start")}'
    return "JSON"
