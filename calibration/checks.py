"""Calibration checks itself: every calibration picture is read back with the profile just learned
and compared with what the game promises for it.

A picture of a known content (a labelled snapshot, Flipop's start, an empty board, one piece of
each colour on the top row) must read back as that content; Colorpop's setup, whose places are
not known, must hold the profile's `tokens` counts and no empty slot. A place read surely as
something else contradicts the set, and so do too many places the reader cannot be sure of
(learned from these very pictures, nearly every place should be sure): the calibration is refused
with a sentence naming the picture and the places. A glared place is only unsure, never a
contradiction, and a few of them are reported, not refused.

An empty-board picture is also checked before anything is learned from it (`not_empty_places`):
its places must all look like the board's own material, so a piece left on it is named.

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

#: An empty-board picture's place is not empty when it stands this many robust spreads (1.4826 x
#: the median absolute deviation, a standard deviation for normal noise) from the places of the
#: same look: as far as renders of the hard look (shadows, light gradient, glare, noise) measure,
#: an empty place stands at most about 4 from its look, a piece left on the board at least 7.
OUTLIER_SPREADS = 5.0
#: The least spread (log brightness, chromaticity) assumed for a look: an evenly printed board's
#: places can agree more closely than a camera's noise allows to count on.
SPREAD_FLOOR = (0.05, 0.01)
#: A look held by fewer places than this cannot be judged by comparing its places with each other.
MIN_LOOK = 3


class PlacesRefused(RefereeError):
    """A calibration picture refused for what some of its places show: the places (row, column) and
    why each is doubted go with the sentence, so that the live page can draw them on the picture."""

    def __init__(self, sentence: str, places: list[tuple[int, int]], why: str) -> None:
        super().__init__(sentence)
        self.places = places
        self.why = why


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
                worst.append(
                    (float(conf[r, c]), f"{pic.name} {place_name(game, r, c)} {_word(got[r][c])} {conf[r, c]:.2f}")
                )
    return Quality(_separation(profile, learned) + _worst(worst) + notes)


def _check_places(game: str, pic: Expected, got: list[list[str]], unsure: list[tuple[int, int]]) -> None:
    places = len(got) * len(got[0])
    if len(unsure) > MAX_UNSURE * places:
        raise RefereeError(
            f"the calibration picture {pic.name} does not read back surely: {len(unsure)} of {places} "
            f"places are unsure ({place_names(game, unsure)}); is it the picture asked for, the whole board "
            "in view and evenly lit?"
        )
    if pic.cells is not None:
        wrong = [
            (r, c)
            for r, row in enumerate(pic.cells)
            for c, want in enumerate(row)
            if want is not None and got[r][c] not in (UNSURE, want)
        ]
        if wrong:
            r, c = wrong[0]
            raise RefereeError(
                f"the calibration picture {pic.name} does not show what it should: at "
                f"{place_names(game, wrong)} it reads {_word(got[r][c])} where {_word(pic.cells[r][c])} "
                f"belongs{' (first place)' if len(wrong) > 1 else ''}"
            )
    if pic.counts is not None:
        empty = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v == EMPTY]
        if empty:
            raise RefereeError(
                f"the setup picture {pic.name} is not a full setup: the places {place_names(game, empty)} are empty"
            )
        seen = Counter(v for row in got for v in row if v not in (UNSURE, EMPTY))
        over = {k: n for k, n in seen.items() if n > pic.counts.get(k, 0)}
        short = {k: n for k, n in pic.counts.items() if seen.get(k, 0) + len(unsure) < n}
        if over or short:
            have = ", ".join(f"{seen.get(k, 0)} {k}" for k in pic.counts)
            want = ", ".join(f"{n} {k}" for k, n in pic.counts.items())
            where = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v in over]
            hint = f" ({', '.join(sorted(over))} at {place_names(game, where)})" if where else ""
            raise RefereeError(
                f"the setup picture {pic.name} is not a full setup: it reads {have}{hint} where a setup has {want}"
            )


def not_empty_places(model, feats: np.ndarray, looks: list[str], usable: np.ndarray) -> list[int]:
    """The places of an empty-board picture that do not look like the board's own material.

    On an empty board every place shows the board, so each look of an empty place (`looks`: the
    reference key of each place; Stay Alive has three) is one material under one light. A place
    that is an outlier among the places of its look, by robust statistics over the picture (the
    median and the median absolute deviation, which the outliers themselves do not move), holds
    something else: a piece left there. Two ways to stand out follow from the physics of light:

    - chromaticity (`feats` columns 1-2), which shadows and light gradients leave alone;
    - brightness (column 0) *above* the look's: a shadow only darkens, and a lamp's reflection,
      which brightens, clips and is left out with the places that are not `usable` (glare).

    A piece darker than the board with the board's own chromaticity would pass as a shadow; no
    game's pieces are such. A look with fewer than `MIN_LOOK` usable places cannot be judged
    this way: its places are judged by `model` (the references known before): one read surely as
    a piece stands out. Returns the indices of the places that stand out."""
    looks_arr = np.asarray(looks)
    usable = np.asarray(usable, bool)
    odd = np.zeros(len(feats), bool)
    few = np.zeros(len(feats), bool)
    floor_b, floor_c = SPREAD_FLOOR
    for look in set(looks):
        mine = (looks_arr == look) & usable
        if mine.sum() < MIN_LOOK:
            few |= mine
            continue
        centre = np.median(feats[mine], axis=0)
        chroma = np.hypot(feats[:, 1] - centre[1], feats[:, 2] - centre[2])
        rise = feats[:, 0] - centre[0]
        spread_c = max(1.4826 * float(np.median(chroma[mine])), floor_c)
        spread_b = max(1.4826 * float(np.median(np.abs(rise[mine]))), floor_b)
        odd |= mine & ((chroma > OUTLIER_SPREADS * spread_c) | (rise > OUTLIER_SPREADS * spread_b))
    if few.any():
        dec = model.decide(feats[few])
        index = np.flatnonzero(few)
        odd[index] = dec.sure & (np.array(dec.letters) != EMPTY)
    return [int(i) for i in np.flatnonzero(odd)]


def _check_doors(pic: Expected, doors: tuple[str, ...]) -> None:
    from controller.games.flipop_doors import POSTS

    wrong = [k for k, (g, w) in enumerate(zip(doors, pic.doors)) if g != UNKNOWN_DOOR and set(g) != set(w)]
    if wrong:
        names = ", ".join(
            f"post {POSTS[k][0]},{POSTS[k][1]} ({doors[k] or 'no wing'} where {pic.doors[k]} belongs)"
            for k in wrong[:NAMED]
        )
        raise RefereeError(
            f"the doors in the calibration picture {pic.name} do not match the start position at {names}"
        )


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
    lines = [
        f"classes apart (distance from each class to the nearest other one{sure}): " + ", ".join(t for _, t in parts)
    ]
    if learned is not None:
        kept = [r.key for r in refs if r.key not in learned]
        if kept:
            lines.append("not in these pictures, kept from before: " + " ".join(kept))
    return lines


def _worst(places: list[tuple[float, str]]) -> list[str]:
    places.sort(key=lambda t: t[0])
    return ["least sure places (picture, place, read, confidence): " + "; ".join(t for _, t in places[:NAMED])]


def learned_keys(before, after) -> set[str]:
    """Class keys whose reference `after` differs from `before` (the classes a calibration taught)."""
    old = {r.key: r for r in model_for(before).refs}
    out = set()
    for ref in model_for(after).refs:
        o = old.get(ref.key)
        if o is None or not (np.allclose(o.mean, ref.mean) and np.allclose(o.cov, ref.cov)):
            out.add(ref.key)
    return out
