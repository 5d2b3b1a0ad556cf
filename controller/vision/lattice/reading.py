"""What the lattice reader's rules pass on: the `Picture` they read (the same for every rule) and
the `Reading` of its places so far (frozen: a rule returns a new one).

Every rule has one signature, `rule(picture, reading) -> reading`, and says why each place is
unsure ("" where it is sure):

* "hidden": the board hidden around it (`describe`);
* "far": beyond the open-set distance of every learned look;
* "margin": too near a look of another label, or brought nearer one by a global offset within
  the standard error of the picture's measured one (rule `offset`); "pair": not past the margin
  that label pair needs (the learning's cross-validation), or made sure only by the looks
  following the picture while it lies towards another label's look or a neighbour's piece
  (`LatticeModel.decide_picture`);
* "between": its piece stands between it and the next place;
* "texture": read empty by a rule, its disc is textured unlike its parity's bare board in this
  picture, the way the picture's pieces are (rule `texture`);
* "flat": the looks and the flatness are sure of opposite things;
* "picture": the model does not explain the picture (`MIN_EXPLAINED`);
* "light": a clipped channel leaves it open to a look of another label (rule `light`);
* "dark": its light is dark in a channel, a lamp of one narrow band, under which no colour is read (rule
  `light`);
* "lamp": with the colours turned back as the board's own two surfaces ask (a lamp that mixes the
  channels), the looks read it surely as the empty square it stands on (rule `lamp`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from controller.vision.bounds import FREE, UP
from controller.vision.classify import Decision
from controller.vision.geometry import LatticeGeometry
from controller.vision.lattice.places import EMPTY, Rectified
from controller.vision.lattice.places import texture as texture_of

if TYPE_CHECKING:
    from collections.abc import Mapping

    from controller.vision.lattice.model import LatticeModel

#: The reasons a rule reading a place by the picture's own places may overrule: the looks leave
#: the place between two labels, or far from every look.
DOUBTFUL = ("margin", "pair", "far")


@dataclass(frozen=True)
class Picture:
    """One picture's places as the lattice reader describes them, and what every rule measures on
    them alike (computed once, when first asked): `feats` (shifts, N, F) relative to the light,
    `flat` (N, N_FLAT) the flatness (None: not described), `visible` (N,) where the board is not
    hidden around the place, `bounds` (N, 3) what a clipped channel leaves known of each place's
    colour (`controller.vision.bounds`; None: nothing clipped), `away` (N, 2) the direction (x, y)
    on the board in which what stands on each place is seen displaced, away from the camera (None:
    not known), `rectified` the picture itself (`places.Rectified`; None: not given)."""

    model: LatticeModel
    feats: np.ndarray
    flat: np.ndarray | None
    visible: np.ndarray
    bounds: np.ndarray | None = None
    away: np.ndarray | None = None
    rectified: Rectified | None = None

    @classmethod
    def of(cls, model: LatticeModel, feats, hidden=None, flat=None, bounds=None, away=None, rectified=None) -> Picture:
        feats = np.asarray(feats, np.float64)
        if feats.ndim == 2:
            feats = feats[None]
        n = feats.shape[1]
        visible = np.ones(n, bool) if hidden is None else ~np.asarray(hidden, bool)
        flat = None if flat is None else np.asarray(flat, np.float64)
        bounds = None if bounds is None else np.asarray(bounds)
        away = None if away is None else np.asarray(away, np.float64)
        return cls(model, feats, flat, visible, bounds, away, rectified)

    @property
    def n(self) -> int:
        return self.feats.shape[1]

    @property
    def with_flatness(self) -> bool:
        """Whether the flatness is known, of the picture and of the model."""
        return self.flat is not None and self.model.flat is not None

    @property
    def flat_known(self) -> np.ndarray:
        """The flatness, for the rules that run only `with_flatness`."""
        assert self.flat is not None, "the flatness is asked only with_flatness"
        return self.flat

    @property
    def whole(self) -> bool:
        """Whether the places are the model's whole lattice (a place's neighbours and parity known)."""
        rows, cols = self.model.size
        return self.n == rows * cols

    @cached_property
    def offset(self) -> tuple[Decision, np.ndarray, np.ndarray, np.ndarray | None]:
        """The learned looks' decision, distances, the features with the global offset removed and
        that offset's standard error per channel (`LatticeModel._decide_offset`)."""
        return self.model._decide_offset(self.feats)

    @property
    def shifted(self) -> np.ndarray:
        """(shifts, N, F) the features with the picture's global offset removed."""
        return self.offset[2]

    @property
    def offset_error(self) -> np.ndarray | None:
        """(3,) the standard error of the picture's global offset per channel (None: none measured)."""
        return self.offset[3]

    @cached_property
    def follow(self) -> tuple[Decision, np.ndarray, np.ndarray, np.ndarray]:
        """`LatticeModel.follow_picture` of this picture's features, its places' colours clipped (or dark)
        where the bounds say so."""
        clipped = None if self.bounds is None else np.isin(self.bounds, (UP, FREE))
        return self.model.follow_picture(self.feats, clipped)

    @property
    def followed(self) -> tuple[Decision, np.ndarray]:
        """The decision with the looks following the picture and its (N, looks) distances."""
        return self.follow[0], self.follow[1]

    @property
    def means(self) -> np.ndarray:
        """(looks, F) the looks' means as they follow this picture."""
        return self.follow[2]

    @property
    def share(self) -> np.ndarray:
        """(looks,) the share of each look's followed mean this picture's places make (0 where the
        looks do not follow it): how far a look moves with the picture's global offset."""
        return self.follow[3]

    @property
    def dist(self) -> np.ndarray:
        """(N, looks) distances of every place to the looks following the picture."""
        return self.followed[1]

    @cached_property
    def lightness_distances(self) -> np.ndarray:
        """(shifts, N, looks) `LatticeModel.lightness_distances` of this picture's samples, measured
        once for the rules that ask (lightness, between)."""
        return self.model.lightness_distances(self.shifted)

    @cached_property
    def flat_decision(self) -> Decision:
        """The learned flatness looks' decision (only when `with_flatness`)."""
        return self.model.flat_looks.decide(self.flat_known)

    @cached_property
    def flat_empty(self) -> np.ndarray:
        """(N,) places the flatness surely reads empty."""
        f = self.flat_decision
        return f.sure & (np.array(f.letters) == EMPTY)

    @cached_property
    def texture(self) -> np.ndarray | None:
        """(N,) how textured every place's disc is (`places.texture`; None: the picture not given,
        or not the model's whole lattice)."""
        if self.rectified is None or not self.whole:
            return None
        return texture_of(self.rectified.logimg, LatticeGeometry(*self.model.size).points())

    @cached_property
    def parity(self) -> np.ndarray:
        """(N,) 0 or 1: which of a chequered board's two colours each place is on (on a Go board
        the two are alike)."""
        return parity_of(self.n, self.model.size[1])


def parity_of(n_places: int, cols: int) -> np.ndarray:
    """(n_places,) 0 or 1: which of the chequered board's two colours each place (row by row) is
    on; on a Go board the two are alike."""
    return np.add(*np.divmod(np.arange(n_places), cols)) % 2


@dataclass(frozen=True)
class Reading:
    """Every place's reading so far: `letters` (the label), `why` ("" sure, else why not),
    `confidence` in [0, 1], `source` (which stage read the place: "looks" or the rule's name),
    `look` (the learned look it was read as, -1 where a rule read it otherwise) and `marks`
    (name -> places: what a rule found that a later one weighs, e.g. "agrees": a reading that does
    not depend on the learned looks confirms the place)."""

    letters: tuple[str, ...]
    why: tuple[str, ...]
    confidence: np.ndarray
    source: tuple[str, ...]
    look: tuple[int, ...]
    marks: Mapping[str, frozenset[int]]

    @classmethod
    def first(cls, letters, why, confidence, look) -> Reading:
        confidence = np.array(confidence, np.float64)
        confidence.setflags(write=False)
        n = len(letters)
        return cls(
            tuple(letters),
            tuple(str(w) for w in why),
            confidence,
            ("looks",) * n,
            tuple(int(k) for k in look),
            MappingProxyType({}),
        )

    def why_array(self) -> np.ndarray:
        """The reasons as a (N,) object array (a copy: a rule may change it)."""
        return np.array(self.why, object)

    def sure(self) -> np.ndarray:
        return np.array([w == "" for w in self.why], bool)

    def marked(self, name: str) -> np.ndarray:
        """(N,) bools: the places marked `name`."""
        out = np.zeros(len(self.letters), bool)
        out[list(self.marks.get(name, ()))] = True
        return out

    def but(
        self,
        rule: str,
        letters=None,
        why=None,
        made: np.ndarray | None = None,
        confidence: np.ndarray | None = None,
        look=None,
        marks: dict[str, np.ndarray] | None = None,
    ) -> Reading:
        """This reading as `rule` leaves it: new letters and reasons, the places it `made` sure
        (their source becomes the rule, their look -1 unless `look` is given), and marks added to
        (a mark's places accumulate over the rules)."""
        source, looks = list(self.source), list(self.look if look is None else look)
        if made is not None:
            for i in np.flatnonzero(made):
                source[i] = rule
                if look is None:
                    looks[i] = -1
        joined = dict(self.marks)
        for name, places in (marks or {}).items():
            joined[name] = joined.get(name, frozenset()) | frozenset(int(i) for i in np.flatnonzero(places))
        if confidence is not None:
            confidence = np.array(confidence, np.float64)
            confidence.setflags(write=False)
        return replace(
            self,
            letters=self.letters if letters is None else tuple(str(x) for x in letters),
            why=self.why if why is None else tuple(str(w) for w in why),
            confidence=self.confidence if confidence is None else confidence,
            source=tuple(source),
            look=tuple(int(k) for k in looks),
            marks=MappingProxyType(joined),
        )
