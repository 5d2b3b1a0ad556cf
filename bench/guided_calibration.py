"""Guided calibration of each game against the simulated camera (a copy in other colours): how long
capture waits for a still picture and how long learning and checking take, and whether the learned
profile reads fresh positions exactly.

    .venv/bin/python bench/guided_calibration.py [--size 640x480] [--preset clean] [--positions 5]

Capture time includes rendering the simulated camera's frames (the renderer, not the referee, is
most of it); `finish` is learning plus reading every picture back, what a Pi does once per calibration.
"""

from __future__ import annotations

import argparse
import time
from functools import partial

from calibration.guided import GuidedCalibration, wait_for_still
from controller.vision.reader import BoardReader
from simulation.setup_person import LiveCamera, SetupPerson, setup_world, simulated_camera


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--preset", default="clean", choices=["clean", "hard"])
    ap.add_argument("--positions", type=int, default=5)
    args = ap.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    size = (width, height)
    for game in ("colorpop", "blockers", "flipop", "stay-alive"):
        world = setup_world(game, seed=1)
        camera = LiveCamera(world, simulated_camera(world, size=size, preset=args.preset))
        person = SetupPerson(world, seed=2)
        session = GuidedCalibration(world.profile)
        started = time.perf_counter()
        for step in session.steps:
            person.follow(step)
            session.take(
                step.number, wait_for_still(partial(getattr, camera, "latest_frame"), world.profile, timeout=60)
            )
        captured = time.perf_counter()
        outcome = session.finish()
        finished = time.perf_counter()
        exact = 0
        if outcome.ok:
            for seed in range(args.positions):
                board = person.fresh_position(100 + seed)
                frame = camera.latest_frame
                if frame is None:
                    break
                reading = BoardReader(outcome.profile).read(frame)
                seen = reading.snapshot
                exact += seen is not None and seen.cells == board.cells and seen.line("doors") == board.line("doors")
        print(
            f"{game:10s} pictures {len(session.steps)}  capture {captured - started:5.2f} s  "
            f"finish {finished - captured:5.2f} s  ok {outcome.ok}  doubts {len(outcome.doubts)}  "
            f"fresh positions read exactly {exact}/{args.positions}"
        )
        if not outcome.ok:
            print(f"           refused: {outcome.problem}")


if __name__ == "__main__":
    main()
