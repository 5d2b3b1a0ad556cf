"""What a computer player knows of Blockers! besides its rules (`controller.ai.knowledge`).

Hidden information: the racks. Each colour holds 5 of its unplayed tiles (the engine's
`available` glyphs: not on the board, not captured) and draws one after each placement while its
box has tiles. A seat knows its own rack(s) (its private part: {colour: [glyphs]}) and samples
every other rack from that colour's unplayed tiles. A player places from its rack, and captures
only when none of its rack tiles fits an empty cell (`rules.md` §2: the referee cannot enforce
this, but the players here keep it).

At a real table a computer seat's rack is what a person drew for it from its pile and tapped on
the page (`controller.ai.table.think` hands it in as the seat's private part); in simulations and
benches `deal` and `after_move` draw at random, as a person would.

Evaluation: a seat's score is its groups on the board plus its captures of its most captured
colour, lowest wins; a seat is judged by its score against the best rival's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from controller.ai.knowledge import GameKnowledge
from controller.games.blockers.board import EMPTY, SIZE, cell_name, count_groups, cut_cells
from controller.games.blockers.rules import PLACEMENTS_PER_COLOUR, RACK, Placement
from controller.language import _

#: Score points of difference that make a position clearly won.
SCALE = 2.0

#: Each place's neighbours to the left and above, places numbered row by row: a scan in that
#: order meets every place after them.
_BEFORE = tuple(
    tuple(i for i, ok in ((r * SIZE + c - 1, c > 0), ((r - 1) * SIZE + c, r > 0)) if ok)
    for r in range(SIZE)
    for c in range(SIZE)
)

Racks = tuple[tuple[str, tuple[str, ...]], ...]


@lru_cache(maxsize=1 << 12)
def _cuts(board: tuple[tuple[str, ...], ...]) -> frozenset[tuple[int, int]]:
    """The tiles whose capture would split their group, remembered per board (the search walks
    the same boards down its tree on every iteration)."""
    return cut_cells(board)


def _racks(hidden: Any) -> dict[str, tuple[str, ...]]:
    return dict(hidden or ())


class BlockersKnowledge(GameKnowledge):
    effort = 1.0
    # An iteration lists about 150-300 moves in mid-game, 500 on the first moves (full racks, empty board).
    work_per_iteration = 300.0
    playout_depth = 4
    private_moves = True  # a seat places from its own rack

    # -- hidden information -----------------------------------------------------------------
    def deal(self, engine: Any, state: Any, rng: random.Random) -> Racks:
        """Every colour's first rack: 5 of its unplayed tiles at random."""
        racks = []
        for k, colour in enumerate(engine.colours):
            tiles = sorted(state.available[k])
            racks.append((colour, tuple(sorted(rng.sample(tiles, min(RACK, len(tiles)))))))
        return tuple(racks)

    def private(self, engine: Any, hidden: Any, seat: int) -> Any:
        if hidden is None:
            return None
        racks = _racks(hidden)
        mine = {c: list(racks[c]) for c in engine.seat_colours[seat] if c in racks}
        return mine or None

    def sample(self, engine: Any, state: Any, seat: int, private: Any, rng: random.Random) -> Racks:
        own = {
            c: tuple(sorted(g for g in glyphs if g in state.available[engine.colour_index[c]]))
            for c, glyphs in (private or {}).items()
        }
        racks = []
        for k, colour in enumerate(engine.colours):
            if colour in own:
                racks.append((colour, own[colour]))
                continue
            tiles = sorted(state.available[k])
            racks.append((colour, tuple(sorted(rng.sample(tiles, min(RACK, len(tiles)))))))
        return tuple(racks)

    def moves(self, engine: Any, state: Any, private: Any) -> Sequence[Any]:
        """Placements from the mover's rack(s); captures only for a colour none of whose rack
        tiles fits an empty cell. Without a rack known (or none that can place): every unplayed tile."""
        seat = state.to_move
        if seat is None:
            return []
        if not private:
            return engine.legal_moves(state)
        board = state.board
        out: list[Placement] = []
        cells_of = engine.map.cells_in_order
        for colour in engine.colours_left(state, seat):
            rack = private.get(colour)
            if rack is None:
                out.extend(m for m in engine.legal_moves(state) if m.colour == colour)
                continue
            available = state.available[engine.colour_index[colour]]
            glyphs = sorted(g for g in set(rack) if g in available)
            empty = [
                Placement(colour, g, cell) for g in glyphs for cell in cells_of[g] if board[cell[0]][cell[1]] == EMPTY
            ]
            if empty:
                out.extend(empty)
                continue
            cuts = _cuts(board)
            for g in glyphs:
                for cell in cells_of[g]:
                    if board[cell[0]][cell[1]][0] != colour and cell not in cuts:
                        out.append(Placement(colour, g, cell))
        return out or engine.legal_moves(state)

    def after_move(self, engine: Any, before: Any, move: Any, hidden: Any, rng: random.Random) -> Any:
        """The placed tile leaves its rack; a tile is drawn from what is left of that colour's box
        (its unplayed tiles not in the rack), while the colour has placements to come. Works on
        the racks of every colour (`deal`, `sample`) and on a seat's private part ({colour: [glyphs]})."""
        if hidden is None:
            return None
        racks = {c: list(g) for c, g in (hidden.items() if isinstance(hidden, dict) else hidden)}
        colour = move.colour
        if colour in racks:
            rack = racks[colour]
            if move.glyph in rack:
                rack.remove(move.glyph)
            elif rack:
                rack.pop(rng.randrange(len(rack)))  # no rack tile could go anywhere: one tile less in hand
            k = engine.colour_index[colour]
            box = sorted(before.available[k] - {move.glyph} - set(rack))
            if box and before.placed[k] + 1 < PLACEMENTS_PER_COLOUR and len(rack) < RACK:
                rack.append(box[rng.randrange(len(box))])
            rack.sort()
        if isinstance(hidden, dict):
            return racks
        return tuple((c, tuple(g)) for c, g in racks.items())

    # -- positions --------------------------------------------------------------------------
    def scores(self, engine: Any, state: Any) -> list[float]:
        """Per seat, its groups on the board plus its captures of its most captured colour (and a
        hundredth of all its captures, to break ties): the rules' score, lowest wins."""
        groups = groups_by_colour(state.board)
        out = []
        for seat in range(engine.players):
            caught = state.captures[seat]
            out.append(sum(groups.get(c, 0) for c in engine.seat_colours[seat]) + max(caught) + 0.01 * sum(caught))
        return out

    def evaluate(self, engine: Any, state: Any) -> tuple[float, ...]:
        scores = self.scores(engine, state)
        values = []
        for seat, own in enumerate(scores):
            rival = min(s for i, s in enumerate(scores) if i != seat)
            values.append(1.0 / (1.0 + math.exp((own - rival) / SCALE)))
        return tuple(values)

    def explain(self, engine: Any, state: Any, move: Any, seat: int, private: Any = None) -> Any:
        before = count_groups(state.board, move.colour)
        after_state = engine.apply(state, move)[0]
        after = count_groups(after_state.board, move.colour)
        where = cell_name(move.cell)
        name = engine.colour_name(move.colour)
        old = state.board[move.cell[0]][move.cell[1]]
        if old != EMPTY:
            return _(
                "no tile of your {colour} rack fits an empty place, and capturing {tile} at {place} splits no group",
                colour=name,
                tile=old,
                place=where,
            )
        if after < before:
            return _(
                "it joins {n} of your {colour} groups into one at {place}",
                n=before - after + 1,
                colour=name,
                place=where,
            )
        if after == before:
            return _("it grows a {colour} group at {place} without starting a new one", colour=name, place=where)
        return _(
            "it starts a new {colour} group at {place} where the others are kept from joining theirs",
            colour=name,
            place=where,
        )


def groups_by_colour(board: Sequence[Sequence[str]]) -> dict[str, int]:
    """How many groups (lone tiles included) each colour has on the board, in one scan of it
    (union-find over each place's left and upper neighbour): what `count_groups` says colour by
    colour, at a quarter of the cost, for the search's evaluation of every playout's end."""
    colour = [v[0] if v != EMPTY else "" for row in board for v in row]
    parent = list(range(len(colour)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    counts: dict[str, int] = {}
    for i, here in enumerate(colour):
        if not here:
            continue
        counts[here] = counts.get(here, 0) + 1
        for j in _BEFORE[i]:
            if colour[j] == here:
                a, b = root(i), root(j)
                if a != b:
                    parent[a] = b
                    counts[here] -= 1
    return counts


KNOWLEDGE = BlockersKnowledge()
