"""The pages behind problem+json ``type`` URIs (RFC 9457 §3.1.1: a type URI, dereferenced, should give
documentation for people): ``/problems/<Kind>`` explains a kind of failure and what to do about it,
``/problems/rule/<RULE-ID>`` quotes the rule from the ruleset's reference (docs/rules/*.md) and the
project's rulings on it. Plain HTML, no script, so the page's strict CSP does not matter here.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

from fastapi import APIRouter
from starlette.responses import HTMLResponse, Response

from service.events.errors import AppError

from ..problems import problem

router = APIRouter()
DOCS = Path(__file__).resolve().parents[3] / "docs"
RULE_ID = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+[a-z]?$")
# the service's own guards, before any ruleset's (service/domain/core/guards.py, events/decide_append.py)
SERVICE_RULES = {
    "GAME-OVER": "The game is over: no command is taken any more (its replay and export stay open).",
    "NO-SEAT": "Spectators issue no commands: send a seat's or the umpire's token.",
    "SALVO-EMPTY": "The command changed nothing (no event would be recorded), so it is refused.",
}

# kind -> (status, what happened, what to do). Every kind the service sends is here (a test keeps it so).
KINDS: dict[str, tuple[int, str, str]] = {
    "InvalidRequest": (
        422,
        "The request is not one the API accepts: a field is missing, of the wrong type or "
        "out of range, or a battle file fails a check. `field` names the field (or the "
        "battle file's line).",
        "Correct the named field; the OpenAPI document gives its shape.",
    ),
    "MalformedCommand": (
        422,
        "The command is not one of the ruleset's command types, or its fields do not "
        "decode. `field` names the first bad one.",
        "Take the command from GET /v1/games/{id}/options, which lists what the seat may send.",
    ),
    "IdempotencyMismatch": (
        422,
        "This Idempotency-Key was used before with a different request.",
        "Use a new key for a new request; resend the same body to get the first answer.",
    ),
    "GameNotFound": (404, "No game has this id on this server.", "Check the id (games start with g_)."),
    "NotFound": (
        404,
        "The thing asked for does not exist (a turn, a bot, a battle, a scenario…).",
        "The detail says which; the game's summary lists what exists.",
    ),
    "Forbidden": (
        403,
        "The token is valid but may not do this (another seat's piece, an umpire's action…).",
        "Use the token of the seat (or the umpire) that may act.",
    ),
    "Unauthorized": (
        401,
        "The Bearer token is unknown to this server.",
        "Use a token this server issued when the game was created or imported.",
    ),
    "VersionConflict": (
        409,
        "The game moved on since the version in If-Match: another command landed first.",
        "Read the game (or its options) again and decide on what is there now.",
    ),
    "GameTooLarge": (
        507,
        "The game's state is past this server's memory budget for one game "
        "(SALVO_MAX_GAME_BYTES): it is refused rather than risk the process.",
        "Ask the operator (the game's log is intact in the store; a larger SALVO_MAX_GAME_BYTES loads it).",
    ),
    "ImportTooLarge": (
        413,
        "The battle file is past this server's import limits (bytes, events or state).",
        "Split the game, or ask the operator to raise SALVO_MAX_IMPORT_BYTES, SALVO_MAX_IMPORT_EVENTS or "
        "SALVO_MAX_GAME_BYTES (the problem's field says which).",
    ),
    "TargetRefused": (
        422,
        "The webhook's address may not be called from this server: not http(s), or it resolves to a private, "
        "loopback or link-local address the operator's SALVO_WEBHOOK_ALLOW does not name.",
        "Give a public http(s) address, or ask the operator to allow the one you need.",
    ),
    "TooLarge": (
        413,
        "The request body is larger than this server accepts (SALVO_MAX_BODY_BYTES).",
        "Send a smaller body; battle files go to POST /v1/games/import, which allows more.",
    ),
    "TooManyRequests": (
        429,
        "This token or address sent more than its rate allows.",
        "Wait the seconds in Retry-After, then retry.",
    ),
    "StorageUnavailable": (
        503,
        "The database cannot be reached; nothing was written.",
        "Retry after Retry-After seconds: the command was not applied.",
    ),
    "StorageFull": (507, "The database is out of space; nothing was written.", "Ask the operator."),
    "NotReady": (
        503,
        "The server is up but the database (or Redis) it needs does not answer (GET /readyz).",
        "Wait, or ask the operator; `checks` names what failed.",
    ),
    "Internal": (
        500,
        "The server failed on this request. It has been logged; nothing internal is shown.",
        "Retry; if it persists, report it with the X-Request-Id of the response.",
    ),
    "rule": (
        422,
        "A command breaks a rule of the game. `rule` names it (such as GSC2-BEAM-4) and "
        "/problems/rule/<RULE-ID> quotes it.",
        "Choose another command: GET …/options lists legal ones.",
    ),
}


def service_kinds() -> set[str]:
    """Every AppError subclass the service defines: each names a /problems/<Kind> page."""
    found, todo = set(), list(AppError.__subclasses__())
    while todo:
        kind = todo.pop()
        found.add(kind.__name__)
        todo += kind.__subclasses__()
    return found


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>'
        f"{html.escape(title)} · Salvo</title></head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
        f"{body}\n<p>Salvo answers every failure as <code>application/problem+json</code> "
        "(RFC 9457): <code>type</code> is this page, <code>title</code>, <code>status</code>, "
        "<code>detail</code>, and <code>rule</code> or <code>field</code> naming what was "
        "wrong.</p>\n</body></html>\n"
    )


@cache
def rule_texts() -> dict[str, tuple[str, str]]:
    """RULE-ID -> (the reference it is in, its text), from docs/rules/*.md and the rulings' bold ids."""
    texts: dict[str, tuple[str, str]] = {rule: ("docs/architecture.md", text) for rule, text in SERVICE_RULES.items()}
    for path in sorted(DOCS.glob("rules/*.md")) + sorted(DOCS.glob("rulings-*.md")):
        current: str | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            match = re.match(r"^- (?:\*\*)?([A-Z0-9]+(?:-[A-Z0-9]+)*-\d+[a-z]?)\b\s*(.*)$", line)
            if match:
                current = match.group(1)
                texts.setdefault(current, (f"docs/{path.relative_to(DOCS)}", match.group(2).strip()))
            elif current and line.startswith("  ") and line.strip():
                name, text = texts[current]
                if name == f"docs/{path.relative_to(DOCS)}":
                    texts[current] = (name, f"{text} {line.strip()}")
            else:
                current = None
    return texts


@router.get("/problems/rule/{rule_id}", include_in_schema=False)
async def rule_page(rule_id: str) -> Response:
    if not RULE_ID.match(rule_id):
        return problem(404, "Not found", "that is not a rule id (rule ids look like GSC2-BEAM-4)", "/problems/NotFound")
    where, text = rule_texts().get(rule_id, ("", ""))
    ruleset = rule_id.split("-", 1)[0].lower()
    quoted = (
        f"<blockquote><p>{html.escape(text.replace('**', ''))}</p></blockquote>\n"
        f"<p>From <code>{html.escape(where)}</code>; the project's rulings: <code>docs/rulings-*.md</code>.</p>"
        if text
        else f"<p>This server has no text for {html.escape(rule_id)}; it is a rule of the "
        f"<code>{html.escape(ruleset)}</code> ruleset (see its rules reference).</p>"
    )
    return _page(
        f"Rule {rule_id}",
        "<p>A command was refused because it breaks this rule of the game. "
        "The problem's <code>detail</code> says how.</p>\n" + quoted,
    )


@router.get("/problems/{kind}", include_in_schema=False)
async def kind_page(kind: str) -> Response:
    known = KINDS.get(kind)
    if known is None:
        return problem(404, "Not found", "no such problem type (GET /problems lists them)", "/problems/NotFound")
    status, what, todo = known
    return _page(
        kind,
        f"<p>HTTP status {status}.</p>\n<p>{html.escape(what)}</p>\n"
        f"<p><strong>What to do:</strong> {html.escape(todo)}</p>",
    )


@router.get("/problems", include_in_schema=False)
async def index_page() -> Response:
    items = "\n".join(
        f'<li><a href="/problems/{k}">{k}</a> ({s})</li>' for k, (s, _w, _t) in sorted(KINDS.items()) if k != "rule"
    )
    return _page(
        "Problem types",
        f'<ul>\n{items}\n<li><a href="/problems/rule">rule/&lt;RULE-ID&gt;</a>: a rule of the game</li>\n</ul>',
    )
