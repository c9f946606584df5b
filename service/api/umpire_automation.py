"""Umpire automation for campaigns (issue 39): the umpire's routine duties done by the service, so a
campaign with bot powers and deadlines runs without a human umpire.

A campaign created with ``options.umpire = "auto"`` (in its ``game.created`` event, so a restarted service
knows) has, after each of its commands, at creation and at start-up:

- the star map generated (FTC-MAP-1) in the map phase;
- every battle waiting for its result (FTC-ARR-8) fought as a linked GSC2 game (the existing process
  manager: its result flows back into the campaign by itself, exactly once), with the campaign's bot
  powers' sides played by "rules" bots and the campaign's deadline rule applied per phase (the tactical
  game's force-phase command), so a side nobody plays is moved on; a battle that cannot be fought as a
  tactical game (no tactical scenario for it) is recorded as no victor, no losses;
- the weeks closed by the deadline (``options.deadline``, docs/deadlines.md): a week ends by itself once
  every power has sealed, and the deadline's ``ftcampaign.close_turn`` ends it when one has not.

Discretionary duties (approving technology or a standardised navy, rulings, ending the campaign early)
stay the umpire's: automation never decides what the rules leave to judgement.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from service.domain.core import UMPIRE, RuleViolation, find_ruleset
from service.events.application import GameService
from service.events.deadlines import Deadlines, parse_rule
from service.events.errors import AppError, InvalidRequest
from service.events.linked_battles import LinkedBattles

from .bot_runner import BotRunner

log = logging.getLogger("salvo.umpire")
CAMPAIGN = "ftcampaign"
AUTO = "auto"
_encode = msgspec.json.Encoder().encode


def umpire_option(ruleset: str, options: dict[str, Any]) -> bool:
    """Whether a new game delegates its umpire's routine duties (``options.umpire``: "auto"; campaigns)."""
    value = options.get("umpire")
    if value is None:
        return False
    if value != AUTO or ruleset != CAMPAIGN:
        raise InvalidRequest(f'options.umpire is "auto", for a {CAMPAIGN} campaign', field="options.umpire")
    return True


class UmpireAutomation:
    def __init__(self, service: GameService, linked: LinkedBattles, bots: BotRunner, deadlines: Deadlines) -> None:
        self.service = service
        self.linked = linked
        self.bots = bots
        self.deadlines = deadlines
        self._automated: dict[str, bool] = {}  # game id -> its game.created says umpire: auto (immutable)
        self._busy: set[str] = set()  # games being acted on (the commands sent react here again)
        service.react_to_commands(self.after_command, frozenset({CAMPAIGN}))

    async def automated(self, game_id: str) -> bool:
        known = self._automated.get(game_id)
        if known is None:
            rows = await self.service.store.read_events(game_id, upto=1)
            options = msgspec.json.decode(rows[0].data).get("options", {}) if rows else {}
            known = options.get("umpire") == AUTO
            if len(self._automated) > 100_000:
                self._automated.clear()
            self._automated[game_id] = known
        return known

    async def after_command(self, game_id: str, _result: Any) -> None:
        if await self.automated(game_id):
            await self.act(game_id)

    async def resume(self) -> int:
        """At start-up: act on every unfinished automated campaign (a duty left when the service stopped)."""
        acted = 0
        for game_id in await self.service.store.games_of_ruleset(CAMPAIGN):
            try:
                if await self.automated(game_id):
                    await self.act(game_id)
                    acted += 1
            except Exception:  # noqa: BLE001 - one campaign's trouble never stops the others' start
                log.exception("umpire automation could not resume %s", game_id)
        return acted

    async def act(self, game_id: str) -> None:
        """Do whatever routine duty the campaign waits for (each once: the sends are idempotent)."""
        if game_id in self._busy:
            return  # a command this loop sent: the loop looks again itself
        self._busy.add(game_id)
        try:
            for _round in range(20):
                head = await self.service.head(game_id)
                state = head.state
                if head.ruleset.is_over(state):
                    return
                if state.phase == "map":
                    await self._umpire(game_id, {"type": "ftcampaign.generate_map"}, f"auto:map:{head.seq}")
                    continue
                waiting = [
                    b.id for b in state.battles if len(b.formations) >= len(b.forces) and b.tactical_game_id is None
                ]
                if not waiting:
                    return
                for battle in waiting:
                    await self._fight(game_id, battle)
        except (RuleViolation, AppError):
            log.warning("umpire automation stopped on %s", game_id, exc_info=True)
        finally:
            self._busy.discard(game_id)

    async def _umpire(self, game_id: str, command: dict[str, Any], key: str) -> None:
        await self.service.handle_command(game_id, UMPIRE, _encode({"command": command}), idempotency_key=key)

    async def _fight(self, campaign: str, battle: str) -> None:
        try:
            started = await self.linked.start(campaign, battle, UMPIRE)
        except RuleViolation:  # no tactical scenario for this battle: the umpire's plain record
            await self._umpire(
                campaign,
                {"type": "ftcampaign.record_battle", "battle": battle, "tactical_game_id": None},
                f"auto:battle:{battle}",
            )
            return
        tactical = started["tactical_game_id"]
        if not started["created"]:
            return
        bot_powers = {b.seat: b.bot for b in self.bots.listed(campaign)}
        for side in started.get("sides", []):
            if side in bot_powers:
                await self.bots.seat_bot(tactical, side, "rules", UMPIRE)
        rule = await self.deadlines.view(campaign)
        if rule is not None:
            head = await self.service.head(tactical)
            tactical_rule = parse_rule({"per": "phase", "seconds": rule["seconds"]}, find_ruleset(head.ruleset.name))
            await self.deadlines.install(tactical, tactical_rule, head)
