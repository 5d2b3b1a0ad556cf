"""Guided calibration from the live camera: which pictures a game's calibration takes, each asked
for in a sentence (with a drawing of where to put what), captured once the picture is still and no
hand is over the board, then learned from and checked, and the profile saved under a name.

The live page (`controller/web/setup_api.py`) and `referee setup calibrate` both drive a
`GuidedCalibration`; neither knows any game: what each game's calibration needs is the one table
`picture_keys` (from the pictures the game declares, in the order they are asked for), and what each kind of picture is
(its sentence, its drawing, how it is learned and checked) is `_PICTURE_KINDS`.

Capture waits for a still picture with `controller/vision/gating.py`'s motion gate and refuses a
hand over the board with the board reader's hand check (`controller/vision/hands.py`); after
`WAIT_SECONDS` it gives up with a sentence saying why (moving, a hand, no markers, no picture).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from calibration import checks
from calibration import vision as cal
from calibration.camera import with_settings
from calibration.checks import place_name
from calibration.vision import bottom_row_cells, pieces_row, setup_counts
from calibration.vision_glyphs import ARRANGEMENT, learn_doors, learn_glyphs
from controller.errors import RefereeError, sentence
from controller.games import registry
from controller.games.spec import EMPTY_BOARD, FULL_SETUP, GLYPHS_ADDON, ONE_OF_EACH, START_POSITION
from controller.language import N_, Colour, Named, Text, _, listed
from controller.profile import save_profile
from controller.service.config import load_config
from controller.snapshot import EMPTY, Snapshot, format_snapshot, parse_snapshot
from controller.vision.gating import IDLE, STILL, MotionGate
from controller.vision.geometry import MARKERS_HIDDEN, project
from controller.vision.reader import HAND, BoardReader, as_bgr
from controller.words import game_name

#: The guided pictures (keys of `_PICTURE_KINDS`) for each calibration picture a game declares
#: (`VisionSpec.calibration`). A full setup is preceded by one token of each colour on the bottom
#: row: its clusters are then named from the copy's own colours, which equal counts cannot check.
PICTURES_OF: dict[str, tuple[str, ...]] = {
    EMPTY_BOARD: ("empty",),
    ONE_OF_EACH: ("pieces",),
    FULL_SETUP: ("bottom-row", "setup"),
    START_POSITION: ("start",),
}

#: Longest wait for a still picture without a hand, per capture (seconds).
WAIT_SECONDS = 10.0
#: Still frames in a row the motion gate wants before a picture is taken.
STILL_FRAMES = 3
#: Time between two looks at the camera while waiting (seconds).
POLL_SECONDS = 0.05
#: Least time between two reads of a still picture for a hand (a whole board read; a Pi does a
#: few a second at most while the waiting goes on).
READ_EVERY = 0.25
#: A place read back this unsurely (the reader's confidence, 0-1) is shown as doubted.
DOUBT_BELOW = 0.25
#: Most doubted places listed per picture.
MOST_DOUBTS = 12
#: Names a profile may be saved under: a file name anyone can type.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
#: Where profiles are saved, next to the config file.
PROFILES_FOLDER = "profiles"


@dataclass(frozen=True)
class Step:
    """One picture to take: `key` names what it is, `sentence` tells the player what to do,
    `drawing` (when the places are known) shows where to put what."""

    number: int
    key: str
    title: Text
    sentence: Text
    drawing: Snapshot | None
    #: The file `--images DIR` reads this picture from (or the same name with .jpg).
    file: str

    def drawing_text(self) -> str | None:
        return format_snapshot(self.drawing) if self.drawing is not None else None


@dataclass(frozen=True)
class Doubt:
    """A place the calibration doubts in one of its pictures: where it is, to draw on the picture."""

    #: The step whose picture it is.
    step: int
    row: int
    col: int
    place: str
    why: Any
    #: The place's centre in the picture, in pixels.
    x: float
    y: float


@dataclass
class Outcome:
    """What a finished calibration gives: the learned profile and its report, or why it was refused."""

    ok: bool
    profile: Any = None
    report: list[Any] = field(default_factory=list)
    problem: Any = None
    doubts: list[Doubt] = field(default_factory=list)


# --------------------------------------------------------------------------- the pictures of each kind
def _empty_cells(profile) -> list[list[str]]:
    return [[EMPTY] * profile.cols for _ in range(profile.rows)]


def _drawing(profile, cells: list[list[str]]) -> Snapshot:
    return Snapshot(profile.game, tuple(tuple(row) for row in cells))


def _piece_cell(profile, letter: str) -> str:
    """A piece of colour `letter` in a drawing; a game whose cells say more (Blockers!' glyph) gets
    the reader's 'not known' mark after the letter."""
    return letter + "?" if registry.get(profile.game).cells.parse_row is not None else letter


def _colour(profile, letter: str) -> Colour:
    return Colour(str(profile.classes[letter].get("name", letter)))


def _names(profile) -> Any:
    return listed(
        [_("{colour} ({letter})", colour=_colour(profile, k), letter=k) for k in profile.letters], conjunction=None
    )


def _counts(profile) -> Any:
    noun = registry.get(profile.game).piece_noun
    return listed(
        [
            _("{count} {colour}", count=n, colour=Colour(str(profile.classes[k].get("name", k)), noun, n))
            for k, n in setup_counts(profile).items()
        ],
        conjunction=None,
    )


def _empty_step(profile) -> tuple[Text, Text, Snapshot | None]:
    return (
        _("the empty board"),
        _(
            "Take every piece off the {game} board, so that the camera sees it empty; keep hands away.",
            game=game_name(profile.game),
        ),
        _drawing(profile, _empty_cells(profile)),
    )


def _pieces_step(profile) -> tuple[Text, Text, Snapshot | None]:

    row = pieces_row(profile)
    cells = _empty_cells(profile)
    cells[0] = [_piece_cell(profile, c) if c != EMPTY else EMPTY for c in row]
    if profile.get("holes"):
        sentence = _(
            "Put one piece of each colour on the top row, from the left: {colours}; leave every other place "
            "empty. Set the slides so that these points are closed (no hole under them), so that no piece "
            "falls through.",
            colours=_names(profile),
        )
    else:
        sentence = _(
            "Put one piece of each colour on the top row, from the left: {colours}; leave every other place empty.",
            colours=_names(profile),
        )
    return (_("one piece of each colour"), sentence, _drawing(profile, cells))


def _bottom_row_cells(profile) -> list[list[str]]:
    """One piece of each colour on the bottom row from the left (where tokens that fall come to rest)."""

    return bottom_row_cells(profile)


def _bottom_row_step(profile) -> tuple[Text, Text, Snapshot | None]:
    return (
        _("one piece of each colour"),
        _(
            "Put one piece of each colour at the bottom of the board, from the left: {colours}; leave every "
            "other place empty.",
            colours=_names(profile),
        ),
        _drawing(profile, _bottom_row_cells(profile)),
    )


def _glyphs_step(profile) -> tuple[Text, Text, Snapshot | None]:

    letter = profile.letters[0]
    cells = _empty_cells(profile)
    for glyph, (r, c) in ARRANGEMENT.items():
        cells[r][c] = letter + glyph
    symbols = profile.get("symbols") or []
    order = listed([Named(str(x), "symbol") for x in symbols], conjunction=None)
    return (
        _("the glyph arrangement"),
        _(
            "Lay out the 28 tiles of one colour as drawn (the drawing shows {colour}): the top row the digits 1 "
            "to 9, the second row the letters A to I, the third row the nine symbols in the profile's order "
            "({symbols}), the wild tile at the left of the fourth row; each tile upright in its square, every "
            "other place empty.",
            colour=_colour(profile, letter),
            symbols=order,
        ),
        _drawing(profile, cells),
    )


def _setup_step(profile) -> tuple[Text, Text, Snapshot | None]:
    return (
        _("the full setup"),
        _(
            "Set the board up for a new game: every place filled, {counts}, in any order; keep hands away.",
            counts=_counts(profile),
        ),
        None,
    )


def _start_step(profile) -> tuple[Text, Text, Snapshot | None]:
    start = profile.get("start")
    if not start:
        raise RefereeError(
            _("the {game} profile has no start position to calibrate from", game=game_name(profile.game))
        )
    return (
        _("the start position"),
        _("Set up the start position exactly as drawn: every piece and every door in its place."),
        parse_snapshot(profile.game, start),
    )


_PICTURE_KINDS: dict[str, Callable[[Any], tuple[Text, Text, Snapshot | None]]] = {
    "empty": _empty_step,
    "pieces": _pieces_step,
    "bottom-row": _bottom_row_step,
    "glyphs": _glyphs_step,
    "setup": _setup_step,
    "start": _start_step,
}


def picture_keys(game: str) -> tuple[str, ...]:
    """The pictures `game`'s calibration takes (a sentence for a game that has none)."""
    spec = registry.get(game)
    keys = tuple(key for kind in spec.vision.calibration for key in PICTURES_OF.get(kind, ()))
    if GLYPHS_ADDON in spec.vision.addons:
        keys += ("glyphs",)  # the glyph arrangement, after the tiles' colours are known
    if not keys:
        raise RefereeError(_("there is no guided calibration for {game} yet", game=game_name(game)))
    return keys


def steps_for(profile) -> list[Step]:
    """The pictures to take for `profile`'s game, in order, each with its sentence and drawing."""
    steps = []
    for number, key in enumerate(picture_keys(profile.game), start=1):
        title, sentence, drawing = _PICTURE_KINDS[key](profile)
        steps.append(Step(number, key, title, sentence, drawing, f"{key}.png"))
    return steps


# --------------------------------------------------------------------------- capture
class CaptureTimeout(RefereeError):
    """No usable picture came in time; the sentence says why."""


def wait_for_still(
    read: Callable[[], np.ndarray | None],
    profile,
    *,
    timeout: float | None = None,
    poll: float = POLL_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> np.ndarray:
    """The first picture from `read()` that is still (the motion gate) with the board's markers in
    view and no hand over the board (the reader's hand check); `CaptureTimeout` after `timeout`.

    `read()` gives the newest picture (the same array object again means no new picture yet);
    `timeout` None waits `WAIT_SECONDS`."""

    timeout = WAIT_SECONDS if timeout is None else timeout
    gate = MotionGate(settle=STILL_FRAMES)
    reader = BoardReader(profile)
    seen: set[str] = set()  # why pictures were not taken: the most telling one is said at the end
    previous = None
    read_at = -np.inf
    deadline = clock() + timeout
    while clock() < deadline:
        frame = read()
        if frame is None or frame is previous:
            sleep(poll)
            continue
        first, previous = previous is None, frame
        state = gate.update(frame).state
        if state not in (STILL, IDLE) or (state == IDLE and clock() - read_at < READ_EVERY):
            if state not in (STILL, IDLE) and not first:  # the first picture has nothing to compare with yet
                seen.add("moving")
            sleep(poll)
            continue
        read_at = clock()
        problem = reader.read(frame).problem
        if problem is not None and problem.startswith(HAND):
            seen.add("hand")
        elif problem == MARKERS_HIDDEN:
            seen.add("markers")
        else:
            return frame
        sleep(poll)
    why = next((w for w in ("hand", "markers", "moving") if w in seen), "no picture")
    seconds = float(timeout) if timeout is not None else 0.0
    sentences = {
        "no picture": N_("the camera gave no new picture in {seconds} s: is it plugged in and is the referee running?"),
        "moving": N_(
            "the picture did not keep still for {seconds} s: keep hands off the board and the camera still, then "
            "capture again"
        ),
        "hand": N_(
            "no picture was taken in {seconds} s: a hand or an object is over the board; take it away, then capture "
            "again"
        ),
        "markers": N_(
            "the board's four corner markers were not in view for {seconds} s: aim the camera so that the whole "
            "board is seen, then capture again"
        ),
    }
    raise CaptureTimeout(Text(sentences[why], {"seconds": seconds}))


def switch_lines(game: str, switches: Any) -> Any:
    """The snapshot lines the switch board reports now (`GameSpec.with_switches`: Stay Alive's slides),
    or () where the game has none or the switches cannot say (none connected, the link down, a slide
    faulty): the picture's own groups then tell each empty point's look (`cal.learn_empty`)."""
    merge = registry.get(game).with_switches
    if merge is None or switches is None:
        return ()
    state = switches.latest()
    if state is None or not state.link_ok or not switches.healthy() or state.faults or None in state.positions:
        return ()
    return merge(Snapshot(game, ()), tuple(state.positions)).lines


# --------------------------------------------------------------------------- learning and checking
class GuidedCalibration:
    """One guided calibration of `profile`'s game: pictures taken step by step, then `finish()`."""

    def __init__(self, profile) -> None:
        self.profile = profile
        self.steps = steps_for(profile)
        self.pictures: dict[str, np.ndarray] = {}
        self.switch_lines: dict[str, Any] = {}

    def step(self, number: object) -> Step:
        """Step `number` (counted from 1), whatever the page sent: anything else is refused in words."""
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self.steps):
            raise RefereeError(_("the steps are numbered 1 to {steps}", steps=len(self.steps)))
        return self.steps[number - 1]

    def take(self, number: int, image: np.ndarray, switch_lines: Any = ()) -> Step:
        """Keep the picture of step `number`, with the snapshot lines the switch board reported as
        it was taken (Stay Alive's slides: they name each empty point's look, `cal.learn_empty`)."""
        step = self.step(number)
        self.pictures[step.key] = image
        self.switch_lines[step.key] = switch_lines
        return step

    def _learn(self, step: Step, profile, expected: list[checks.Expected]):
        """`profile` learned from step's picture (`_LEARN`), what it must read back as appended to `expected`."""
        image, lines = self.pictures[step.key], self.switch_lines.get(step.key, ())
        return _LEARN[step.key](profile, image, _name(step), expected, lines)

    def missing(self) -> list[Step]:
        return [s for s in self.steps if s.key not in self.pictures]

    def check(self, number: int) -> None:
        """Check the picture just taken for step `number`, so a wrong picture is refused when it is
        taken, named as that step's, not at the end under another's name: the pictures so far, learned
        from in order, must take this one (an empty board with pieces on it is refused by its learning)
        and read it back as what it should show. Raises `RefereeError` (or `checks.PlacesRefused`, with
        the places); while a step before it is not taken yet, the check waits for `finish`."""

        self.step(number)
        if any(s.key not in self.pictures for s in self.steps[: number - 1]):
            return
        profile = self.profile
        expected: list[checks.Expected] = []
        for earlier in self.steps[:number]:
            profile = self._learn(earlier, profile, expected)
        checks.check_pictures(profile, expected[-1:], learned=checks.learned_keys(self.profile, profile))

    def forget(self, number: int) -> None:
        """Drop the picture of step `number` (refused by `check`)."""
        self.pictures.pop(self.step(number).key, None)

    def finish(self) -> Outcome:
        """Learn from the pictures and read them back (`calibration/checks.py`): the outcome is the
        learned profile with its quality report, or the sentence that refused it; both with the
        places doubted in each picture."""
        missing = self.missing()
        if missing:
            raise RefereeError(
                _("take the picture of step {number} ({title}) first", number=missing[0].number, title=missing[0].title)
            )

        profile = self.profile
        expected: list[checks.Expected] = []
        for step in self.steps:
            try:
                profile = self._learn(step, profile, expected)
            except checks.PlacesRefused as exc:  # the places are drawn on the picture
                return Outcome(
                    False,
                    problem=sentence(exc),
                    doubts=_placed(
                        profile, self.pictures[step.key], step.number, [(r, c, exc.why) for r, c in exc.places]
                    ),
                )
            except RefereeError as exc:
                return Outcome(False, problem=sentence(exc))
        numbers = {_name(s): s.number for s in self.steps}
        doubts = [d for pic in expected for d in _doubts(profile, pic, numbers[pic.name])]
        try:
            quality = checks.check_pictures(profile, expected, learned=checks.learned_keys(self.profile, profile))
        except RefereeError as exc:
            return Outcome(False, profile=profile, problem=sentence(exc), doubts=doubts)
        return Outcome(True, profile=profile, report=quality.lines, doubts=doubts)


def _name(step: Step) -> Text:
    return _("{number} ({title})", number=step.number, title=step.title)


def _picture(name: Any) -> Text:
    """`the picture 2 (one piece of each colour)`: a picture as the sentences about it name it."""
    return _("the picture {name}", name=name)


def _learn_empty(profile, image, name, expected, switch_lines=()):

    profile = cal.learn_empty(profile, image, name=_picture(name), switch_lines=switch_lines)
    expected.append(checks.Expected(name, image, _empty_cells(profile)))
    return profile


def _learn_pieces(profile, image, name, expected, switch_lines=()):

    profile = cal.learn_pieces(profile, image, name=_picture(name))
    expected.append(checks.Expected(name, image, [cal.pieces_row(profile)] + _empty_cells(profile)[1:]))
    return profile


def _learn_bottom_row(profile, image, name, expected, switch_lines=()):
    """The colours named from one piece of each on the bottom row: a later setup picture, whose places
    are not known, is then clustered from this copy's own colours rather than the standard edition's
    (which names the clusters wrongly for a copy whose colours differ enough)."""

    profile = cal.learn_bottom_row(profile, image)
    expected.append(checks.Expected(name, image, _bottom_row_cells(profile)))
    return profile


def _learn_glyphs(profile, image, name, expected, switch_lines=()):

    profile = learn_glyphs(profile, [image])
    cells: list[list[str | None]] = [list(row) for row in _empty_cells(profile)]
    for r, c in ARRANGEMENT.values():
        cells[r][c] = None  # a tile of the colour the player chose
    expected.append(checks.Expected(name, image, cells))
    return profile


def _learn_setup(profile, image, name, expected, switch_lines=()):

    profile = cal.learn_colorpop_setup(profile, image, name=_picture(name))
    expected.append(checks.Expected(name, image, counts=cal.setup_counts(profile)))
    return profile


def _learn_start(profile, image, name, expected, switch_lines=()):

    profile = cal.learn_flipop_start(profile, image)
    start = parse_snapshot(profile.game, profile.get("start"))
    if start.line("doors") is not None:
        profile = learn_doors(profile, image, name=_picture(name))
    expected.append(
        checks.Expected(name, image, [[c[:1] for c in row] for row in start.cells], doors=start.line("doors"))
    )
    return profile


#: How each kind of picture is learned from; each appends what the picture must read back as.
_LEARN = {
    "empty": _learn_empty,
    "pieces": _learn_pieces,
    "bottom-row": _learn_bottom_row,
    "glyphs": _learn_glyphs,
    "setup": _learn_setup,
    "start": _learn_start,
}


def _placed(profile, image: np.ndarray, step: int, places: list[tuple[int, int, str]], reader=None) -> list[Doubt]:
    """Doubted places (row, column, why) of one picture, each where it is in the picture."""

    if reader is None:
        reader = BoardReader(profile)
        if reader.localise(as_bgr(image))[0] == MARKERS_HIDDEN:
            return []
    if reader.h is None:
        return []
    points = project(reader.h, reader.geom.points())
    return [
        Doubt(
            step,
            r,
            c,
            place_name(profile.game, r, c),
            why,
            float(points[r * profile.cols + c][0]),
            float(points[r * profile.cols + c][1]),
        )
        for r, c, why in places[:MOST_DOUBTS]
    ]


def placed_doubts(profile, image: np.ndarray, step: int, places: list[tuple[int, int, str]]) -> list[Doubt]:
    """Doubted places (row, column, why) of one picture, each where it is in the picture."""
    return _placed(profile, image, step, places)


def _doubts(profile, pic, step: int) -> list[Doubt]:
    """Places of one picture read back unsurely, or as something else than the picture shows."""

    reader = BoardReader(profile)
    reading = reader.read(pic.image)
    if reading.cells is None or reader.h is None:
        return []
    conf = np.asarray(reading.confidence, np.float64)
    found: list[tuple[float, int, int, str]] = []
    for r, row in enumerate(reading.cells):
        for c, cell in enumerate(row):
            got = cell[:1]
            want = pic.cells[r][c] if pic.cells is not None else None
            if got == "?":
                found.append((-1.0, r, c, _("read unsurely")))
            elif want is not None and got != want:
                found.append((-0.5, r, c, _("reads {got} where {want} belongs", got=_word(got), want=_word(want))))
            elif conf[r, c] < DOUBT_BELOW:
                confidence = Decimal(f"{conf[r, c]:.2f}")
                found.append(
                    (float(conf[r, c]), r, c, _("read with little confidence ({confidence})", confidence=confidence))
                )
    found.sort(key=lambda item: item[:3])
    return _placed(profile, pic.image, step, [(r, c, why) for _, r, c, why in found], reader)


def _word(letter: str) -> Any:
    return _("no piece") if letter == EMPTY else letter


# --------------------------------------------------------------------------- saving and switching
class ProfileNameError(RefereeError):
    """A name a profile cannot be saved under (not a plain file name, or taken)."""


def profile_path(config_path: Path, name: object) -> Path:
    """Where the profile `name` is saved: `profiles/NAME.yaml` beside the config file."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ProfileNameError(
            _(
                "{name} cannot name a profile: use 1 to 40 letters, digits, '-' or '_', starting with a letter or "
                "digit (e.g. my-colorpop)",
                name=repr(name),
            )
        )
    return Path(config_path).parent / PROFILES_FOLDER / f"{name}.yaml"


def with_camera_settings(profile, source: Any):
    """The profile with the exposure, gain and white balance the camera locked while the pictures
    were taken (`rig.md`: locked after calibration, so play sees the colours calibration learned),
    as `referee calibrate --camera` stores them. `source` may wrap the camera (the service's sensor
    and its watchdog each hold the next one as `.source`). Unchanged for a camera with nothing to
    lock (the simulated one, picture files) or with `camera: {lock: false}`."""
    for _attempt in range(4):
        if source is None:
            break
        settings_of = getattr(source, "camera_settings", None)
        if callable(settings_of):
            settings = settings_of()
            return with_settings(profile, settings) if settings else profile
        source = getattr(source, "source", None)
    return profile


def save_and_switch(profile, name: object, config_path: Path, overwrite: bool = False) -> Path:
    """Save `profile` as `profiles/NAME.yaml` beside the config and point the config's `profile:` at it.

    A name already taken is refused unless `overwrite`; the config is checked after the change and
    put back as it was when it no longer loads."""

    config_path = Path(config_path)
    path = profile_path(config_path, name)
    if path.exists() and not overwrite:
        raise ProfileNameError(
            _(
                "a profile named {name} exists already ({path}): choose another name, or overwrite it",
                name=repr(name),
                path=str(path),
            )
        )
    config = load_config(config_path)
    if config.setup.game != profile.game:
        raise RefereeError(
            _(
                "{config} is a {game} config; this profile is for {other}",
                config=str(config_path),
                game=game_name(config.setup.game),
                other=game_name(profile.game),
            )
        )
    before = config_path.read_text("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    save_profile(profile, path)
    config_path.write_text(with_profile_line(before, f"{PROFILES_FOLDER}/{name}.yaml"), "utf-8")
    try:
        load_config(config_path)
    except RefereeError:
        config_path.write_text(before, "utf-8")
        raise
    return path


def with_profile_line(text: str, value: str) -> str:
    """A config file's text with its top-level `profile:` set to `value`, its comments kept."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        match = re.match(r"^profile:([^#\n]*)(#.*)?(\r?\n)?$", line)
        if match:
            comment = match.group(2) or ""
            padding = " " * max(1, len("profile:") + len(match.group(1)) - len(f"profile: {value}")) if comment else ""
            end = i + 1
            while end < len(lines) and lines[end][:1] in (" ", "\t"):  # a block the old value spanned
                end += 1
            lines[i:end] = [f"profile: {value}{padding}{comment}{match.group(3) or chr(10)}"]
            return "".join(lines)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return "".join(lines) + f"profile: {value}\n"
