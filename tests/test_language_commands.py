"""The commands speak the configured language: a refusal is said in the `language:` of the config file
given, else in the person's locale (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`); `--help` stays English."""

from __future__ import annotations

import pytest

from controller.cli import main

LOCALE = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def english_locale(monkeypatch):
    for variable in LOCALE:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


def _refusal(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err


def test_a_bad_config_is_refused_in_the_config_language(tmp_path, capsys, english_locale):
    config = tmp_path / "config.yaml"
    config.write_text("game: colorpop\nplayers: 2\nlanguage: fr\nsettle_time: 30\n", "utf-8")
    err = _refusal(capsys, "run", "--config", str(config))
    assert "clé « settle_time »" in err.replace("\u202f", " ") and "attendu de 0 à 5 secondes, reçu 30" in err, err
    assert "expected" not in err
    config.write_text("game: colorpop\nplayers: 2\nsettle_time: 30\n", "utf-8")
    assert "key 'settle_time': expected 0 to 5 seconds, got 30" in _refusal(capsys, "run", "--config", str(config))


def test_the_locale_chooses_when_no_config_says(tmp_path, capsys, monkeypatch, english_locale):
    missing = tmp_path / "nowhere.yaml"
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    french = _refusal(capsys, "replay", str(missing))
    monkeypatch.setenv("LANG", "C.UTF-8")
    english = _refusal(capsys, "replay", str(missing))
    assert french != english and str(missing) in french and str(missing) in english
    monkeypatch.setenv("LANGUAGE", "en")  # LANGUAGE comes first, as gettext reads it
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert _refusal(capsys, "replay", str(missing)) == english


def test_help_stays_english(capsys, monkeypatch, english_locale):
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "config file (default: config.yaml)" in capsys.readouterr().out


def _plain(text: str) -> str:
    """French output with its no-break spaces (before `: ; ! ?`, in numbers) as plain ones, to compare."""
    return text.replace("\u202f", " ").replace("\u00a0", " ")


@pytest.fixture
def french_locale(monkeypatch):
    for variable in LOCALE:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")


def test_export_list_speaks_the_locales_language(tmp_path, capsys, french_locale, monkeypatch):
    from controller.service.journal import Journal

    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    first = journal.new_game({"game": "colorpop", "players": 2})
    journal.close_game(first, "new game")
    journal.new_game({"game": "flipop", "players": 2})
    journal.close()
    assert main(["export", "--list", str(path)]) == 0
    french = _plain(capsys.readouterr().out).splitlines()
    assert french[0].startswith("journal ") and "un club le nomme par ses 8 premiers chiffres" in french[0]
    assert french[1:] == [
        "partie 1 : colorpop, 0 entrée, fermée (nouvelle partie)",
        "partie 2 : flipop, 0 entrée, ouverte",
    ]
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["export", "--list", str(path)]) == 0
    english = capsys.readouterr().out.splitlines()
    assert english[1:] == ["game 1: colorpop, 0 entries, closed (new game)", "game 2: flipop, 0 entries, open"]


def test_read_says_its_open_points_comment_in_the_locales_language(tmp_path, capsys, french_locale, monkeypatch):
    """The `# open points` line is a comment of the snapshot (notation.md section 1: readers skip `#`
    lines), so it is said in the reader's language; the points keep the notation's `row,col`."""
    import cv2

    from controller.profile import default_profile
    from controller.snapshot import parse_snapshot
    from simulation.render import random_snapshot, render_scene

    profile = default_profile("stay-alive")
    image, _h = render_scene(random_snapshot("stay-alive", profile, seed=1), profile, seed=1)
    picture = tmp_path / "board.png"
    cv2.imwrite(str(picture), image)
    assert main(["read", "--game", "stay-alive", "--image", str(picture)]) in (0, 3)
    french = _plain(capsys.readouterr().out).splitlines()
    assert french[-1].startswith("# points ouverts : ") and "," in french[-1]
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["read", "--game", "stay-alive", "--image", str(picture)]) in (0, 3)
    english = capsys.readouterr().out.splitlines()
    assert english[-1].replace("# open points: ", "# points ouverts : ") == french[-1]
    assert english[:-1] == french[:-1]  # the board lines are the notation's, the same in every language
    board = "orange: A A A A A A A\nwhite: A A A A A A A\n" + "\n".join(french)  # a reader skips the comment
    assert parse_snapshot("stay-alive", board).rows == 7


def test_lights_test_speaks_the_configs_language(tmp_path, capsys, english_locale):
    config = tmp_path / "config.yaml"
    config.write_text("game: colorpop\nplayers: 2\nlanguage: fr\n", "utf-8")
    assert main(["lights-test", "--config", str(config), "--pause", "0"]) == 0
    out = _plain(capsys.readouterr().out)
    assert out.startswith("Les broches de ") and "rien ne s'allume ici" in out
    assert "bouton : appui vu" in out and "bouton : maintien vu" in out
    assert "LED " in out and "allumée" in out  # the lights' own lines, through the listener
    assert "press" not in out and " on)" not in out


def test_the_lock_holder_is_named_in_each_language(tmp_path):
    import json
    import os

    from controller.exclusive import describe_holder
    from controller.language import said

    lock = tmp_path / "journal.sqlite.lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "command": "referee run", "since": 0, "user": "pi"}), "utf-8")
    holder = describe_holder(lock)
    assert str(holder).startswith(f"process {os.getpid()} (") and " of user pi, running since " in str(holder)
    french = said(holder, "fr")
    assert french.startswith(f"processus {os.getpid()} (") and " de l'utilisateur pi, en marche depuis le " in french
    lock.write_text("not json", "utf-8")
    assert said(describe_holder(lock), "fr") == "un autre processus"


def test_the_demos_summary_line_counts_in_each_language():
    from controller.commands.demo import summary_line
    from controller.language import said

    verdicts = [{"verdict": "setup-ok"}, {"verdict": "legal"}, {"verdict": "legal"}, {"verdict": "illegal"}]
    line = summary_line("colorpop", verdicts, 240)
    assert line == "=== colorpop: 4 verdicts (1 valid setup, 2 legal, 1 illegal) in 240 frames"
    assert _plain(said(line, "fr")) == (
        "=== colorpop : 4 verdicts (1 mise en place valide, 2 coups légaux, 1 coup illégal) en 240 images"
    )


def test_markers_speak_the_locales_language(tmp_path, capsys, french_locale):
    assert main(["markers", "--game", "colorpop", "--out", str(tmp_path / "m.pdf")]) == 0
    out = _plain(capsys.readouterr().out)
    assert "écrit : quatre repères 4X4_50 de 20 mm (ids 0 en haut à gauche, 1 en haut à droite" in out
    assert "Imprimez à 100 % (taille réelle)" in out
    refusal = _refusal(capsys, "markers", "--game", "colorpop", "--out", str(tmp_path / "m.jpg"))
    assert _plain(refusal).startswith("referee: --out : écrivez un fichier .pdf ou .png")


def test_a_journals_refusals_and_faults_are_said_in_french(tmp_path, capsys, french_locale):
    from controller.language import said
    from controller.service.journal import Journal

    refusal = _plain(_refusal(capsys, "export", "--list", str(tmp_path / "nowhere.sqlite")))
    assert refusal == f"referee: il n'y a pas de journal à {tmp_path / 'nowhere.sqlite'}\n"
    (tmp_path / "empty.sqlite").write_bytes(b"")
    refusal = _plain(_refusal(capsys, "export", str(tmp_path / "empty.sqlite")))
    assert "ne peut pas être utilisé : le fichier est vide (0 octet)" in refusal
    journal = Journal(tmp_path / "j.sqlite")
    journal._failed(OSError(28, "No space left on device"))  # a write that failed: the fault the lights show
    assert _plain(said(journal.problem, "fr")) == "le journal ne peut pas être écrit : le disque est plein"
    journal.close()
