"""Campaign battles fought as linked GSC2 games (FTC-ARR-8, FTC-ARR-12): a process manager.

Start: the campaign battle becomes a GSC2 scenario (``service.domain.links.campaign_gsc2``), a GSC2 game
is created with ``{"linked": {"campaign", "battle"}}`` in its options, and the campaign records the link
(``ftcampaign.link_battle``). Seats: the tactical game's sides are the campaign players' ids, so a
player's campaign token opens its own tactical seat and the campaign umpire's token umpires the battle
(``link_for``, used by token authentication). End: when the tactical game is over, its outcome is sent to
the campaign as the umpire's ``ftcampaign.record_battle`` with an idempotency key naming the battle and
the tactical game, so it is appended exactly once however often it is retried; ``reconcile`` retries
every unsettled link after start-up (found by an index of the link events, loading no other game's head),
which is what survives a crash between the two appends.

Test hook (crash tests only, never set in production): with ``SALVO_TEST_HOLD_BEFORE_LINKED_RESULT`` naming
a file, ``settle`` writes the tactical game's id to that file and then holds, forever, at the exact point
between the tactical game's end (already appended) and the campaign's append, so a test can SIGKILL the
real process there (tests/api/test_linked_crash.py). Read once when the service starts.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import msgspec

from service.domain.core import UMPIRE, Actor, RuleViolation
from service.domain.links.campaign_gsc2 import battle_of, campaign_result, tactical_scenario

from .application import GameService
from .envelope import GameCreated
from .errors import Forbidden, GameNotFound, InvalidRequest
from .replay import decode_rows

log = logging.getLogger("salvo.linked")
CAMPAIGN = "ftcampaign"
TACTICAL = "gsc2"
PLAYERS_MAY_START = "players_start_battles"  # a campaign created with this option true lets players start
_encode = msgspec.json.Encoder().encode
HOLD_ENV = "SALVO_TEST_HOLD_BEFORE_LINKED_RESULT"
# the campaign's link events (tags of ftcampaign's BattleLinked, BattleRecorded), indexed: migration 0004
LINK_EVENT_TYPES = ("ftcampaign.battle_linked", "ftcampaign.battle_recorded")


@dataclass(frozen=True)
class Link:
    campaign: str
    battle: str
    seats: tuple[str, ...]  # the campaign players holding sides of the tactical game


class LinkedBattles:
    def __init__(self, service: GameService, cache_size: int = 10_000) -> None:
        self.service = service
        self._links: OrderedDict[str, Link | None] = OrderedDict()  # game id -> its link (bounded)
        self._cache_size = cache_size
        self._hold_file = os.environ.get(HOLD_ENV) or None  # the crash-test hook (module docstring)
        service.react_to_commands(self.after_command, frozenset({TACTICAL}))
        service.tokens.linked = self.link_for

    async def link_for(self, game_id: str) -> Link | None:
        """The campaign battle a game is linked from, from its ``game.created`` options (cached)."""
        if game_id in self._links:
            self._links.move_to_end(game_id)
            return self._links[game_id]
        created = await self._created(game_id)
        raw = (created.options or {}).get("linked") if created is not None else None
        link = (
            Link(str(raw["campaign"]), str(raw["battle"]), tuple(raw.get("seats", ())))
            if isinstance(raw, dict) and "campaign" in raw
            else None
        )
        self._links[game_id] = link
        if len(self._links) > self._cache_size:
            self._links.popitem(last=False)
        return link

    async def _created(self, game_id: str) -> GameCreated | None:
        head = await self.service.head(game_id)
        rows = await self.service.store.read_events(game_id, after=0, limit=1)
        decoded = decode_rows(head.codec, rows)
        event = decoded[0].event if decoded else None
        return event if isinstance(event, GameCreated) else None

    async def start(self, campaign_id: str, battle_id: str, actor: Actor) -> dict[str, Any]:
        """Create the linked game (or return the one already linked). Umpire, or a player in the battle
        when the campaign allows players to start battles."""
        head = await self.service.head(campaign_id)
        if head.ruleset.name != CAMPAIGN:
            raise InvalidRequest(f"game {campaign_id} is a {head.ruleset.name} game, not a campaign", field="game_id")
        battle = battle_of(head.state, battle_id)
        players = [f.player for f in battle.forces]
        if not actor.is_umpire:
            created = await self._created(campaign_id)
            allowed = bool(created and (created.options or {}).get(PLAYERS_MAY_START))
            if not (allowed and actor.kind == "seat" and actor.seat in players):
                raise Forbidden("the umpire starts linked battles (or its players, where the campaign allows it)")
        if battle.tactical_game_id is not None:
            return {
                "campaign": campaign_id,
                "battle": battle_id,
                "tactical_game_id": battle.tactical_game_id,
                "created": False,
            }
        scenario = tactical_scenario(head.state, battle_id)  # RuleViolation: not linkable
        game = await self.service.create_game(
            TACTICAL, scenario, options={"linked": {"campaign": campaign_id, "battle": battle_id, "seats": players}}
        )
        body = _encode(
            {"command": {"type": "ftcampaign.link_battle", "battle": battle_id, "tactical_game_id": game.game_id}}
        )
        try:
            await self.service.handle_command(campaign_id, UMPIRE, body, idempotency_key=f"link-battle:{battle_id}")
        except RuleViolation:  # another start linked it first: that game is the battle's
            head = await self.service.head(campaign_id)
            linked = battle_of(head.state, battle_id).tactical_game_id
            return {"campaign": campaign_id, "battle": battle_id, "tactical_game_id": linked, "created": False}
        out: dict[str, Any] = {
            "campaign": campaign_id,
            "battle": battle_id,
            "tactical_game_id": game.game_id,
            "created": True,
            "sides": players,
        }
        if actor.is_umpire:  # the campaign's tokens open the seats; the game's own tokens go to the umpire only
            out["seats"] = game.seat_tokens
            out["umpire_token"] = game.umpire_token
        return out

    async def after_command(self, game_id: str, _result: Any) -> None:
        head = await self.service.head(game_id)
        if head.ruleset.name == TACTICAL and head.ruleset.is_over(head.state):
            try:
                await self.settle(game_id)
            except Exception:  # the tactical command stands; reconcile retries at the next start
                log.exception("linked battle result for %s not recorded yet", game_id)

    async def settle(self, tactical_game_id: str) -> bool:
        """Send a finished linked game's outcome to its campaign, exactly once. True if it was sent now."""
        link = await self.link_for(tactical_game_id)
        if link is None:
            return False
        tactical = await self.service.head(tactical_game_id)
        if not tactical.ruleset.is_over(tactical.state):
            return False
        campaign = await self.service.head(link.campaign)
        battle = next((b for b in campaign.state.battles if b.id == link.battle), None)
        if battle is None or battle.tactical_game_id != tactical_game_id:
            return False  # already recorded (or linked to another game)
        body = campaign_result(campaign.state, link.battle, tactical.state, tactical_game_id)
        if self._hold_file is not None:
            await self._hold(tactical_game_id)
        await self.service.handle_command(
            link.campaign,
            UMPIRE,
            _encode({"command": body}),
            idempotency_key=f"linked-result:{link.battle}:{tactical_game_id}",
        )
        return True

    async def _hold(self, tactical_game_id: str) -> None:
        """The crash-test hook: say where we are, then never go on (the test kills the process here)."""
        assert self._hold_file is not None
        await asyncio.to_thread(_write, self._hold_file, tactical_game_id)
        await asyncio.Event().wait()

    async def unsettled(self) -> list[tuple[str, str, str]]:
        """(campaign, battle, tactical game) of every battle linked and not yet recorded, from the indexed
        link events alone: no game head is loaded to find them."""
        linked: dict[tuple[str, str], str] = {}
        for row in await self.service.store.rows_of_types(LINK_EVENT_TYPES):
            data = msgspec.json.decode(row.data)
            key = (row.game_id, str(data.get("battle")))
            if row.type == LINK_EVENT_TYPES[0] and data.get("tactical_game_id"):
                linked[key] = str(data["tactical_game_id"])
            else:
                linked.pop(key, None)
        return [(campaign, battle, tactical) for (campaign, battle), tactical in linked.items()]

    async def reconcile(self) -> int:
        """Settle every finished linked battle whose campaign has not heard of its end (after a crash).
        Only each unsettled battle's own heads are loaded (its tactical game; its campaign if that game
        is over); a link naming a game this server does not hold (an imported campaign's) is skipped."""
        sent = 0
        for campaign_id, battle_id, tactical_id in await self.unsettled():
            try:
                link = await self.link_for(tactical_id)
                if link is None or link.campaign != campaign_id or link.battle != battle_id:
                    continue
                sent += await self.settle(tactical_id)
            except GameNotFound:
                continue
            except Exception:
                log.exception("linked battle %s of %s not settled", battle_id, campaign_id)
        if sent:
            log.info("settled %d linked battles that ended while the service was down", sent)
        return sent


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
