"""What people read: seats counted from 1, places in each game's notation, events in words."""

from __future__ import annotations

from controller.games.events import GameEvent
from controller.games.registry import engine_for
from controller.games.stay_alive.rules import FELL
from controller.record import setup_from_mapping
from controller.referee import Verdict, VerdictKind
from controller.words import event_words, verdict_line


def _engine(keys: dict):
    return engine_for(setup_from_mapping(keys, "test"))


def test_a_legal_verdict_names_the_player_and_says_what_happened_in_words():
    engine = _engine({"game": "stay-alive", "players": 2, "seats": ["B", "Y"]})
    verdict = Verdict(
        VerdictKind.LEGAL,
        7,
        seat=1,
        move="white 4 C->B",
        events=(FELL((3, 4)), GameEvent.eliminated(0)),
    )
    line = verdict_line(verdict, engine)
    assert (
        line
        == "player 2 (yellow): legal move, white slide 5 C->B (the marble on point 4,5 fell; player 1 (blue) is out)"
    )


def test_events_of_every_game_read_as_sentences():
    colorpop = _engine({"game": "colorpop", "players": 3})
    assert event_words(colorpop, "cleared:O") == "the last orange token is gone"
    flipop = _engine({"game": "flipop"})
    assert event_words(flipop, "exit:0,2") == "the ball on (1,3) left through its exit"
    assert event_words(flipop, "pass:0") == "player 1 (white) has no move and passes"
    blockers = _engine({"game": "blockers", "players": 3, "seats": ["R", "G", "B"]})
    assert event_words(blockers, "glyph-unread:2,6") == "the glyph of the tile on C7 could not be read yet"
    assert event_words(blockers, "not-an-event") == "not-an-event"  # never a crash on odd text


def test_an_illegal_verdict_names_the_places_in_the_games_own_notation():
    blockers = _engine({"game": "blockers", "players": 3, "seats": ["R", "G", "B"]})
    verdict = Verdict(VerdictKind.ILLEGAL, 3, seat=0, reason="two tiles were placed", cells=((2, 6), (4, 0)))
    assert verdict_line(verdict, blockers) == (
        "player 1 (red): illegal move, two tiles were placed (look at C7 and E1); put the board back"
    )
