"""The lag between two microphones' devices, found in the voices both hear, and how the table
is told it."""

from __future__ import annotations

import numpy as np
import pytest

from referee import mic_lag
from tests.referee.test_team_mics import phrases


def test_the_table_is_told_how_far_apart_the_two_hand_over_their_sound() -> None:
    assert mic_lag.in_step(0.15) == (
        "el de B entrega su sonido 150 ms después que el de A; ya los escucho a la par")
    assert mic_lag.in_step(-0.2) == (
        "el de B entrega su sonido 200 ms antes que el de A; ya los escucho a la par")
    assert mic_lag.in_step(0.002) == "los dos entregan su sonido a la par"


def test_two_lags_measured_as_often_are_not_averaged() -> None:
    """Two measures of the lag on sound both heard in step, then two with B's 0.1 s later: no
    three agree, so the lag is not moved (the median of the four, 0.05 s, was a lag neither
    showed); a third measure of 0.1 s moves it there."""
    voice = phrases(2.0, [(0.0, 2.0)], seed=5)
    late = np.concatenate([np.zeros(1600), voice[:-1600]])
    lag = mic_lag.Lag(known=True)
    moved = []
    for b in (voice, voice, late, late, late):
        lag.restart()
        pairs = [(voice[k:k + 1600], b[k:k + 1600]) for k in range(0, len(voice), 1600)]
        moved.append([new for a_step, b_step in pairs if (new := lag.heard(a_step, b_step, 0.0))])
    assert moved[:4] == [[], [], [], []] and moved[4] == [pytest.approx(0.1, abs=0.002)]
