"""Colorpop's secret colours: one token each, so no two players share one; a colour the result was
given with cannot be changed afterwards (it would silently change the scores); seats counted from 1."""

from __future__ import annotations

import pytest

from controller.errors import RefereeError
from controller.service.journal import Journal
from simulation.world import StubRig

pytestmark = pytest.mark.slow  # every test here takes seconds

COLORPOP = {"game": "colorpop", "players": 3}


@pytest.fixture
def finished(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=4, troubles=False)
    rig.driver.run(rig.player.steps())
    assert rig.loop.session.referee.over
    return rig


def reveal(rig: StubRig, seat: int, *colours: str) -> dict:
    return rig.loop.execute("reveal", {"seat": seat, "colours": list(colours)})


def test_two_players_cannot_have_the_same_secret_colour(finished):
    reveal(finished, 0, "G")
    with pytest.raises(RefereeError, match="green is already the secret colour of player 1"):
        reveal(finished, 1, "G")
    assert finished.loop.session.referee.state.secrets[1] is None


def test_a_colour_the_result_was_given_with_cannot_be_changed(finished, tmp_path):
    for seat, colour in enumerate("GYO"):
        answer = reveal(finished, seat, colour)
    result = answer["result"]
    assert result["finished"] and result["winners"]
    with pytest.raises(RefereeError, match="the result was already given with player 1's secret colour G"):
        reveal(finished, 0, "B")
    assert finished.loop.session.referee.result().to_json() == result
    reveal(finished, 0, "G")  # telling the same colour again changes nothing and is fine
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    try:
        told = [e.payload for e in journal.entries(finished.loop.session.game_id) if e.kind == "reveal"]
    finally:
        journal.close()
    assert len(told) == 4 and '"B"' not in " ".join(told)


def test_a_colour_may_be_corrected_before_the_result_is_given(finished):
    reveal(finished, 0, "G")
    reveal(finished, 0, "Y")  # a slip of the finger, before the others told theirs
    assert finished.loop.session.referee.state.secrets[0] == ("Y",)


def test_seats_are_counted_from_one_in_the_refusal(finished):
    with pytest.raises(RefereeError, match="there is no player 9: the players are numbered 1 to 3"):
        reveal(finished, 8, "G")


def test_a_player_has_as_many_colours_as_the_variant_gives(finished):
    with pytest.raises(RefereeError, match="has one colour; got G Y"):
        reveal(finished, 0, "G", "Y")
