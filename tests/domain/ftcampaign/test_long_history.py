"""A campaign that runs for months: its umpire's words stay in the log, the state keeps the recent ones (FTC-UMP-1,
FTC-BLD-4), so a state's size and each event's fold stay the same however long the campaign runs (issue 31)."""

from __future__ import annotations

import msgspec

from service.domain.core import UMPIRE
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign.state import RECENT_NOTICES
from tests.support.decider import then_violation

from .builders import Camp, fold, when


def test_ftc_ump_1_the_state_keeps_the_last_rulings_in_order() -> None:
    st = Camp().world((0, 0), "red").world((2, 0), "blue").build()
    for i in range(RECENT_NOTICES + 7):
        st = fold(st, when(R, st, C.RecordRuling(text=f"ruling {i}"), UMPIRE))
    assert len(st.rulings) == RECENT_NOTICES
    assert st.rulings[0] == "ruling 7" and st.rulings[-1] == f"ruling {RECENT_NOTICES + 6}"
    assert R.view(st, UMPIRE)["rulings"][-1] == f"ruling {RECENT_NOTICES + 6}"


def test_ftc_ump_1_a_ruling_without_text_is_refused_and_keeps_nothing() -> None:
    st = Camp().world((0, 0), "red").world((2, 0), "blue").build()
    then_violation(R, st, C.RecordRuling(text=""), "FTC-UMP-1", UMPIRE)
    assert st.rulings == ()


def test_ftc_ump_1_the_state_of_a_long_campaign_does_not_grow_with_its_rulings() -> None:
    st = Camp().world((0, 0), "red").world((2, 0), "blue").build()
    sizes = []
    for i in range(2_000):
        st = fold(st, when(R, st, C.RecordRuling(text=f"ruling {i:05d} on the drive field"), UMPIRE))
        if i in (RECENT_NOTICES * 2, 1_999):
            sizes.append(len(msgspec.json.encode(st)))
    assert sizes[0] == sizes[1]
