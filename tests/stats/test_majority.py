"""Plurality vote against the standard library's ``statistics.multimode``."""

from __future__ import annotations

from statistics import multimode

from hypothesis import given
from hypothesis import strategies as st

from bordir.stats import plurality


@given(st.lists(st.sampled_from("abcd")))
def test_plurality_is_the_unique_mode(votes):
    winner, n = plurality(votes)
    modes = multimode(votes)
    assert winner == (modes[0] if len(modes) == 1 else None)
    assert n == (votes.count(modes[0]) if votes else 0)
