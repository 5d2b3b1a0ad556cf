"""A Blockers! glyph left unread because of the light is said in the players' words, in English and
French (issue 32): a lamp that clips the white print with the paper ("the lamp is too coloured to
read the glyph on ...: use a white light"), a lamp's reflection on a tile ("a lamp's reflection
hides the glyph on ...: turn the lamp away from the board"). The reader gives the sentence with the
board it read (the page shows it with what the camera sees), and the verdict that says the glyph
could not be read says why (the log, the voice, the page's verdicts)."""

from __future__ import annotations

import logging
from dataclasses import replace

from bench.relit import relight
from controller.games import registry
from controller.language import said
from controller.profile import default_profile
from controller.service.events import LogSubscriber
from controller.service.loop import Sight
from controller.snapshot import EMPTY
from controller.vision.reader import BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot
from simulation.world import SnapshotSensor, StubRig


def _read(lamp: str, preset: str, seed: int, scene: Scene | None = None):
    p = default_profile("blockers")
    snap = random_snapshot("blockers", p, seed=7000 + seed)
    image = render_snapshot(snap, p, seed=seed, preset=preset, scene=scene)
    return snap, BoardReader(p).read(relight(image, lamp, seed=seed))


def _unread(reading) -> list[tuple[int, int]]:
    return [(r, c) for r, row in enumerate(reading.cells) for c, cell in enumerate(row) if cell.endswith("?")]


def test_a_coloured_lamp_that_hides_the_print_is_named_with_the_tiles() -> None:
    """Under a pink lamp the print of two tiles clips with the paper: the board is read, those two
    glyphs are not, and the reader says why and where, in English and in French."""
    _snap, reading = _read("pink", "clean", 2)
    assert reading.snapshot is not None
    unread = _unread(reading)
    assert unread
    english = said(reading.problem, "en")
    assert english.startswith("the lamp is too coloured to read the glyph") and english.endswith("use a white light")
    name = registry.get("blockers").place_name
    for place in unread:
        assert str(name(place)) in english
    french = said(reading.problem, "fr")
    assert "la lampe est trop colorée pour lire" in french and "utilisez une lumière blanche" in french


def test_a_reflection_on_a_tile_is_named() -> None:
    """A lamp's reflection on a tile: its glyph is unread, and the reader says a reflection hides it."""
    p = default_profile("blockers")
    snap = random_snapshot("blockers", p, seed=7001)
    r, c = next((r, c) for r, row in enumerate(snap.cells) for c, cell in enumerate(row) if cell != EMPTY)
    image = render_snapshot(snap, p, seed=1, preset="clean", scene=Scene(glare_at=((r + 0.1, c + 0.1, 0.2),)))
    reading = BoardReader(p).read(image)
    assert reading.snapshot is not None and reading.cells[r][c].endswith("?")
    assert said(reading.problem, "en").startswith("a lamp's reflection hides the glyph on")
    assert said(reading.problem, "fr").startswith("un reflet de lampe cache le signe en")


def test_under_white_light_nothing_is_said() -> None:
    for preset in ("clean", "hard"):
        _snap, reading = _read("white", preset, 0)
        assert reading.snapshot is not None and reading.problem is None, reading.problem


class _LampSensor(SnapshotSensor):
    """The stand-in camera under a coloured lamp: every newly placed tile's glyph unread, and the
    reader's remark on the board it read."""

    REMARK = "the lamp is too coloured to read the glyph on it: use a white light"

    def __init__(self, world, before) -> None:
        super().__init__(world)
        self.before = before

    def sense(self):
        sight = super().sense()
        if sight.snapshot is None:
            return sight
        cells = [
            [cell[0] + "?" if cell != EMPTY and cell != old else cell for cell, old in zip(row, was)]
            for row, was in zip(sight.snapshot.cells, self.before.cells)
        ]
        snapshot = replace(sight.snapshot, cells=tuple(tuple(row) for row in cells))
        remark = self.REMARK if snapshot != sight.snapshot else None
        return Sight(frame=True, new_reading=True, snapshot=snapshot, problem=remark)


def test_the_verdict_of_a_tile_whose_glyph_was_unread_says_why(tmp_path) -> None:
    rig = StubRig(
        {"game": "blockers", "players": 3, "seats": ["R", "G", "B"]},
        tmp_path / "j.sqlite",
        seed=3,
        troubles=False,
        max_moves=0,
    )
    rig.driver.run(rig.player.steps())
    referee = rig.loop.session.referee
    engine, state = referee.engine, referee.state
    before = engine.expected(state)
    after = engine.expected(engine.apply(state, engine.legal_moves(state)[0])[0])
    rig.loop.sensor = _LampSensor(rig.world, before)
    lines: list[str] = []
    rig.loop.bus.subscribe(LogSubscriber(logging.getLogger("test"), lines.append), inline=True)
    rig.world.set_board(after)
    rig.driver.run_frames(5)
    assert rig.loop.session.verdicts[-1]["verdict"] == "legal"
    assert "could not be read yet" in lines[-1] and lines[-1].endswith(_LampSensor.REMARK), lines[-1]
