"""`referee setup calibrate`: the guided calibration from the terminal, from picture files (`--images`) and
from the simulated camera, ending with a saved profile the config uses and that reads the copy exactly."""

from __future__ import annotations

import cv2
import pytest
import yaml

from calibration import guided
from controller.cli import main
from controller.games import registry
from controller.service.config import load_config
from controller.vision.reader import BoardReader
from simulation import setup_person
from simulation.setup_person import LiveCamera, SetupPerson, setup_world, simulated_camera

pytestmark = pytest.mark.slow  # every test here takes seconds

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]


def write_config(tmp_path, game: str, camera: dict | None = None):
    keys = dict(registry.get(game).demo)
    if camera is not None:
        keys["camera"] = camera
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(keys, sort_keys=False) + "profile: null  # the default board profile\n", "utf-8")
    return path


def reads_a_fresh_position(config, person: SetupPerson, camera: LiveCamera) -> None:
    profile = load_config(config).setup.profile
    later = person.fresh_position(13)
    reading = BoardReader(profile).read(camera.latest_frame)
    assert reading.snapshot is not None, reading.problem
    assert reading.snapshot.cells == later.cells and reading.snapshot.line("doors") == later.line("doors")


@pytest.mark.parametrize("game", GAMES)
def test_pictures_from_files(game, tmp_path, capsys):
    world = setup_world(game, seed=4)
    camera = LiveCamera(world, simulated_camera(world))
    person = SetupPerson(world, seed=5)
    folder = tmp_path / "pictures"
    folder.mkdir()
    for step in guided.steps_for(world.profile):
        person.follow(step)
        cv2.imwrite(str(folder / step.file), camera.latest_frame)
    config = write_config(tmp_path, game)
    assert (
        main(["setup", "calibrate", "--game", game, "--config", str(config), "--name", "mine", "--images", str(folder)])
        == 0
    ), capsys.readouterr().err
    out = capsys.readouterr().out
    assert "classes apart" in out and "now uses it" in out
    line = next(x for x in config.read_text("utf-8").splitlines() if x.startswith("profile:"))
    assert line.startswith("profile: profiles/mine.yaml ") and line.endswith("# the default board profile")
    reads_a_fresh_position(config, person, camera)


@pytest.mark.parametrize("game", ["blockers", "stay-alive"])
def test_pictures_from_the_simulated_camera(game, tmp_path, monkeypatch, capsys):
    """The shipped config's renderer camera: the simulated person sets the board when each step is asked."""
    made = {}

    def other_copy(config, other_looks=False):
        made["camera"], made["person"] = original(config, other_looks=True)
        return made["camera"], made["person"]

    original = setup_person.simulated_setup
    monkeypatch.setattr(setup_person, "simulated_setup", other_copy)
    answers: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt="": answers.append("") or "")
    config = write_config(tmp_path, game, {"source": "renderer", "width": 640, "height": 480, "seed": 3})
    assert main(["setup", "calibrate", "--game", game, "--config", str(config), "--name", "cam"]) == 0, (
        capsys.readouterr().err
    )
    out = capsys.readouterr().out
    steps = guided.steps_for(load_config(config).setup.profile)
    assert len(answers) == len(steps)
    for step in steps:
        assert step.sentence in out and f"picture {step.number} of {len(steps)} ({step.title}) taken" in out
    if game == "blockers":
        assert "R1 R2 R3 R4 R5 R6 R7 R8 R9\nRA RB RC RD RE RF RG RH RI\nRa Rb" in out  # the glyph arrangement
    person = made["person"]  # the command closed its camera: the same copy seen by a new one
    reads_a_fresh_position(config, person, LiveCamera(person.world, simulated_camera(person.world, seed=3)))


def test_bad_input_is_a_sentence(tmp_path, monkeypatch, capsys):
    config = write_config(tmp_path, "flipop")
    folder = tmp_path / "pictures"
    folder.mkdir()
    base = ["setup", "calibrate", "--config", str(config)]
    with pytest.raises(SystemExit) as stop:
        main(base + ["--game", "chess", "--name", "x", "--images", str(folder)])
    assert stop.value.code == 2
    assert main(base + ["--game", "colorpop", "--name", "x", "--images", str(folder)]) == 2
    assert "is a flipop config" in capsys.readouterr().err
    assert main(base + ["--game", "flipop", "--name", "my copy", "--images", str(folder)]) == 2
    assert "cannot name a profile" in capsys.readouterr().err
    assert main(base + ["--game", "flipop", "--name", "x", "--images", str(folder)]) == 2
    assert "no picture start.png (or .jpg) for step 1, the start position" in capsys.readouterr().err
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "taken.yaml").write_text("game: flipop\n", "utf-8")
    assert main(base + ["--game", "flipop", "--name", "taken", "--images", str(folder)]) == 2
    assert "exists already" in capsys.readouterr().err
    # a hand over the board: each try times out with the reason, then the command stops
    monkeypatch.setattr(guided, "WAIT_SECONDS", 6.0)  # room for rendering on a loaded machine
    monkeypatch.setattr("controller.commands.setup_calibrate.TRIES", 2)
    original = setup_person.SetupPerson.follow

    def follow_then_reach_in(self, step):
        board = original(self, step)
        self.reach_in()
        return board

    monkeypatch.setattr(setup_person.SetupPerson, "follow", follow_then_reach_in)
    monkeypatch.setattr("builtins.input", lambda prompt="": "")
    camera = write_config(tmp_path, "flipop", {"source": "renderer", "width": 640, "height": 480})
    assert main(base[:3] + [str(camera), "--game", "flipop", "--name", "x"]) == 2
    captured = capsys.readouterr()
    assert captured.out.count("Not taken: ") == 1  # the first try said why, the second stopped the command
    assert "no picture was taken in 6 s: a hand or an object is over the board; take it away" in captured.err
    assert "profile: null" in camera.read_text("utf-8")
