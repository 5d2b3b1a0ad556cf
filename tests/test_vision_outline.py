"""Stage *outline* (`controller/vision/outline.py`): a place its colour leaves between empty and a
piece with a body is empty when no piece's edge is there, and stays unsure when one is."""

from __future__ import annotations

import numpy as np

from controller.games import registry
from controller.vision.classify import ClassModel, ClassRef
from controller.vision.outline import Outlines

PX = 40  # pixels per pitch of the synthetic picture


class _Flat:
    """A camera straight above: every height has the board's own homography."""

    def raised(self, h, size, height):
        return h


def _model() -> ClassModel:
    cov = np.eye(3) * 0.01
    grey = ClassRef("J", "J", np.array([-0.3, 0.0, 0.0]), cov)
    empty = ClassRef(".", ".", np.array([-1.5, 0.0, 0.0]), cov)
    return ClassModel([grey, empty])


def _picture(disc: bool) -> np.ndarray:
    """A 3x3-place slot back, dark grey growing paler to the right (a lamp's sheen across it), with
    a pale grey disc 0.9 pitch wide in the middle place when `disc`."""
    ys, xs = np.mgrid[0 : 3 * PX, 0 : 3 * PX]
    back = 60 + 40 * xs / (3 * PX)
    img = np.repeat(back[..., None], 3, axis=2)
    if disc:
        inside = (xs - 1.5 * PX) ** 2 + (ys - 1.5 * PX) ** 2 <= (0.45 * PX) ** 2
        img[inside] = 200
    return img.astype(np.uint8)


def _settle(disc: bool):
    model = _model()
    points = np.array([[x, y] for y in range(3) for x in range(3)], np.float64)
    outlines = Outlines(registry.get("colorpop").vision, model, points, _Flat())
    feats = np.tile(np.array([-0.9, 0.0, 0.0]), (9, 1))  # a grey between the two looks
    dec = model.decide(feats)
    dec.possible[:] = True
    h = np.array([[PX, 0, PX / 2], [0, PX, PX / 2], [0, 0, 1]], np.float64)
    return outlines.settle(_picture(disc), h, dec, [feats, feats])


def test_a_place_between_a_token_and_empty_with_no_edge_is_empty() -> None:
    dec, settled = _settle(disc=False)
    assert settled[4] and dec.sure[4] and dec.letters[4] == "."


def test_a_place_with_a_tokens_edge_stays_unsure() -> None:
    dec, settled = _settle(disc=True)
    assert not settled[4] and not dec.sure[4]
