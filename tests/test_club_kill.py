"""A table's referee killed with kill -9: offline at the club through the Last Will, then back and resumed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mqtt_helpers import wait_for
from test_club_broker import _club, _get

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "examples" / "colorpop-standard.yaml"


def _start(broker, journal: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simulation.club_table",
            str(RECORD),
            str(journal),
            "--port",
            str(broker.port),
            "--table",
            "t9",
            "--names",
            "Ann,Bob,Cy",
            "--every",
            "0.05",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _view(club) -> dict:
    return {t["table"]: t for t in _get(club, "/api/tables")}.get("t9") or {}


def test_a_table_killed_with_kill_9_goes_offline_then_resumes_its_game(broker, tmp_path):
    club = _club(broker, tmp_path)
    journal = tmp_path / "t9.sqlite"
    table = _start(broker, journal)
    try:
        wait_for(
            lambda: (_view(club).get("last_verdict_seq") or [0, 0])[1] >= 6, timeout=60, what="six verdicts at the club"
        )
        assert _view(club)["online"] is True
        os.kill(table.pid, signal.SIGKILL)
        table.wait(5)
        wait_for(
            lambda: _view(club).get("online") is False, timeout=30, what="the Last Will to say the table is offline"
        )
        seen_before = _view(club)["last_verdict_seq"]

        table = _start(broker, journal)
        ready = table.stdout.readline().split()
        assert ready[0] == "ready" and int(ready[1]) == seen_before[0] and int(ready[2]) >= seen_before[1]  # resumed
        wait_for(lambda: _view(club).get("online") is True, timeout=60, what="the table back online")
        wait_for(
            lambda: (_view(club).get("last_verdict_seq") or [0, 0])[1] >= seen_before[1] + 4,
            timeout=60,
            what="the resumed game's new verdicts",
        )
        table.terminate()
        table.wait(5)
        game_id = seen_before[0]
        seqs = club.store.verdicts_of("t9", game_id)
        assert seqs == list(range(len(seqs)))  # none lost, none twice, across the kill
        assert club.store.counts["gaps"] == 0
    finally:
        if table.poll() is None:
            table.kill()
            table.wait(5)
        club.stop()
