"""The matching the rules and vision ask SciPy for, against every way of handing out the options."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.matching import everyone_matched

OPTIONS = st.lists(st.lists(st.integers(0, 6), max_size=4), max_size=6)


def by_trying_everything(options: list[list[int]]) -> bool:
    return any(len(set(pick)) == len(pick) for pick in itertools.product(*options))


@settings(max_examples=300, deadline=None)
@given(OPTIONS)
def test_everyone_is_matched_exactly_when_some_handing_out_gives_each_their_own(options):
    assert everyone_matched(options) == by_trying_everything(options)


def test_the_first_pass_can_fail_where_a_matching_exists():
    """Item 0 takes option 1 first, leaving item 1 without; the matching gives 0 option 2."""
    assert everyone_matched([[1, 2], [1]])
    assert not everyone_matched([[1], [1]])
    assert everyone_matched([]) and not everyone_matched([[]])
