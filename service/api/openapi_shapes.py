"""Schema shapes that client generators take as they are (openapi-python-client, openapi-typescript, Redocly).

msgspec's JSON Schema is right but not always what generators read:

- a tuple is ``prefixItems`` with ``items: false`` (2020-12), which openapi-python-client refuses: here a
  tuple keeps ``prefixItems`` and its length bounds and gets ``items``: the element schema (or the union of
  them), which every generator turns into an array type;
- two structs of one name in different rulesets come out as ``service.domain.gsc2.commands.Move``: here
  they are named by their owner (``Gsc2Move``, ``StarfinderMove``, ``DrawingBoard``), and every title is
  its component's name, so no two schemas share a title (generators name classes by title);
- an envelope's ``data`` is the event of its ``type``: ``Envelope`` becomes a union discriminated by
  ``type`` of one variant per event type, whose ``data`` is that event's payload (the event's schema less
  ``type`` and ``rolls``, which the envelope carries itself), and ``Command`` a union discriminated by its
  ``type``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

REF_PREFIX = "#/components/schemas/"


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF_PREFIX + name}


def walk(node: Any, visit: Callable[[dict[str, Any]], None]) -> Any:
    """Calls ``visit`` on every object of ``node``, innermost first."""
    if isinstance(node, dict):
        for value in node.values():
            walk(value, visit)
        visit(node)
    elif isinstance(node, list):
        for value in node:
            walk(value, visit)
    return node


def _tuple_items(node: dict[str, Any]) -> None:
    # items: false (a tuple), or absent (an array_like struct, which takes and ignores extra elements)
    if isinstance(node.get("prefixItems"), list) and not isinstance(node.get("items"), dict):
        distinct: list[Any] = []
        for schema in node["prefixItems"]:
            if schema not in distinct:
                distinct.append(schema)
        node["items"] = distinct[0] if len(distinct) == 1 else {"anyOf": distinct}


def tuples_with_items(components: dict[str, Any]) -> dict[str, Any]:
    return walk(components, _tuple_items)


def owner_name(qualified: str) -> str:
    """``service.domain.gsc2.commands.Move`` -> ``Gsc2Move``; ``service.domain.core.drawing.Board`` ->
    ``DrawingBoard``; anything else: its module's name before the class's."""
    parts = qualified.split(".")
    owner = parts[2] if parts[:2] == ["service", "domain"] and len(parts) > 4 else parts[-2]
    if owner == "core" and len(parts) > 4:
        owner = parts[3]
    return owner[:1].upper() + owner[1:] + parts[-1]


def rename(components: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """Components (and every $ref to them) renamed by ``names``; each title becomes its name."""
    refs = {REF_PREFIX + old: REF_PREFIX + new for old, new in names.items()}

    def visit(node: dict[str, Any]) -> None:
        target = node.get("$ref")
        if isinstance(target, str) and target in refs:
            node["$ref"] = refs[target]

    renamed = {names.get(name, name): walk(schema, visit) for name, schema in components.items()}
    for name, schema in renamed.items():
        if isinstance(schema, dict) and ("properties" in schema or "title" in schema):
            schema["title"] = name
    return renamed


def unique_names(components: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Module-qualified names made short and unique; returns the components and old -> new names."""
    names: dict[str, str] = {}
    taken = {name for name in components if "." not in name}
    for name in sorted(n for n in components if "." in n):
        short = owner_name(name)
        if short in taken:  # two modules of one owner: the module names it too
            parts = name.split(".")
            short = parts[-2][:1].upper() + parts[-2][1:] + short
        names[name] = short
        taken.add(short)
    return rename(components, names), names


def discriminated(variants: dict[str, str], field: str, title: str, description: str) -> dict[str, Any]:
    """A oneOf over ``variants`` (tag -> component name), told apart by ``field``."""
    return {
        "title": title,
        "description": description,
        "oneOf": [ref(n) for n in variants.values()],
        "discriminator": {"propertyName": field, "mapping": {tag: REF_PREFIX + name for tag, name in variants.items()}},
    }


def variant_name(event_component: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", event_component) + "Envelope"


def envelope_union(components: dict[str, Any], events: dict[str, str]) -> dict[str, Any]:
    """``Envelope`` as one variant per event type (tag -> the event's component), ``data`` its payload.

    Each variant is a whole object (no allOf), so a strict validator and every generator read it alike."""
    base = components["Envelope"]
    variants: dict[str, str] = {}
    for tag, name in events.items():
        payload = components[name]
        for carried in ("type", "rolls"):  # the envelope carries these, the wire's data does not
            payload.get("properties", {}).pop(carried, None)
            if carried in payload.get("required", ()):
                payload["required"] = [r for r in payload["required"] if r != carried]
        if not payload.get("required"):
            payload.pop("required", None)
        variant = json.loads(json.dumps(base))
        variant["title"] = variant_name(name)
        variant["description"] = f"an envelope of a {tag} event: its data is {name}"
        variant["properties"]["type"] = {"const": tag, "type": "string"}
        variant["properties"]["data"] = ref(name)
        components[variant["title"]] = variant
        variants[tag] = variant["title"]
    components["Envelope"] = discriminated(
        variants,
        "type",
        "Envelope",
        "one event as recorded (seq, turn, phase, actor, time, the dice it rolled) and its data: the event "
        "of that type, as the caller may see it",
    )
    return components


def command_union(components: dict[str, Any], commands: dict[str, str]) -> dict[str, Any]:
    components["Command"] = discriminated(
        commands,
        "type",
        "Command",
        "one command of the game's ruleset, told apart by its type (GET /v1/rulesets lists each ruleset's)",
    )
    return components


def reachable(doc: dict[str, Any]) -> set[str]:
    """Component schemas some path, parameter or response reaches (directly or through others)."""
    schemas = doc.get("components", {}).get("schemas", {})
    seen: set[str] = set()
    todo = [node for key, node in doc.items() if key != "components"]

    def collect(node: dict[str, Any]) -> None:
        target = node.get("$ref")
        if isinstance(target, str) and target.startswith(REF_PREFIX):
            name = target[len(REF_PREFIX) :]
            if name not in seen and name in schemas:
                seen.add(name)
                todo.append(schemas[name])

    while todo:
        walk(todo.pop(), collect)
    return seen
