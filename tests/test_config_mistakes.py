"""Mistakes in config.yaml that used to be taken silently, or answered in a developer's words."""

from __future__ import annotations

from pathlib import Path

import yaml

from controller.cli import main
from controller.files import load_yaml

ROOT = Path(__file__).resolve().parent.parent


def _config(tmp_path: Path, **changes) -> Path:
    config = load_yaml(ROOT / "config.yaml", "the config file")
    config["control_socket"] = str(tmp_path / "control.sock")
    config["web"]["enabled"] = False
    config.update(changes)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_journal_in_a_folder_that_does_not_exist_is_refused_and_no_folder_is_made(tmp_path, capsys):
    typo = tmp_path / "nonexistent" / "dir" / "j.sqlite"
    assert main(["run", "--config", str(_config(tmp_path, journal=str(typo)))]) == 2
    err = capsys.readouterr().err
    assert f"its folder {typo.parent} does not exist" in err
    assert "Check the 'journal:' path" in err and f"mkdir -p {typo.parent}" in err
    assert not (tmp_path / "nonexistent").exists()


def test_an_unquoted_pin_read_by_yaml_as_octal_is_caught_with_a_sentence(tmp_path, capsys):
    text = (ROOT / "config.yaml").read_text().replace("  pin: null ", "  pin: 0123 ")
    assert "pin: 0123" in text
    (tmp_path / "config.yaml").write_text(text)
    assert main(["run", "--config", str(tmp_path / "config.yaml")]) == 2
    err = capsys.readouterr().err
    assert "web.pin" in err and "write the PIN in quotes" in err and "the number 83" in err
