"""The club's store, payload checks and the `mqtt:` config section, without a broker."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.club.config import validate_mqtt
from controller.club.journal_feed import JournalFeed
from controller.club.payloads import BadPayload, encode, parse_message, result_payload, verdict_payload, verdict_words
from controller.club.store import ClubStore, Points
from controller.errors import ConfigError, RefereeError
from controller.service.journal import Journal


def _verdict(table: str, game_id: int, seq: int, names=("Ann", "Bob"), result=None, **verdict):
    body = verdict_payload(table, game_id, seq, verdict or {"index": seq, "verdict": "legal", "seat": 0}, 1.0)
    if seq == 0:  # a game's first entry names its players
        body |= {"players": len(names), "names": list(names)}
    if result is not None:
        body["result"] = result
    return parse_message(f"referee/{table}/verdict", encode(body))


def _game(table: str, game_id: int, names: list[str], winners: list[int], finished: bool = True, seq: int = 9):
    """A game's whole chain of verdicts, the last carrying its result (as a table sends it)."""
    result = {"finished": finished, "scores": [0] * len(names)}
    if finished:
        result["winners"] = winners
    chain = [_verdict(table, game_id, n, names) for n in range(seq)]
    return chain + [_verdict(table, game_id, seq, names, result=result)]


def _result(table: str, game_id: int, names: list[str], winners: list[int], seq: int = 9):
    """A bare `result` message, the retained topic's."""
    result = {"finished": True, "scores": [0] * len(names), "winners": winners}
    body = result_payload(table, game_id, seq, {"game": "flipop"}, names, result, 1.0)
    return parse_message(f"referee/{table}/result", encode(body))


def test_a_verdict_delivered_twice_is_kept_once(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    first = store.apply([_verdict("t1", 1, 0), _verdict("t1", 1, 1)])
    second = store.apply([_verdict("t1", 1, 1), _verdict("t1", 1, 2)])
    assert store.verdicts_of("t1", 1) == [0, 1, 2]
    assert store.counts["duplicates"] == 1 and store.counts["verdicts"] == 3
    assert store.table_view("t1")["last_verdict_seq"] == [1, 2]
    assert first.acks == {("t1", ""): [(1, 0), (1, 1)]}  # per table and journal (none: before journal ids)
    assert second.acks == {("t1", ""): [(1, 1), (1, 2)]}  # held: told again
    assert first.resend == {"t1"} and second.resend == set()  # asked once, when first heard of


def test_standings_add_up_a_players_results_across_tables_with_the_clubs_points(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite", Points.parse("win=3,draw=1,loss=0"))
    store.apply(
        _game("t1", 1, ["Ann", "Bob"], [0])  # Ann wins
        + _game("t2", 1, ["Cy", "Ann"], [0, 1])  # a draw
        + _game("t2", 2, ["Cy", "Ann"], [], finished=False)  # not finished: not counted
        + _game("t3", 4, ["Bob", "Cy", "Dee"], [2])
    )
    rows = {s["name"]: s for s in store.standings()}
    assert rows["Ann"] == {**rows["Ann"], "played": 2, "wins": 1, "draws": 1, "losses": 0, "points": 4.0}
    assert rows["Ann"]["tables"] == ["t1", "t2"]
    assert rows["Bob"]["points"] == 0.0 and rows["Bob"]["losses"] == 2
    assert rows["Cy"]["points"] == 1.0 and rows["Dee"]["points"] == 3.0
    assert [s["name"] for s in store.standings()][:2] == ["Ann", "Dee"]
    store.close()
    again = ClubStore(tmp_path / "c.sqlite", Points.parse("win=3,draw=1,loss=0"))  # kept across restarts
    assert again.standings() == store.standings()
    assert again.standings_csv().splitlines()[1] == "1,Ann,2,1,1,0,4,t1 t2,0,0"


def test_a_later_result_of_the_same_game_replaces_the_earlier(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    store.apply(_game("t1", 1, ["Ann", "Bob"], [0], seq=5))
    reveal = {"finished": True, "winners": [1], "scores": [0, 0]}
    store.apply([_verdict("t1", 1, 6, result=reveal, verdict="reveal", seat=1, colours=["G"])])  # the ranking changed
    store.apply([_verdict("t1", 1, 5, result={"finished": True, "winners": [0], "scores": [0, 0]})])  # again: held
    assert [(s["name"], s["wins"]) for s in store.standings()] == [("Bob", 1), ("Ann", 0)]
    assert store.counts["duplicates"] == 1


def test_a_result_counts_only_once_its_whole_chain_is_held(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    chain = _game("t1", 1, ["Ann", "Bob"], [1], seq=4)
    store.apply([chain[0], chain[1], chain[4]])  # entries 2 and 3 still on their way
    assert store.standings() == []
    store.apply([_result("t1", 1, ["Ann", "Bob"], [1], seq=4)])  # the retained topic: believed from verdicts only
    assert store.standings() == []
    store.apply([chain[3], chain[2]])
    assert [(s["name"], s["wins"]) for s in store.standings()] == [("Bob", 1), ("Ann", 0)]
    assert store.counts["refused"] == 0  # the retained result agreed with what the chain carries


def test_two_chains_for_one_game_make_it_disputed_until_counted_never_after(tmp_path, caplog):
    store = ClubStore(tmp_path / "c.sqlite")
    chain = _game("t1", 1, ["Ann", "Bob"], [0], seq=3)
    other = _verdict("t1", 1, 1, index=1, verdict="illegal", seat=1)
    store.apply([chain[0], chain[1], other, chain[2], chain[3]])  # entry 1 twice, differently, before counting
    assert store.standings() == [] and store.counts["conflicts"] == 1
    assert "a second, different verdict for entry 1 of game 1: that game does not count" in caplog.text
    store.close()
    again = ClubStore(tmp_path / "c.sqlite")  # the dispute is kept across restarts
    again.apply(_game("t1", 1, ["Ann", "Bob"], [0], seq=3))
    assert again.standings() == []
    counted = _game("t1", 2, ["Ann", "Bob"], [1], seq=3)
    again.apply(counted)
    again.apply([_verdict("t1", 2, 2, index=2, verdict="unchanged")])
    assert [(s["name"], s["wins"]) for s in again.standings()] == [("Bob", 1), ("Ann", 0)]  # counted: it stays
    assert "entry 2 of game 2, which has counted" in caplog.text


def test_results_that_no_chain_backs_or_that_name_others_are_refused(tmp_path, caplog):
    store = ClubStore(tmp_path / "c.sqlite", roster={"t1": {"Ann", "Bob"}})
    store.apply(_game("t1", 1, ["Ann", "Bob"], [0], seq=3))
    store.apply(
        [_result("t1", 7, ["Ann", "Bob"], [1]), _result("t1", 1, ["Cy", "Dee"], [0], seq=3)]
        + [_result("t1", 1, ["Ann", "Bob"], [1], seq=2)]
    )
    store.apply(_game("t1", 2, ["Ann", "Eve"], [1], seq=3))  # a whole chain, but Eve is not t1's
    assert [(s["name"], s["played"], s["wins"]) for s in store.standings()] == [("Ann", 1, 1), ("Bob", 1, 0)]
    assert store.counts["refused"] == 4
    text = caplog.text
    assert "table t1: refused a result for game 7: the club holds none of that game's verdicts" in text
    assert "its players are not the ones the game's first verdict named" in text
    assert "a later one (entry 3) counts" in text and "Eve not on the roster" in text


@pytest.mark.parametrize("text", ["win", "win=x", "tie=1", "win=1,,"])
def test_points_are_checked(text):
    with pytest.raises(RefereeError):
        Points.parse(text)


def test_payloads_that_a_table_would_never_send_are_refused():
    good = verdict_payload("t1", 1, 0, {"index": 0, "verdict": "setup-ok"}, 5.0) | {"players": 1, "names": ["A"]}
    assert parse_message("referee/t1/verdict", encode(good)).body["seq"] == 0
    for topic, payload in [
        ("referee/t1/verdict", b"{"),
        ("referee/t1/verdict", encode({"v": 2, "game_id": 1, "seq": 0, "verdict": "legal"})),
        ("referee/t1/verdict", encode({"v": 1, "game_id": 1, "seq": True, "verdict": "legal"})),
        ("referee/t1/verdict", encode({"v": 1, "game_id": 1, "seq": 0, "verdict": "won"})),
        ("referee/t1/online", b"1"),
        ("referee/t1", b"true"),
        ("other/t1/online", b"true"),
        ("referee/t1/state", b" " * 70_000),
        ("referee/<b>x</b>/online", b"true"),
        ("referee/t1/verdict", encode({**good, "names": None})),  # a game's first entry names its players
        ("referee/t1/verdict", encode({**good, "players": 2})),
        ("referee/t1/verdict", encode({**good, "names": [f"p{i}" for i in range(17)], "players": 17})),
        ("referee/t1/verdict", encode({**good, "seq": 3, "result": {"finished": "yes"}})),
    ]:
        with pytest.raises(BadPayload):
            parse_message(topic, payload)


def test_verdict_words_use_the_players_names():
    words = verdict_words({"verdict": "legal", "seat": 1, "move": "remove B x3 at E3"}, ["Ann", "Bob"])
    assert words == "Bob: legal move, remove B x3 at E3"
    assert "put the board back" in verdict_words({"verdict": "illegal", "seat": 0, "reason": "no"}, ["Ann"])


def _mqtt(section, players=2):
    return validate_mqtt(section, base=Path("."), source="config.yaml", players=players)


def test_the_mqtt_section_is_checked_and_never_holds_a_password(tmp_path):
    assert _mqtt(None) is None
    config = _mqtt({"host": "broker.local"})
    assert (config.port, config.prefix, config.keepalive) == (1883, "referee", 30)
    assert config.table  # the host name, as a topic level
    assert _mqtt({"host": "b", "tls": True}).port == 8883
    with pytest.raises(ConfigError, match="password_file") as info:
        _mqtt({"host": "b", "username": "t1", "password": "hunter2-secret"})
    assert "hunter2-secret" not in str(info.value)
    for section, key in [
        ({"host": "b", "table": "a/b"}, "mqtt.table"),
        ({"host": "b", "names": ["Ann"]}, "mqtt.names"),
        ({"host": "b", "username": "u", "password_file": str(tmp_path / "missing")}, "mqtt.password_file"),
        ({"host": "b", "port": 0}, "mqtt.port"),
        ({"host": "b", "colour": 1}, "mqtt.colour"),
        ({}, "mqtt.host"),
    ]:
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            _mqtt(section)


def test_a_journal_never_published_starts_at_its_latest_game(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    old = journal.new_game({"game": "flipop"})
    journal.append(old, "action", "new-game", {"verdict": "action"})
    new = journal.new_game({"game": "flipop"})
    journal.append(new, "action", "end-by-agreement", {"verdict": "action"})
    feed = JournalFeed(tmp_path / "j.sqlite", "t1")
    assert feed.delivered() == (new, -1)
    assert [(e.game_id, e.seq) for e in feed.after(feed.delivered(), 10)] == [(new, 0)]
    feed.mark((new, 0))
    assert JournalFeed(tmp_path / "j.sqlite", "t1").delivered() == (new, 0)
    assert feed.after((new, 0), 10) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--broker", "host:port"],
        ["--broker", ":1883"],
        ["--points", "win=lots"],
        ["--username", "club", "--password-file", "/nonexistent/club-password"],
        ["--prefix", "a/+/b"],
    ],
)
def test_referee_club_refuses_bad_options_with_a_sentence(args, capsys, tmp_path):
    from controller.cli import main

    assert main(["club", "--db", str(tmp_path / "c.sqlite"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee: --") and "Traceback" not in err


def test_the_standings_file_is_data_by_default_and_a_file_for_people_in_their_language(tmp_path):
    """`standings.csv` stays a data file (fixed English column names, commas, decimal points) for scripts;
    the club page's link asks for its reader's language: French column names, `;` and a decimal comma,
    as a French spreadsheet reads a CSV."""
    store = ClubStore(tmp_path / "c.sqlite", Points.parse("win=1,draw=0.5,loss=0"))
    store.apply(_game("t1", 1, ["Ann", "Bob"], [0, 1]))  # a draw: half a point each
    data = store.standings_csv().splitlines()
    assert data[0] == "rank,name,played,wins,draws,losses,points,tables,helped,against_computer"
    assert data[1] == "1,Ann,1,0,1,0,0.5,t1,0,0"
    french = store.standings_csv("fr").splitlines()
    assert french[0] == (
        "Rang;Joueur;Parties;Victoires;Nuls;Défaites;Points;Tables;"
        "Parties avec conseils (non comptées);Parties contre l'ordinateur (non comptées)"
    )
    assert french[1] == "1;Ann;1;0;1;0;0,5;t1;0;0"
    english = store.standings_csv("en").splitlines()
    assert english[0] == (
        "Rank,Player,Played,Wins,Draws,Losses,Points,Tables,"
        "Games with hints (not counted),Games against the computer (not counted)"
    )
    assert english[1] == data[1]
