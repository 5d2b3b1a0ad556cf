"""Rule *parity*: a place reads as its parity's bare board in this picture, or against it.

Light and dark squares alternate: an empty place shows its parity's bare board, and within one
picture the empty places of one parity share a rendering whatever the board. A place the flatness
surely reads empty (or the picture's own flat board does) while the looks lean to a piece reads
empty where its looks are those of its parity's other flat places (`own_looks.parity_looks`) and
nearer them than every piece look (learned, or of this picture's own pieces of that parity) by
the model's margins; one as near those pieces is marked "like_pieces" (the flatness rule then does
not read it empty). A place both readings lean to a piece reads the piece its looks are nearest
where nearer it than its parity's empty look and every other piece. A place the looks surely read
as a piece, flat but beyond its parity's empty look, is a piece whose top covers its cell
("not_board": the flatness rule leaves it sure).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controller.vision.lattice.own_looks import flat_piece, own_pieces, parity_distances
from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.reading import Picture, Reading, parity_of

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel


NAME = "parity"


def rule(picture: Picture, reading: Reading) -> Reading:
    """Places read against their parity's bare board in this picture."""
    if not picture.with_flatness:
        return reading
    why = reading.why_array()
    letters, made, not_board, like_pieces = by_parity(
        picture.model,
        picture.shifted,
        picture.flat_known,
        list(reading.letters),
        why,
        picture.dist,
        reading.marked("own_empty"),
    )
    return reading.but(
        NAME, letters, why, made, marks={"by_picture": made, "not_board": not_board, "like_pieces": like_pieces}
    )


def by_parity(
    model: LatticeModel,
    shifted: np.ndarray,
    flat: np.ndarray,
    letters: list[str],
    why: np.ndarray,
    dist: np.ndarray,
    own_empty: np.ndarray | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Read empty the places the flatness surely reads empty while the looks lean to a piece,
    where their colour is that of the picture's other flat places of the same parity, and as
    pieces the places both lean to a piece, where unlike those; say which places were so read
    (`why` changed in place to "" there).

    Light and dark squares alternate (the lattice's parity; on a Go board every place is
    alike): an empty place shows its parity's bare board. Another board renders its squares
    otherwise than the learning board (a printed board's white squares near a wooden set's
    light pieces), but within one picture the empty places of one parity share a rendering.
    The places of that parity that the flatness surely reads empty and the looks do not
    surely read as a piece give its empty look in this picture (`_parity_looks`), from the
    others than the place read. The place reads empty, sure, when that look is within the
    open-set distance and nearer than every piece look by the margins the model needs
    (`min_margin`, the pair margins): the learned piece looks, and this picture's own pieces of
    that parity (`own_looks.own_pieces`; read surely as pieces by the looks and the flatness),
    where nearer: another set's pawn on another board's square may lie far from every learned
    look and near its square, and a look taken from this picture is fairly weighed only against
    the pieces this picture shows. The other way round, a place the flatness and the looks
    both lean to a piece reads the piece its looks are nearest when that look is nearer than
    its parity's empty look and every look of another piece by those margins (a light piece
    on a light square that the learned looks found as near the square). `dist` is (N, looks)
    from `decide_picture`. Those
    readings lean on the picture's other places, so they say nothing of whether the
    learned looks explain the picture. `shifted` is the (shifts, N, F) features with the
    picture's global offset removed (`_decide_offset`). `own_empty` (`_own_flatness`): places
    the picture's own flat board reads empty, candidates as the flat-sure ones are. Returned
    too: the places the looks surely read as a piece that are flat but beyond the open-set
    distance of their parity's empty look, that piece look nearer by the margins: not the
    bare board whatever the flatness says (`_with_flatness` leaves them sure); and the places
    asked whose looks are not nearer their parity's empty look than this picture's own pieces by
    the margins ("like_pieces": the looks lean to a piece in the picture's own terms, so the
    flatness alone does not read them empty, rule `flatness`).
    """
    rows, cols = model.size
    made = np.zeros(len(letters), bool)
    c = model.classes
    letter_of = np.array([r.letter for r in c.refs])
    pieces = np.flatnonzero(letter_of != EMPTY)
    if len(letters) != rows * cols or not len(pieces) or not np.any(letter_of == EMPTY):
        return letters, made, np.zeros(len(letters), bool), np.zeros(len(letters), bool)
    fdec = model.flat_looks.decide(flat)
    flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
    surely_piece = (why == "") & (np.array(letters) != EMPTY)
    parity = parity_of(len(letters), cols)
    not_board = np.zeros(len(letters), bool)
    flat_empty_here = flat_empty if own_empty is None else flat_empty | own_empty
    candidates = flat_empty_here & (np.isin(why, ["margin", "pair", "far"]) | surely_piece)
    out = list(letters)
    read_as = np.array(letters)
    # This picture's own pieces: read surely as pieces by the looks and by the learned flatness
    # (`flat_piece`, of whichever kind: a flatness learned on another set tells a solid from the
    # board, not that set's kinds); a square of another board that the looks take for a piece
    # is no piece to weigh a place against.
    seen_pieces = surely_piece & flat_piece(model, flat)
    like_pieces = np.zeros(len(letters), bool)
    for q in (0, 1):
        here = np.flatnonzero(candidates & (parity == q))
        population = flat_empty & ~surely_piece & (parity == q)
        if not len(here) or not population.any():
            continue
        d_empty, enough = parity_distances(model, shifted[0, population], shifted[:, here], population[here])
        rival = pieces[dist[here][:, pieces].argmin(axis=1)]
        d_piece = dist[here, rival]
        d_own, own_letter = own_pieces(model, shifted, read_as, seen_pieces & (parity == q), here)
        nearest = np.minimum(d_piece, d_own)
        rival_letter = np.where(d_own < d_piece, own_letter, letter_of[rival])
        margin = (nearest - d_empty) / np.maximum(nearest, 1e-9)
        need = np.array([c.pair_margins.get((EMPTY, str(k)), -np.inf) for k in rival_letter])
        read = enough & (d_empty <= c.max_distance) & (margin >= c.min_margin) & (margin > need)
        for i in here[read]:
            why[i], out[i], made[i] = "", EMPTY, True
        seen = np.isfinite(d_own)
        own = (np.where(seen, d_own, 1.0) - d_empty) / np.maximum(np.where(seen, d_own, 1.0), 1e-9)
        own_need = np.array([c.pair_margins.get((EMPTY, str(k)), -np.inf) for k in own_letter])
        like_pieces[here] = enough & seen & ((own < c.min_margin) | (own <= own_need))
        # A place the looks surely read as a piece, flat but not of its parity's bare board in
        # this picture (beyond that look's open-set distance, and its piece look nearer by the
        # margins): a piece whose top covers its cell, not the board.
        opposite = (d_empty - d_piece) / np.maximum(d_empty, 1e-9)
        need = np.array([c.pair_margins.get((c.refs[k].letter, EMPTY), -np.inf) for k in rival])
        unlike = (
            enough
            & surely_piece[here]
            & (d_empty > c.max_distance)
            & (opposite >= c.min_margin)
            & (opposite > need)
            & (np.array(letters)[here] == letter_of[rival])
        )
        not_board[here[unlike]] = True
    # A place both readings lean to a piece (the flatness nearest a piece, the looks unsure)
    # reads the piece its looks are nearest when nearer it than its parity's empty look in
    # this picture and every look of another piece by the model's margins. Here that look is
    # the only rival of the piece, not the look the place is read as: it must be the bare board's,
    # and one place that the flatness alone calls empty may be a piece it mistook (under a violet
    # lamp, board-2's one flat place was a white stone, and a bare point read white beside it),
    # so two places at least (the flatness mistaking both is what this rule still risks).
    leaning = (np.array(fdec.letters) != EMPTY) & np.isin(why, ["margin", "pair", "far"]) & (np.array(out) != EMPTY)
    piece_of = letter_of[pieces]
    for q in (0, 1):
        here = np.flatnonzero(leaning & (parity == q))
        population = flat_empty & ~surely_piece & (parity == q)
        if not len(here) or population.sum() < 2:
            continue
        d_empty, _ = parity_distances(model, shifted[0, population], shifted[:, here], np.zeros(len(here), bool))
        near = dist[here][:, pieces]  # (candidates, piece looks)
        best = near.argmin(axis=1)
        d1 = near[np.arange(len(here)), best]
        other = np.where(piece_of[None] == piece_of[best][:, None], np.inf, near)
        d2 = np.minimum(other.min(axis=1), d_empty)
        rival = np.where(other.min(axis=1) < d_empty, piece_of[other.argmin(axis=1)], EMPTY)
        margin = (d2 - d1) / np.maximum(d2, 1e-9)
        need = np.array([c.pair_margins.get((str(a), str(b)), -np.inf) for a, b in zip(piece_of[best], rival)])
        read = (d1 <= c.max_distance) & (margin >= c.min_margin) & (margin > need)
        for i, letter in zip(here[read], piece_of[best][read]):
            why[i], out[i], made[i] = "", str(letter), True
    return out, made, not_board, like_pieces
