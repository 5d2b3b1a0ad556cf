"""Blockers! glyphs on a camera that clips the white print in one colour channel (issue 15, item 4).

    .venv/bin/python bench/clipped_print.py [--gain 1.08] [--channel red] [--boards 20] [--preset clean]

Each board is rendered, then one channel is multiplied by `--gain` and clipped (a brighter
webcam, or its white balance off: the print, a little brighter than the markers' paper, clips in
that channel first). Prints tiles whose colour was read right: glyph right, unsure, and wrong but
sure (which must be 0), and lists the wrong ones.
"""

from __future__ import annotations

import argparse

import numpy as np

from controller.profile import default_profile
from controller.snapshot import EMPTY
from controller.vision.reader import BoardReader
from simulation.render import random_snapshot, render_snapshot

CHANNELS = {"blue": 0, "green": 1, "red": 2}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gain", type=float, default=1.08)
    ap.add_argument("--channel", default="red", choices=list(CHANNELS))
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--preset", default="clean", choices=["clean", "hard"])
    args = ap.parse_args()
    p = default_profile("blockers")
    tiles = right = unsure = 0
    wrong: list[str] = []
    for seed in range(args.boards):
        snap = random_snapshot("blockers", p, seed=seed, fill=0.6)
        img = render_snapshot(snap, p, seed=seed, preset=args.preset).astype(np.float32)
        img[..., CHANNELS[args.channel]] *= args.gain
        reading = BoardReader(p).read(np.clip(img, 0, 255).astype(np.uint8))
        if reading.cells is None:
            print(f"board {seed}: {reading.problem}")
            continue
        for got_row, want_row in zip(reading.cells, snap.cells):
            for got, want in zip(got_row, want_row):
                if want == EMPTY or got[:1] != want[:1]:
                    continue
                tiles += 1
                if len(got) < 2 or got[1] == "?":
                    unsure += 1
                elif got == want:
                    right += 1
                else:
                    wrong.append(f"board {seed} {want}->{got}")
    print(
        f"{args.channel} x{args.gain} {args.preset}, {args.boards} boards: tiles {tiles}, right {right}, "
        f"unsure {unsure}, wrong but sure {len(wrong)}" + (f" ({', '.join(wrong)})" if wrong else "")
    )


if __name__ == "__main__":
    main()
