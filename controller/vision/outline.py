"""Stage *outline*: a place its colour leaves between empty and a piece is empty when no piece's
outline is there.

Two looks can differ only in brightness (Colorpop's empty slot, a dark grey, and its joker, a pale
grey): a lamp's sheen on the empty slot's back or a shadow on the joker makes them alike, and the
colour stays unsure (`sheen.py`). A piece, though, is a body with an edge: where the piece's face
is seen (a quarter of its width off its middle), and just beyond its edge on the same line across
the place (half its width up and down, between it and its neighbours in the place's row), two
different surfaces show, at different depths, and differ in colour or brightness. An empty place
shows one surface at both (the slot's back, the board's floor), its light changing only slowly.
So a place still unsure between one empty look and pieces with bodies (`VisionSpec.solids`),
whose colour across every such piece's edge changes less than `NO_OUTLINE`, is read empty.
A place where an edge shows stays unsure: the edge is not a sure sign of which piece.
A piece read surely whose colour an empty look under a sheen explains too (a joker's pale grey; on
3D renders of rooms 4-5, six empty slots under a lamp's sheen were read J, sure) stays sure only
where its edge is seen; elsewhere it is first left unsure, and then read as above.
There an edge is a step: a small lamp's glow centred on an empty slot also falls off from the middle
outward, so the change a smooth light explains (the face's own fall-off from its middle to its rim,
carried on to the points beyond the edge: `SMOOTH`) is not counted. Only for pieces of one colour:
a ball's face is shaded darker towards its rim whatever the light, and a glyph's print varies
across a tile's face.
"""

from __future__ import annotations

import numpy as np

from controller.games.spec import GLYPHS_ADDON, SPHERE
from controller.snapshot import EMPTY
from controller.vision.classify import ClassModel, Decision
from controller.vision.features import SATURATED, colour_features, colours_of
from controller.vision.sheen import SHARES, sheen_distances, washed
from controller.vision.sheen_doubt import GAMMA, linear

#: Change in every colour channel (natural log) across a piece's edge below which no piece is
#: there. On 3D renders, one sample per point: Colorpop's tokens against their slot's back 0.28-1.67
#: (jokers 0.67 or more), empty slots 0.01-0.38 (0.12 at the 95th percentile), 0.07 at most under
#: the lamp's sheen.
NO_OUTLINE = 0.1
#: How many of an empty look's brightness spreads darker it may be seen under added light (a place
#: darker than that in some channel of light is no empty place plus light).
DARKER = 2.0
#: Small patches (pitches) around each point, whose median brightness is taken.
SPREAD = np.array([-0.03, 0.0, 0.03])
#: A smooth light (a lamp's glow centred on a place) falls off with the square of the distance from
#: its middle near it: seen from the face's middle, its change at the outside points (half a width
#: up and down) is four times its change at the rim points (a quarter of a width).
SMOOTH = 4.0


class Outlines:
    """Reads empty the places left between one empty look and pieces with no outline there."""

    def __init__(self, vision, model: ClassModel, points: np.ndarray, tops) -> None:
        self.model = model
        self.points = points
        #: The lattice's rows and columns (its points row by row)
        self.shape = (len(np.unique(points[:, 1])), len(np.unique(points[:, 0])))
        self.tops = tops
        self.empty = [k for k, ref in enumerate(model.refs) if ref.letter == EMPTY]
        self._raised: dict[tuple, np.ndarray] = {}
        #: Per class index with a body: (height its face is seen at, its width).
        self.bodies: dict[int, tuple[float, float]] = {}
        #: The class indices of pieces that lie flat (a token, a tile: not a ball).
        self.flat: list[int] = []
        for k, ref in enumerate(model.refs):
            solid = vision.solids.get(ref.letter)
            if ref.letter != EMPTY and solid is not None:
                self.bodies[k] = (float(solid.seen_at), float(solid.size))
                if solid.shape != SPHERE:
                    self.flat.append(k)
        #: The class indices of pieces that are balls (they mirror a broad sheen only as a spot).
        self.balls = [k for k in self.bodies if k not in self.flat]
        #: The flat pieces whose face is one colour, whose fall-off across it is the light's (`SMOOTH`):
        #: not a ball (shaded towards its rim), nor a tile printed with a glyph.
        self.plain = [] if GLYPHS_ADDON in vision.addons else list(self.flat)

    def settle(
        self, frame: np.ndarray, h: np.ndarray, dec: Decision, per_class: list[np.ndarray]
    ) -> tuple[Decision, np.ndarray]:
        """The decision with every place that is unsure between exactly one empty look (as it is,
        or under a sheen: `sheen.py`) and pieces with bodies, and shows no such piece's outline,
        read as that empty look; and which places. `per_class[k]` holds the places' features
        (N, 3) where a body of class k appears. A piece read surely that an empty look under a
        sheen explains about as well is first made unsure unless its edge shows (`_doubt`)."""
        settled = np.zeros(len(dec.sure), bool)
        if dec.possible.size == 0 or not self.bodies or not self.empty:
            return dec, settled
        size = (frame.shape[1], frame.shape[0])
        self._doubt(frame, h, size, dec, per_class)
        unsure = np.flatnonzero(~dec.sure)
        if len(unsure) == 0:
            return dec, settled
        shone = sheen_distances(self.model, [f[unsure] for f in per_class])
        asked: list[tuple[int, int, int]] = []  # (place, its one empty look, a piece it may be)
        for n, i in enumerate(unsure):
            kinds = np.flatnonzero(dec.possible[i])
            empties = [k for k in self.empty if dec.possible[i, k] or shone[n, k] <= self.model.max_distance]
            pieces = [k for k in kinds if k not in self.empty]
            if len(empties) != 1 or not pieces or any(int(k) not in self.bodies for k in pieces):
                continue
            asked += [(int(i), int(empties[0]), int(k)) for k in pieces]
        if not asked:
            return dec, settled
        places, empties_, kinds = (np.array(column) for column in zip(*asked))
        _least, most = self._body_edges(frame, h, size, places, kinds)
        for i in np.unique(places):  # empty where no piece it may be shows its outline
            if np.all(most[places == i] < NO_OUTLINE):  # NaN (hidden by the border) is not
                settled[i] = True
                self._read_as(dec, int(i), int(empties_[places == i][0]))
        return dec, settled

    def _doubt(self, frame: np.ndarray, h: np.ndarray, size, dec: Decision, per_class: list[np.ndarray]) -> None:
        """Pieces with a body read surely whose colour an empty look under a sheen also explains
        (within the open-set distance): a lamp's sheen on an empty slot's dark back can be a
        joker's grey, and how much sheen there is no colour tells, so the colour cannot set the
        empty look aside. Such a place stays sure only where the piece's edge is seen (its least
        change across the edge at least `NO_OUTLINE`); elsewhere it is left unsure, with the
        empty look possible."""
        todo = np.flatnonzero(dec.sure & np.isin(dec.best, list(self.bodies)))
        if len(todo) == 0:
            return
        empty = np.array(self.empty)
        rival = (
            np.stack([self._under_sheen(k, per_class[k][todo]) for k in self.empty], axis=1) <= self.model.max_distance
        )
        rivalled = np.flatnonzero(rival.any(axis=1))
        least, _most = self._body_edges(frame, h, size, todo[rivalled], dec.best[todo[rivalled]], sharp=True)
        for n in rivalled[~(least >= NO_OUTLINE)]:  # NaN (hidden by the border) is no edge seen
            i = int(todo[n])
            dec.sure[i] = False
            dec.possible[i, empty[rival[n]]] = True

    def _body_edges(
        self, frame, h, size, places: np.ndarray, kinds: np.ndarray, sharp: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """`_edges` at `places` (indices) for a body of the class `kinds` gives each (one
        measurement per body shape: one homography for all the places of one shape). `sharp` only
        for pieces of one colour (`plain`)."""
        least, most = np.full(len(places), np.nan), np.full(len(places), np.nan)
        by_shape: dict[tuple[float, float, bool], list[int]] = {}  # (height, width, plain): which of `places`
        for n, k in enumerate(kinds):
            by_shape.setdefault((*self.bodies[int(k)], int(k) in self.plain), []).append(n)
        for (height, width, plain), mine in by_shape.items():
            at = self.points[places[mine]]
            least[mine], most[mine] = self._edges(frame, h, size, at, height, width, sharp and plain)
        return least, most

    def under_sheen(
        self,
        frame: np.ndarray,
        h: np.ndarray,
        dec: Decision,
        sure: np.ndarray,
        per_class: list[np.ndarray],
        shown: np.ndarray,
        halos: dict,
        reach: int,
        clipped: np.ndarray | None = None,
    ) -> np.ndarray:
        """(N,) the places read surely that a broad sheen may have made: an empty place looking like
        a piece whose outline does not show (`unseen_bodies`; not beside an edge reflection, `halos`
        by place, whose light the band measures), then a flat piece (or a ball: an empty floor) within
        `reach` of a place that shows a sheen (`shown`: read by allowing one, or such an unseen body)
        paled into another's look (`sheen.washed`; a channel that clips, `clipped`, only a floor). A
        lamp's reflection over one place is no such sign: a spot, not a broad sheen, it leaves its
        neighbours as they are (`tests/test_vision_lamp_reflection.py`)."""
        beside_halo = np.isin(np.arange(len(sure)), list(halos))
        unseen = self.unseen_bodies(frame, h, dec, sure & ~beside_halo, per_class)
        paled = washed(
            self.model,
            dec,
            sure & ~unseen,
            per_class,
            self.flat,
            shown | unseen,
            self.shape,
            reach,
            self.balls,
            clipped,
        )
        return unseen | paled

    def unseen_bodies(
        self, frame: np.ndarray, h: np.ndarray, dec: Decision, sure: np.ndarray, per_class: list[np.ndarray]
    ) -> np.ndarray:
        """(N,) places read surely as a piece with a body whose colour an empty look plus light of
        some colour also explains (`_lit`: a cyan wall mirrored by pale wood is a white ball's
        colour), and whose edge does not show (its least change across the edge below
        `NO_OUTLINE`, or hidden by the picture's border). How much light, and of what colour, no
        colour tells; a body's outline does. Left unsure, not read empty: a ball mirrors no broad
        sheen, and a washed floor beside it may match its colour."""
        out = np.zeros(len(sure), bool)
        todo = np.flatnonzero(sure & np.isin(dec.best, list(self.bodies)))
        if len(todo) == 0:
            return out
        feats = np.stack(per_class)[dec.best[todo], todo]  # each place as its own look's body shows it
        lit = np.stack([self._lit(k, feats) for k in self.empty], axis=1).any(axis=1)
        size = (frame.shape[1], frame.shape[0])
        least, _most = self._body_edges(frame, h, size, todo[lit], dec.best[todo[lit]], sharp=True)
        out[todo[lit]] = ~(least >= NO_OUTLINE)  # NaN (hidden by the border) is no edge seen
        return out

    def _lit(self, k: int, feats: np.ndarray) -> np.ndarray:
        """(N,) whether empty look k, at most `DARKER` of its brightness spreads darker, plus light of
        some colour is each place's colour (features (N, 3)): its light at least the look's in every
        channel. Not an open point's look: a hole mirrors nothing."""
        if self.model.refs[k].open:
            return np.zeros(len(feats), bool)
        light = linear(colours_of(feats))
        look = linear(colours_of(self.model.means[k : k + 1]))[0]
        least = np.exp(-DARKER * GAMMA * self.model.brightness_spread[k])
        return np.all(light >= least * look, axis=1)

    def _under_sheen(self, k: int, feats: np.ndarray) -> np.ndarray:
        """(N,) the least distance of places (features (N, 3)) to look k under the sheens
        `sheen.sheen_distances` tries, all measured at once."""
        bgr = colours_of(feats)
        floor = np.clip(bgr.min(axis=1), 0.0, None)
        tried = bgr[:, None, :] - SHARES[None, :, None] * floor[:, None, None]  # (N, shares, 3)
        d = colour_features(tried.reshape(-1, 3)) - self.model.means[k]
        q = np.einsum("ni,ij,nj->n", d, self.model.inv[k], d).reshape(len(feats), len(SHARES))
        return np.sqrt(np.maximum(q.min(axis=1), 0.0))

    def _edges(
        self, frame, h, size, at: np.ndarray, height: float, width: float, sharp: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """(M,) and (M,): the largest change in any colour channel (log) across a body's edge at
        the places `at` (M, 2: board x, y), on both sides of its middle (a tile may differ from the
        floor in colour more than in brightness), as bounds (least, most); NaN where the picture's
        border hides a point. Each point is the median of a small patch, exact while fewer than half
        its pixels clip (a clipped pixel ranks above every unclipped one as its true value would),
        and only a floor (`SATURATED`) where it clips: then the change has no upper bound.
        `sharp`: the least change counts only what a smooth light does not explain (`SMOOTH`)."""
        offsets = np.array(
            [(dx, dy) for dy in (0.0, -width / 2, width / 2, -width / 4, width / 4) for dx in (-width / 4, width / 4)]
        )
        spread = np.stack(np.meshgrid(SPREAD, SPREAD), -1).reshape(-1, 2)
        pts = np.asarray(at, np.float64)[:, None, None, :] + offsets[None, :, None, :] + spread[None, None]
        key = (height, np.asarray(h).tobytes(), size)
        if key not in self._raised:  # one homography per height and frame
            self._raised = {key: self.tops.raised(h, size, height)}
        flat = pts.reshape(-1, 2)
        hom = flat @ self._raised[key][:, :2].T + self._raised[key][:, 2]
        xy = hom[:, :2] / hom[:, 2:]
        ix, iy = np.round(xy[:, 0]).astype(int), np.round(xy[:, 1]).astype(int)
        inside = ((ix >= 0) & (iy >= 0) & (ix < size[0]) & (iy < size[1])).reshape(len(at), -1).all(axis=1)
        px = frame[np.clip(iy, 0, size[1] - 1), np.clip(ix, 0, size[0] - 1)].astype(np.float64)
        med = np.median(px.reshape(len(at), len(offsets), len(spread), 3), axis=2)  # (M, 10, 3)
        low = np.log(med + 1.0).reshape(-1, 5, 2, 3)  # (middle, up, down, rim up, rim down) x sides x channels
        high = np.where(med >= SATURATED, np.inf, np.log(med + 1.0)).reshape(-1, 5, 2, 3)
        change_low = low[:, 0] - (high[:, 1] + high[:, 2]) / 2
        change_high = high[:, 0] - (low[:, 1] + low[:, 2]) / 2
        most = np.maximum(np.abs(change_low), np.abs(change_high)).reshape(len(at), -1).max(axis=1)
        if sharp:  # a smooth light's share: the face's own fall-off from its middle to its rim, carried on
            fall = low[:, 0] - (low[:, 3] + low[:, 4]) / 2
            fall = np.where(np.isfinite(high[:, 0] + high[:, 3] + high[:, 4]), fall, 0.0)  # none where a point clips
            change_low = change_low - SMOOTH * np.maximum(fall, 0.0)
            change_high = change_high - SMOOTH * np.minimum(fall, 0.0)
        least = np.maximum(np.maximum(change_low, -change_high), 0.0).reshape(len(at), -1).max(axis=1)
        return np.where(inside, least, np.nan), np.where(inside, most, np.nan)

    def _read_as(self, dec: Decision, i: int, k: int) -> None:
        ref = self.model.refs[k]
        dec.keys[i], dec.letters[i], dec.best[i] = ref.key, ref.letter, k
        dec.sure[i], dec.open[i] = True, ref.open
