"""Who may receive each campaign event, written out by hand from the rules (FTC-R-7, FTC-TG-3, FTC-MOV-1):
the leak tests' oracle, deliberately independent of the product's own lists in events.py/visibility.py.

- "public": everyone, unredacted (the map, set-up claims, the clock, rulings, scouting results);
- "player": only the event's ``player`` (economies, purchases, own moves, own sightings);
- "sealed": everyone learns that ``player`` acted, only the player sees what (sealed orders);
- "witnesses": only the players listed in ``witnesses`` (contacts, battles, assaults at one system).
"""

from __future__ import annotations

AUDIENCE: dict[str, str] = {
    "ftcampaign.map_generated": "public",
    "ftcampaign.homeworld_claimed": "public",
    "ftcampaign.world_claimed": "public",
    "ftcampaign.expansion_failed": "public",
    "ftcampaign.picks_forfeited": "public",
    "ftcampaign.phase_changed": "public",
    "ftcampaign.technology_approved": "public",
    "ftcampaign.ruling_recorded": "public",
    "ftcampaign.player_ready": "public",
    "ftcampaign.turn_started": "public",
    "ftcampaign.economic_turn_started": "public",
    "ftcampaign.orders_revealed": "public",
    "ftcampaign.turn_ended": "public",
    "ftcampaign.world_scouted": "public",
    "ftcampaign.campaign_ended": "public",
    "ftcampaign.incomes_rolled": "player",
    "ftcampaign.ship_bought": "player",
    "ftcampaign.module_bought": "player",
    "ftcampaign.spares_bought": "player",
    "ftcampaign.defences_bought": "player",
    "ftcampaign.dummy_placed": "player",
    "ftcampaign.group_split": "player",
    "ftcampaign.groups_merged": "player",
    "ftcampaign.cloak_set": "player",
    "ftcampaign.route_closed": "player",
    "ftcampaign.maintenance_set": "player",
    "ftcampaign.standard_navy_approved": "player",
    "ftcampaign.keel_laid": "player",
    "ftcampaign.keels_worked": "player",
    "ftcampaign.repair_ordered": "player",
    "ftcampaign.jury_rig_inspected": "player",
    "ftcampaign.refitted": "player",
    "ftcampaign.module_swapped": "player",
    "ftcampaign.capture_rebuilt": "player",
    "ftcampaign.capture_sold": "player",
    "ftcampaign.defence_rebuild_ordered": "player",
    "ftcampaign.repulse_repaired": "player",
    "ftcampaign.repulse_allocated": "player",
    "ftcampaign.group_moved": "player",
    "ftcampaign.departed": "player",
    "ftcampaign.economy_report": "player",
    "ftcampaign.intel_gathered": "player",
    "ftcampaign.orders_submitted": "sealed",
    "ftcampaign.dummies_revealed": "witnesses",
    "ftcampaign.step_opened": "witnesses",
    "ftcampaign.choice_made": "witnesses",
    "ftcampaign.step_resolved": "witnesses",
    "ftcampaign.battle_started": "witnesses",
    "ftcampaign.formation_declared": "witnesses",
    "ftcampaign.battle_linked": "witnesses",
    "ftcampaign.battle_recorded": "witnesses",
    "ftcampaign.disengagement_resolved": "witnesses",
    "ftcampaign.assault_resolved": "witnesses",
    "ftcampaign.world_taken": "witnesses",
    "ftcampaign.driven_off": "witnesses",
    "ftcampaign.interdiction_lifted": "witnesses",
}

SERVICE_PUBLIC = {"game.created", "dice.committed", "dice.disclosed", "game.rewound"}


def audience(tag: str) -> str:
    return "public" if tag in SERVICE_PUBLIC else AUDIENCE[tag]


def may_receive(tag: str, data: dict[str, object], viewer: str | None) -> bool:
    """Whether ``viewer`` (a player id, or None for a spectator) may receive the event at all."""
    kind = audience(tag)
    if kind in ("public", "sealed"):
        return True
    if kind == "player":
        return viewer is not None and data.get("player") == viewer
    witnesses = data.get("witnesses") or ()
    return viewer is not None and viewer in witnesses  # type: ignore[operator]
