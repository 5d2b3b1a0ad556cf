"""The picture behind every verdict: a small JPEG of the rectified board as the camera saw it.

Why: when players disagree with a verdict, the referee shows what it saw. At each verdict the
loop asks its sensor for the board of the picture it judged, straightened (`BoardReader.picture`),
and keeps it as a JPEG of a few kilobytes in the journal, committed with the verdict itself
(`Journal.append`), so it has the journal's durability. The live page shows it beside the verdict,
`referee export --pictures DIR` writes them beside the record, and old ones are pruned by age and
total size (config.yaml's `pictures:`); verdicts themselves are never pruned.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

#: Prune the journal's pictures every this many pictures kept (and when the service starts).
PRUNE_EVERY = 50


@dataclass(frozen=True)
class PictureSettings:
    """config.yaml's `pictures:` section, as the loop uses it."""

    keep: bool = True
    #: Pixels per place (the lattice's pitch) of the straightened board.
    pixels_per_place: int = 20
    #: JPEG quality (30-95).
    quality: int = 60
    #: Pictures older than this many days are deleted (None: kept whatever their age).
    max_age_days: float | None = 365.0
    #: The oldest pictures are deleted while all of them take more than this (None: no limit).
    max_megabytes: float | None = 200.0

    @property
    def max_age(self) -> float | None:
        return None if self.max_age_days is None else self.max_age_days * 86400.0

    @property
    def max_bytes(self) -> int | None:
        return None if self.max_megabytes is None else int(self.max_megabytes * 1_000_000)


def encode(board: np.ndarray | None, quality: int) -> bytes | None:
    """A straightened board picture (BGR) as JPEG bytes; None when there is no picture."""
    if board is None or board.size == 0:
        return None
    ok, data = cv2.imencode(".jpg", board, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return data.tobytes() if ok else None


def write_pictures(journal: Any, game_id: int, folder: Path) -> list[Path]:
    """Write game `game_id`'s pictures into `folder` as `verdict-NNN.jpg` (NNN: the verdict's index,
    as `referee replay` numbers its lines); returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for index in sorted(journal.pictured(game_id)):
        data = journal.picture(game_id, index)
        if data is None:
            continue
        path = folder / f"verdict-{index:03d}.jpg"
        path.write_bytes(data)
        written.append(path)
    return written
