"""Snapshots, profiles and records: parsing, printing, and errors that name the place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import ConfigError, FormatError
from controller.games import registry
from controller.grid import connected_groups, groups_by_value, neighbours, splits_group
from controller.profile import default_profile, load_profile
from controller.record import parse_record
from controller.snapshot import Snapshot, format_snapshot, parse_snapshot, tells_nothing_new

ROOT = Path(__file__).resolve().parent.parent

FLIPOP = """
# start
B B B B B
. . . . .
. . . . .
. . . . .
W W W W W
doors: N N E E W NS EW E W WE NS E W W S S
"""

STAY_ALIVE = """
orange: A B C B A C B
white:  C C B A A B A
. . R . . . .
. . . . . . .
. G . . . . .
. . . . . . .
. . . . Y . .
. . . . . . .
B . . . . . .
"""


def test_flipop_doors_are_canonical_and_round_trip():
    snap = parse_snapshot("flipop", FLIPOP)
    assert snap.line("doors")[9] == "EW"  # "WE" is the same door
    assert parse_snapshot("flipop", format_snapshot(snap)) == snap


def test_flipop_doors_line_may_be_left_out():
    text = "\n".join(FLIPOP.strip().splitlines()[1:6])
    assert parse_snapshot("flipop", text).line("doors") is None


def test_stay_alive_slides_and_marbles():
    snap = parse_snapshot("stay-alive", STAY_ALIVE)
    assert snap.line("orange") == tuple("ABCBACB") and snap.line("white") == tuple("CCBAABA")
    assert snap.at(0, 2) == "R" and snap.at(6, 0) == "B"
    assert parse_snapshot("stay-alive", format_snapshot(snap)) == snap


def test_blockers_cells_are_two_characters():
    rows = [".. .. R5 .. .. .. .. .. .."] + [" ".join([".."] * 9)] * 7 + ["Ga .. .. .. .. .. .. .. B?"]
    snap = parse_snapshot("blockers", "\n".join(rows))
    assert snap.at(0, 2) == "R5" and snap.at(8, 0) == "Ga" and snap.at(8, 8) == "B?" and snap.at(1, 1) == "."
    assert format_snapshot(snap).splitlines()[0] == rows[0]


def test_colorpop_spaces_are_optional():
    a = parse_snapshot("colorpop", "\n".join(["GYOBPJ...." for _ in range(10)]))
    b = parse_snapshot("colorpop", "\n".join(["G Y O B P J . . . ." for _ in range(10)]))
    assert a == b


@pytest.mark.parametrize(
    "game, text, message",
    [
        ("colorpop", "G Y\n" * 10, "line 1: expected 10 cells, found 2"),
        ("colorpop", "G Y O B P J . . . X\n" * 10, "unknown cell 'X'"),
        ("colorpop", "G Y O B P J . . . .\n" * 9, "has 10 board rows, found 9"),
        ("blockers", ("R5 " * 9 + "\n") * 8 + "R0 .. .. .. .. .. .. .. ..", "line 9: bad cell 'R0'"),
        ("flipop", FLIPOP.replace("doors: N N", "doors: N"), "16 door tokens, found 15"),
        ("flipop", FLIPOP.replace("doors: N N", "doors: NN N"), "bad door 'NN'"),
        ("stay-alive", STAY_ALIVE.replace("orange: A B C B A C B", "orange: A B C B A C D"), "'orange:' needs 7"),
        ("stay-alive", STAY_ALIVE.replace("white:  C C B A A B A\n", ""), "needs its 'white:' line"),
        ("chess", "", "unknown game 'chess'"),
    ],
)
def test_malformed_snapshots_say_where_and_what(game, text, message):
    with pytest.raises(FormatError, match=message.replace("(", r"\(").replace("'", "'")):
        parse_snapshot(game, text)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(["colorpop", "flipop", "stay-alive"]), st.randoms())
def test_snapshots_round_trip(game, rnd):
    rows, cols = registry.get(game).shape
    letters = {"colorpop": "GYOBPJ.", "flipop": "WB..", "stay-alive": "RGBY...."}[game]
    cells = tuple(tuple(rnd.choice(letters) for _ in range(cols)) for _ in range(rows))
    extra = {}
    if game == "flipop":
        extra["doors"] = tuple(rnd.choice(["N", "ES", "NS", "?", "EW", "W"]) for _ in range(16))
    if game == "stay-alive":
        extra["orange"] = tuple(rnd.choice("ABC") for _ in range(7))
        extra["white"] = tuple(rnd.choice("ABC") for _ in range(7))
    snap = Snapshot(game, cells, extra)
    assert parse_snapshot(game, format_snapshot(snap)) == snap


# -- grid ---------------------------------------------------------------------------------


def test_grid_helpers():
    assert sorted(neighbours((0, 0), 3, 3)) == [(0, 1), (1, 0)]
    assert len(connected_groups({(0, 0), (0, 1), (2, 2)})) == 2
    ring = {(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)}
    assert not splits_group(ring, (0, 1))
    line = {(0, 0), (0, 1), (0, 2)}
    assert splits_group(line, (0, 1)) and not splits_group(line, (0, 0))
    groups = groups_by_value([["G", "G"], ["Y", "G"]], lambda v: v)
    assert sorted(len(g) for _, g in groups) == [1, 3]


# -- profiles -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
def test_default_profiles_are_valid(game):
    profile = default_profile(game)
    assert (profile.rows, profile.cols) == registry.get(game).shape


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"settings": {"joker_only": True}}, "settings.joker_only"),
        ({"settings": {"joker_only_groups": "yes"}}, "settings.joker_only_groups"),
        ({"tokens": {"G": -1}}, "tokens.G"),
        ({"colour": {}}, "colour"),
        ({"classes": {"g": {"name": "green"}}}, "classes.g"),
    ],
)
def test_profile_errors_name_the_key_path(overrides, key):
    with pytest.raises(ConfigError) as err:
        default_profile("colorpop").with_overrides(overrides)
    assert err.value.key == key
    assert f"key '{key}'" in str(err.value)


def test_stay_alive_holes_and_blockers_regions_are_validated():
    with pytest.raises(ConfigError, match="holes.orange"):
        default_profile("stay-alive").with_overrides({"holes": {"orange": [], "white": []}})
    with pytest.raises(ConfigError, match="each symbol letter a-i exactly once"):
        default_profile("blockers").with_overrides({"regions": ["abc", "def", "ghh"]})
    with pytest.raises(ConfigError, match="two_player_rule"):
        default_profile("stay-alive").with_overrides({"settings": {"two_player_rule": "never"}})


def test_user_profile_file_replaces_default_keys(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "game: colorpop\nsettings: {joker_only_groups: true}\ntokens: {G: 20, Y: 19, O: 19, B: 19, P: 18, J: 5}\n"
    )
    profile = load_profile(path)
    assert profile.setting("joker_only_groups") is True and profile.data["tokens"]["G"] == 20
    assert profile.rows == 10  # untouched keys come from the default


# -- records and replay ---------------------------------------------------------------------


def test_record_errors_name_the_key():
    with pytest.raises(ConfigError, match="key 'variant'"):
        parse_record("game: colorpop\nvariant: duel\nsetup: ''\n")
    with pytest.raises(ConfigError, match="key 'colour'"):
        parse_record("game: colorpop\ncolour: 3\n")
    with pytest.raises(ConfigError, match="profile.settings.joker_only"):
        parse_record("game: colorpop\nprofile: {settings: {joker_only: true}}\nsetup: ''\n")
    full = "game: colorpop\nsetup: |\n" + "  G Y O B P J . . . .\n" * 10
    with pytest.raises(FormatError, match=r"observations\[0\] \(index 1\), line 1"):
        parse_record(full + "observations:\n  - 'G'\n")
    with pytest.raises(FormatError, match="action"):
        parse_record(full + "observations:\n  - {action: fly}\n")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_replay_of_the_colorpop_example(tmp_path):
    out = run_cli("replay", "--json", "examples/colorpop-standard.yaml")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0] == {"index": 0, "verdict": "setup-ok"}
    verdicts = [line.get("verdict") for line in lines[1:-1]]
    assert "pending" in verdicts and "illegal" in verdicts and "restored" in verdicts
    assert verdicts.index("restored") == verdicts.index("illegal") + 1
    assert [line["index"] for line in lines[:-1]] == list(range(len(lines) - 1))
    result = lines[-1]["result"]
    assert result["finished"] is True and result["winners"]


@pytest.mark.slow
def test_replay_of_a_malformed_record_exits_2_with_a_clear_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: colorpop\nsetup: |\n" + "  G Y O B P J . . . .\n" * 9)
    out = run_cli("replay", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    assert "setup" in out.stderr and "10 board rows, found 9" in out.stderr
    out = run_cli("replay", str(tmp_path / "missing.yaml"))
    assert out.returncode == 2 and "cannot read the game record" in out.stderr


def test_a_reading_that_only_knows_less_tells_nothing_new():
    empty_row = " ".join([".."] * 9)
    known = parse_snapshot("blockers", "\n".join(["R5 " + " ".join([".."] * 8)] + [empty_row] * 8))
    unread = parse_snapshot("blockers", "\n".join(["R? " + " ".join([".."] * 8)] + [empty_row] * 8))
    other = parse_snapshot("blockers", "\n".join(["G? " + " ".join([".."] * 8)] + [empty_row] * 8))
    assert tells_nothing_new(unread, known)
    assert not tells_nothing_new(known, unread)  # the glyph is read now: news
    assert not tells_nothing_new(other, known)  # another colour: a change
    doors = parse_snapshot("flipop", FLIPOP)
    foggy = parse_snapshot("flipop", FLIPOP.replace("doors: N N", "doors: ? N"))
    no_doors = Snapshot("flipop", doors.cells)
    assert tells_nothing_new(foggy, doors) and tells_nothing_new(no_doors, doors)
    assert not tells_nothing_new(doors, foggy) and not tells_nothing_new(doors, no_doors)
    turned = parse_snapshot("flipop", FLIPOP.replace("doors: N N", "doors: E N"))
    assert not tells_nothing_new(turned, doors)


# --- events (notation.md §3) ---------------------------------------------------------------------
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from controller.games.blockers.rules import GLYPH_UNREAD  # noqa: E402
from controller.games.colorpop.rules import CLEARED  # noqa: E402
from controller.games.events import GameEvent  # noqa: E402
from controller.games.flipop.rules import EXIT  # noqa: E402
from controller.games.stay_alive.rules import EXPECTED_FALL_MISSING, FELL  # noqa: E402

ALL_EVENTS = tuple(t for game in registry.names() for t in registry.get(game).event_types)
_cells = st.tuples(st.integers(0, 20), st.integers(0, 20))
_events = st.one_of(
    st.builds(FELL, _cells),
    st.builds(EXIT, _cells),
    st.builds(EXPECTED_FALL_MISSING, _cells),
    st.builds(GLYPH_UNREAD, _cells),
    st.builds(GameEvent.passed, st.integers(0, 4)),
    st.builds(GameEvent.eliminated, st.integers(0, 4)),
    st.builds(CLEARED, st.sampled_from("GYOBP")),
)


@given(_events)
def test_an_event_is_its_notation_text_and_reads_back_typed(event):
    again = GameEvent.parse(str(event), ALL_EVENTS)
    assert again == event and str(again) == str(event)
    assert (again.kind, again.cell, again.seat, again.colour) == (event.kind, event.cell, event.seat, event.colour)


def test_event_texts_are_those_of_notation_md():
    assert FELL((3, 4)) == "fell:3,4"
    assert GameEvent.passed(2) == "pass:2" and GameEvent.parse("pass:2", ALL_EVENTS).seat == 2
    assert GameEvent.parse("exit:0,1", ALL_EVENTS).kind == EXIT.kind and GameEvent.parse(
        "exit:0,1", ALL_EVENTS
    ).cell == (0, 1)
    assert GameEvent.parse("cleared:G", ALL_EVENTS).colour == "G"
    with pytest.raises(FormatError, match="unknown event"):
        GameEvent.parse("teleported:1,1", ALL_EVENTS)
    with pytest.raises(FormatError, match="bad event"):
        GameEvent.parse("fell:x", ALL_EVENTS)
