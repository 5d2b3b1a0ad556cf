"""The Stay Alive hole model and the default profile's stand-in pattern."""

from __future__ import annotations

import itertools
import random

import pytest

from controller.errors import ConfigError
from controller.games.stay_alive.holes import (
    HolePattern,
    mask_points,
    open_points,
    pattern_of,
    points_mask,
    stand_in_pattern,
)
from controller.profile import default_profile

POS = "ABC"


def test_a_point_opens_only_when_both_of_its_slides_have_a_hole_under_it():
    # orange slide 2 has a hole under column 4 only at B; white slide 4 over row 2 only at C
    none = {"A": "0000000", "B": "0000000", "C": "0000000"}
    orange = [dict(none) for _ in range(7)]
    white = [dict(none) for _ in range(7)]
    orange[2] = {"A": "0000000", "B": "0000100", "C": "0000000"}
    white[4] = {"A": "0000000", "B": "0000000", "C": "0010000"}
    holes = {"orange": orange, "white": white}
    for p, q in itertools.product(POS, POS):
        orange_pos = ("A", "A", p, "A", "A", "A", "A")
        white_pos = ("A", "A", "A", "A", q, "A", "A")
        expected = frozenset({(2, 4)}) if (p, q) == ("B", "C") else frozenset()
        assert open_points(holes, orange_pos, white_pos) == expected


def test_the_default_profile_ships_the_documented_stand_in_pattern():
    assert pattern_of(default_profile("stay-alive")) == stand_in_pattern()


def test_every_point_opens_for_exactly_one_pair_of_positions_of_its_slides():
    pattern = stand_in_pattern()
    for r, c in itertools.product(range(7), range(7)):
        pairs = [(p, q) for p, q in itertools.product(POS, POS) if pattern.point_open(r, c, p, q)]
        assert len(pairs) == 1, (r, c, pairs)


def test_a_random_setup_opens_a_handful_of_points():
    rng = random.Random(7)
    pattern = stand_in_pattern()
    counts = []
    for _ in range(2000):
        orange = tuple(rng.choice(POS) for _ in range(7))
        white = tuple(rng.choice(POS) for _ in range(7))
        counts.append(len(pattern.open_points(orange, white)))
    mean = sum(counts) / len(counts)
    assert 4.5 < mean < 6.5  # 49 / 9 = 5.4 expected
    assert max(counts) < 20  # never a bloodbath: most points stay closed


def test_open_points_agrees_with_the_per_point_rule_for_random_settings():
    rng = random.Random(3)
    pattern = stand_in_pattern()
    for _ in range(200):
        orange = tuple(rng.choice(POS) for _ in range(7))
        white = tuple(rng.choice(POS) for _ in range(7))
        expected = {(r, c) for r in range(7) for c in range(7) if pattern.point_open(r, c, orange[r], white[c])}
        assert pattern.open_points(orange, white) == expected


def test_the_profile_form_round_trips():
    pattern = stand_in_pattern()
    assert HolePattern.from_mapping(pattern.to_mapping()) == pattern
    assert pattern_of(pattern.to_mapping()) == pattern
    assert pattern_of({"holes": pattern.to_mapping()}) == pattern


def test_masks_and_points_convert_both_ways():
    points = frozenset({(0, 0), (3, 5), (6, 6)})
    assert mask_points(points_mask(points)) == points


def test_pattern_of_rejects_something_that_is_not_a_pattern():
    with pytest.raises(ValueError):
        pattern_of({"geometry": {}})


def test_a_profile_hole_string_of_the_wrong_length_names_its_key():
    with pytest.raises(ConfigError, match=r"holes\.orange\[0\]\.A"):
        default_profile("stay-alive").with_overrides(
            {
                "holes": {
                    "orange": [{"A": "101", "B": "0000000", "C": "0000000"}] * 7,
                    "white": stand_in_pattern().to_mapping()["white"],
                }
            }
        )
