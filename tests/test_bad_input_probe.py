"""Every probe of tools/probe_bad_input.py (bad input to every command, as a newcomer gives it) is
answered clearly: refused with the words that say what is wrong, no traceback, nothing silently taken."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from probe_bad_input import run_all  # noqa: E402

pytestmark = pytest.mark.slow  # every test here takes seconds


def test_every_bad_input_is_answered_clearly():
    tally = run_all()
    unclear = [
        f"{a.kind}: referee {' '.join(a.probe.args)} -> {a.code}: {(a.err or a.out).strip()[-200:]}"
        for kind in ("misleading", "silently accepted", "traceback")
        for a in tally[kind]
    ]
    assert unclear == []
    assert len(tally["clear"]) >= 50
