"""Stage *classify* of the lattice reader: the learned looks of every label and the decision of
the places of one picture by them.

The decision is the games' classifier (`classify.ClassModel`): every label is one or more Gaussian
looks (light and dark empty squares are two looks of one label), a place takes the nearest look by
Mahalanobis distance, and it is sure only within the open-set distance of that look and clearly
nearer to it than to any other label (more clearly for a pair of labels that a cross-validation of
the learning places found confusable). A place may lie in a neighbouring piece's shadow, which
lowers all its log features alike: that darkening is a nuisance with a prior (`_shaded`). The
global offset that the surely read places still show is removed and the board read again
(`_decide_offset`). Then the looks follow the picture (`decide_picture`). What the picture's own
places then say is the rules' work (`rules`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.errors import ConfigError, RefereeError, os_words, sentence
from controller.language import _
from controller.vision.classify import ClassModel, Decision, open_set_distance
from controller.vision.lattice.light import FLOOR
from controller.vision.lattice.places import (
    FOLLOW_ROUNDS,
    MIN_EXPLAINED,
    N_FEATURES,
    N_FLAT,
    N_LIGHTNESS,
    SHIFTS,
    Rectified,
    offset_features,
)
from controller.vision.lattice.rules import judge

MODEL_VERSION = 5


@dataclass
class LatticeModel:
    """The learned looks of every label: the same `ClassModel` the games read with, over the
    features of `place_features`."""

    size: tuple[int, int]
    classes: ClassModel
    flat: ClassModel | None = None

    @property
    def flat_looks(self) -> ClassModel:
        """The learned flatness looks, for the readings that run only when they are known."""
        assert self.flat is not None, "the flatness looks are asked only when the model has them"
        return self.flat

    @property
    def labels(self) -> list[str]:
        """Every label learned, once."""
        return sorted({r.letter for r in self.classes.refs})

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": "referee-lattice-model",
                "version": MODEL_VERSION,
                "size": list(self.size),
                "floor": [round(float(v), 7) for v in self.classes.floor],
                **self.classes.to_yaml(),
                **({"flat": self.flat.to_yaml()} if self.flat is not None else {}),
            }
        )

    @classmethod
    def load(cls, path: str | Path) -> LatticeModel:
        not_model = _("{file} is not a lattice model written by 'referee lattice learn'", file=str(path))
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except OSError as exc:
            raise RefereeError(_("cannot read the model {file}: {why}", file=str(path), why=os_words(exc))) from None
        except (ValueError, UnicodeDecodeError):
            raise RefereeError(not_model) from None
        if not isinstance(data, dict) or data.get("kind") != "referee-lattice-model":
            raise RefereeError(not_model)
        version = data.get("version")
        if version != MODEL_VERSION:
            raise RefereeError(
                _(
                    "{file} is a lattice model of version {version}, but this referee reads version {ours} (a "
                    "place's flatness compared with the corners of its cell that show the board); learn it again "
                    "with 'referee lattice learn'",
                    file=str(path),
                    version=str(version),
                    ours=str(MODEL_VERSION),
                )
            )
        try:
            size = (int(data["size"][0]), int(data["size"][1]))
            floor = np.array(data["floor"], np.float64)
            if floor.shape != (N_FEATURES,) or not np.all(floor >= 0):
                raise ValueError
            classes = ClassModel.from_yaml(data, path="model", dims=N_FEATURES)
            flat = ClassModel.from_yaml(data["flat"], path="model.flat", dims=N_FLAT) if "flat" in data else None
        except ConfigError as exc:
            raise RefereeError(
                _("{file}: the lattice model is damaged ({why}); learn it again", file=str(path), why=sentence(exc))
            ) from None
        except (KeyError, TypeError, ValueError, IndexError):
            raise RefereeError(_("{file}: the lattice model is damaged; learn it again", file=str(path))) from None
        classes = ClassModel(classes.refs, classes.max_distance, classes.min_margin, floor, classes.pair_margins)
        if flat is not None:
            flat = ClassModel(
                flat.refs, flat.max_distance, flat.min_margin, np.full(N_FLAT, FLOOR**2), flat.pair_margins
            )
        return cls(size, classes, flat)

    def distances(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, looks) distance of every place to every look at the sample position that fits
        that look best, and (N, looks) which position that was."""
        d = np.stack([self._shaded(f) for f in feats])  # (shifts, N, looks)
        return d.min(axis=0), d.argmin(axis=0)

    def _shaded(self, feats: np.ndarray, means: np.ndarray | None = None) -> np.ndarray:
        """(N, looks) Mahalanobis distances of one sample position (F features per place), each
        place allowed to lie in a shadow the light fit missed.

        A neighbouring piece's shadow dims a place's light, and so lowers every log feature by
        the same amount s < 0 (a shadow only darkens). With s a nuisance of Gaussian prior
        N(0, FLOOR^2) (the light the smooth fit misses, see FLOOR), the distance is the least
        over s <= 0 of (x - s 1)' S^-1 (x - s 1) + s^2 / FLOOR^2, in closed form. A brighter
        place gets no allowance; a place darker than a look in some features and not others
        little: only the common part is a shadow. `means` (looks, F) replaces the learned means
        (the looks following a picture, see `_followed`); the spreads stay the learned ones.
        """
        c = self.classes
        x = feats[:, None, :] - (c.means if means is None else means)[None]
        d2 = np.einsum("nki,kij,nkj->nk", x, c.inv, x)
        u = c.inv @ np.ones(N_FEATURES)  # (looks, F)
        a = u.sum(axis=1)  # (looks,)
        b = np.einsum("nkf,kf->nk", x, u)
        s = np.minimum(b / (a + 1 / FLOOR**2), 0.0)
        return np.sqrt(np.maximum(d2 - 2 * s * b + s * s * (a + 1 / FLOOR**2), 0.0))

    def read(
        self,
        feats: np.ndarray,
        hidden: np.ndarray | None = None,
        flat: np.ndarray | None = None,
        bounds: np.ndarray | None = None,
        away: np.ndarray | None = None,
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Each place's label, whether it is sure and a confidence in [0, 1], from (shifts, N, F)
        features; `hidden` places (see `describe`) are never sure.

        A model learned on one board can meet a picture it does not describe: another board
        (black and white squares where it learned wood), other pieces, a light far from the
        learning picture's. Most places are then unsure, and the few it reads surely are those
        that happen to look like a learned look (a black square like a dark piece): a look
        learned there is not evidence here. So when fewer than `MIN_EXPLAINED` of the visible
        places are read surely, the model is taken not to explain the picture and none is sure.
        """
        letters, why, confidence = self.judge(feats, hidden, flat, bounds, away)
        sure = np.array([w == "" for w in why], bool)
        return letters, sure, np.where(sure, confidence, 0.0)

    def judge(
        self,
        feats: np.ndarray,
        hidden: np.ndarray | None = None,
        flat: np.ndarray | None = None,
        bounds: np.ndarray | None = None,
        away: np.ndarray | None = None,
        rectified: Rectified | None = None,
    ) -> tuple[list[str], list[str], np.ndarray]:
        """As `read`, with why each place is unsure ("" where sure) instead of whether it is sure:
        the looks' reading, then every rule of `rules.RULES` in turn (`rules.judge`); `rectified`,
        the picture itself, for the rules that look again (`places.Rectified`)."""
        reading = judge(self, feats, hidden, flat, bounds=bounds, away=away, rectified=rectified)
        return list(reading.letters), list(reading.why), np.array(reading.confidence)

    def _lightness_decision(self, feats: np.ndarray, shifted: np.ndarray | None = None) -> Decision:
        """The looks' decision on the lightness features only: the mean over the channels of the
        disc's and of the core's log colour and the two lightness percentiles, each look's spread
        projected alike, the open-set distance of four features, the looks' margins. `shifted`:
        the features with the global offset already removed (of some places only), if known."""
        if shifted is None:
            shifted = self._decide_offset(feats)[2]
        return self.lightness_decide(self.lightness_distances(shifted).min(axis=0))

    def lightness_decide(self, dist: np.ndarray) -> Decision:
        """`_lightness_decision` from (N, looks) lightness distances already measured (the least
        over the sample positions of `lightness_distances`)."""
        c = self.classes
        lightness = ClassModel(c.refs, open_set_distance(N_LIGHTNESS), c.min_margin, c.floor, c.pair_margins)
        return lightness.decide_distances(dist)

    def lightness_distances(self, shifted: np.ndarray) -> np.ndarray:
        """(shifts, N, looks) the distances `_lightness_decision` decides on, per sample position."""
        c = self.classes
        proj = np.zeros((N_LIGHTNESS, N_FEATURES))
        proj[0, 0:3] = proj[1, 3:6] = 1 / 3
        proj[2, 6] = proj[3, 7] = 1
        inv = np.linalg.inv(np.stack([proj @ (np.asarray(r.cov) + np.diag(c.floor)) @ proj.T for r in c.refs]))
        means = c.means @ proj.T
        dist = []
        for f in shifted:
            y = (f @ proj.T)[:, None, :] - means[None]
            dist.append(np.sqrt(np.einsum("nki,kij,nkj->nk", y, inv, y)))
        return np.stack(dist)

    def decide(self, feats: np.ndarray) -> tuple[Decision, np.ndarray]:
        """The classifier's decision for every place and the (N, looks) distances it was made on.

        A first reading gives the places read surely; the median offset between them and their
        looks' means is what the light estimate missed (a tone curve, the board's material
        answering differently from the pieces). It is the same for every place, so it is
        removed and the board read again: the classes keep their order under any light.
        """
        dec, dist = self._decide_offset(feats)[:2]
        return dec, dist

    def _decide_offset(self, feats: np.ndarray) -> tuple[Decision, np.ndarray, np.ndarray, np.ndarray | None]:
        """`decide`, the (shifts, N, F) features with the global offset removed, and (3,) the
        offset's standard error per channel (None where no offset was measured).

        The offset is a median over the n places read surely at first, so it is known to its
        standard error, 1.2533 sigma / sqrt(n) for a Gaussian scatter sigma (estimated robustly,
        1.4826 times the median absolute deviation): a few places of a noisy look (a chessboard's
        black pieces) leave it uncertain by a tenth of a log unit or more (rule `offset`)."""
        feats = np.asarray(feats, np.float64)
        if feats.ndim == 2:
            feats = feats[None]
        dist, pos = self.distances(feats)
        dec = self.classes.decide_distances(dist)
        n = np.arange(feats.shape[1])
        best = dist.argmin(axis=1)
        error = None
        if dec.sure.sum() >= 4:
            chosen = feats[pos[n, best], n]
            resid = (chosen - self.classes.means[best])[dec.sure]
            offset = np.median(resid, axis=0)
            per_channel = np.clip((offset[0:3] + offset[3:6]) / 2, -0.3, 0.3)
            feats = feats - offset_features(per_channel)
            dist, _ = self.distances(feats)
            dec = self.classes.decide_distances(dist)
            seen = (resid[:, 0:3] + resid[:, 3:6]) / 2
            scatter = 1.4826 * np.median(np.abs(seen - np.median(seen, axis=0)), axis=0)
            error = 1.2533 * scatter / np.sqrt(len(seen))
        return dec, dist, feats, error

    def decide_picture(self, feats: np.ndarray) -> tuple[Decision, np.ndarray]:
        """`decide` for the places of one picture, with the looks following that picture
        (`follow_picture`)."""
        dec, dist = self.follow_picture(feats)[:2]
        return dec, dist

    def follow_picture(
        self, feats: np.ndarray, clipped: np.ndarray | None = None
    ) -> tuple[Decision, np.ndarray, np.ndarray, np.ndarray]:
        """`decide` for the places of one picture, with the looks following that picture; also
        (looks, F) the looks' means in it (the learned ones where it is not followed) and (looks,)
        the share of each followed mean the picture's places make (0 where not followed: how far
        a look moves with the picture's global offset).

        One learning photo cannot show how every board, set of pieces and camera renders a
        label: white stones brighter under another camera, a board's squares of more or less
        contrast. Within one picture every place of a label shares that rendering, so the
        looks are moved to the picture (`_followed`) and the picture is read again.
        Rules keep this from inventing readings:

        * only a picture the learned looks already explain (`MIN_EXPLAINED` of its places read
          surely, see `read`) is followed: a picture of another board, whose few sure places
          are chance likenesses, stays as the learned looks read it;
        * only places read surely move a look (`_followed`), so two labels whose looks overlap
          never pull each other's places;
        * a place that only the following made sure must be nearer its look than the half-way
          blend of that look and a look of another label (in its look's metric, `half_covered`):
          a place half covered by a neighbouring piece lies between the two and stays unsure;
        * the open-set rule stays with the learned looks, but for a place whose look only the
          following brought near (a white stone brighter than any learned) when it reads so at
          its point, or sampled away from its neighbours of the same reading: one that matches
          only when sampled towards a neighbour read the same may be seeing that neighbour's
          piece, seen off its point from an angle, and stays unsure (`_towards_same`);
        * where most of the places the learned looks read surely as a look are clipped in a
          channel (`clipped`, (N, 3) bools: their colour there is only a floor, or not measured),
          the look's followed mean there is a floor too, which a lamp that brightens that
          channel pulls towards the other looks (white stones under a cyan lamp, clipped in
          blue and green, towards the board): a place not clipped there that only the following
          made sure as that look stays unsure (its distance to the look is only a least one).
        """
        dec0, dist0, feats, _ = self._decide_offset(feats)
        if dec0.sure.sum() < MIN_EXPLAINED * len(dec0.sure):
            return dec0, dist0, self.classes.means, np.zeros(len(self.classes.means))
        means, dist, pos, share = self._followed(feats, dec0, dist0)
        dec = self.classes.decide_distances(dist)
        best = dist.argmin(axis=1)
        learned = dist0.min(axis=1)
        known = learned <= self.classes.max_distance
        inv = self.classes.inv
        # Where a place matches only off its point, towards a neighbour read the same, while
        # read at its point it is not surely that label, it may be seeing that neighbour's piece.
        at_point = self.classes.decide_distances(self.distances_to(feats[:1], means)[0])
        towards_same = self._towards_same(dec.letters, pos[np.arange(len(best)), best]) & ~(
            at_point.sure & (np.array(at_point.letters) == np.array(dec.letters))
        )
        floors = np.zeros((len(means), 3), bool)  # (looks, channels): the followed mean a floor there
        if clipped is not None and clipped.any():
            followers = dec0.sure[:, None] & (dec0.best[:, None] == np.arange(len(means))[None])  # (N, looks)
            floors = followers.T.astype(int) @ clipped.astype(int) * 2 > followers.sum(axis=0)[:, None]
        for i in np.flatnonzero(dec.sure & ~dec0.sure):
            k = best[i]
            x = feats[pos[i, k], i]
            own = (x - means[k]) @ inv[k] @ (x - means[k])
            halfway = half_covered(means[k], means[~self.classes.same[k]], x) - x
            blend = np.any(np.einsum("ki,ij,kj->k", halfway, inv[k], halfway) <= own)
            floor = clipped is not None and bool(np.any(floors[k] & ~clipped[i]))
            if blend or (towards_same[i] and not known[i]) or floor:
                dec.sure[i] = False
        far = ~known & ~dec.sure
        dec.distance = np.where(far, learned, dec.distance)  # so `judge` names a far place far
        return dec, dist, means, share

    def _towards_same(self, letters: list[str], shift: np.ndarray) -> np.ndarray:
        """(N,) whether each place's chosen sample position (index into SHIFTS) lies towards a
        neighbouring place that reads the same label (False for a sample at the point itself,
        and for features that are not one whole lattice)."""
        rows, cols = self.size
        out = np.zeros(len(letters), bool)
        if len(letters) != rows * cols:
            return out
        grid = np.array(letters).reshape(rows, cols)
        step = np.sign(SHIFTS).astype(int)  # (dx, dy) of every sample position
        for i, s in enumerate(shift):
            dx, dy = step[s]
            r, c = divmod(i, cols)
            if (dx or dy) and 0 <= r + dy < rows and 0 <= c + dx < cols:
                out[i] = grid[r + dy, c + dx] == letters[i]
        return out

    def distances_to(self, feats: np.ndarray, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As `distances` (the same shadow allowance), to looks of the learned spreads centred
        at `means` (looks, F)."""
        d = np.stack([self._shaded(f, means) for f in feats])  # (shifts, N, looks)
        return d.min(axis=0), d.argmin(axis=0)

    def _followed(
        self, feats: np.ndarray, dec: Decision, dist: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The looks' means in this picture, the (N, looks) distances and sample positions of
        every place to them, and (looks,) the share of each mean its places make.

        Per look: the mean of the places read surely as that look (at the sample position that
        fits it best), with the learned mean counted as N_FEATURES places more (the weight
        `ClassModel.learn_looks` gives the pooled spread when it shrinks a look's own); read
        again and repeated until the same places read the same way. Only sure places move a
        look, so two labels whose looks overlap never pull each other's places."""
        learned = self.classes.means
        means = learned
        n = np.arange(feats.shape[1])
        sure, best = dec.sure, dist.argmin(axis=1)
        dist, pos = self.distances_to(feats, means)
        share = np.zeros(len(learned))
        for _round in range(FOLLOW_ROUNDS):
            new = learned.copy()
            for k in range(len(learned)):
                mine = sure & (best == k)
                share[k] = mine.sum() / (mine.sum() + N_FEATURES)
                if mine.any():
                    x = feats[pos[mine, k], n[mine]]
                    new[k] = (x.sum(axis=0) + N_FEATURES * learned[k]) / (mine.sum() + N_FEATURES)
            means = new
            before = (sure, best, pos)
            dist, pos = self.distances_to(feats, means)
            sure, best = self.classes.decide_distances(dist).sure, dist.argmin(axis=1)
            if all(np.array_equal(a, b) for a, b in zip(before, (sure, best, pos))):
                break  # the same places read the same way: the means would not move again
        return means, dist, pos, share


def half_covered(look: np.ndarray, others: np.ndarray, place: np.ndarray) -> np.ndarray:
    """(M, F) what a place would show half covered by a piece of another label (or half bare): one
    blend of `look` (F,) with each look of `others` (K, F) that `place` (F,) can be such a mix of.

    Half of the disc shows one surface and half the other: its median colours lie half-way
    between the two looks', but its lightness percentiles are not the half-way of theirs: the
    20th falls in the darker half and the 80th in the brighter, each near that half's own
    lightness (a white stone evenly lit is not a stone half over the board, whose disc spans
    both). And a mix lies between its parts: a place beyond its own look in every colour, away
    from the other (a white stone brighter than the picture's other white stones), is no blend
    of the two."""
    blend = (look[None] + others) / 2
    lightness, their = look[0:3].mean(), others[:, 0:3].mean(axis=1)
    blend[:, 6] = np.minimum(lightness, their)
    blend[:, 7] = np.maximum(lightness, their)
    beyond = np.all((place[None, 0:6] - look[None, 0:6]) * (others[:, 0:6] - look[None, 0:6]) < 0, axis=1)
    return blend[~beyond]
