"""Vision calibration: learn a board's class references from pictures of it.

Each class is learned where the reader will compare it: a piece at its top, an empty look at its
floor or opening, as the camera's pose places them (`controller/vision/tops.py`).

Every function takes a profile and pictures and returns the profile with a new `vision:` entry
(the class references in the reader's feature space), ready for `save_profile`. Classes a
picture does not show keep their previous references.

- `learn_labelled`: pictures whose content is known (a snapshot per picture).
- `learn_full_setup` (`learn_colorpop_setup`): the full setup of known counts per colour
  (Colorpop: 19 tokens of each colour and 5 jokers), whose places are not known: clustering with
  known cluster sizes, after `learn_bottom_row` (one piece of each colour on the bottom row) has
  named the colours from the copy itself.
- `learn_start` (`learn_flipop_start`): the start position, which the profile knows (Flipop).
- `learn_empty`: an empty board (the empty class; for Stay Alive the open and closed points),
  refused when a place does not look like the board's other empty places (a piece left on it).
- `learn_pieces`: one piece of each colour on the top row from the left in the profile's class
  order (Blockers!, Stay Alive; `learn_empty_and_pieces` does both).

Which of these a game takes is its own declaration (`GameSpec.vision.calibration`).

`calibration/checks.py` then reads the pictures back and refuses a set that contradicts itself.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np

from calibration.checks import PlacesRefused, empty_board_outliers, place_names
from controller.errors import RefereeError
from controller.games import registry
from controller.games.spec import FULL_SETUP, ONE_OF_EACH, START_POSITION, GameSpec
from controller.language import _, _n, listed
from controller.snapshot import EMPTY, Snapshot, parse_snapshot
from controller.vision.classify import MIN_VAR, ClassModel, ClassRef, open_set_distance
from controller.vision.features import SATURATED
from controller.vision.reader import DEFAULT_SIGMA, MIN_USED, BoardReader, model_for
from controller.vision.reflections import lit_looks
from controller.vision.sheen import sheen_distances
from controller.vision.tops import PlaceLooks
from controller.words import game_name

SHADING = np.diag(np.array(DEFAULT_SIGMA) ** 2)
#: Most rounds of moving the empty looks to their places' middle (`_empty_keys`); two or three suffice.
EMPTY_LOOK_ROUNDS = 5


def _spec(profile) -> GameSpec:
    return registry.get(profile.game)


def games_that(test) -> Any:
    """The titles of the games for which `test(spec)` holds, for a sentence ("Blockers! and Stay Alive"),
    each as people know it in their language (Stay Alive is *Pièges* in French)."""
    return listed([game_name(spec.name) for spec in registry.with_capability(test)])


def _games_taking(picture: str) -> Any:
    return games_that(lambda spec: spec.calibrates(picture))


def with_model(profile, model: ClassModel):
    vision = dict(profile.get("vision") or {})
    vision.update(model.to_yaml())
    vision["version"] = 1
    return profile.with_overrides({"vision": vision}, source=profile.source)


def with_frame(profile, image: np.ndarray, corners=None):
    """The profile with the board frame's colour relative to the paper (`vision.frame`) as `image`
    shows it: the reader's meter of a lamp that mixes the channels (`controller.vision.light`).
    Unchanged for a copy without markers or a frame it cannot measure."""
    colour = BoardReader(profile, corners).frame_colour(image)
    if colour is None or not all(0 < v <= 2 for v in colour):
        return profile
    vision = dict(profile.get("vision") or {})
    vision["frame"] = colour
    return profile.with_overrides({"vision": vision}, source=profile.source)


def _looks(profile, image: np.ndarray, corners) -> PlaceLooks:
    """What every place of `image` shows where each class's body would appear: each class is
    learned where the reader will compare it (a piece's top, a slot's floor: `tops.py`)."""
    return BoardReader(profile, corners=corners).place_looks(image)


def _empty_keys(model: ClassModel, looks: PlaceLooks) -> list[str]:
    """Which look of 'empty' each place has (Stay Alive: orange or white slide, or open), each look
    compared where it appears."""
    empties = [r for r in model.refs if r.letter == EMPTY]
    if not empties:
        raise RefereeError(_("the profile's vision references have no class for an empty place"))
    # A lamp's or a ceiling light's reflection adds white light: it pales a slide's colour towards
    # another look's (a paler orange between the standard orange and white looks, which went to
    # either), so each look is compared allowing a sheen (`sheen.py`): a paled orange is orange
    # under a sheen, while no sheen makes white look orange.
    #
    # The standard looks only seed the assignment: the dark space under a real board is not black
    # (light gets in under it), so an open point can be nearer the standard white slide than the
    # standard black, and learning it as white would make white's look broad enough to take in
    # the open points of a later lamp-lit picture. So each look is moved to the middle of the
    # places given to it, and the places given again, until nothing moves (the board's own
    # groups, as in k-means seeded with the standard looks).
    per_class = [looks.of(r.key)[0] for r in empties]
    standard = ClassModel(empties)
    keys = _settle(empties, per_class, sheen_distances(standard, per_class).argmin(axis=1))
    # Seeding can fail whole: every open point may go to the white look at first (the open look
    # then has no place to move to), and the white look's group then holds two looks. A group that
    # falls into two parts further apart than the open-set distance of its look cannot be one look:
    # it is split, and the missing look takes the part of any split group it explains best (by the
    # standard looks as they are: a glare's paled group can split off a slide's look too).
    # An opening's look is told from a slide's by this picture's own scatter too (`_dark_part`).
    plain = looks.distances(standard)
    for missing in [k for k in range(len(empties)) if not np.any(keys == k)]:
        parts = [
            part
            for k in range(len(empties))
            for part in (_two_looks(empties[k], per_class[k], keys == k) or ())
            if k != missing
        ]
        if not parts and empties[missing].open:
            parts = [
                part
                for k in range(len(empties))
                if k != missing
                for part in [_dark_part(empties[k], per_class[k], keys == k)]
                if part is not None
            ]
        if parts:
            keys[min(parts, key=lambda part: float(plain[part, missing].mean()))] = missing
            # The look now has a place of its own: the board's groups settle again around it (the
            # same look split over two groups, an open point in the white slide's and four in the
            # orange's, comes together: 3D room 14, a lit olive table under the open points).
            keys = _settle(empties, per_class, keys)
    keys = _darkest_open(empties, per_class, keys, plain)
    # The groups are the board's own; which look each group is follows from the standard looks as
    # they are, with no sheen (taking white light off a white slide leaves it as dark as an
    # opening, so a sheen lets the white and open groups trade names): the naming of the groups
    # nearest the standard looks over all places.
    cost = np.array([[plain[keys == g, k].sum() for k in range(len(empties))] for g in range(len(empties))])
    names = min(permutations(range(len(empties))), key=lambda p: sum(cost[g, p[g]] for g in range(len(empties))))
    keys = np.array(names)[keys]
    return [empties[int(j)].key for j in keys]


def _settle(empties: list[ClassRef], per_class: list[np.ndarray], keys: np.ndarray) -> np.ndarray:
    """Each look moved to the middle of the places given to it and the places given again, until
    nothing moves (k-means from `keys`)."""
    for _round in range(EMPTY_LOOK_ROUNDS):
        moved = [
            ClassRef(r.key, r.letter, np.median(per_class[k][keys == k], axis=0), r.cov, r.open)
            if np.any(keys == k)
            else r
            for k, r in enumerate(empties)
        ]
        again = sheen_distances(ClassModel(moved), per_class).argmin(axis=1)
        if np.array_equal(again, keys):
            break
        keys = again
    return keys


def _darkest_open(empties: list[ClassRef], per_class: list[np.ndarray], keys: np.ndarray, plain) -> np.ndarray:
    """The open look's group made the board's darkest (`keys` mended, or as they were).

    Seeding allows a sheen, and taking white light off a white slide leaves it as dark as an
    opening: under a dim bluish light (3D room 17) the darker white slides were seeded open, and
    the openings, faintly tinted by the slides' edges around them, went to the orange look, half
    again as dark as the orange slides. An opening shows the space under the board, darker than any
    slide material under the same light; so when a slide look's group holds a darker part
    (`_dark_part`, judged in this picture's own scatter) darker than every place of the open look's
    group, that part is the openings: the open look takes it, its former places go to the slide
    look they are nearest as the standard looks are (no sheen), and the groups settle again."""
    opening = next((k for k, r in enumerate(empties) if r.open), None)
    if opening is None or not np.any(keys == opening):
        return keys
    light = per_class[opening][:, 0]
    open_darkest = light[keys == opening].min()
    parts = [
        part
        for k in range(len(empties))
        if k != opening
        for part in [_dark_part(empties[k], per_class[k], keys == k)]
        if part is not None and light[part].max() < open_darkest
    ]
    if not parts:
        return keys
    slides = [k for k in range(len(empties)) if k != opening]
    was_open = np.flatnonzero(keys == opening)
    keys = keys.copy()
    keys[was_open] = np.array(slides)[plain[was_open][:, slides].argmin(axis=1)]
    keys[min(parts, key=lambda part: float(light[part].mean()))] = opening
    return _settle(empties, per_class, keys)


def _two_looks(ref: ClassRef, feats: np.ndarray, mine: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The places `mine` (a mask) split into two groups (their indices) when they hold two looks:
    two-means in the look's own noise (its covariance), the groups' middles further apart than
    the open-set distance of that look; else None."""
    idx = np.flatnonzero(mine)
    if len(idx) < 2:
        return None
    model = ClassModel([ref])
    chol = np.linalg.cholesky(np.asarray(ref.cov, np.float64) + np.diag(model.floor))
    z = np.linalg.solve(chol, feats[idx].T).T  # whitened: unit noise in every direction
    far = np.linalg.norm(z[:, None] - z[None], axis=2)
    i, j = np.unravel_index(int(far.argmax()), far.shape)
    centres = z[[i, j]]
    side = np.zeros(len(idx), bool)
    for _round in range(EMPTY_LOOK_ROUNDS * 2):
        side = np.linalg.norm(z - centres[1], axis=1) < np.linalg.norm(z - centres[0], axis=1)
        if side.all() or not side.any():
            return None
        centres = np.stack([np.median(z[~side], axis=0), np.median(z[side], axis=0)])
    if np.linalg.norm(centres[1] - centres[0]) <= open_set_distance(feats.shape[1]):
        return None
    return idx[~side], idx[side]


def _dark_part(ref: ClassRef, feats: np.ndarray, mine: np.ndarray) -> np.ndarray | None:
    """The darker of two looks among the places `mine` (their indices), judged in this picture's
    own scatter; else None. A look's allowance (its covariance) holds the shading of every room
    and board; within one picture of an empty board the light is one, and an opening shows the
    space under the board, darker than the slide material beside it under the same light, however
    much light gets in under it (3D room 16: three open points at -1.1 log brightness, the white
    slides at -0.2, 3.9 of the look's allowance apart but a dozen of the picture's own spreads).
    The places are split in two by brightness (two-means); the parts are two looks when the empty
    stretch between them (the brighter part's darkest less the darker part's brightest) is wider
    than the open-set distance (one dimension) in their pooled robust spread (1.4826 x the median
    absolute deviation, at least the classifier's `MIN_VAR` and at most the look's own): light
    changing smoothly across the board spreads one look's places with no such stretch."""
    idx = np.flatnonzero(mine)
    if len(idx) < 2:
        return None
    light = feats[idx, 0]
    cut = (light.min() + light.max()) / 2
    for _round in range(EMPTY_LOOK_ROUNDS * 2):
        dark = light < cut
        if dark.all() or not dark.any():
            return None
        cut = (np.median(light[dark]) + np.median(light[~dark])) / 2
    middles = np.where(dark, np.median(light[dark]), np.median(light[~dark]))
    spread = 1.4826 * float(np.median(np.abs(light - middles)))
    spread = float(np.clip(spread, np.sqrt(MIN_VAR[0]), np.sqrt(float(np.asarray(ref.cov)[0][0]) + MIN_VAR[0])))
    if light[~dark].min() - light[dark].max() <= open_set_distance(1) * spread:
        return None
    return idx[dark]


def _fit(model: ClassModel, groups: dict[str, list[np.ndarray]]) -> ClassModel:
    refs = []
    by_key = {r.key: r for r in model.refs}
    for key, samples in groups.items():
        old = by_key.get(key)
        letter = old.letter if old else key
        refs.append(ClassModel.fit_ref(key, letter, np.array(samples), SHADING, old.open if old else False))
    return model.replaced(refs)


def _groups(model: ClassModel, looks: PlaceLooks, snapshot: Snapshot, named: list[str] | None = None) -> dict:
    """The features of every place under the class its label means, seen where that class appears;
    none of a place under a lamp's reflection (`reflections.lit_looks`: its colour is not its class's).
    An empty place's look is `named` (what the snapshot's own lines say: `VisionSpec.empty_looks`),
    else found in the picture's own groups (`_empty_keys`)."""
    groups: dict[str, list[np.ndarray]] = {}
    cols = snapshot.cols
    keys = {r.key for r in model.refs}
    empty_keys = named if named is not None else _empty_keys(model, looks)
    labelled = []
    for i, empty_key in enumerate(empty_keys):
        cell = snapshot.cells[i // cols][i % cols]
        letter = cell[:1]
        if letter == EMPTY:
            labelled.append(empty_key)
        elif letter in keys:
            labelled.append(letter)
        else:
            raise RefereeError(_("the snapshot holds {letter}, which this profile does not know", letter=repr(letter)))
    reflected = lit_looks(model, looks, labelled)
    for i, key in enumerate(labelled):
        if not reflected[i]:
            groups.setdefault(key, []).append(looks.of(key)[0][i])
    return groups


def learn_labelled(profile, pairs: list[tuple[np.ndarray, Snapshot]], corners=None):
    """References from pictures whose content is known."""
    model = model_for(profile)
    groups: dict[str, list[np.ndarray]] = {}
    for image, snap in pairs:
        if snap.game != profile.game or (snap.rows, snap.cols) != (profile.rows, profile.cols):
            raise RefereeError(
                _(
                    "a {game} snapshot of {size} cannot label a {board_game} board of {board_size}",
                    game=snap.game,
                    size=f"{snap.rows}x{snap.cols}",
                    board_game=profile.game,
                    board_size=f"{profile.rows}x{profile.cols}",
                )
            )
        seen = _looks(profile, image, corners)
        hook = _spec(profile).vision.empty_looks
        named = hook(profile, snap) if hook is not None else None
        found = _groups(model, seen, snap, named)
        if named is not None:
            _check_named(profile, model, seen, snap, named, found, _("the snapshot's orange: and white: lines"))
        for k, v in found.items():
            groups.setdefault(k, []).extend(v)
    return with_model(profile, _fit(model, groups))


def _check_named(
    profile, model: ClassModel, seen: PlaceLooks, snap: Snapshot, named: list[str], groups, source: Any
) -> None:
    """Refused where an empty place is read surely, by the looks `groups` (the picture's places
    under the looks the snapshot's own lines name, `VisionSpec.empty_looks`: Stay Alive's slides
    and holes) teach, as another empty look than its name: the slides' positions, or the copy's
    holes, are not the board's. Named so, no look needs to be on the board (a board with no open
    point) nor to stand apart in the picture's own groups (openings as bright as a slide). Places
    under glare or a lamp's reflection are not judged (their colour is not their look's). `source`
    names where the slides' positions came from, for the sentence."""
    learned = _fit(model, groups)
    dec = learned.decide_distances(seen.distances(learned))
    judged = (seen.chosen(named)[1] >= MIN_USED) & ~lit_looks(model, seen, named) & dec.sure
    empty = {r.key for r in learned.refs if r.letter == EMPTY}
    cells = [
        divmod(i, snap.cols)
        for i, key in enumerate(named)
        if judged[i] and snap.cells[i // snap.cols][i % snap.cols][:1] == EMPTY and dec.keys[i] in empty - {key}
    ]
    if cells:
        raise PlacesRefused(
            _(
                "at {places} the picture does not show what the slides' positions say (an opening, or the orange "
                "or white slide): check {source}, and the copy's holes (referee setup holes)",
                places=place_names(profile.game, cells),
                source=source,
            ),
            cells,
            _("does not show what the slides' positions say"),
        )


def learn_start(profile, image: np.ndarray, corners=None):
    """References from a picture of the profile's start position (Flipop), whose content is known."""
    start = profile.get("start")
    if not _spec(profile).calibrates(START_POSITION) or not start:
        raise RefereeError(
            _(
                "the start-position calibration is for {games}, whose profile has a start",
                games=_games_taking(START_POSITION),
            )
        )
    return learn_labelled(profile, [(image, parse_snapshot(profile.game, start))], corners)


#: The name this step had when Flipop was the only game with a start position.
learn_flipop_start = learn_start


def _capacity_assign(dist: np.ndarray, counts: list[int]) -> np.ndarray:
    """Assign places to clusters of known sizes: closest (place, cluster) pairs first."""
    n, k = dist.shape
    out = np.full(n, -1)
    left = list(counts)
    for flat in np.argsort(dist, axis=None):
        i, j = divmod(int(flat), k)
        if out[i] < 0 and left[j] > 0:
            out[i] = j
            left[j] -= 1
    return out


def setup_counts(profile) -> dict[str, int]:
    """How many tokens of each class a Colorpop setup holds (the profile's `tokens`)."""
    return dict(profile.get("tokens") or {"G": 19, "Y": 19, "O": 19, "B": 19, "P": 19, "J": 5})


def _not_full(profile, image: np.ndarray, looks: PlaceLooks, model: ClassModel, corners, name: Any) -> None:
    """Raise when some place of the setup picture looks like an empty slot (the nearest learned look,
    surely): as "not a full setup" where the reader, with every check it makes in play (a lamp's
    reflection or sheen, glare, a clipped channel), reads places surely empty; else the light leaves
    open whether a token is there (3D room 9: a green token at A1 in a green lamp's sheen, near an
    empty look the lamp made broad), and the sentence says so and what to change, not that a token
    is missing. Learning goes on in neither case: the counts could not be checked, and the room that
    light came from reads washed tokens wrong (room 9 calibrated anyway: 4 places wrong, sure)."""
    dec = model.decide_distances(looks.distances(model))
    nearest = [divmod(int(i), profile.cols) for i in np.flatnonzero(dec.sure & (np.array(dec.letters) == EMPTY))]
    if not nearest:
        return
    reading = BoardReader(profile, corners=corners).read(image)
    cells = reading.cells
    empty = (
        nearest if cells is None else [(r, c) for r, row in enumerate(cells) for c, v in enumerate(row) if v == EMPTY]
    )
    if empty:
        raise RefereeError(
            _n(
                "{name} is not a full setup: the place {places} is empty",
                "{name} is not a full setup: the places {places} are empty",
                len(empty),
                name=name,
                places=place_names(profile.game, empty),
            )
        )
    raise RefereeError(
        _n(
            "{name} cannot be checked as a full setup: {places} looks like an empty slot, but the light there (a "
            "lamp's reflection, glare or the lamp's colour) leaves it unsure; if a token is there, move the lamp or "
            "use a white light, so that the board is evenly lit, and take the picture again",
            "{name} cannot be checked as a full setup: {places} look like empty slots, but the light there (a "
            "lamp's reflection, glare or the lamp's colour) leaves them unsure; if tokens are there, move the lamp "
            "or use a white light, so that the board is evenly lit, and take the picture again",
            len(nearest),
            name=name,
            places=place_names(profile.game, nearest),
        )
    )


def learn_full_setup(profile, image: np.ndarray, corners=None, name: Any = None):
    """References from the full setup: 19 of each colour and 5 jokers (the profile's counts).

    Places that already read surely as empty (the empty class: learned from the empty board,
    else the standard edition's) show the picture is no setup: refused before anything is learned
    from it, since clustering would otherwise fold the empty slots into some colour; where only the
    light makes a place look empty, refused saying so (`_not_full`)."""
    name = name if name is not None else _("the setup picture")
    if not _spec(profile).calibrates(FULL_SETUP):
        raise RefereeError(
            _("the setup calibration with known token counts is for {games}", games=_games_taking(FULL_SETUP))
        )
    tokens = setup_counts(profile)
    total = sum(tokens.values())
    places = profile.rows * profile.cols
    if total != places:
        raise RefereeError(
            _(
                "the setup calibration needs a full board: the profile counts {total} tokens for {places} places",
                total=total,
                places=places,
            )
        )
    model = model_for(profile)
    looks = _looks(profile, image, corners)
    keys = list(tokens)
    by_key = {r.key: r for r in model.refs}
    missing = [k for k in keys if k not in by_key]
    if missing:
        raise RefereeError(_("no starting reference for the token class(es) {classes}", classes=", ".join(missing)))
    _not_full(profile, image, looks, model, corners, name)
    current = ClassModel([by_key[k] for k in keys])
    # A token under a lamp's reflection is washed towards a joker's grey: it would take a joker's
    # place in the counts. It is left out, and its class has one place to spare.
    clear = ~lit_looks(model, looks, [keys[0]] * places)
    for _round in range(6):
        assign = np.full(places, -1)
        assign[clear] = _capacity_assign(looks.distances(current)[clear], [tokens[k] for k in keys])
        refs = [
            ClassModel.fit_ref(k, by_key[k].letter, looks.of(k)[0][assign == j], SHADING) for j, k in enumerate(keys)
        ]
        current = ClassModel(refs)
    return with_model(profile, model.replaced(current.refs))


#: The name this step had when Colorpop was the only game calibrated from its full setup.
learn_colorpop_setup = learn_full_setup


def bottom_row_cells(profile) -> list[list[str]]:
    """The bottom-row picture that goes before a full setup: one piece of each colour on the bottom row
    from the left in the profile's class order (where tokens that fall come to rest), every other
    place empty."""
    letters = list(profile.letters)
    if len(letters) > profile.cols:
        raise RefereeError(_("there are more piece colours than places on the bottom row"))
    cells = [[EMPTY] * profile.cols for _ in range(profile.rows)]
    cells[-1] = letters + [EMPTY] * (profile.cols - len(letters))
    return cells


def learn_bottom_row(profile, image: np.ndarray, corners=None):
    """The piece classes named from this copy's own colours, one piece of each on the bottom row.

    A full setup's places are not known: its clusters of equal size are named after the nearest
    references, which for a copy whose colours differ from the standard edition's can be the wrong
    ones, and equal counts cannot catch that. Learned first, this picture gives the references the
    setup is then clustered from."""
    if not _spec(profile).calibrates(FULL_SETUP):
        raise RefereeError(
            _("the bottom-row picture goes with the full setup, for {games}", games=_games_taking(FULL_SETUP))
        )
    cells = bottom_row_cells(profile)
    return learn_labelled(profile, [(image, Snapshot(profile.game, tuple(tuple(row) for row in cells)))], corners)


def learn_empty(profile, empty: np.ndarray, corners=None, name: Any = None, switch_lines: Any = ()):
    """The empty class (each empty look, for Stay Alive) from a picture of the empty board.

    `switch_lines`: the snapshot lines the switch board reported when the picture was taken
    (`GameSpec.with_switches`: Stay Alive's slide positions), from which the game names each empty
    place's look (`VisionSpec.empty_looks`, with the copy's holes). Each place is then learned as
    the look they name, as `learn_labelled` does, and the picture refused where it shows another
    empty look; without them, the looks are found in the picture's own groups (`_empty_keys`),
    which need each look on the board and apart from the others.

    Checked first (`checks.empty_board_outliers`): a place that does not look like the board's
    other empty places of its look, once the light's smooth change across the board is allowed
    for, holds something (a piece left on the board), and the picture is refused before its look
    is learned as empty. Places under glare, and places only brightened and paled as a lamp's
    reflection does (or a white piece), are not learned from: the picture read back with what was
    learned judges them (`checks.check_pictures`)."""
    name = name if name is not None else _("the empty-board picture")

    model = model_for(profile)
    seen = _looks(profile, empty, corners)
    board = Snapshot(profile.game, tuple((EMPTY,) * profile.cols for _ in range(profile.rows)), switch_lines)
    hook = _spec(profile).vision.empty_looks
    named = hook(profile, board) if hook is not None and board.lines else None
    looks = named if named is not None else _empty_keys(model, seen)
    feats, used = seen.chosen(looks)
    usable = used >= MIN_USED
    if named is not None:  # first: a look named wrongly stands out from its look's others as a piece would
        source = _("the slide switches (the live page's switch test shows what they report)")
        _check_named(profile, model, seen, board, named, _grouped(feats, looks, usable), source)
    points = np.array([(c, r) for r in range(profile.rows) for c in range(profile.cols)], np.float64)
    found = empty_board_outliers(model, feats, looks, usable, points, seen.chosen_medians(looks) >= SATURATED)
    if found.pieces:
        cells = [divmod(i, profile.cols) for i in found.pieces]
        raise PlacesRefused(
            _(
                "{name} is not an empty board: at {places} it does not look like the board's other empty places; "
                "is a piece left there? Take every piece off and take the picture again",
                name=name,
                places=place_names(profile.game, cells),
            ),
            cells,
            _("does not look like the other empty places (a piece left there?)"),
        )
    # A place only brightened and paled, as a lamp's reflection does, is not learned from: were a
    # white piece left there, reading the picture back finds it (`checks.check_pictures`).
    usable[found.reflections] = False
    return with_model(profile, _fit(model, _grouped(feats, looks, usable)))


def _grouped(feats: np.ndarray, looks: list[str], usable: np.ndarray) -> dict[str, list[np.ndarray]]:
    """The usable places' features under their looks."""
    groups: dict[str, list[np.ndarray]] = {}
    for f, look, fits in zip(feats, looks, usable):
        if fits:
            groups.setdefault(look, []).append(f)
    return groups


def pieces_row(profile) -> list[str]:
    """The top row of the pieces picture: one piece of each colour from the left, then empty."""
    letters = profile.letters
    if len(letters) > profile.cols:
        raise RefereeError(_("there are more piece colours than places on the top row"))
    return list(letters) + [EMPTY] * (profile.cols - len(letters))


def learn_pieces(profile, pieces: np.ndarray, corners=None, name: Any = None):
    """The piece classes from one piece of each colour on the top row from the left.

    One sample per class cannot contradict itself, so the pieces are checked against the
    references known before: a piece read surely as another colour means the row is not in the
    profile's order (a copy whose colours differ is read unsure, and is not refused)."""
    name = name if name is not None else _("the pieces picture")
    if not _spec(profile).calibrates(ONE_OF_EACH):
        raise RefereeError(
            _("the one-piece-of-each-colour calibration is for {games}", games=_games_taking(ONE_OF_EACH))
        )
    row = pieces_row(profile)
    model = model_for(profile)
    looks = _looks(profile, pieces, corners)
    dec = model.decide_distances(looks.distances(model)[: len(row)])
    wrong = [c for c, want in enumerate(row) if dec.sure[c] and dec.letters[c] != want]
    if wrong:
        c = wrong[0]
        shows = _("no piece") if dec.letters[c] == EMPTY else dec.letters[c]
        values = {
            "name": name,
            "letters": " ".join(profile.letters),
            "places": place_names(profile.game, [(0, k) for k in wrong]),
            "shows": shows,
            "want": row[c],
        }
        if len(wrong) > 1:
            raise RefereeError(
                _(
                    "{name} does not show one piece of each colour in the profile's order ({letters} from the left "
                    "of the top row): at {places} it shows {shows} where {want} belongs (first place)",
                    **values,
                )
            )
        raise RefereeError(
            _(
                "{name} does not show one piece of each colour in the profile's order ({letters} from the left of "
                "the top row): at {places} it shows {shows} where {want} belongs",
                **values,
            )
        )
    return with_model(
        profile, _fit(model, {letter: [looks.of(letter)[0][i]] for i, letter in enumerate(row) if letter != EMPTY})
    )


def learn_empty_and_pieces(profile, empty: np.ndarray, pieces: np.ndarray, corners=None):
    """The empty board, then one piece of each colour on the top row from the left."""
    if not _spec(profile).calibrates(ONE_OF_EACH):
        raise RefereeError(_("the empty-board calibration is for {games}", games=_games_taking(ONE_OF_EACH)))
    return learn_pieces(learn_empty(profile, empty, corners), pieces, corners)
