"""The one classifier (`vision/classify.py`) that the games and `referee lattice` share: its
open-set rule, how it learns looks from few samples, and reading a real photo under other light."""

from __future__ import annotations

import numpy as np
import pytest

from controller.vision.classify import ClassModel, ClassRef, open_set_distance


def test_open_set_distance_is_the_chi_square_quantile() -> None:
    # Tabulated chi-square quantiles: 3 dof at 0.999 is 16.266, 8 dof at 0.999 is 26.124.
    assert open_set_distance(3, 0.999) ** 2 == pytest.approx(16.266, abs=0.01)
    assert open_set_distance(8, 0.999) ** 2 == pytest.approx(26.124, abs=0.01)
    assert open_set_distance(1, 0.95) == pytest.approx(1.96, abs=0.01)


def _two_classes() -> ClassModel:
    eye = np.eye(3) * 0.01
    return ClassModel([ClassRef("a", "A", np.zeros(3), eye), ClassRef("b", "B", np.array([1.0, 0, 0]), eye)])


def test_a_look_far_from_every_class_is_unsure_whatever_its_nearest() -> None:
    model = _two_classes()
    far = np.array([[-3.0, 2.0, 2.0]])  # nearest to A by far, but like nothing learned
    dec = model.decide(np.vstack([far, [[0.02, 0.01, 0.0]], [[0.98, 0.0, 0.01]]]))
    assert dec.letters[1:] == ["A", "B"] and list(dec.sure) == [False, True, True]
    assert dec.letters[0] == "A"


def test_samples_of_a_learned_look_are_sure_at_the_promised_rate() -> None:
    rng = np.random.default_rng(1)
    model = _two_classes()
    samples = rng.multivariate_normal(np.zeros(3), model.refs[0].cov + np.diag(model.floor), 20000)
    unsure = (~model.decide(samples).sure).mean()
    # P_KNOWN leaves 1 in 10,000 outside the open-set distance; the margin to B adds a few.
    assert unsure < 0.01


def test_a_label_in_two_groups_gets_two_looks_and_one_group_one() -> None:
    rng = np.random.default_rng(2)
    light = rng.normal([0.5, 0.4, 0.3], 0.03, (20, 3))
    dark = rng.normal([-1.0, -0.7, -0.4], 0.03, (20, 3))
    piece = rng.normal([-2.0, -2.0, -2.0], 0.03, (3, 3))
    x = np.vstack([light, dark, piece])
    refs = ClassModel.learn_looks(x, ["."] * 40 + ["K"] * 3)
    assert sorted(r.letter for r in refs) == [".", ".", "K"]
    model = ClassModel(refs, floor=np.full(3, 0.05**2))
    dec = model.decide(np.array([[0.5, 0.4, 0.3], [-1.0, -0.7, -0.4], [-2.0, -2.0, -2.0], [0.0, 0.0, 2.0]]))
    assert dec.letters[:3] == [".", ".", "K"] and list(dec.sure) == [True, True, True, False]


def test_a_look_learned_from_one_place_gets_the_pooled_spread_widened() -> None:
    rng = np.random.default_rng(3)
    board = rng.normal(0, 0.1, (50, 3))
    one = np.array([[-2.0, -2.0, -2.0]])
    refs = ClassModel.learn_looks(np.vstack([board, one]), ["."] * 50 + ["B"])
    b = next(r for r in refs if r.letter == "B")
    spread = np.sqrt(np.diag(b.cov))
    # Its own spread is nothing (one sample); it borrows the board's (~0.1), widened by 1 + 1/1.
    assert np.all(spread > 0.1) and np.all(spread < 0.2)


def test_old_profile_keys_are_read_and_a_wrong_one_is_named() -> None:
    from controller.errors import ConfigError

    data = {
        "classes": {"g": {"letter": "G", "mean": [0, 0, 0], "cov": [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]]}},
        "sure": {"max_distance": 4.5, "min_margin": 0.3},
    }
    model = ClassModel.from_yaml(data)
    assert model.max_distance == 4.5
    assert ClassModel.from_yaml({"classes": data["classes"]}).max_distance == pytest.approx(open_set_distance(3))
    with pytest.raises(ConfigError, match="vision.sure.max_dist"):
        ClassModel.from_yaml({**data, "sure": {"max_dist": 4}})


def test_a_pair_margin_from_held_out_places_asks_more_of_that_pair_only() -> None:
    """A margin learned for (A read, B the rival): a place read A nearest B by less than it is
    unsure; the same margin against another rival, or B read with A as rival, is not affected."""
    from controller.errors import ConfigError

    eye = np.eye(3) * 0.01
    refs = [
        ClassRef("a", "A", np.zeros(3), eye),
        ClassRef("b", "B", np.array([1.0, 0, 0]), eye),
        ClassRef("c", "C", np.array([-1.0, 0, 0]), eye),
    ]
    plain = ClassModel(refs)
    strict = ClassModel(refs, pair_margins={("A", "B"): 0.6})
    places = np.array(
        [
            [0.3, 0, 0],  # A, nearest rival B, margin ~0.57
            [-0.3, 0, 0],  # A, nearest rival C, the same margin
            [0.7, 0, 0],
        ]
    )  # B, nearest rival A
    assert list(plain.decide(places).sure) == [True, True, True]
    assert strict.decide(places).letters == ["A", "A", "B"]
    assert list(strict.decide(places).sure) == [False, True, True]
    again = ClassModel.from_yaml(strict.to_yaml())
    assert again.pair_margins == {("A", "B"): 0.6}
    assert list(again.decide(places).sure) == [False, True, True]
    with pytest.raises(ConfigError, match="pair_margins"):
        ClassModel.from_yaml({**strict.to_yaml(), "sure": {"pair_margins": [["A", "B", 2]]}})
