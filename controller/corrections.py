"""How to put an illegal board right, piece by piece (pure logic, no I/O).

Why: after an illegal move the lights only say "put the board back"; players who did not watch
the move need to know *what* to put back. As DGT Centaur's correction mode does with its LEDs,
`plan` compares the last legal board with what the camera sees and lists the corrections: a
piece that is missing in one place and extra in another is one move ("move the red marble from
point 2,3 back to point 4,4"), paired by the fewest steps over all pieces (an optimal assignment),
the rest are put back or taken off; the game's lines besides the grid (Stay Alive's slides,
Flipop's doors) are set back as the game words it (`ExtraLine.set_back`). Each correction names
the places it concerns, so `progress` can tick it off once a newer reading shows those places as
on the legal board.

Places are named as each game names them (`Engine.place_name`), colours by the profile's names.
Unsure places (`?`) are never corrected: nothing is known there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.games import registry
from controller.games.spec import CellFormat, GameSpec
from controller.language import N_, Colour, N_n, Text, _, listed
from controller.matching import min_cost_assignment
from controller.snapshot import EMPTY, Snapshot

Cell = tuple[int, int]

#: Cost of pairing two pieces that are not the same piece: above any board's distances, so the
#: assignment first pairs as many same pieces as it can, then minimises the steps.
MISMATCH = 10_000


@dataclass(frozen=True)
class Correction:
    """One thing to do with the hands; `cells` and `tokens` are where it shows when done."""

    kind: str  # "move", "put", "take", "refill" (a slide whose pieces fall), or a game line's ("slide", "door")
    text: str
    cells: tuple[Cell, ...] = ()
    #: Tokens of the snapshot's lines besides the grid, as (line key, index from 0).
    tokens: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "cells": [list(c) for c in self.cells]}


@dataclass
class Progress:
    """A plan made when the board went illegal, ticked against the latest reading."""

    steps: list[tuple[Correction, bool]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return all(ok for _, ok in self.steps)

    def to_json(self) -> list[dict[str, Any]]:
        return [dict(c.to_json(), done=ok) for c, ok in self.steps]


# --- the plan -------------------------------------------------------------------------------------
def plan(engine: Any, legal: Snapshot, seen: Snapshot) -> list[Correction]:
    """The corrections that turn `seen` back into `legal`, in an order hands can follow.

    Slides and doors first (a slide moved back may free a point), then pieces taken off, then
    moves, then pieces put back (a move's or a put's target may be where an extra piece lies).
    """
    spec = registry.get(legal.game) if registry.known(legal.game) else None
    if spec is not None and spec.play.falls_to_bottom:
        by_slide = _slides_refilled(engine, legal, seen)
        if by_slide is not None:
            return by_slide
    cells = spec.cells if spec is not None else CellFormat()
    out = _lines(spec, legal, seen)
    missing, extra = _differences(cells, legal, seen)
    pairs, lone_missing, lone_extra = _pair(cells, missing, extra)
    noun = spec.piece_noun if spec is not None else "piece"
    for cell, piece in lone_extra:
        text = _("take {piece} off {place}", piece=_the_piece(engine, piece, noun), place=_place(engine, cell))
        out.append(Correction("take", text, cells=(cell,)))
    for (to, piece), (frm, _piece) in pairs:
        text = _(
            "move {piece} from {start} back to {end}",
            piece=_the_piece(engine, piece, noun),
            start=_place(engine, frm),
            end=_place(engine, to),
        )
        out.append(Correction("move", text, cells=(frm, to)))
    for cell, piece in lone_missing:
        text = _("put {piece} back on {place}", piece=_the_piece(engine, piece, noun), place=_place(engine, cell))
        out.append(Correction("put", text, cells=(cell,)))
    return out


def progress(engine: Any, legal: Snapshot, first_seen: Snapshot, seen: Snapshot | None) -> Progress:
    """The plan made against `first_seen`, each step ticked when `seen` shows it done.

    Anything newly wrong in `seen` (a piece knocked while correcting) is added as further steps.
    `seen` None (nothing read yet since) ticks nothing.
    """
    steps = plan(engine, legal, first_seen)
    if seen is None:
        return Progress([(c, False) for c in steps])
    ticked = [(c, is_done(c, legal, seen)) for c in steps]
    covered_cells = {cell for c in steps for cell in c.cells}
    covered_tokens = {t for c in steps for t in c.tokens}
    for c in plan(engine, legal, seen):
        if (set(c.cells) - covered_cells) or (set(c.tokens) - covered_tokens):
            ticked.append((c, False))
    return Progress(ticked)


def is_done(correction: Correction, legal: Snapshot, seen: Snapshot) -> bool:
    """Whether every place the correction concerns shows what the legal board has."""
    cells = registry.get(legal.game).cells if registry.known(legal.game) else CellFormat()
    for r, c in correction.cells:
        if not cells.same_piece(legal.cells[r][c], seen.cells[r][c]):
            return False
    for key, i in correction.tokens:
        want, got = legal.line(key), seen.line(key)
        if got is None or want is None or got[i] != want[i]:
            return False
    return True


# --- what differs ---------------------------------------------------------------------------------
def _differences(
    cells: CellFormat, legal: Snapshot, seen: Snapshot
) -> tuple[list[tuple[Cell, str]], list[tuple[Cell, str]]]:
    """Pieces of the legal board not seen where they belong, and pieces seen where none belongs
    (a place whose reading only knows less, a Blockers! tile whose glyph is unread, is the same piece)."""
    missing: list[tuple[Cell, str]] = []
    extra: list[tuple[Cell, str]] = []
    for r, (want_row, got_row) in enumerate(zip(legal.cells, seen.cells)):
        for c, (want, got) in enumerate(zip(want_row, got_row)):
            if got == "?" or cells.same_piece(want, got):
                continue
            if want != EMPTY:
                missing.append(((r, c), want))
            if got != EMPTY:
                extra.append(((r, c), got))
    return missing, extra


def _pair(
    cells: CellFormat, missing: list[tuple[Cell, str]], extra: list[tuple[Cell, str]]
) -> tuple[list[tuple[tuple[Cell, str], tuple[Cell, str]]], list[tuple[Cell, str]], list[tuple[Cell, str]]]:
    """Pair missing with extra pieces of the same kind by the fewest steps in total."""
    if not missing or not extra:
        return [], missing, extra
    cost = [
        [abs(m[0][0] - e[0][0]) + abs(m[0][1] - e[0][1]) if cells.same_piece(m[1], e[1]) else MISMATCH for e in extra]
        for m in missing
    ]
    assignment = min_cost_assignment(cost)
    pairs = []
    paired_m: set[int] = set()
    paired_e: set[int] = set()
    for i, j in assignment:
        if cost[i][j] < MISMATCH:
            pairs.append((missing[i], extra[j]))
            paired_m.add(i)
            paired_e.add(j)
    lone_m = [m for i, m in enumerate(missing) if i not in paired_m]
    lone_e = [e for j, e in enumerate(extra) if j not in paired_e]
    return pairs, lone_m, lone_e


def _lines(spec: GameSpec | None, legal: Snapshot, seen: Snapshot) -> list[Correction]:
    """The tokens of the game's lines besides the grid to set back, as the game words each."""
    out = []
    for line in spec.extra_lines if spec is not None else ():
        want, got = legal.line(line.key), seen.line(line.key)
        if line.set_back is None or want is None or got is None:
            continue
        for i, (w, g) in enumerate(zip(want, got)):
            if w != g and line.unknown not in (w, g):
                out.append(Correction(line.correction, line.set_back(i, w), tokens=((line.key, i),)))
    return out


# --- a board whose pieces fall (Colorpop's slides) ----------------------------------------------------
def _column(board: Snapshot, c: int) -> list[str]:
    """Column `c`'s pieces from the bottom up."""
    return [row[c] for row in reversed(board.cells) if row[c] != EMPTY]


def _settled(board: Snapshot) -> bool:
    """Every piece rests on the one below it (no gap under a piece in its column)."""
    rows = len(board.cells)
    for c in range(board.cols):
        seen_gap = False
        for r in range(rows - 1, -1, -1):
            if board.cells[r][c] == EMPTY:
                seen_gap = True
            elif seen_gap:
                return False
    return True


def _subsequence(short: list[str], long: list[str]) -> list[int] | None:
    """Where `short`'s pieces are in `long`, in order (the indices of `long` they are), or None."""
    at, out = 0, []
    for piece in short:
        while at < len(long) and long[at] != piece:
            at += 1
        if at == len(long):
            return None
        out.append(at)
        at += 1
    return out


def _slides_refilled(engine: Any, legal: Snapshot, seen: Snapshot) -> list[Correction] | None:
    """Corrections as a player makes them on a board whose pieces fall to the bottom of their slide
    (Colorpop): per slide, which pieces go back where (the ones above slide back up), and an emptied
    slide put back in its place and filled again; never one step per fallen piece. None when the
    board seen is not the legal one less some pieces (pieces added or swapped, a piece floating):
    the piece-by-piece plan says that."""
    if "?" in {v for row in seen.cells for v in row} or not _settled(seen):
        return None
    legal_cols = [(c, _column(legal, c)) for c in range(legal.cols) if _column(legal, c)]
    seen_cols = [(c, _column(seen, c)) for c in range(seen.cols) if _column(seen, c)]
    # Align the slides seen with the legal ones, in order, each seen slide the legal one less some
    # pieces, a legal slide with no partner emptied: the alignment removing the fewest pieces.
    n, m = len(legal_cols), len(seen_cols)
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for j in range(1, n + 1):
        want = legal_cols[j - 1][1]
        for k in range(0, m + 1):
            cost = best[j - 1][k] + len(want)  # slide j emptied
            if k and best[j - 1][k - 1] < inf and _subsequence(seen_cols[k - 1][1], want) is not None:
                cost = min(cost, best[j - 1][k - 1] + len(want) - len(seen_cols[k - 1][1]))
            best[j][k] = cost
    if best[n][m] == inf:
        return None
    pairs: list[tuple[int, int | None]] = []
    j, k = n, m
    while j:
        want = legal_cols[j - 1][1]
        if (
            k
            and _subsequence(seen_cols[k - 1][1], want) is not None
            and best[j][k] == best[j - 1][k - 1] + len(want) - len(seen_cols[k - 1][1])
        ):
            pairs.append((j - 1, k - 1))
            k -= 1
        else:
            pairs.append((j - 1, None))
        j -= 1
    pairs.reverse()
    rows = len(legal.cells)
    noun = registry.get(legal.game).piece_noun
    out: list[Correction] = []
    for j, seen_at in pairs:
        c, want = legal_cols[j]
        letter = str(_place(engine, (rows - 1, c))).rstrip("0123456789")
        column_cells = tuple((rows - 1 - i, c) for i in range(len(want)))
        if seen_at is None:
            text = _(
                "put the emptied slide back in place {slide} and fill it again from the bottom: {pieces} "
                "({start} up to {end})",
                slide=letter,
                pieces=_pieces_list(engine, want, noun),
                start=_place(engine, column_cells[0]),
                end=_place(engine, column_cells[-1]),
            )
            out.append(Correction("refill", text, cells=column_cells))
            continue
        kept = _subsequence(seen_cols[seen_at][1], want) or []
        missing = [i for i in range(len(want)) if i not in set(kept)]
        if not missing:
            continue
        lowest = missing[0]
        where = listed(_place(engine, column_cells[i]) for i in missing)
        above = [i for i in range(lowest + 1, len(want)) if i not in set(missing)]
        text = _(
            "slide {slide}: put {pieces} back at {places}",
            slide=letter,
            pieces=_the_pieces(engine, [want[i] for i in missing], noun),
            places=where,
        )
        if above:
            ends = [_place(engine, column_cells[above[0]]), _place(engine, column_cells[above[-1]])]
            if len(above) <= 2:
                up_to: str = listed(ends[: len(above)])
            else:
                up_to = _("{start} up to {end}", start=ends[0], end=ends[1])
            text = _(
                "{said}; {above} above slide back up to {places}",
                said=text,
                above=_the_count(len(above), noun),
                places=up_to,
            )
        out.append(Correction("refill", text, cells=column_cells[lowest:]))
    return out


# --- words ----------------------------------------------------------------------------------------
#: How a game's piece is said with its colour, by the noun the game calls it (`GameSpec.piece_noun`):
#: `the {colour} token` (French: `le jeton {colour}`, `la bille {colour}`: the article follows the noun).
THE_PIECE = {
    "token": N_("the {colour} token"),
    "tile": N_("the {colour} tile"),
    "marble": N_("the {colour} marble"),
    "ball": N_("the {colour} ball"),
    "piece": N_("the {colour} piece"),
}
#: Several pieces of one colour (`the 3 yellow tokens`), and of several colours listed bottom up.
THE_PIECES = {
    "token": (*N_n("the {n} {colour} token", "the {n} {colour} tokens"), N_("the {colours} tokens")),
    "piece": (*N_n("the {n} {colour} piece", "the {n} {colour} pieces"), N_("the {colours} pieces")),
}
#: Pieces counted without their colours: `the token`, `the 2 tokens` (above a gap, sliding back up).
THE_COUNT = {
    "token": N_n("the token", "the {n} tokens"),
    "piece": N_n("the piece", "the {n} pieces"),
}


def _place(engine: Any, cell: Cell) -> str:
    if engine is not None:
        return engine.place_name(cell)
    return _("row {row} column {column}", row=cell[0] + 1, column=cell[1] + 1)


def _colour(engine: Any, letter: str, noun: str, count: int) -> Any:
    if engine is not None:
        return engine.colour(letter, count)
    return Colour(letter, noun, count)


def _the_piece(engine: Any, piece: str, noun: str) -> Text:
    """`the red marble`, `the red tile 5` (a game whose pieces bear a glyph words it itself: `Engine.piece_words`)."""
    words = getattr(engine, "piece_words", None)
    if words is not None and len(piece) == 2:
        return words(piece)
    return Text(THE_PIECE.get(noun, THE_PIECE["piece"]), {"colour": _colour(engine, piece[0], noun, 1)})


def _the_pieces(engine: Any, pieces: list[str], noun: str) -> Text:
    """`the yellow token`, `the 3 yellow tokens`, `the yellow, yellow and pink tokens` (bottom up)."""
    one, many, mixed = THE_PIECES.get(noun, THE_PIECES["piece"])
    if len(set(pieces)) == 1:
        if len(pieces) == 1:
            return _the_piece(engine, pieces[0], noun)
        colour = _colour(engine, pieces[0], noun, len(pieces))
        return Text(one, {"colour": colour}, plural=many, n=len(pieces))
    colours = listed(_colour(engine, p, noun, 1) for p in pieces)
    return Text(mixed, {"colours": colours})


def _pieces_list(engine: Any, pieces: list[str], noun: str) -> Text:
    return _the_pieces(engine, pieces, noun)


def _the_count(n: int, noun: str) -> Text:
    one, many = THE_COUNT.get(noun, THE_COUNT["piece"])
    return Text(one, plural=many, n=n)
