"""Per-game board reading: a frame in, a snapshot (or a clear reason why not) out.

`BoardReader.read` is the recipe, one named stage after another (as chesscog's `predict` reads):

1. *load* (`frames.as_bgr`): the frame checked, as 8-bit BGR;
2. *localise* (`localise.Localiser`): the homography of the last frame while it still fits the
   markers, else the markers found again (with the missed-marker search), or fixed corners;
3. *rectify* (`features.Rectifier`): the board warped once into a small upright image;
4. *light* (`light.PaperLight`): the markers' white paper, the light every place is read against;
5. *describe places* (`tops.PieceTops`, `colour_features`): each place's robust colour, relative
   to that light, leaving glare out, where each class's body would appear (a piece's top, a
   slot's floor: the camera's pose from the homography, `pose.CameraPose`);
6. *classify* (`classify.ClassModel`): the nearest learned look of each place, each compared at its
   own height, and whether it is sure (a patch mostly hidden by glare never is);
7. *hand check* (`hands.HandCheck`): an arm crossing the band of frame around the lattice;
8. *add-ons the game declares* (`VisionSpec.addons`, `VisionSpec.line_readers`): the glyph on
   every tile (`glyphs.read_glyphs`); each line a reader add-on reads (`LineReader`: the doors on
   the posts, `doors.DOOR_READER`), into the snapshot's lines by their key.

A hand, hidden markers or any unsure place give no snapshot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from controller.errors import RefereeError
from controller.games import registry
from controller.games.spec import DOORS_ADDON, GLYPHS_ADDON, LineReader
from controller.language import _, _n, listed
from controller.snapshot import EMPTY, Snapshot
from controller.vision.doors import DOOR_READER
from controller.vision.features import SATURATED, Rectifier, ring_offsets
from controller.vision.frames import MIN_FRAME_SIDE, as_bgr, frame_problem
from controller.vision.geometry import MARKERS_HIDDEN, LatticeGeometry
from controller.vision.glyph_model import MIN_CONTRAST
from controller.vision.glyphs import GlyphMemory, GlyphModel, read_glyphs, unread_words
from controller.vision.halo import HaloCheck
from controller.vision.hands import HAND, HandCheck
from controller.vision.light import (
    FrameLight,
    LightDoubt,
    PaperLight,
    channel_bounds,
    local_white,
    normalise,
    unclipped_white,
)
from controller.vision.localise import Localiser
from controller.vision.outline import Outlines
from controller.vision.prints import settle_by_print
from controller.vision.reflections import ReflectionCheck
from controller.vision.settings import DEFAULT_SIGMA, default_model, frame_colour, model_for, vision_settings
from controller.vision.sheen import reread
from controller.vision.sheen_doubt import REACH, read_under_tint
from controller.vision.tops import PieceTops, PlaceLooks, class_heights
from controller.vision.unlike import undone_band_shadow, undone_shadow, unlike_calibration

__all__ = [
    "DEFAULT_SIGMA",
    "HAND",
    "MIN_FRAME_SIDE",
    "MIN_USED",
    "PPP",
    "BoardReader",
    "Reading",
    "as_bgr",
    "default_model",
    "frame_problem",
    "model_for",
    "vision_settings",
]

#: Rectified pixels per pitch. 12 would make a Blockers! cold read about 7% cheaper (a smaller
#: warp and patches) but reads differently: every colour confidence moves and the paper white it
#: gives the glyph reader changes 2 of 13,622 glyphs' sureness (bench/reading_replay.py).
PPP = 16
MIN_USED = 0.66  # least fraction of a patch that must be free of glare
#: The line readers of this package, by the add-on name a game's `VisionSpec.addons` gives.
LINE_ADDONS: dict[str, LineReader] = {DOORS_ADDON: DOOR_READER}


@dataclass
class Reading:
    """What one frame showed. `snapshot` is None unless every place was read surely."""

    snapshot: Snapshot | None
    unsure: list[tuple[int, int]]
    confidence: np.ndarray
    open_points: set[tuple[int, int]] = field(default_factory=set)
    #: Why nothing was read; with a snapshot, what the light left unread of it (a glyph, and why).
    problem: str | None = None
    cells: list[list[str]] | None = None
    relocalised: bool = False
    #: The snapshot lines the reader add-ons read, by their key (Flipop's `doors`), None where unread.
    lines: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    #: Per unsure place, the letters its look does not rule out ("." empty); every letter where
    #: glare hides it. The service's rules may find that only one legal board fits them.
    candidates: dict[tuple[int, int], str] = field(default_factory=dict)

    @property
    def doors(self) -> tuple[str, ...] | None:
        """The `doors` line read (Flipop's door add-on), or None."""
        return self.lines.get("doors")


class BoardReader:
    """Reads one game's board from frames; keeps the homography between frames.

    `corners` (or, when not given, the profile's `corners:`) fix the lattice in the picture for a copy
    without markers; nothing is then looked for.
    """

    def __init__(self, profile, corners: np.ndarray | None = None) -> None:
        self.profile = profile
        self.game = profile.game
        # What the game's board shows besides colours (its own declaration, `controller.games.spec.VisionSpec`).
        self.vision = registry.get(self.game).vision
        self.reads_glyphs = GLYPHS_ADDON in self.vision.addons
        self.geom = g = LatticeGeometry.from_profile(profile)
        self.settings = vision_settings(profile)
        self.model = model_for(profile)
        self.light_doubt = LightDoubt(self.model)
        self.hand_check = bool(self.settings.get("hand_check", True))
        if corners is None and profile.get("corners") is not None:  # a copy without markers (profile `corners:`)
            corners = np.array(profile.get("corners"), np.float64)
        self.localiser = Localiser(g, corners)
        margin = g.marker_offset + 0.7 * g.marker_size if not self.localiser.fixed else 1.0
        self.rect = Rectifier(*g.extent(margin), PPP)
        self.light = PaperLight(g, self.rect, PPP, self.localiser.fixed, self.settings.get("white"))
        r_in, r_out = self.vision.sample
        self.paper_weights = self.light.weights(g.points())
        self.tops = PieceTops(
            g.points(),
            self.rect,
            ring_offsets(r_in * PPP, r_out * PPP),
            class_heights(self.vision, self.model),
            self.paper_weights,
        )
        self.outlines = Outlines(self.vision, self.model, g.points(), self.tops)
        self.reflections = ReflectionCheck(self.rect.to_px(g.points()), PPP, self.rect.size[::-1])
        self.hands = HandCheck(g, self.rect, PPP, self.light, self.profile.pitch_mm)
        # The frame band as a second meter of the light, for a lamp that mixes the channels (light.py).
        expected = None if self.localiser.fixed else frame_colour(profile)
        self.frame_light = FrameLight(expected, self.hands.ring, self.hands.weights, DEFAULT_SIGMA)
        # The frame band, of a known colour, also measures a reflection's halo beside it (halo.py).
        self.halo = None if expected is None else HaloCheck(self.hands, expected, PPP, self.rect.to_px(g.points()))
        self._last: tuple[np.ndarray, list[str], np.ndarray] | None = None
        self._reflection: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        # Shapes: glyphs per tile (Blockers!), doors per post (Flipop); see glyphs.py, doors.py.
        self.glyph_model = GlyphModel.from_profile(self.settings) if self.reads_glyphs else None
        self.glyph_memory = GlyphMemory()
        # Lines read by add-ons (`LineReader`): this package's the game names, and the game's own.
        addons = [LINE_ADDONS[name] for name in sorted(self.vision.addons) if name in LINE_ADDONS]
        self.line_readers = [(addon.line, addon.make(self)) for addon in (*addons, *self.vision.line_readers)]

    @property
    def h(self) -> np.ndarray | None:
        """The board-to-image homography of the last frame (None before the markers were found)."""
        return self.localiser.h

    @property
    def fixed(self) -> bool:
        """Whether the lattice is fixed by corners (a copy without markers)."""
        return self.localiser.fixed

    @property
    def check(self):
        """The markers' border test (`geometry.MarkerCheck`)."""
        return self.localiser.check

    def invalidate(self) -> None:
        """Forget the homography (the service loop knows the camera was moved)."""
        self.glyph_memory.forget()
        self.localiser.invalidate()

    def localise(self, frame: np.ndarray) -> tuple[str | None, bool]:
        """Make sure the homography fits this frame; (problem, whether it was re-fitted)."""
        return self.localiser.locate(frame)

    # ---------------------------------------------------------------- the recipe

    def read(self, frame: np.ndarray) -> Reading:
        frame = as_bgr(frame)  # load
        rows, cols = self.geom.rows, self.geom.cols
        problem, moved = self.localiser.locate(frame)  # localise
        if self.h is None or (problem is not None and problem == MARKERS_HIDDEN):
            return Reading(None, [], np.zeros((rows, cols)), problem=problem or MARKERS_HIDDEN)
        rect = self.rect.warp(frame, self.h)  # rectify
        white = self.light.white(rect)  # light
        looks = self._describe(rect, white, frame)  # describe places, where each class appears
        # A light the paper does not undo (a lamp that mixes the channels) moves the frame's colour;
        # a paper channel at full scale is only a bound on its light (what the places say of it is
        # fitted for reading them, and follows the places that clip with it: not a measurement).
        unlike = self.frame_light.unlike(rect, white, np.asarray(white) * 255 >= SATURATED)
        # A lamp that clips the paper in a channel: that channel's light measured on the places.
        white, paper_bound, looks = self._unclipped(white, looks)
        dec = self.model.decide_distances(looks.distances(self.model))  # classify
        # A place like no learned look may be one under a sheen of the room's light (sheen.py).
        per_class = [looks.of(r.key)[0] for r in self.model.refs]
        dec, shone = reread(self.model, dec, per_class)
        # Still between empty and a piece, with no piece's outline there: empty (outline.py).
        dec, outlined = self.outlines.settle(frame, self._placed(), dec, per_class)
        # In and beside a sheen, read as a look plus its light, of the colour fitted over it (sheen_doubt.py).
        before, clipped_anywhere = dec, np.any([m >= SATURATED for m in looks.medians.values()], axis=0)
        dec, tinted = read_under_tint(self.model, dec, shone, per_class, rows, cols, clipped_anywhere)
        # Light added leaves a print's contrast: an empty cell's mark is no piece's print, under the sheen and beside
        # a patch a reflection covers (prints.py); what the sheen or a print made unsure, white light (below) leaves.
        glare, read_by_tint = looks.chosen(dec.keys)[1] < MIN_USED, dec.sure.copy()
        dec = settle_by_print(frame, self.h, self.geom.points(), white, self.paper_weights, before, dec, tinted, glare)
        unsure_in_sheen = (tinted & before.sure | read_by_tint) & ~dec.sure
        # Read only by allowing the sheen's colour: its light over the glyph is not trusted either.
        won_in_sheen = tinted & dec.sure & ~(before.sure & (before.best == dec.best))
        by_sheen, shone = shone, shone | outlined | tinted  # read only by allowing a white sheen; or any
        (feats, used), med = looks.chosen(dec.keys), looks.chosen_medians(dec.keys)
        rel, clipped = normalise(med, white, self.paper_weights), med >= SATURATED
        # A patch more than a third covered by glare is not trusted, whatever it looks like.
        sure = dec.sure & (used >= MIN_USED)
        self._beside_reflections(rect, white, rel, clipped, used, dec, sure)
        halos = self._beside_edge_glare(rect, white, frame, dec, sure, won_in_sheen)
        sure &= ~unsure_in_sheen  # white light added does not settle what the sheen's colour or a print left open
        hidden = looks.hidden_above(dec.keys, MIN_USED)  # nor where a piece could stand hidden in glare
        sure, used = sure & ~hidden, np.where(hidden, 0.0, used)
        # Nor one that a clipped channel leaves open to a look of another meaning (the light).
        rival = self.light_doubt.rivals(rel, channel_bounds(med, paper_bound, self.paper_weights), dec.best, sure)
        sure &= rival < 0
        # Nor one near a shadow that reads as another meaning with the shadow's light given back (unlike.py).
        lit = sure.copy()  # what the light leaves sure; a shadow's doubt is local and says nothing of it
        read_at = np.where(tinted, np.maximum(before.distance, dec.distance), dec.distance)  # by the looks alone
        sheened = by_sheen | won_in_sheen
        sure &= ~undone_shadow(self.model, dec, sure, feats, rows, cols, REACH, sheened, read_at, per_class)
        # Local too (after `lit`): what a broad sheen of some colour may have made of a piece (outline.py).
        shown = by_sheen | outlined
        sure &= ~self.outlines.under_sheen(frame, self._placed(), dec, sure, per_class, shown, halos, REACH, clipped)
        # Many places beyond every learned look, of several meanings and of looks the frame shows nowhere by their
        # learned selves, say the same of the light where the frame cannot (too dark, or not known; unlike.py).
        unlike = unlike or unlike_calibration(self.model, dec, lit)
        if unlike:  # every colour is read in a light unlike the calibration's
            sure[:] = False
        conf = np.where(used >= MIN_USED, dec.confidence, 0.0).reshape(rows, cols)
        if problem is None and self.hand_check and self.hands.arm_seen(rect, white, frame, self.h):  # hand check
            problem = HAND
        elif problem is None and self.hand_check:  # a shadow the band shows: the places under it given back its light
            for kept in self.hands.shadow_kept:
                sure &= ~undone_band_shadow(self.model, dec, sure, feats, kept, per_class)
        self._last = (feats, dec.keys, sure & ~shone)  # a sheen's look is not followed
        if problem is not None:
            return Reading(None, [], conf, problem=problem, relocalised=moved)
        unsure = [divmod(int(i), cols) for i in np.flatnonzero(~sure)]
        open_points = {divmod(int(i), cols) for i in np.flatnonzero(dec.open & sure)}
        glyph_of = self._glyphs(frame, dec.letters, sure & ~won_in_sheen, white, halos) if self.reads_glyphs else {}
        lines = {key: read_line(frame, white) for key, read_line in self.line_readers}
        cells = _cells(dec.letters, sure, glyph_of, self.reads_glyphs, cols)
        snapshot = None
        candidates: dict[tuple[int, int], str] = {}
        if unsure:
            name = registry.get(self.game).place_name
            where = listed((name((r, c)) for r, c in unsure[:6]), conjunction=None)
            if len(unsure) > 6:
                where = _("{places} and {n} more", places=where, n=len(unsure) - 6)
            problem = _n(
                "{n} place could not be read surely: {places}",
                "{n} places could not be read surely: {places}",
                len(unsure),
                places=where,
            )
            if (rival >= 0).any() and not unlike:
                problem = _("{unsure}; {why}", unsure=problem, why=self._light_words(dec.best, rival, paper_bound))
            elif unlike:
                problem = _(
                    "{unsure}; the colours look unlike those the copy was calibrated under: "
                    "use a white light, or calibrate again under this one",
                    unsure=problem,
                )
            # In a light unlike the calibration's, what a look rules out says nothing: any letter.
            candidates = self._candidates(unsure, dec.possible, np.zeros_like(used) if unlike else used)
        else:
            snapshot = Snapshot(self.game, tuple(tuple(r) for r in cells), lines)
            problem = self._glyph_words(rect, glyph_of, white)
        return Reading(snapshot, unsure, conf, open_points, problem, cells, moved, lines, candidates)

    def _candidates(
        self, unsure: list[tuple[int, int]], possible: np.ndarray, used: np.ndarray
    ) -> dict[tuple[int, int], str]:
        """The letters each unsure place may show: those its look does not rule out, or any letter
        where glare covers too much of it (or of a taller piece's patch) to tell."""
        cols = self.geom.cols
        letters = [ref.letter for ref in self.model.refs]
        every = "".join(sorted(set(letters)))
        out = {}
        for r, c in unsure:
            i = r * cols + c
            hidden = used[i] < MIN_USED or possible.shape[0] <= i
            out[(r, c)] = every if hidden else "".join(sorted({letters[k] for k in np.flatnonzero(possible[i])}))
        return out

    def _unclipped(self, white: np.ndarray, looks: PlaceLooks) -> tuple[np.ndarray, np.ndarray, PlaceLooks]:
        """The paper white with a clipped channel measured on the places (`light.unclipped_white`),
        where it is still only a bound, and the places described relative to it."""
        if not (np.asarray(white) * 255 >= SATURATED).any():
            return white, np.zeros(np.shape(white), bool), looks
        first = self.model.decide_distances(looks.distances(self.model))
        med = looks.chosen_medians(first.keys)
        better, paper_bound = unclipped_white(med, white, self.paper_weights, self.model)
        if np.array_equal(better, white):
            return white, paper_bound, looks
        return better, paper_bound, looks.relit(better, self.paper_weights)

    def _beside_reflections(
        self, rect: np.ndarray, white: np.ndarray, rel: np.ndarray, clipped: np.ndarray, used: np.ndarray, dec, sure
    ) -> None:
        """Places under a lamp's reflection unsure, beside one read as added white light explains
        them (`reflections.ReflectionCheck.settle`); kept for `reflected`."""
        under = self.reflections.settle(self.model, rect, white, rel, clipped, used >= MIN_USED, dec, sure)
        self._reflection = (rect, white, under)

    @property
    def reflected(self) -> np.ndarray:
        """(places,) which places of the last frame read lie under a lamp's reflection or beside one
        (`reflections.ReflectionCheck.beside`): measured when asked (calibration's advice)."""
        if self._reflection is None:  # nothing read yet
            return np.zeros(self.geom.rows * self.geom.cols, bool)
        rect, white, under = self._reflection
        return self.reflections.beside(rect, under, self.model, white, self.paper_weights)

    def _beside_edge_glare(self, rect: np.ndarray, white: np.ndarray, frame: np.ndarray, dec, sure, fitted) -> dict:
        """Places beside a lamp's reflection outside the places, looked at again without its halo as
        the frame band measures it (`halo.HaloCheck.settle`); the halos, by place."""
        if self.halo is None:
            return {}
        samplers = self.tops.samplers(self._placed(), (frame.shape[1], frame.shape[0]))
        heights, weights, lit_read = self.tops.heights, self.paper_weights, self.reflections.settled
        return self.halo.settle(rect, white, samplers, heights, self.model, weights, dec, sure, lit_read, fitted)

    def _light_words(self, best: np.ndarray, rival: np.ndarray, paper_bound: np.ndarray) -> str:
        """Why the light leaves places unsure, in a player's words: the two colours it makes
        alike most often, and what to change."""
        refs = self.model.refs
        pairs = Counter(
            tuple(sorted((self._look_name(refs[int(best[i])]), self._look_name(refs[int(rival[i])]))))
            for i in np.flatnonzero(rival >= 0)
        )
        a, b = pairs.most_common(1)[0][0]
        if paper_bound.all(axis=-1).any():
            return _(
                "the light is too bright to tell {a} from {b}: dim the lamp or turn it away from the board", a=a, b=b
            )
        return _("the lamp is too coloured to tell {a} from {b}: use a white light", a=a, b=b)

    def _look_name(self, ref) -> str:
        """A look as players name it: its colour's name in the profile, or an empty place."""
        if ref.letter == EMPTY:
            return _("an open point") if ref.open else _("an empty place")
        named = (self.profile.get("classes") or {}).get(ref.letter) or {}
        return str(named.get("name", ref.letter)) if isinstance(named, dict) else ref.letter

    def _describe(self, rect: np.ndarray, white: np.ndarray, frame: np.ndarray, at_points: bool = False) -> PlaceLooks:
        """Every place's colour features relative to the paper white, and the glare-free fraction of its
        patch, at the height of each class (`tops.PieceTops`; with `at_points` also at their points)."""
        return self.tops.describe(rect, white, self._placed(), (frame.shape[1], frame.shape[0]), at_points)

    def _glyphs(
        self, frame: np.ndarray, letters: list[str], sure: np.ndarray, white: np.ndarray, halos: dict
    ) -> dict[int, str]:
        """The glyph (or '?') of every place holding a surely read tile; '?' where the halo of a
        reflection beside the board varies across the glyph as much as print differs from its tile
        (`glyph_model.MIN_CONTRAST`: it may draw or hide a stroke)."""
        tiles = [i for i, letter in enumerate(letters) if sure[i] and letter != EMPTY]
        if not tiles or self.glyph_model is None or self.h is None:
            return {}
        local = local_white(white, self.paper_weights[tiles])
        h = self.glyphs_homography(frame)
        # A lamp that clips the paper (and so the white print) in a channel: see `glyphs.lamp_hidden`.
        clipped = local >= SATURATED
        bound = clipped if clipped.any() else None
        res = read_glyphs(self.glyph_model, frame, h, self.geom.points()[tiles], local, self.glyph_memory, bound)
        points_px = self.rect.to_px(self.geom.points())
        varies = {i for i in halos if self.halo is not None and self.halo.varies(halos[i], points_px[i], MIN_CONTRAST)}
        return {i: "?" if i in varies else glyph for i, glyph in zip(tiles, res.glyphs)}

    def _glyph_words(self, rect: np.ndarray, glyph_of: dict[int, str], white: np.ndarray) -> str | None:
        """Why the light leaves glyphs unread, in a player's words (`glyphs.unread_words`), or None:
        a lamp that clips the paper white (and so the white print) at the tile, or a lamp's
        reflection (a clipped core within a pitch of it)."""
        unread = np.array(sorted(i for i, glyph in glyph_of.items() if glyph == "?"), int)
        if not len(unread):
            return None
        clipped = local_white(white, self.paper_weights[unread]) >= SATURATED
        lamp, rest = unread[clipped.any(axis=1)], unread[~clipped.any(axis=1)]
        glared = rest[self.reflections.cores_near(rect, rest)] if len(rest) else rest
        name = registry.get(self.game).place_name
        return unread_words(
            [name(divmod(int(i), self.geom.cols)) for i in lamp],
            bool(clipped.all(axis=1).any()),
            [name(divmod(int(i), self.geom.cols)) for i in glared],
        )

    def glyphs_homography(self, frame: np.ndarray) -> np.ndarray:
        """Where the glyphs printed on the tiles' tops are read: the plane of the tops (the pieces'
        declared height, `VisionSpec.solids`), seen through the camera's pose."""
        tops = [s.seen_at for s in self.vision.solids.values()]
        return self.tops.raised(self._placed(), (frame.shape[1], frame.shape[0]), max(tops, default=0.0))

    def doors_homography(self, frame: np.ndarray) -> np.ndarray:
        """Where the door wings are looked for: the plane halfway up them (`VisionSpec.door_height`),
        seen through the camera's pose; the board's own homography for doors without height."""
        size = (frame.shape[1], frame.shape[0])
        return self.tops.raised(self._placed(), size, self.vision.door_height / 2)

    def _placed(self) -> np.ndarray:
        """The board's homography, for the steps that run only once the board was found."""
        assert self.h is not None, "the places are looked at once the board was found"
        return self.h

    # ---------------------------------------------------------------- following the light

    def confirm(self, snapshot: Snapshot) -> None:
        """The service loop confirmed `snapshot` as a legal state: let the references follow
        slow light changes using the places of the last reading that agree with it."""
        if self._last is None or snapshot.game != self.game:
            return
        feats, keys, sure = self._last
        cols = self.geom.cols
        samples: dict[str, list[np.ndarray]] = {}
        letters = {r.key: r.letter for r in self.model.refs}
        for i, key in enumerate(keys):
            r, c = divmod(i, cols)
            if r >= snapshot.rows or c >= snapshot.cols:
                return
            if sure[i] and snapshot.cells[r][c][:1] == letters[key]:
                samples.setdefault(key, []).append(feats[i])
        self.model.follow({k: np.array(v) for k, v in samples.items()})

    def picture(self, frame: np.ndarray, ppp: float = PPP) -> np.ndarray | None:
        """`frame`'s board straightened, `ppp` pixels per place, the markers' margin included: the
        picture kept behind a verdict (None before the board was found in a picture)."""
        if self.h is None:
            return None
        r = self.rect
        return Rectifier(r.x0, r.y0, r.x1, r.y1, ppp).warp(as_bgr(frame), self.h)

    # ---------------------------------------------------------------- for calibration

    def paper_white(self, frame: np.ndarray) -> np.ndarray:
        """Localise and return the paper white (for calibration of shapes); raises when the
        markers are not found."""
        return self._located(frame)[1]

    def features(self, frame: np.ndarray) -> np.ndarray:
        """Per-place features of a frame at the places' own points (for calibration); raises when
        markers are not found."""
        return self.place_features(frame)[0]

    def place_features(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-place features of a frame at the places' own points and the glare-free fraction of
        each place's patch (a place below `MIN_USED` is one the reader would not trust); raises when
        markers are not found."""
        return self.place_looks(frame).at[0.0]

    def place_looks(self, frame: np.ndarray) -> PlaceLooks:
        """What every place shows where each class's body would appear (for calibration, which
        learns each class where the reader will compare it); raises when markers are not found."""
        rect, white, frame = self._located(frame)
        return self._describe(rect, white, frame, at_points=True)

    def frame_colour(self, frame: np.ndarray) -> list[float] | None:
        """The board frame's colour relative to the paper white (B, G, R) in this frame, as
        calibration stores it (`vision.frame`); None for a copy without markers or a frame too
        covered or glared to measure. Raises when the markers are not found."""
        rect, white, _frame = self._located(frame)
        seen = None if self.fixed else self.frame_light.colour(rect, white)
        return None if seen is None else [round(float(v), 4) for v in seen]

    def _located(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rectified board, its paper white and the frame as BGR; raises when the markers are
        not found."""
        frame = as_bgr(frame)
        problem, _moved = self.localiser.locate(frame)
        if self.h is None or problem == MARKERS_HIDDEN:
            raise RefereeError(problem or MARKERS_HIDDEN)
        rect = self.rect.warp(frame, self.h)
        return rect, self.light.white(rect), frame


def _cells(letters: list[str], sure: np.ndarray, glyph_of: dict[int, str], glyphs: bool, cols: int) -> list[list[str]]:
    """The board's cells: a place's letter, with its glyph on a tile, `?` where unsure."""
    cells = [[EMPTY] * cols for _ in range(len(letters) // cols)]
    for i, letter in enumerate(letters):
        r, c = divmod(i, cols)
        if not sure[i]:
            cells[r][c] = "?"
        elif letter != EMPTY and glyphs:
            cells[r][c] = letter + glyph_of.get(i, "?")
        else:
            cells[r][c] = letter
    return cells
