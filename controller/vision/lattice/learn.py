"""Learning a lattice model from labelled pictures (`referee lattice learn`)."""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel
from controller.vision.lattice.light import FLOOR
from controller.vision.lattice.model import N_FEATURES, LatticeModel
from controller.vision.lattice.places import N_FLAT, describe

FOLDS = 10  # parts of the learning places read by the model learned without them (`_held_out_margins`)


def learn(
    samples: list[tuple[np.ndarray, list[list[str]]]], size: tuple[int, int], corners: list[np.ndarray]
) -> LatticeModel:
    """A model from (image, labels) pairs, each with its own lattice corners: the looks of
    every label (`ClassModel.learn_looks`), every place counted once however many of its
    shifted samples are kept, and the margins a reading needs between two labels
    (`_held_out_margins`)."""
    looks, flats, labels, places = [], [], [], []
    first = 0
    for (image, grid), cor in zip(samples, corners):
        seen = describe(image, size, cor)
        flat = [ch for row in grid for ch in row]
        looks.append(seen.feats)  # (shifts, N, F)
        assert seen.flat is not None  # `describe` always measures the flatness
        flats.append(seen.flat)
        labels += flat
        places.append(first + np.arange(len(flat)))
        first += len(flat)
    feats = np.concatenate(looks, axis=1).astype(np.float64)  # (shifts, places, F)
    place = np.concatenate(places)
    model = _fit(feats, labels, place, size)
    pairs = _held_out_margins(feats, labels, place, size)
    return LatticeModel(
        model.size,
        ClassModel(model.classes.refs, floor=model.classes.floor, pair_margins=pairs),
        _fit_flat(np.concatenate(flats).astype(np.float64), labels),
    )


def _folds(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The cross-validation's parts: (N,) the part of every place (each label's places dealt in
    turn, so every part keeps some of every label that has two) and (N,) the places whose label
    has only one place (never held out: it would not be learned at all)."""
    fold = np.zeros(len(labels), int)
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        fold[i] = seen.get(label, 0) % FOLDS
        seen[label] = seen.get(label, 0) + 1
    return fold, np.array([seen[label] < 2 for label in labels], bool)


def _widen(pairs: dict[tuple[str, str], float], read: str, truth: str, rival: str, d1: float, d2: float) -> None:
    """Record a held-out place of label `truth` read as `read` with `truth` its nearest rival:
    a reading of `read` against `truth` then needs more than this place's margin."""
    if read != truth and np.isfinite(d2) and rival == truth:
        pairs[(read, truth)] = max(pairs.get((read, truth), 0.0), float((d2 - d1) / max(d2, 1e-9)))


def _fit_flat(flat: np.ndarray, labels: list[str]) -> ClassModel:
    """The looks of every label in the flatness features (`flatness`), with the margins a reading
    needs between two labels from the same cross-validation as `_held_out_margins`: a white stone
    as even as the board and of its colour reads empty when held out, and so no reading of an
    empty place is sure by less than the margin that stone had."""
    floor = np.full(N_FLAT, FLOOR**2)
    fold, alone = _folds(labels)
    pairs: dict[tuple[str, str], float] = {}
    for k in range(FOLDS):
        out = np.flatnonzero((fold == k) & ~alone)
        keep = (fold != k) | alone
        if not len(out):
            continue
        held = ClassModel(
            ClassModel.learn_looks(flat[keep], [c for c, kept in zip(labels, keep) if kept], floor=floor), floor=floor
        )
        dist = held.distances(flat[out])
        best = dist.argmin(axis=1)
        rival = np.where(held.same[best], np.inf, dist)
        d1, d2 = dist[np.arange(len(out)), best], rival.min(axis=1)
        for j, i in enumerate(out):
            read, truth = held.refs[best[j]].letter, labels[i]
            _widen(pairs, read, truth, held.refs[int(rival[j].argmin())].letter, d1[j], d2[j])
    return ClassModel(ClassModel.learn_looks(flat, labels, floor=floor), floor=floor, pair_margins=pairs)


def _fit(feats: np.ndarray, labels: list[str], place: np.ndarray, size: tuple[int, int]) -> LatticeModel:
    """The looks of (shifts, N, F) labelled place features, every shift a sample of its place."""
    shifts = len(feats)
    x = feats.reshape(-1, feats.shape[2])
    floor = np.full(N_FEATURES, FLOOR**2)
    refs = ClassModel.learn_looks(x, labels * shifts, np.tile(place, shifts), floor)
    rows, cols = size
    return LatticeModel((rows, cols), ClassModel(refs, floor=floor))


def _held_out_margins(
    feats: np.ndarray, labels: list[str], place: np.ndarray, size: tuple[int, int]
) -> dict[tuple[str, str], float]:
    """A cross-validation of the learning pictures: the places are dealt into `FOLDS` parts (each
    label's places in turn, so every part keeps some of every label that has two) and each part
    is read by the model learned without it. Where a place of label B is read as A, the features
    cannot tell A from B everywhere (a dark piece on a dark square can look like the square), and
    a reading of A whose nearest rival is B is then sure only by a wider margin than that
    place's. Returned: (A, B) -> the widest such margin. A label with one place is not held out
    (it would not be learned at all)."""
    fold, alone = _folds(labels)
    out: dict[tuple[str, str], float] = {}
    for k in range(FOLDS):
        out_ = np.flatnonzero((fold == k) & ~alone)
        if not len(out_):
            continue
        keep = (fold != k) | alone
        held = _fit(feats[:, keep], [c for c, kept in zip(labels, keep) if kept], place[keep], size)
        dec, dist = held.decide(feats[:, out_])
        best = dist.argmin(axis=1)
        rival = np.where(held.classes.same[best], np.inf, dist)
        d1, d2 = dist[np.arange(len(out_)), best], rival.min(axis=1)
        for j, i in enumerate(out_):
            read, truth = dec.letters[j], labels[i]
            _widen(out, read, truth, held.classes.refs[int(rival[j].argmin())].letter, d1[j], d2[j])
    return out
