"""`referee lattice` on real photographs (`../shared/photos/`, see its README): a few folders that
read quickly, learned from one labelled photo as the README suggests, and a hand, a sleeve or a
cup drawn over places of a real photo."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest
from shared_photos import PHOTOS, needs_photos

from bench.photo_accuracy import Photo, folder_photos, learn_from, run_folder, teacher
from controller.vision import lattice
from controller.vision.geometry import LatticeGeometry, homography_from_corners, parse_corners

pytestmark = pytest.mark.slow  # every test here takes seconds


@needs_photos
@pytest.mark.parametrize(
    "folder,rate",
    [
        ("go-tengen-9x9-webcam", 0.99),  # one webcam pose: every place read
        ("chess-pcwawc-wooden", 0.99),
        ("go-tengen-13x13-angled", 0.95),  # phone, six poses: stones seen at an angle hide the board
        # Held out of the learning photo, a dark piece on a dark square reads as the square: a
        # square whose nearest rival is a dark piece then needs a wide margin (one was read wrong).
        ("chess-pcwawc-folding", 0.65),
    ],
)
def test_photos_of_a_folder_are_read_from_one_labelled_photo(folder: str, rate: float) -> None:
    score = run_folder(PHOTOS, folder, {})
    assert score.places > 0
    assert score.wrong == 0, score.mistakes
    assert score.right >= rate * score.places


def _blob(
    img: np.ndarray, centre: np.ndarray, axes: tuple[int, int], bgr: tuple[int, int, int], seed: int
) -> np.ndarray:
    """An object of one colour over the picture: an ellipse with a light gradient across it and
    some texture (skin, cloth, glazed clay), as a mask and the picture with it."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(mask, (int(centre[0]), int(centre[1])), axes, 25, 0, 360, 255, -1)
    shade = np.linspace(0.8, 1.1, img.shape[1], dtype=np.float32)[None, :, None]
    paint = np.array(bgr, np.float32) * shade + rng.normal(0, 8, img.shape).astype(np.float32)
    out = img.copy()
    out[mask > 0] = np.clip(paint, 0, 255).astype(np.uint8)[mask > 0]
    return mask, out


#: Colours (BGR) of things that come over a board: a hand, a dark sleeve, a red cup, a white cup.
OBJECTS = {"hand": (120, 150, 205), "sleeve": (110, 60, 35), "red cup": (40, 40, 190), "white cup": (225, 225, 225)}


@functools.cache
def _nine_by_nine() -> tuple[list[Photo], lattice.LatticeModel]:
    """The 9x9 webcam game's photos and the model learned from the README's photo."""
    photos = folder_photos(PHOTOS / "go-tengen-9x9-webcam")
    return photos, learn_from(teacher(photos))


def _read_with_objects(thing: str):
    """A 9x9 webcam game learned from one photo, its last photo read with `thing` over four
    places in turn (middle, edge, corner): (places covered, truth, reading, sure) per case."""
    photos, model = _nine_by_nine()
    photo: Photo = photos[-1]
    corners = parse_corners(photo.corners)
    rows, cols = photo.size
    h = homography_from_corners(LatticeGeometry(rows, cols), corners)
    pitch = np.linalg.norm(corners[1] - corners[0]) / (cols - 1)
    points = cv2.perspectiveTransform(LatticeGeometry(rows, cols).points()[None], h)[0]
    for seed, (c, r) in enumerate([(2, 3), (6, 5), (4, 0), (8, 8)]):
        mask, img = _blob(photo.image(), points[r * cols + c], (int(1.4 * pitch), int(pitch)), OBJECTS[thing], seed)
        got, sure, _ = lattice.read(model, img, corners)
        covered = [divmod(i, cols) for i, p in enumerate(points) if mask[int(round(p[1])), int(round(p[0]))]]
        assert len(covered) >= 2
        yield covered, photo.grid, got, sure


@needs_photos
@pytest.mark.parametrize("thing", sorted(OBJECTS))
def test_an_object_over_places_of_a_real_photo_is_never_a_piece(thing: str) -> None:
    """No place under an object is read as a stone. Unlike the hand, whose colour is close to
    this wooden board's (only the missing grid lines tell them apart), the others hide the
    board: every place under them is unsure, or at the object's rim, where the place still
    shows, read right."""
    for covered, truth, got, sure in _read_with_objects(thing):
        for r, c in covered:
            assert not (sure[r, c] and got[r][c] != "."), (thing, r, c, got[r][c])
            if thing != "hand":
                assert not sure[r, c] or got[r][c] == truth[r][c], (thing, r, c, got[r][c])


@needs_photos
@pytest.mark.parametrize(
    "exposure,cast,gradient",
    [
        (0.6, (1.0, 1.0, 1.0), 0.0),  # a darker exposure
        (1.0, (0.75, 1.0, 1.25), 0.0),  # a warm lamp (BGR gains)
        (1.2, (1.2, 1.0, 0.8), 0.3),  # a window's cool light from one side
    ],
)
def test_a_real_photo_under_other_light_keeps_its_classes(exposure, cast, gradient) -> None:
    from tests.test_vision_lattice_robust import relit

    photos, model = _nine_by_nine()
    photo = photos[-1]
    got, sure, _ = lattice.read(model, relit(photo.image(), exposure, cast, gradient), parse_corners(photo.corners))
    wrong = [(r, c) for r, row in enumerate(photo.grid) for c, t in enumerate(row) if sure[r, c] and got[r][c] != t]
    assert wrong == []
    assert sure.mean() >= 0.95


@needs_photos
def test_a_board_unlike_the_learned_one_is_read_where_looks_and_flatness_agree() -> None:
    """Learned on a wooden chess board, a black-and-white board's squares are mostly unlike every
    learned look; the places that happen to look like a piece (black squares like the dark pieces)
    are not trusted. Its empty squares are flat edge to edge, whatever their colours, and most read
    empty surely; a piece reads surely only where the looks and the board-independent flatness are
    both sure of that same piece (a black square is flat: the flatness never calls it a piece).
    Another wooden board is read."""
    photos = {p.name: p for p in folder_photos(PHOTOS / "chess-pcwawc-misc")}
    model = learn_from(photos["chessBoard012"])
    for name, least_sure in (("chessBoard013", 0.0), ("chessBoard011", 0.95)):
        photo = photos[name]
        got, sure, _ = lattice.read(model, photo.image(), parse_corners(photo.corners))
        assert all(got[r][c] == photo.grid[r][c] for r, c in zip(*np.nonzero(sure))), name
        if least_sure:
            assert sure.mean() >= least_sure, name
        else:
            empty = np.array(photo.grid) == "."
            assert (sure & empty).sum() >= 0.5 * empty.sum(), name
            assert (sure & ~empty).sum() >= 0.25 * (~empty).sum(), name  # none before


@needs_photos
def test_printed_empty_boards_read_empty_from_a_wooden_board_with_pieces(tmp_path) -> None:
    """Learned from a wooden board with pieces, empty printed boards of other colours and
    cameras read empty where their squares are flat edge to edge (`lattice.places.flatness`), and the
    model keeps that reading when saved and loaded."""
    photos = {p.name: p for p in folder_photos(PHOTOS / "chess-pcwawc-misc")}
    path = tmp_path / "m.json"
    path.write_text(learn_from(photos["chessBoard012"]).to_json())
    model = lattice.LatticeModel.load(path)
    for name in ("chessBoard001", "chessBoard009"):
        photo = photos[name]
        got, sure, _ = lattice.read(model, photo.image(), parse_corners(photo.corners))
        assert all(got[r][c] == "." for r, c in zip(*np.nonzero(sure))), name
        assert sure.mean() >= 0.75, name  # without the flatness these boards read hardly at all


@needs_photos
def test_stones_another_camera_tints_read_by_lightness_where_the_flatness_agrees() -> None:
    """Learned from one Go board, another board's camera gives its black stones a blue cast: their
    full look is far from every learned one, but they are as dark against the board as the learned
    black stones and the flatness finds them nearest a black stone too, so they read black; every
    sure reading of the picture is right."""
    photos = {p.name: p for p in folder_photos(PHOTOS / "go-seegoban-19x19")}
    model = learn_from(photos["board-1"])
    photo = photos["board-2"]
    got, sure, _ = lattice.read(model, photo.image(), parse_corners(photo.corners))
    truth = np.array(photo.grid)
    assert all(got[r][c] == truth[r, c] for r, c in zip(*np.nonzero(sure)))
    black = truth == "B"
    assert (sure & black).sum() >= 0.9 * black.sum()


@needs_photos
def test_a_pawn_of_its_squares_wood_on_another_board_is_never_read_empty_surely() -> None:
    """Learned on one wooden board, another's walnut pawn on a walnut square (chessBoard005 (0,6))
    has the square's colour and flatness, and rule parity read it empty, sure; its texture is its
    pieces' (rule `texture`): unsure. Every sure reading of the folding board is right."""
    model = learn_from(teacher(folder_photos(PHOTOS / "chess-pcwawc-wooden")))
    photo = next(p for p in folder_photos(PHOTOS / "chess-pcwawc-folding") if p.name == "chessBoard005")
    got, sure, _ = lattice.read(model, photo.image(), parse_corners(photo.corners))
    assert not sure[0, 6]
    assert all(got[r][c] == photo.grid[r][c] for r, c in zip(*np.nonzero(sure)))
