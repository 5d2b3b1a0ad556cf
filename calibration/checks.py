"""Calibration checks itself: every calibration picture is read back with the profile just learned
and compared with what the game promises for it.

A picture of a known content (a labelled snapshot, Flipop's start, an empty board, one piece of
each colour on the top row) must read back as that content; Colorpop's setup, whose places are
not known, must hold the profile's `tokens` counts and no empty slot. A place read surely as
something else contradicts the set, and so do too many places the reader cannot be sure of
(learned from these very pictures, nearly every place should be sure): the calibration is refused
with a sentence naming the picture and the places. A glared place is only unsure, never a
contradiction, and a few of them are reported, not refused.

The quality report says how far apart the learned classes are (the distance from each class's
centre to the nearest class of another meaning, in the classifier's own units, where the reader's
`sure` limits apply) and which places were read least surely.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from controller.errors import RefereeError
from controller.games import registry
from controller.games.flipop_doors import UNKNOWN_DOOR
from controller.snapshot import EMPTY
from controller.vision.reader import BoardReader, model_for

#: Most of a calibration picture's places that may be unsure before the picture is refused: a
#: few glare spots are fine, a picture that does not show what it should is not.
MAX_UNSURE = 0.05
#: Places and classes named in a sentence or a report line.
NAMED = 6

UNSURE = "?"


@dataclass
class Expected:
    """A calibration picture and what it must read back as.

    `cells` gives per place the letter it holds ('.' empty) or None where it is not known;
    `counts` how many of each letter the whole picture holds (Colorpop's setup) and then no
    place may be empty; `doors` the Flipop doors it shows."""

    name: str
    image: np.ndarray
    cells: list[list[str | None]] | None = None
    counts: dict[str, int] | None = None
    doors: tuple[str, ...] | None = None


def place_name(game: str, r: int, c: int) -> str:
    """A place as the game's players name it (`notation.md`; the game's `GameSpec.place_name`)."""
    return registry.get(game).place_name((r, c))


def place_names(game: str, cells: list[tuple[int, int]]) -> str:
    names = [place_name(game, r, c) for r, c in cells[:NAMED]]
    more = f" and {len(cells) - NAMED} more" if len(cells) > NAMED else ""
    return ", ".join(names) + more


def _word(letter: str) -> str:
    return "empty" if letter == EMPTY else letter


@dataclass
class Quality:
    """The report printed after a calibration that was not refused."""

    lines: list[str]

    def text(self) -> str:
        return "\n".join(self.lines)


def check_pictures(profile, pictures: list[Expected], corners=None, learned: set[str] | None = None) -> Quality:
    """Read every picture back with `profile`; raise `RefereeError` on a contradiction, else return
    the quality report. `learned` names the class keys these pictures taught (the others are
    reported as kept from before)."""
    game = profile.game
    worst: list[tuple[float, str]] = []
    notes: list[str] = []
    for pic in pictures:
        reader = BoardReader(profile, corners=corners)
        reading = reader.read(pic.image)
        if reading.cells is None:
            raise RefereeError(f"the calibration picture {pic.name} cannot be read back: {reading.problem}")
        got = [[cell[:1] for cell in row] for row in reading.cells]
        unsure = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v == UNSURE]
        _check_places(game, pic, got, unsure)
        if pic.doors is not None and reading.doors is not None:
            _check_doors(pic, reading.doors)
        if unsure:
            notes.append(f"{pic.name}: {len(unsure)} place(s) unsure (glare?): {place_names(game, unsure)}")
        conf = np.asarray(reading.confidence, np.float64)
        for r in range(conf.shape[0]):
            for c in range(conf.shape[1]):
                worst.append((float(conf[r, c]), f"{pic.name} {place_name(game, r, c)} "
                                                 f"{_word(got[r][c])} {conf[r, c]:.2f}"))
    return Quality(_separation(profile, learned) + _worst(worst) + notes)


def _check_places(game: str, pic: Expected, got: list[list[str]], unsure: list[tuple[int, int]]) -> None:
    places = len(got) * len(got[0])
    if len(unsure) > MAX_UNSURE * places:
        raise RefereeError(
            f"the calibration picture {pic.name} does not read back surely: {len(unsure)} of {places} "
            f"places are unsure ({place_names(game, unsure)}); is it the picture asked for, the whole board "
            "in view and evenly lit?")
    if pic.cells is not None:
        wrong = [(r, c) for r, row in enumerate(pic.cells) for c, want in enumerate(row)
                 if want is not None and got[r][c] not in (UNSURE, want)]
        if wrong:
            r, c = wrong[0]
            raise RefereeError(
                f"the calibration picture {pic.name} does not show what it should: at "
                f"{place_names(game, wrong)} it reads {_word(got[r][c])} where {_word(pic.cells[r][c])} "
                f"belongs{' (first place)' if len(wrong) > 1 else ''}")
    if pic.counts is not None:
        empty = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v == EMPTY]
        if empty:
            raise RefereeError(
                f"the setup picture {pic.name} is not a full setup: the places {place_names(game, empty)} "
                "are empty")
        seen = Counter(v for row in got for v in row if v not in (UNSURE, EMPTY))
        over = {k: n for k, n in seen.items() if n > pic.counts.get(k, 0)}
        short = {k: n for k, n in pic.counts.items() if seen.get(k, 0) + len(unsure) < n}
        if over or short:
            have = ", ".join(f"{seen.get(k, 0)} {k}" for k in pic.counts)
            want = ", ".join(f"{n} {k}" for k, n in pic.counts.items())
            where = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v in over]
            hint = f" ({', '.join(sorted(over))} at {place_names(game, where)})" if where else ""
            raise RefereeError(
                f"the setup picture {pic.name} is not a full setup: it reads {have}{hint} where a "
                f"setup has {want}")


def _check_doors(pic: Expected, doors: tuple[str, ...]) -> None:
    from controller.games.flipop_doors import POSTS

    wrong = [k for k, (g, w) in enumerate(zip(doors, pic.doors))
             if g != UNKNOWN_DOOR and set(g) != set(w)]
    if wrong:
        names = ", ".join(f"post {POSTS[k][0]},{POSTS[k][1]} ({doors[k] or 'no wing'} where "
                          f"{pic.doors[k]} belongs)" for k in wrong[:NAMED])
        raise RefereeError(f"the doors in the calibration picture {pic.name} do not match the start "
                           f"position at {names}")


def _separation(profile, learned: set[str] | None) -> list[str]:
    """How far each class's centre lies from the nearest class of another meaning."""
    model = model_for(profile)
    refs = model.refs
    means = np.stack([r.mean for r in refs])
    dist = model.distances(means)
    parts = []
    for i, ref in enumerate(refs):
        other = [j for j, o in enumerate(refs) if o.meaning() != ref.meaning()]
        if not other:
            continue
        j = min(other, key=lambda k: dist[i, k])
        parts.append((float(dist[i, j]), f"{ref.key} {dist[i, j]:.1f} from {refs[j].key}"))
    parts.sort()
    limit = getattr(model, "max_distance", None)
    sure = f"; the reader is sure up to {limit:g} from a class" if isinstance(limit, (int, float)) else ""
    lines = [f"classes apart (distance from each class to the nearest other one{sure}): "
             + ", ".join(t for _, t in parts)]
    if learned is not None:
        kept = [r.key for r in refs if r.key not in learned]
        if kept:
            lines.append("not in these pictures, kept from before: " + " ".join(kept))
    return lines


def _worst(places: list[tuple[float, str]]) -> list[str]:
    places.sort(key=lambda t: t[0])
    return ["least sure places (picture, place, read, confidence): "
            + "; ".join(t for _, t in places[:NAMED])]


def learned_keys(before, after) -> set[str]:
    """Class keys whose reference `after` differs from `before` (the classes a calibration taught)."""
    old = {r.key: r for r in model_for(before).refs}
    out = set()
    for ref in model_for(after).refs:
        o = old.get(ref.key)
        if o is None or not (np.allclose(o.mean, ref.mean) and np.allclose(o.cov, ref.cov)):
            out.add(ref.key)
    return out
