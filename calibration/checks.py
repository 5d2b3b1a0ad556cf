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
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from controller.errors import RefereeError, sentence
from controller.games import registry
from controller.games.spec import post_words
from controller.language import _, _n, listed, literal, said
from controller.snapshot import EMPTY
from controller.vision.doors import post_of, unknown_door
from controller.vision.features import colour_features, colours_of
from controller.vision.reader import MIN_USED, BoardReader, model_for
from controller.vision.sheen_doubt import GAMMA, linear

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

    name: Any
    image: np.ndarray
    cells: Sequence[Sequence[str | None]] | None = None
    counts: dict[str, int] | None = None
    doors: tuple[str, ...] | None = None


def place_name(game: str, r: int, c: int) -> str:
    """A place as the game's players name it (`notation.md`; the game's `GameSpec.place_name`)."""
    return registry.get(game).place_name((r, c))


def place_names(game: str, cells: list[tuple[int, int]]) -> Any:
    names: list[Any] = [place_name(game, r, c) for r, c in cells[:NAMED]]
    if len(cells) > NAMED:
        return _n("{places} and {n} more", "{places} and {n} more", len(cells) - NAMED, places=listed(names, None))
    return listed(names, conjunction=None)


def _word(letter: str | None) -> Any:
    return _("empty") if letter == EMPTY else letter or UNSURE


@dataclass
class Quality:
    """The report printed after a calibration that was not refused."""

    lines: list[Any]

    def text(self, lang: str | None = None) -> str:
        return "\n".join(said(line, lang) for line in self.lines)


def check_pictures(profile, pictures: list[Expected], corners=None, learned: set[str] | None = None) -> Quality:
    """Read every picture back with `profile`; raise `RefereeError` on a contradiction, else return
    the quality report. `learned` names the class keys these pictures taught (the others are
    reported as kept from before)."""
    game = profile.game
    worst: list[tuple[float, Any]] = []
    notes: list[Any] = []
    for pic in pictures:
        reader = BoardReader(profile, corners=corners)
        reading = reader.read(pic.image)
        if reading.cells is None:
            raise RefereeError(
                _(
                    "the calibration picture {name} cannot be read back: {problem}",
                    name=pic.name,
                    problem=reading.problem,
                )
            )
        got = [[cell[:1] for cell in row] for row in reading.cells]
        unsure = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v == UNSURE]
        try:
            _check_places(game, pic, got, unsure)
        except _Disagree as exc:
            feats, used = reader.place_features(pic.image)
            advice = light_advice(feats, used, exc.places, got, pic.cells, reader.reflected)
            raise RefereeError(
                _("{sentence}{advice}", sentence=sentence(exc), advice=advice or exc.otherwise)
            ) from None
        if pic.doors is not None and reading.doors is not None:
            _check_doors(profile, pic, reading.doors)
        if unsure:
            notes.append(
                _n(
                    "{name}: {n} place unsure (glare?): {places}",
                    "{name}: {n} places unsure (glare?): {places}",
                    len(unsure),
                    name=pic.name,
                    places=place_names(game, unsure),
                )
            )
        conf = np.asarray(reading.confidence, np.float64)
        for r in range(conf.shape[0]):
            for c in range(conf.shape[1]):
                said_place = _(
                    "{name} {place} {read} {confidence}",
                    name=pic.name,
                    place=place_name(game, r, c),
                    read=_word(got[r][c]),
                    confidence=Decimal(f"{conf[r, c]:.2f}"),
                )
                worst.append((float(conf[r, c]), said_place))
    return Quality(_separation(profile, learned) + _worst(worst) + notes)


class _Disagree(RefereeError):
    """A calibration picture that does not read back as it should, and the places that disagree."""

    def __init__(self, said: Any, places: list[tuple[int, int]], otherwise: Any = "") -> None:
        super().__init__(said)
        self.places = places
        #: What the sentence ends with when the light does not explain the places.
        self.otherwise = otherwise


def _check_places(game: str, pic: Expected, got: list[list[str]], unsure: list[tuple[int, int]]) -> None:
    places = len(got) * len(got[0])
    if len(unsure) > MAX_UNSURE * places:
        raise _Disagree(
            _n(
                "the calibration picture {name} does not read back surely: {n} of {places} places is unsure ({where})",
                "the calibration picture {name} does not read back surely: {n} of {places} places are unsure ({where})",
                len(unsure),
                name=pic.name,
                places=places,
                where=place_names(game, unsure),
            ),
            unsure,
            _("; is it the picture asked for, the whole board in view and evenly lit?"),
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
            args = {"name": pic.name, "where": place_names(game, wrong)}
            args |= {"got": _word(got[r][c]), "want": _word(pic.cells[r][c])}
            raise _Disagree(
                _(
                    "the calibration picture {name} does not show what it should: at {where} it reads {got} where "
                    "{want} belongs (first place)",
                    **args,
                )
                if len(wrong) > 1
                else _(
                    "the calibration picture {name} does not show what it should: at {where} it reads {got} where "
                    "{want} belongs",
                    **args,
                ),
                wrong,
            )
    if pic.counts is not None:
        empty = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v == EMPTY]
        if empty:
            raise _Disagree(
                _n(
                    "the setup picture {name} is not a full setup: the place {places} is empty",
                    "the setup picture {name} is not a full setup: the places {places} are empty",
                    len(empty),
                    name=pic.name,
                    places=place_names(game, empty),
                ),
                empty,
            )
        seen = Counter(v for row in got for v in row if v not in (UNSURE, EMPTY))
        over = {k: n for k, n in seen.items() if n > pic.counts.get(k, 0)}
        short = {k: n for k, n in pic.counts.items() if seen.get(k, 0) + len(unsure) < n}
        if over or short:
            have = listed([literal(f"{seen.get(k, 0)} {k}") for k in pic.counts], conjunction=None)
            want = listed([literal(f"{n} {k}") for k, n in pic.counts.items()], conjunction=None)
            where = [(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v in over]
            args = {"name": pic.name, "have": have, "want": want}
            if where:
                letters = literal(", ".join(sorted(over)))
                said_where = place_names(game, where)
                raise _Disagree(
                    _(
                        "the setup picture {name} is not a full setup: it reads {have} ({letters} at {where}) where a "
                        "setup has {want}",
                        letters=letters,
                        where=said_where,
                        **args,
                    ),
                    where,
                )
            raise _Disagree(
                _("the setup picture {name} is not a full setup: it reads {have} where a setup has {want}", **args),
                where,
            )


#: Log brightness (natural log of the light) a place must stand above or below the places that read
#: right before the light is blamed: 0.3 is a third brighter or a quarter darker, more than a
#: board's own print varies.
LIGHT_STEP = 0.3


def light_advice(
    feats: np.ndarray,
    used: np.ndarray,
    places: list[tuple[int, int]],
    got: list[list[str]],
    cells: Sequence[Sequence[str | None]] | None,
    reflected: np.ndarray | None = None,
) -> Any:
    """What to change, as far as the light explains why `places` of a calibration picture disagree
    ("" when it does not): a clipped reflection of a lamp on them, or their colour brighter and paler
    (a lamp's reflection adds its light: the reader found them under or beside one, `reflected`, or
    they stand above the places of the picture that read right as what they should hold) or darker
    (a shadow) than those. Said as the change to make: the lamp, or the camera's angle."""
    cols = len(got[0])
    glare = bright = dark = 0
    for r, c in places:
        i = r * cols + c
        if used[i] < MIN_USED:
            glare += 1
            continue
        if reflected is not None and reflected[i]:
            bright += 1
            continue
        want = cells[r][c] if cells is not None else None
        if want is None or cells is None:
            continue
        ref = [k for k in range(len(feats)) if got[k // cols][k % cols] == want and cells[k // cols][k % cols] == want]
        if len(ref) < 2:
            continue
        centre = np.median(feats[ref], axis=0)
        rise = float(feats[i, 0] - centre[0])
        paler = float(np.hypot(*feats[i, 1:])) <= float(np.hypot(*centre[1:])) + 0.02
        bright += rise > LIGHT_STEP and paler
        dark += rise < -LIGHT_STEP
    parts = []
    if glare:
        parts.append(
            _(
                "a lamp is reflected there (the board shows clipped white): move the lamp, or turn the camera a "
                "little, so that its reflection leaves the board"
            )
        )
    elif bright:
        parts.append(
            _(
                "a lamp is reflected there (the board shows brighter and paler): move the lamp, or turn the camera a "
                "little, so that its reflection leaves the board"
            )
        )
    if dark:
        parts.append(_("a shadow lies there: move the lamp, or what casts the shadow, so that the board is evenly lit"))
    return _("; {advice}", advice=listed(parts, separator=";")) if parts else ""


def not_empty_places(
    model, feats: np.ndarray, looks: list[str], usable: np.ndarray, points: np.ndarray | None = None
) -> list[int]:
    """The places of an empty-board picture that hold something: see `empty_board_outliers`."""
    return empty_board_outliers(model, feats, looks, usable, points).pieces


@dataclass
class Outliers:
    """What `empty_board_outliers` found: places holding something, places lit by a reflection."""

    pieces: list[int]
    reflections: list[int]


def empty_board_outliers(
    model,
    feats: np.ndarray,
    looks: list[str],
    usable: np.ndarray,
    points: np.ndarray | None = None,
    clipped: np.ndarray | None = None,
) -> Outliers:
    """The places of an empty-board picture that do not look like the board's own material.

    On an empty board every place shows the board, so each look of an empty place (`looks`: the
    reference key of each place; Stay Alive has three) is one material under the room's light.
    Light varies smoothly across a board: a lamp nearer one side, a window, the broad reflection of
    a ceiling light in a varnished print (it brightens and pales a whole corner). So each feature
    of a look is fitted by a smooth surface over the board (`points`, the places' board
    coordinates: a quadratic where the look has places enough, else a plane or a constant),
    robustly, so that the outliers do not move it, and a place is judged by how far it stands from
    that surface in robust spreads (1.4826 x the median absolute deviation). Two ways to stand out
    follow from the physics of light:

    - chromaticity (`feats` columns 1-2), which shadows and the light's strength leave alone;
    - brightness (column 0) *above* the surface: a shadow only darkens.

    A place that stands out only as added light does is a reflection (`Outliers.reflections`), not
    refused but not learned from either: a white piece left there looks so too, and is found when
    the picture is read back. A reflection adds the lamp's light to the material's colour: brighter,
    its chromaticity moved straight towards white for a white lamp, or, for a lamp of any colour,
    the board's look plus an amount of the light the reflection's fainter edge shows (measured on
    the places it brightens within their look's spread, `_shared_light`; `clipped` (N, 3) marks the
    channels at the camera's ceiling, which only bound the light). Places under glare (not
    `usable`) are left out altogether. A look with fewer than `MIN_LOOK` usable places cannot be
    judged this way: its places are judged by `model` (the references known before): one read
    surely as a piece stands out."""
    looks_arr = np.asarray(looks)
    usable = np.asarray(usable, bool)
    n = len(feats)
    xy = np.zeros((n, 2)) if points is None else np.asarray(points, np.float64).reshape(n, 2)
    few = np.zeros(n, bool)
    trend = np.array(feats, np.float64, copy=True)
    spreads = np.ones((n, 2))
    trends = []  # each look's trend and spreads: a place under a reflection is one of the looks plus light
    for look in set(looks):
        mine = (looks_arr == look) & usable
        if mine.sum() < MIN_LOOK:
            few |= mine
            continue
        look_trend, look_spread = _unlit_trend(xy, feats, mine)
        trend[mine] = look_trend[mine]
        spreads[mine] = look_spread
        trends.append((look_trend, look_spread))
    res = feats - trend
    chroma = np.hypot(res[:, 1], res[:, 2])
    checked = usable & ~few
    out = checked & ((chroma > OUTLIER_SPREADS * spreads[:, 1]) | (res[:, 0] > OUTLIER_SPREADS * spreads[:, 0]))
    # More of the room's light: brighter, the chromaticity its look's.
    added = (res[:, 0] > 0) & (chroma <= OUTLIER_SPREADS * spreads[:, 1])
    clip = np.zeros((n, 3), bool) if clipped is None else np.asarray(clipped, bool).reshape(n, 3)
    for look_trend, look_spread in trends:  # white light (the paper's): a ceiling light, a white lamp
        added |= _explained(feats, look_trend, look_spread, clip, np.ones(3))
    # A lamp of any colour: the light the other lit places show (a piece is not explained by itself).
    lit = checked & (res[:, 0] > HALO_SPREADS * spreads[:, 0])
    for i in np.flatnonzero(out & ~added):
        others = lit.copy()
        others[i] = False
        light = _shared_light(feats, trend, clip, others)
        if light is None:
            continue
        for look_trend, look_spread in trends:
            one = slice(i, i + 1)
            added[i] |= bool(_explained(feats[one], look_trend[one], look_spread, clip[one], light)[0])
    odd = out & ~added
    if few.any():
        dec = model.decide(feats[few])
        index = np.flatnonzero(few)
        odd[index] = dec.sure & (np.array(dec.letters) != EMPTY)
    # Two channels at the camera's ceiling leave one channel of colour: the look plus enough light
    # reaches nearly any colour there, so such a place says nothing of the board (not learned from).
    lit = (out & added) | (checked & ~odd & (clip.sum(axis=1) >= 2))
    return Outliers([int(i) for i in np.flatnonzero(odd)], [int(i) for i in np.flatnonzero(lit)])


#: A place brighter than its look's trend by this many spreads, yet within the look, is lit by the
#: faint edge of a reflection: where the lamp's light is measured.
HALO_SPREADS = 2.0
#: Most rounds of fitting a look's trend again without the places its light is credited with.
UNLIT_ROUNDS = 5


def _spread(res: np.ndarray) -> np.ndarray:
    """The robust spreads (log brightness, chromaticity) of residuals (N, 3), at least `SPREAD_FLOOR`."""
    return np.maximum(
        1.4826 * np.array([np.median(np.abs(res[:, 0])), np.median(np.hypot(res[:, 1], res[:, 2]))]), SPREAD_FLOOR
    )


def _unlit_trend(xy: np.ndarray, feats: np.ndarray, mine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A look's smooth trend (`_smooth_trend`, at every place) and its spreads, fitted to the look's
    places `mine` that no reflection lights. A lamp's reflection is a bump of added light over a few
    neighbouring places, which a smooth surface fitted with them follows in part: the trend bends
    towards the bump, the spreads widen, and a piece in the bump passes for the board. So the trend
    starts as the look's median (which a bump over a minority of its places cannot move), and each
    round leaves out the places standing above it by `HALO_SPREADS` spreads (the light's) or off it by
    `OUTLIER_SPREADS` in colour or darkness (a piece, a place given the wrong look), then fits the
    smooth surface to the others, until the places left out stay the same."""
    trend = np.tile(np.median(feats[mine], axis=0), (len(feats), 1))
    base = mine
    spread = _spread(feats[base] - trend[base])
    for _round in range(UNLIT_ROUNDS):
        res = feats - trend
        unlit = mine & (res[:, 0] <= HALO_SPREADS * spread[0]) & (res[:, 0] >= -OUTLIER_SPREADS * spread[0])
        unlit &= np.hypot(res[:, 1], res[:, 2]) <= OUTLIER_SPREADS * spread[1]
        if unlit.sum() < MIN_LOOK or (_round > 0 and np.array_equal(unlit, base)):
            break
        base = unlit
        trend = _smooth_trend(xy, feats, base)
        spread = _spread(feats[base] - trend[base])
    return trend, spread


def _linear(feats: np.ndarray) -> np.ndarray:
    """The white-normalised light (linear BGR) of places' features (light adds before the camera's
    curve, `sheen_doubt.GAMMA`)."""
    return linear(colours_of(feats))


def _shared_light(feats: np.ndarray, trend: np.ndarray, clipped: np.ndarray, lit: np.ndarray) -> np.ndarray | None:
    """The colour (linear BGR, largest channel 1; NaN for a channel no lit place shows unclipped) of
    the light a reflection adds over the `lit` places (brighter than their look's trend): the light
    each gains over its look's trend, one colour for them all, each channel's share of the channel
    that gains the most taken as the median over the places weighted by their gain (a piece among
    them, or a place given another look, does not move it). None without two lit places showing it
    in two channels."""
    gain = _linear(feats[lit]) - _linear(trend[lit])
    seen = ~clipped[lit]
    if len(gain) < 2:
        return None
    strength = np.where(seen, np.maximum(gain, 0), 0.0).sum(axis=0)
    ref = int(np.argmax(np.where(seen.sum(axis=0) >= 2, strength, -1.0)))
    light = np.full(3, np.nan)
    for ch in range(3):
        both = seen[:, ref] & seen[:, ch] & (gain[:, ref] > 0)
        if both.sum() >= 2:
            light[ch] = _weighted_median(gain[both, ch] / gain[both, ref], gain[both, ref])
    if np.isnan(light[ref]) or np.isnan(light).sum() > 1:
        return None
    light = np.where(np.isnan(light), np.nan, np.maximum(light, 0.0))  # no light removes colour: below 0 is noise
    return light / np.nanmax(light)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The value at which half the weight lies on either side."""
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cum, cum[-1] / 2)])


def _explained(
    feats: np.ndarray, look_trend: np.ndarray, look_spread: np.ndarray, clipped: np.ndarray, light: np.ndarray
) -> np.ndarray:
    """(N,) places that show the look (its trend) plus some amount of `light` (`_lit_by`), within
    `OUTLIER_SPREADS` of the look's spreads. The look's spreads are its own light's variation: light
    added to it dilutes them (they shrink as its brightness grows), down to `SPREAD_FLOOR`, so that
    a dark look's wide spread (the open points' noisy chromaticity) lets no lit piece pass for it."""
    shown = _lit_by(feats, look_trend, clipped, light)
    dilution = np.exp(np.minimum(look_trend[:, :1] - shown[:, :1], 0.0))
    tol = OUTLIER_SPREADS * np.maximum(np.reshape(look_spread, (-1, 2)) * dilution, SPREAD_FLOOR)
    miss = shown - feats
    return (np.hypot(miss[:, 1], miss[:, 2]) <= tol[:, 1]) & (np.abs(miss[:, 0]) <= tol[:, 0])


def _lit_by(feats: np.ndarray, trend: np.ndarray, clipped: np.ndarray, light: np.ndarray) -> np.ndarray:
    """The features the camera would show of each place's look (its trend) plus the amount of
    `light` that best explains the place's unclipped channels (none below zero): a channel of
    unknown light shows what it shows where that is no darker than the look (light only adds), and
    a clipped channel shows its value where the look plus the light reaches it (it is only a bound)."""
    board = _linear(trend)
    seen = _linear(feats)
    known = ~np.isnan(light)
    colour = np.where(known, light, 0.0)
    use = known[None, :] & ~clipped
    gain = seen - board
    amount = np.maximum((np.where(use, gain * colour, 0.0)).sum(axis=1), 0.0) / np.maximum(
        np.where(use, colour * colour, 0.0).sum(axis=1), 1e-12
    )
    shown = board + amount[:, None] * colour
    shown = np.where(known[None, :], shown, np.maximum(seen, shown))
    shown = np.where(clipped, np.minimum(shown, seen), shown)
    return colour_features(np.clip(shown, 1e-9, None) ** (1 / GAMMA))


#: Places a look needs for a quadratic trend of the light over the board (else a plane, then a
#: constant): a few times the six terms, so that one piece left cannot bend it.
QUADRATIC_PLACES = 18
PLANE_PLACES = 8


def _smooth_trend(xy: np.ndarray, feats: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """Each feature of the places `mine` fitted by a smooth surface over the board (see
    `empty_board_outliers`), evaluated at every place: iteratively reweighted least squares with
    Tukey's biweight, so that places standing far out carry no weight."""
    span = np.ptp(xy[mine], axis=0) if mine.any() else np.ones(2)
    u = (xy - xy[mine].mean(axis=0)) / np.maximum(span / 2, 1e-9)
    count = int(mine.sum())
    if count >= QUADRATIC_PLACES:
        design = np.stack([np.ones(len(u)), u[:, 0], u[:, 1], u[:, 0] ** 2, u[:, 0] * u[:, 1], u[:, 1] ** 2], axis=1)
    elif count >= PLANE_PLACES:
        design = np.stack([np.ones(len(u)), u[:, 0], u[:, 1]], axis=1)
    else:
        design = np.ones((len(u), 1))
    trend = np.empty_like(feats, dtype=np.float64)
    a = design[mine]
    for j in range(feats.shape[1]):
        y = feats[mine, j].astype(np.float64)
        w = np.ones(len(y))
        for _round in range(6):
            coef, *_rest = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)
            r = y - a @ coef
            scale = max(1.4826 * float(np.median(np.abs(r))), 1e-6)
            z = r / (4.685 * scale)
            w = np.where(np.abs(z) < 1, (1 - z * z) ** 2, 0.0)
            w = np.sqrt(w)
        trend[:, j] = design @ coef
    return trend


def _check_doors(profile: Any, pic: Expected, doors: tuple[str, ...]) -> None:
    """The doors read against those the picture shows; a door read as unknown (the game's `doors`
    line's unknown token) is not a contradiction."""
    if pic.doors is None:  # no doors to check
        return
    unknown = unknown_door(profile.game)
    wrong = [k for k, (g, w) in enumerate(zip(doors, pic.doors)) if g != unknown and set(g) != set(w)]
    posts = [post_of(k, profile.cols) for k in wrong[:NAMED]]
    if wrong:
        names = listed(
            [
                _(
                    "{post}: {got} where {want} belongs",
                    post=post_words(post, registry.get(profile.game).place_name),
                    got=doors[k] or _("no wing"),
                    want=pic.doors[k],
                )
                for k, post in zip(wrong, posts)
            ],
            conjunction=None,
        )
        raise RefereeError(
            _(
                "the doors in the calibration picture {name} do not match the start position at {posts}",
                name=pic.name,
                posts=names,
            )
        )


def _separation(profile, learned: set[str] | None) -> list[Any]:
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
        distance = Decimal(f"{dist[i, j]:.1f}")
        parts.append(
            (float(dist[i, j]), _("{key} {distance} from {other}", key=ref.key, distance=distance, other=refs[j].key))
        )
    parts.sort(key=lambda t: t[0])
    limit = getattr(model, "max_distance", None)
    apart = listed([t for _d, t in parts], conjunction=None)
    if isinstance(limit, (int, float)):
        line = _(
            "classes apart (distance from each class to the nearest other one; the reader is sure up to {limit} "
            "from a class): {apart}",
            limit=limit,
            apart=apart,
        )
    else:
        line = _("classes apart (distance from each class to the nearest other one): {apart}", apart=apart)
    lines = [line]
    if learned is not None:
        kept = [r.key for r in refs if r.key not in learned]
        if kept:
            lines.append(_("not in these pictures, kept from before: {keys}", keys=literal(" ".join(kept))))
    return lines


def _worst(places: list[tuple[float, Any]]) -> list[Any]:
    places.sort(key=lambda t: t[0])
    shown = listed([t for _c, t in places[:NAMED]], separator=";")
    return [_("least sure places (picture, place, read, confidence): {places}", places=shown)]


def learned_keys(before, after) -> set[str]:
    """Class keys whose reference `after` differs from `before` (the classes a calibration taught)."""
    old = {r.key: r for r in model_for(before).refs}
    out = set()
    for ref in model_for(after).refs:
        o = old.get(ref.key)
        if o is None or not (np.allclose(o.mean, ref.mean) and np.allclose(o.cov, ref.cov)):
            out.add(ref.key)
    return out
