"""Vision is a recipe of named stages in small modules (issue 32, item 4): no module of
controller/vision over 500 lines, and every rule of the lattice reader a module with one
`rule(picture, reading) -> reading`, a name and a docstring saying what it does."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from controller.vision.lattice import rules

VISION = Path(__file__).resolve().parents[1] / "controller" / "vision"


def test_no_vision_module_is_over_500_lines() -> None:
    long = {str(p.relative_to(VISION)): n for p in VISION.rglob("*.py") if (n := len(p.read_text().splitlines())) > 500}
    assert long == {}


def test_every_lattice_rule_is_a_module_with_one_signature_a_name_and_what_it_does() -> None:
    names = set()
    for module in rules.RULES:
        assert list(inspect.signature(module.rule).parameters) == ["picture", "reading"], module.__name__
        assert module.__doc__ and len(module.__doc__.split()) >= 12, module.__name__
        names.add(module.NAME)
    assert len(names) == len(rules.RULES)


def test_a_rule_returns_a_new_reading_and_leaves_the_one_it_was_given() -> None:
    """Readings are frozen: a rule cannot change what an earlier rule passed on."""
    import dataclasses

    import numpy as np

    from controller.vision.lattice.reading import Reading

    reading = Reading.first(["."], ["margin"], [0.5], [0])
    changed = reading.but("test", ["W"], [""], np.array([True]))
    assert (reading.letters, reading.why, reading.source) == ((".",), ("margin",), ("looks",))
    assert (changed.letters, changed.why, changed.source, changed.look) == (("W",), ("",), ("test",), (-1,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        reading.letters = ("W",)  # type: ignore[misc]
    assert not reading.confidence.flags.writeable
