"""Call every operation of the API for real (successes and each kind of failure) and keep the answers.

Used by the contract tests: every answer must match the OpenAPI document (Python, strict JSON Schema)
and type-check against the TypeScript types generated from it (tsc).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Sample:
    operation: str
    status: int
    media: str
    body: Any  # decoded JSON, or the text of a non-JSON body


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class Recorder:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.samples: list[Sample] = []

    async def __call__(self, operation: str, method: str, url: str, expect: int, **kwargs: Any) -> Any:
        r = await self.client.request(method, url, **kwargs)
        assert r.status_code == expect, f"{operation}: {r.status_code} {r.text[:300]}"
        media = r.headers.get("content-type", "").split(";")[0]
        json_body = media.endswith(("/json", "+json"))
        body: Any = None if not r.content else r.json() if json_body else r.text
        self.samples.append(Sample(operation, r.status_code, media, body))
        return body


async def exercise(client: httpx.AsyncClient) -> list[Sample]:
    call = Recorder(client)
    await call("list_rulesets", "GET", "/v1/rulesets", 200)
    await call("get_keys", "GET", "/.well-known/salvo-keys", 200)
    await call("get_scenario", "GET", "/v1/rulesets/gsc2/scenarios/duel", 200)
    await call("get_scenario", "GET", "/v1/rulesets/gsc2/scenarios/nowhere", 404)
    game = await call("create_game", "POST", "/v1/games", 201, json={"ruleset": "gsc2", "scenario": "duel"})
    await call("create_game", "POST", "/v1/games", 422, json={"ruleset": "gsc2", "scenario": "nowhere"})
    await call("create_game", "POST", "/v1/games", 413, content=b'{"ruleset":"' + b"x" * 70_000 + b'"}')
    gid, red, umpire = game["game_id"], game["seats"]["red"], game["umpire_token"]
    base = f"/v1/games/{gid}"
    for token in (umpire, red, None):
        await call("get_game", "GET", base, 200, headers=bearer(token))
    await call("get_game", "GET", base, 401, headers=bearer("not-a-token"))
    await call("get_game", "GET", "/v1/games/g_0000000000000000", 404)
    await call("get_game", "GET", base, 422, params={"at": 10_000})
    await call("get_options", "GET", base + "/options", 200, headers=bearer(red))
    await call("get_options", "GET", base + "/options", 200)
    cmd = base + "/commands"
    start = {"command": {"type": "gsc2.start"}}
    await call("post_command", "POST", cmd, 403, json=start)
    await call("post_command", "POST", cmd, 409, json=start, headers={**bearer(red), "If-Match": "1"})
    await call(
        "post_command", "POST", cmd, 422, json={"command": {"type": "gsc2.start", "extra": 1}}, headers=bearer(red)
    )
    await call("post_command", "POST", cmd, 201, json=start, headers=bearer(red))
    await call("post_command", "POST", cmd, 422, json=start, headers=bearer(red))  # a rule refuses it now
    await call("get_options", "GET", base + "/options", 200, headers=bearer(red))
    await call("get_options", "GET", base + "/options", 200, headers=bearer(umpire))
    await call("get_events", "GET", base + "/events", 200, headers=bearer(umpire))
    await call("get_events", "GET", base + "/events", 422, params={"limit": 0})
    await call("get_turn", "GET", base + "/turns/1", 200, headers=bearer(red))
    await call("get_turn", "GET", base + "/turns/99", 404)
    await call("get_turn", "GET", base + "/turns/first", 422)
    await call("post_rewind", "POST", base + "/rewind", 403, json={"turn": 1}, headers=bearer(red))
    await call(
        "post_rewind", "POST", base + "/rewind", 201, json={"to_seq": 2, "reason": "again"}, headers=bearer(umpire)
    )
    await call("post_fork", "POST", base + "/fork", 201, headers=bearer(red))
    exported = await call("get_export", "GET", base + "/export", 200, headers=bearer(umpire))
    await call("post_import", "POST", "/v1/games/import", 201, content=exported.encode())
    await call("post_import", "POST", "/v1/games/import", 422, content=b"not a battle file")
    await call("get_keys", "GET", "/.well-known/salvo-keys", 200)
    bots = base + "/bots"
    await call("post_bot", "POST", bots, 403, json={"seat": "blue", "bot": "rules"}, headers=bearer(red))
    await call("post_bot", "POST", bots, 422, json={"seat": "green", "bot": "rules"}, headers=bearer(umpire))
    await call("post_bot", "POST", bots, 201, json={"seat": "blue", "bot": "rules"}, headers=bearer(umpire))
    await call("get_bots", "GET", bots, 200)
    await call("delete_bot", "DELETE", bots + "/blue", 204, headers=bearer(umpire))
    await call("delete_bot", "DELETE", bots + "/blue", 401, headers=bearer("not-a-token"))
    linked = base + "/battles/b1/tactical"
    await call("post_linked_battle", "POST", linked, 422, headers=bearer(umpire))  # not a campaign
    await call("post_linked_battle", "POST", "/v1/games/g_0000000000000000/battles/b1/tactical", 404)
    await call("get_link", "GET", base + "/link", 200)  # not a campaign's linked battle: campaign null
    await call("get_link", "GET", "/v1/games/g_0000000000000000/link", 404)
    await exercise_talk_and_deadlines(call, base, red, umpire)
    await exercise_players(call, gid, red)
    return call.samples


async def exercise_talk_and_deadlines(call: Recorder, base: str, red: str, umpire: str) -> None:
    """Table talk, the spectators' channel, deadlines and clocks (issue 39)."""
    await call("post_message", "POST", base + "/messages", 201, json={"text": "good luck"}, headers=bearer(red))
    await call("post_message", "POST", base + "/messages", 422, json={"text": ""}, headers=bearer(red))
    await call("post_message", "POST", base + "/messages", 401, json={"text": "hi"}, headers=bearer("not-a-token"))
    await call("get_messages", "GET", base + "/messages", 200, headers=bearer(red))
    await call("post_spectator_message", "POST", base + "/spectator-messages", 201, json={"text": "go red"})
    await call(
        "post_spectator_message", "POST", base + "/spectator-messages", 403, json={"text": "x"}, headers=bearer(red)
    )
    await call("get_spectator_messages", "GET", base + "/spectator-messages", 200)
    await call("get_deadline", "GET", base + "/deadline", 200)
    deadline = {"per": "phase", "seconds": 600}
    await call("put_deadline", "PUT", base + "/deadline", 403, json=deadline, headers=bearer(red))
    await call("put_deadline", "PUT", base + "/deadline", 200, json=deadline, headers=bearer(umpire))
    await call("put_deadline", "PUT", base + "/deadline", 200, json={"per": None}, headers=bearer(umpire))
    await call("get_clock", "GET", base + "/clock", 200)
    clock = {"seconds": 600, "increment": 5}
    await call("put_clock", "PUT", base + "/clock", 403, json=clock, headers=bearer(red))
    await call("put_clock", "PUT", base + "/clock", 200, json=clock, headers=bearer(umpire))
    await call("put_clock", "PUT", base + "/clock", 422, json={"left": {"nobody": 1}}, headers=bearer(umpire))
    await call("put_clock", "PUT", base + "/clock", 200, json={"seconds": None}, headers=bearer(umpire))


async def exercise_players(call: Recorder, gid: str, red: str) -> None:
    """Players, their keys, seats, games and subscriptions (issue 40)."""
    player = await call("create_player", "POST", "/v1/players", 201, json={"label": "phone"})
    await call("create_player", "POST", "/v1/players", 422, json={"label": 7})
    me = bearer(player["key"])
    await call("get_me", "GET", "/v1/players/me", 200, headers=me)
    await call("get_me", "GET", "/v1/players/me", 401, headers=bearer("pk_nobody"))
    other = await call("post_key", "POST", "/v1/players/me/keys", 201, json={"label": "laptop"}, headers=me)
    await call("delete_key", "DELETE", f"/v1/players/me/keys/{other['key_id']}", 204, headers=me)
    await call("delete_key", "DELETE", "/v1/players/me/keys/nothing", 404, headers=me)
    await call("post_seat", "POST", "/v1/players/me/seats", 201, json={"token": red}, headers=me)
    await call("post_seat", "POST", "/v1/players/me/seats", 401, json={"token": "not-a-token"}, headers=me)
    await call("get_my_games", "GET", "/v1/players/me/games", 200, headers=me)
    await call("post_seen", "POST", f"/v1/players/me/games/{gid}/seen", 204, json={}, headers=me)
    await call("post_seen", "POST", "/v1/players/me/games/g_0000000000000000/seen", 404, json={}, headers=me)
    subs = "/v1/players/me/subscriptions"
    hook = {"url": "https://93.184.216.34/salvo-hook", "game_id": gid}  # a public address: nothing is sent here
    sub = await call("post_subscription", "POST", subs, 201, json=hook, headers=me)
    await call("post_subscription", "POST", subs, 422, json={"url": "http://127.0.0.1/hook"}, headers=me)
    await call("get_subscriptions", "GET", subs, 200, headers=me)
    await call("resume_subscription", "POST", f"{subs}/{sub['id']}/resume", 200, headers=me)
    await call("delete_subscription", "DELETE", f"{subs}/{sub['id']}", 204, headers=me)
    await call("delete_subscription", "DELETE", f"{subs}/nothing", 404, headers=me)
    await call("delete_seat", "DELETE", f"/v1/players/me/seats/{gid}", 204, headers=me)
    await call("delete_seat", "DELETE", f"/v1/players/me/seats/{gid}", 404, headers=me)
    await call("get_push_key", "GET", "/v1/push/key", 200)
    await exercise_passkeys(call, me)


async def exercise_passkeys(call: Recorder, me: dict[str, str]) -> None:
    """Passkeys (issue 40): a software authenticator answers the ceremonies for the client's host."""
    from tests.support.soft_authenticator import SoftAuthenticator

    authenticator, mine = SoftAuthenticator(), "/v1/players/me/passkeys"
    options = await call("post_passkey_options", "POST", mine + "/options", 200, json={}, headers=me)
    await call("post_passkey_options", "POST", mine + "/options", 401, json={})
    answer = {"challenge_id": options["challenge_id"], "credential": authenticator.create(options["public_key"])}
    added = await call("post_passkey", "POST", mine, 201, json=answer, headers=me)
    await call("post_passkey", "POST", mine, 401, json=answer, headers=me)  # the challenge is spent
    await call("get_passkeys", "GET", mine, 200, headers=me)
    options = await call("post_login_options", "POST", "/v1/passkeys/login/options", 200, json={})
    answer = {"challenge_id": options["challenge_id"], "credential": authenticator.get(options["public_key"])}
    await call("post_login", "POST", "/v1/passkeys/login", 201, json=answer)
    await call("post_login", "POST", "/v1/passkeys/login", 401, json=answer)
    await call("delete_passkey", "DELETE", f"{mine}/{added['credential_id']}", 204, headers=me)
    await call("delete_passkey", "DELETE", f"{mine}/{added['credential_id']}", 404, headers=me)


def ts_check_source(samples: list[Sample], types_module: str) -> str:
    """A TypeScript module assigning every JSON answer to its generated type (excess keys are errors)."""
    lines = [f'import type {{ operations }} from "{types_module}";', ""]
    for i, s in enumerate(samples):
        if not s.media.endswith(("/json", "+json")) or s.body is None:
            continue
        lines.append(
            f'export const sample{i}: operations["{s.operation}"]["responses"][{s.status}]'
            f'["content"]["{s.media}"] = {json.dumps(s.body)};'
        )
    return "\n".join(lines) + "\n"
