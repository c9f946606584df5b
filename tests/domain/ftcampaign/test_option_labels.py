"""Campaign option labels a page shows as they are (issue 38): each purchase names the price the rules
charge (FTC-BLD-2 with its ally discount and FTC-BLD-5 surcharge, FTC-ECO-1, FTC-ECO-6), and a battle's
hand-entered results list each result once (FTC-ARR-8)."""

from __future__ import annotations

import re

from msgspec.structs import replace

from service.domain.core import UMPIRE, RuleViolation, seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign.state import State

from .builders import Camp, fold, when
from .test_arrival import arrive, battle_ready

PRICE = re.compile(r": (\d+) pts$")


def _deployment(st: State) -> State:
    return replace(st, phase="deployment", turn=0)


def test_ftc_bld_2_ftc_eco_1_ftc_eco_6_each_purchase_label_names_what_it_costs() -> None:
    """FTC-BLD-2, FTC-BLD-5, FTC-ECO-1, FTC-ECO-6: the label's price is what the purchase takes from the cash."""
    for player in ("red", "blue", "green"):  # blue has an ally discount, green pays surcharges on human kit
        st = _deployment(Camp().world((0, 0), player).build())
        buys = [
            o
            for o in R.options(st, seat(player))
            if isinstance(o.command, (C.BuyShip, C.BuySpares, C.BuyModule, C.BuyDefences))
        ]
        assert {type(o.command) for o in buys} >= {C.BuyShip, C.BuySpares, C.BuyDefences}
        checked = 0
        for o in buys:
            m = PRICE.search(o.label)
            assert m, o.label
            try:
                after = fold(st, when(R, st, o.command, seat(player)))
            except RuleViolation:  # a purchase the rules refuse here (a cap, an approval) costs nothing
                continue
            assert st.economies[player].cash - after.economies[player].cash == int(m.group(1)), o.label
            checked += 1
        assert checked >= 3


def test_ftc_arr_8_a_battle_offers_the_draw_once() -> None:
    """FTC-ARR-8: one "draw with damage on both sides" per battle, not one per force."""
    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    labels = [o.label for o in R.options(st, UMPIRE)]
    draws = [x for x in labels if x.endswith("a draw with damage on both sides")]
    assert len(draws) == len(st.battles) == 1, labels
    assert len(labels) == len(set(labels)), labels
