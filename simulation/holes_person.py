"""A Stay Alive copy under the simulated camera and the person who sets its slides for the hole setup.

`HolesTable` is a copy with a hole pattern of its own (not the default profile's) and no marbles,
all its slides where the person left them; it is the camera sensor the live page reads
(`latest_frame`, drawn by the renderer only when the scene changed). `HolesPerson` reads the setup's
instruction as a person would ("set every orange slide to A and every white slide to B"), reaches
over the board, moves the slides and takes the hand away; it can be told to forget some slides at a
step, the mistake the derivation's contradictions point at.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from controller.games.stay_alive.holes import SIZE, HolePattern
from controller.snapshot import EMPTY, Snapshot
from controller.vision.sources import validate_camera
from simulation.render import Scene, render_scene

INSTRUCTION = re.compile(r"set every orange slide to ([ABC]) and every white slide to ([ABC])")


def rotated(pattern: HolePattern) -> HolePattern:
    """The pattern of the copy turned half round (slide r becomes slide 6-r, its holes mirrored): a copy
    that differs from the default everywhere, yet has a hole only where the other layer can show it."""

    def mirror(mask: int) -> int:
        return int(f"{mask:0{SIZE}b}"[::-1], 2)

    def mirrored(masks: tuple[int, int, int]) -> tuple[int, int, int]:
        return (mirror(masks[0]), mirror(masks[1]), mirror(masks[2]))

    return HolePattern(
        orange=tuple(mirrored(pattern.orange[SIZE - 1 - r]) for r in range(SIZE)),
        white=tuple(mirrored(pattern.white[SIZE - 1 - c]) for c in range(SIZE)),
    )


class HolesTable:
    """The copy (`profile` holds its true holes) under the camera, with every slide's position and a hand."""

    def __init__(self, profile, *, seed: int = 0, preset: str = "clean", size: tuple[int, int] = (1280, 720)) -> None:
        self.profile = profile
        self.seed, self.preset, self.size = seed, preset, size
        self.orange = ["B"] * SIZE
        self.white = ["B"] * SIZE
        self.hand: tuple[float, float] | None = None
        self.reader = None  # the page reads with a reader of its own
        self.latest_reading = None
        self._lock = threading.Lock()
        self._frame: tuple[tuple, np.ndarray] | None = None
        self.renders = 0

    def snapshot(self) -> Snapshot:
        cells = tuple(tuple(EMPTY for _ in range(SIZE)) for _ in range(SIZE))
        return Snapshot("stay-alive", cells, {"orange": self.orange, "white": self.white})

    @property
    def latest_frame(self) -> np.ndarray:
        """What the camera sees now (the same array while nothing changed, as a still camera's picture)."""
        with self._lock:
            key = (tuple(self.orange), tuple(self.white), self.hand)
            if self._frame is None or self._frame[0] != key:
                scene = Scene(hand=self.hand, frame=self.renders + 1)
                image, _ = render_scene(
                    self.snapshot(), self.profile, seed=self.seed, preset=self.preset, scene=scene, size=self.size
                )
                self.renders += 1
                self._frame = (key, image)
            return self._frame[1]


class HolesPerson:
    """Follows the setup's instructions on a `HolesTable`.

    `forgets` maps a step number to the slides the person does not move at that step, named as the
    page names them ("orange 1", "white 2"): they stay where the step before left them.
    """

    def __init__(self, table: HolesTable, forgets: dict[int, list[str]] | None = None) -> None:
        self.table = table
        self.forgets = dict(forgets or {})
        self.steps_done = 0

    def reach_in(self) -> None:
        self.table.hand = (3.0, 3.0)

    def take_hand_away(self) -> None:
        self.table.hand = None

    def follow(self, instruction: str, step: int | None = None) -> None:
        """Do what `instruction` says (`step` counts the steps for `forgets`; by default, one more each time)."""
        found = INSTRUCTION.search(instruction)
        if found is None:
            raise ValueError(f"the person does not understand {instruction!r}")
        self.steps_done = step if step is not None else self.steps_done + 1
        orange, white = found.groups()
        forgotten = set(self.forgets.get(self.steps_done, ()))
        self.reach_in()
        self.table.orange = [p if f"orange {r}" in forgotten else orange for r, p in enumerate(self.table.orange)]
        self.table.white = [q if f"white {c}" in forgotten else white for c, q in enumerate(self.table.white)]
        self.take_hand_away()


def copy_profile(default_profile) -> tuple[object, HolePattern]:
    """A Stay Alive profile whose holes are the default's turned half round, and that pattern."""
    pattern = rotated(HolePattern.from_mapping(default_profile.get("holes")))
    return default_profile.with_overrides({"holes": pattern.to_mapping()}, source="the simulated copy"), pattern


class _TableCamera:
    """A `HolesTable` as a frame source (`read`, `close`) for `referee setup holes`."""

    def __init__(self, table: HolesTable) -> None:
        self.table = table

    def read(self) -> np.ndarray:
        return self.table.latest_frame

    def close(self) -> None:
        pass


def simulated_holes(config: Any, profile: Any) -> tuple[_TableCamera, HolesPerson]:
    """The simulated copy of `config` (the camera's size, seed and preset; the holes of `profile`, the
    default copy's unless the config names another) and the person who sets its slides: what `referee
    setup holes` uses with the renderer camera."""

    camera = validate_camera(config.camera)
    table = HolesTable(profile, seed=camera["seed"], preset=camera["preset"], size=(camera["width"], camera["height"]))
    return _TableCamera(table), HolesPerson(table)
