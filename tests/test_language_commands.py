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
