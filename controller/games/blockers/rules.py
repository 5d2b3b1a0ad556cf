"""Blockers! (`rules.md` §2): placing lettered, numbered and symbol tiles, capturing without splits.

The referee sees only the board, so a move is judged from the one cell that changed: the tile's
colour says who placed it (and, in the two-player variant, which of the seat's colours), its
glyph says where it may go. A glyph the camera could not read (``?``) is accepted when some
unplayed tile of that colour fits the cell; the state then keeps the set of tiles it could still
be and narrows it as the game goes on (a later reading of that cell, or the other candidates
turning up elsewhere), so "each tile exists once" stays exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from controller.errors import ConfigError
from controller.games.base import Engine, GameSetup, Judgement, Result, SetupCheck, join_and
from controller.games.blockers.board import (
    ALL_CELLS,
    ALL_GLYPHS,
    EMPTY,
    UNREAD,
    BoardMap,
    Cell,
    capture_splits,
    cell_list,
    cell_name,
    count_groups,
    group_of,
)
from controller.games.events import EventType, GameEvent
from controller.games.spec import Snapshot
from controller.schema import list_of, text

#: A tile was placed whose glyph the camera could not read yet.
GLYPH_UNREAD = EventType(
    "glyph-unread", "cell", "the glyph of the tile on {place} could not be read yet", about_reading=True
)

#: Placements each colour makes in a game (5 in hand + 23 draws; 4 of its 28 tiles stay unplayed).
PLACEMENTS_PER_COLOUR = 24
STANDARD_PLAYERS = (3, 4, 5)


class Unread(NamedTuple):
    """A tile whose glyph the camera never read: its colour, its cell (None once captured) and
    the glyphs it may still be."""

    colour: str
    cell: Cell | None
    glyphs: frozenset[str]


@dataclass(frozen=True)
class Placement:
    """One tile put on one cell; `glyph` is ``?`` when the camera could not read it."""

    colour: str
    glyph: str
    cell: Cell

    @property
    def tile(self) -> str:
        return self.colour + self.glyph


@dataclass(frozen=True)
class BlockersState:
    """Everything the referee knows after the last legal move. Immutable.

    Per-colour tuples follow `BlockersEngine.colours`; `captures[seat][k]` counts the tiles of
    colour k that seat captured. `available[k]` holds the glyphs colour k may still place: not on
    the board, not captured, and not needed to account for an unread tile.
    """

    board: tuple[tuple[str, ...], ...]
    to_move: int | None
    placed: tuple[int, ...]
    captures: tuple[tuple[int, ...], ...]
    captured_tiles: frozenset[str]
    unread: tuple[Unread, ...]
    available: tuple[frozenset[str], ...]
    moves: int = 0


def _can_match(choices: Sequence[frozenset[str]], banned: frozenset[str] | set[str]) -> bool:
    """Whether every unread tile can be a different glyph from its choices, none of `banned`.

    A small bipartite matching (augmenting paths); there are rarely more than a few unread tiles.
    """
    owner: dict[str, int] = {}

    def assign(i: int, seen: set[str]) -> bool:
        for glyph in sorted(choices[i]):
            if glyph in banned or glyph in seen:
                continue
            seen.add(glyph)
            if glyph not in owner or assign(owner[glyph], seen):
                owner[glyph] = i
                return True
        return False

    return all(assign(i, set()) for i in range(len(choices)))


class BlockersEngine(Engine[BlockersState, Placement]):
    state_type = BlockersState
    place_name = staticmethod(cell_name)

    def __init__(self, setup: GameSetup) -> None:
        super().__init__(setup)
        self.seat_colours = self._seat_colours(setup)
        self.players = len(self.seat_colours)
        self.colours: tuple[str, ...] = tuple(c for seat in self.seat_colours for c in seat)
        self.colour_index = {c: i for i, c in enumerate(self.colours)}
        self.seat_of_colour = {c: s for s, seat in enumerate(self.seat_colours) for c in seat}
        self.names = {letter: spec["name"] for letter, spec in self.profile.classes.items()}
        self.map = BoardMap(self.profile.get("symbols"), self.profile.get("regions"))

    @staticmethod
    def _seat_colours(setup: GameSetup) -> tuple[tuple[str, ...], ...]:
        """Each seat's colour(s), checked against the variant (a ConfigError names the key)."""
        seats = setup.seats
        if setup.variant == "two-player":
            if setup.players != 2:
                raise ConfigError("players", f"the two-player variant has 2 players, got {setup.players}")
            if seats is None:
                raise ConfigError("seats", "give each seat's two colours, e.g. [[R, G], [B, Y]]")
            out = []
            for i, seat in enumerate(seats):
                if not isinstance(seat, tuple) or len(seat) != 2:
                    raise ConfigError(f"seats[{i}]", f"each seat plays two colours, e.g. [R, G]; got {seat!r}")
                out.append(tuple(seat))
        else:
            if setup.players not in STANDARD_PLAYERS:
                raise ConfigError(
                    "players",
                    f"Blockers! is played by 3 to 5 players (use variant two-player for 2); got {setup.players}",
                )
            if seats is None:
                raise ConfigError("seats", "give each seat's colour, e.g. [R, G, B]")
            out = []
            for i, seat in enumerate(seats):
                if not isinstance(seat, str):
                    raise ConfigError(f"seats[{i}]", f"each seat plays one colour letter, got {list(seat)!r}")
                out.append((seat,))
        used = [c for seat in out for c in seat]
        for colour in used:
            if used.count(colour) > 1:
                raise ConfigError("seats", f"the colour {colour} is given to more than one seat")
        return tuple(out)

    # -- words -------------------------------------------------------------------------
    def axis_labels(self, rows: int, cols: int) -> tuple[list[str], list[str]]:
        """As printed on the board: rows lettered A to I from the top, columns numbered from 1."""
        return [chr(ord("A") + r) for r in range(rows)], [str(c + 1) for c in range(cols)]

    def colour_name(self, colour: str) -> str:
        return self.names.get(colour, colour)

    def seat_colours_of(self, seat: int) -> tuple[str, ...]:
        return tuple(self.seat_colours[seat]) if 0 <= seat < len(self.seat_colours) else ()

    def _seats_text(self, seats: Sequence[int]) -> str:
        return join_and([self.seat_name(s) for s in seats])

    def seat_text(self, seat: int) -> str:
        return self.seat_name(seat)

    # -- setup -------------------------------------------------------------------------
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        tiles = tuple((r, c) for r, c in ALL_CELLS if snapshot.cells[r][c] != EMPTY)
        if tiles:
            return SetupCheck(
                False,
                reason=f"the board must start empty; take the tiles off {cell_list(tiles)}",
                cells=tiles,
            )
        return SetupCheck(True)

    def start(self, snapshot: Snapshot) -> BlockersState:
        n = len(self.colours)
        return BlockersState(
            board=tuple(tuple(row) for row in snapshot.cells),
            to_move=self.setup.first,
            placed=(0,) * n,
            captures=((0,) * n,) * self.players,
            captured_tiles=frozenset(),
            unread=(),
            available=(ALL_GLYPHS,) * n,
        )

    def position(
        self,
        snapshot: Snapshot,
        to_move: int | None,
        placed: dict[str, int] | None = None,
        captured_tiles: Sequence[str] = (),
    ) -> BlockersState:
        """A mid-game state with `snapshot`'s board, for tests, benchmarks and resuming a game.

        `placed` counts each colour's placements so far (default: its tiles on the board plus
        its `captured_tiles`); captures are credited to nobody. Unread (``?``) tiles may be
        any unplayed tile of their colour that fits their cell.
        """
        rows = [list(row) for row in snapshot.cells]
        captured = set(captured_tiles)
        unread = [
            Unread(rows[r][c][0], (r, c), self.map.fits[(r, c)])
            for r, c in ALL_CELLS
            if rows[r][c] != EMPTY and rows[r][c][1] == UNREAD
        ]
        counts = {c: 0 for c in self.colours}
        for tile in [v for row in rows for v in row if v != EMPTY] + sorted(captured):
            counts[tile[0]] = counts.get(tile[0], 0) + 1
        counts.update(placed or {})
        available = tuple(self._settle(c, rows, captured, unread) for c in self.colours)
        return BlockersState(
            board=tuple(tuple(row) for row in rows),
            to_move=to_move,
            placed=tuple(counts[c] for c in self.colours),
            captures=((0,) * len(self.colours),) * self.players,
            captured_tiles=frozenset(captured),
            unread=tuple(sorted(unread, key=_unread_order)),
            available=available,
        )

    def adopt(self, state: BlockersState, snapshot: Snapshot) -> BlockersState:
        """Go on from a board a person declared right: placements and captures counted so far stay;
        the tiles on the board are no longer in hand."""
        again = self.position(snapshot, state.to_move, captured_tiles=sorted(state.captured_tiles))
        return replace(again, placed=state.placed, captures=state.captures, moves=state.moves)

    # -- play --------------------------------------------------------------------------
    def to_move(self, state: BlockersState) -> int | None:
        return state.to_move

    def colours_left(self, state: BlockersState, seat: int) -> list[str]:
        """The seat's colours that have placements left."""
        return [c for c in self.seat_colours[seat] if state.placed[self.colour_index[c]] < PLACEMENTS_PER_COLOUR]

    def legal_moves(self, state: BlockersState) -> list[Placement]:
        if state.to_move is None:
            return []
        board = state.board
        moves = []
        splits: dict[Cell, bool] = {}
        for colour in self.colours_left(state, state.to_move):
            for glyph in sorted(state.available[self.colour_index[colour]]):
                for r, c in self.map.cells_in_order[glyph]:
                    here = board[r][c]
                    if here == EMPTY:
                        moves.append(Placement(colour, glyph, (r, c)))
                    elif here[0] != colour:
                        if (r, c) not in splits:
                            splits[(r, c)] = capture_splits(board, (r, c))
                        if not splits[(r, c)]:
                            moves.append(Placement(colour, glyph, (r, c)))
        return moves

    def can_place(self, board: Sequence[Sequence[str]], colour: str, glyphs: frozenset[str]) -> bool:
        """Whether some tile of `colour` with one of `glyphs` has any legal placement."""
        ordered = sorted(glyphs)
        for glyph in ordered:
            for r, c in self.map.cells_in_order[glyph]:
                if board[r][c] == EMPTY:
                    return True
        checked: set[Cell] = set()
        for glyph in ordered:
            for r, c in self.map.cells_in_order[glyph]:
                if board[r][c][0] != colour and (r, c) not in checked:
                    checked.add((r, c))
                    if not capture_splits(board, (r, c)):
                        return True
        return False

    def _with_readings(self, state: BlockersState, readings: Sequence[tuple[Cell, str]]) -> BlockersState:
        """`state` once glyphs newly read on cells that held unread tiles are known."""
        rows = [list(row) for row in state.board]
        unread = list(state.unread)
        captured_tiles = set(state.captured_tiles)
        available = list(state.available)
        to_settle: set[str] = set()
        for (rr, cc), glyph in readings:
            for i, u in enumerate(unread):
                if u.cell == (rr, cc):
                    rows[rr][cc] = u.colour + glyph
                    del unread[i]
                    to_settle.add(u.colour)
                    break
        for colour in sorted(to_settle):
            available[self.colour_index[colour]] = self._settle(colour, rows, captured_tiles, unread)
        return replace(
            state,
            board=tuple(tuple(row) for row in rows),
            captured_tiles=frozenset(captured_tiles),
            unread=tuple(sorted(unread, key=_unread_order)),
            available=tuple(available),
        )

    def apply(self, state: BlockersState, move: Placement) -> tuple[BlockersState, tuple[GameEvent, ...]]:
        """The move, then turn order and passes."""
        seat = state.to_move
        if seat is None:
            raise ValueError("the game is over")
        r, c = move.cell
        rows = [list(row) for row in state.board]
        old = rows[r][c]
        rows[r][c] = move.tile
        k = self.colour_index[move.colour]
        placed = list(state.placed)
        placed[k] += 1
        captures = [list(per_seat) for per_seat in state.captures]
        captured_tiles = set(state.captured_tiles)
        unread = list(state.unread)
        available = list(state.available)
        to_settle: set[str] = set()
        events: list[str] = []

        if old != EMPTY:
            captures[seat][self.colour_index[old[0]]] += 1
            if old[1] == UNREAD:
                unread = [u._replace(cell=None) if u.cell == (r, c) else u for u in unread]
                to_settle.add(old[0])
            else:
                captured_tiles.add(old)
        if move.glyph == UNREAD:
            choices = state.available[k] & self.map.fits[(r, c)]
            unread.append(Unread(move.colour, (r, c), choices))
            events.append(GLYPH_UNREAD((r, c)))
            to_settle.add(move.colour)
        else:
            available[k] = available[k] - {move.glyph}
            if any(u.colour == move.colour for u in unread):
                to_settle.add(move.colour)
        for colour in sorted(to_settle):
            available[self.colour_index[colour]] = self._settle(colour, rows, captured_tiles, unread)

        to_move, passes = self._next_seat(seat, rows, placed, available)
        events.extend(passes)
        new_state = BlockersState(
            board=tuple(tuple(row) for row in rows),
            to_move=to_move,
            placed=tuple(placed),
            captures=tuple(tuple(per_seat) for per_seat in captures),
            captured_tiles=frozenset(captured_tiles),
            unread=tuple(sorted(unread, key=_unread_order)),
            available=tuple(available),
            moves=state.moves + 1,
        )
        return new_state, tuple(events)

    def _settle(
        self, colour: str, rows: list[list[str]], captured_tiles: set[str], unread: list[Unread]
    ) -> frozenset[str]:
        """Narrow the unread tiles of `colour` (in place) and return its available glyphs.

        A glyph stays possible for an unread tile only if all that colour's unread tiles can
        still be different unplayed tiles with it; a tile left with one possibility is known.
        """
        while True:
            known = {t[1] for t in captured_tiles if t[0] == colour}
            known |= {v[1] for row in rows for v in row if v != EMPTY and v[0] == colour}
            known.discard(UNREAD)
            mine = [i for i, u in enumerate(unread) if u.colour == colour]
            narrowed = {i: unread[i].glyphs - known for i in mine}
            for i in mine:
                others = [narrowed[j] for j in mine if j != i]
                narrowed[i] = frozenset(g for g in narrowed[i] if _can_match(others, known | {g}))
            solved = [i for i in mine if len(narrowed[i]) == 1]
            for i in mine:
                unread[i] = unread[i]._replace(glyphs=narrowed[i])
            if not solved:
                break
            for i in sorted(solved, reverse=True):
                u = unread.pop(i)
                (glyph,) = u.glyphs
                if u.cell is None:
                    captured_tiles.add(colour + glyph)
                else:
                    rows[u.cell[0]][u.cell[1]] = colour + glyph
        choices = [u.glyphs for u in unread if u.colour == colour]
        return frozenset(g for g in ALL_GLYPHS - known if not choices or _can_match(choices, {g}))

    def _next_seat(
        self,
        seat: int,
        rows: Sequence[Sequence[str]],
        placed: Sequence[int],
        available: Sequence[frozenset[str]],
    ) -> tuple[int | None, list[str]]:
        """The next seat able to place, with a pass for every seat skipped for lack of a placement.

        Seats whose colours have all placed 24 tiles are skipped silently; when nobody can
        place any more, the game is over (None).
        """
        passes = []
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            left = [c for c in self.seat_colours[other] if placed[self.colour_index[c]] < PLACEMENTS_PER_COLOUR]
            if not left:
                continue
            if any(self.can_place(rows, c, available[self.colour_index[c]]) for c in left):
                return other, passes
            passes.append(GameEvent.passed(other))
        return None, passes

    def describe(self, state: BlockersState, move: Placement) -> str:
        r, c = move.cell
        old = state.board[r][c]
        text = f"{move.tile} on {cell_name(move.cell)}"
        return text if old == EMPTY else f"{text} captures {old}"

    def expected(self, state: BlockersState) -> Snapshot:
        return Snapshot(self.setup.game, state.board)

    # -- judging -----------------------------------------------------------------------
    def judge(self, state: BlockersState, snapshot: Snapshot) -> Judgement[BlockersState]:
        seat = state.to_move
        board = state.board
        seen_cells = snapshot.cells
        changed: list[Cell] = []
        readings: list[tuple[Cell, str]] = []
        for r in range(9):
            seen_row, have_row = seen_cells[r], board[r]
            if seen_row == have_row:
                continue
            for c in range(9):
                seen, have = seen_row[c], have_row[c]
                if seen == have:
                    continue
                if seen != EMPTY and have != EMPTY and seen[0] == have[0]:
                    if seen[1] == UNREAD:
                        continue  # the same tile, its glyph not read this time
                    if have[1] == UNREAD and seen[1] in self._unread_at(state, (r, c)).glyphs:
                        readings.append(((r, c), seen[1]))
                        continue
                changed.append((r, c))
        if readings:
            # Glyphs read now on tiles placed unread narrow what the referee knows, move or not.
            state = self._with_readings(state, readings)
            board = state.board
        if not changed:
            return Judgement("unchanged", state=state if readings else None)
        if seat is None:
            return Judgement(
                "illegal",
                reason=f"the game is over, but {cell_list(changed)} changed",
                cells=tuple(changed),
            )
        if len(changed) > 1:
            return self._several_changed(state, seat, snapshot, changed)
        cell = changed[0]
        old, new = board[cell[0]][cell[1]], seen_cells[cell[0]][cell[1]]
        if new == EMPTY:
            return self._lifted(state, seat, cell, old)
        move = Placement(new[0], new[1], cell)
        problem = self._placement_problem(state, seat, move)
        if problem is not None:
            reason, cells = problem
            return Judgement("illegal", seat=seat, reason=reason, cells=cells)
        new_state, events = self.apply(state, move)
        return Judgement("legal", seat=seat, state=new_state, move=self.describe(state, move), events=events)

    @staticmethod
    def _unread_at(state: BlockersState, cell: Cell) -> Unread:
        for u in state.unread:
            if u.cell == cell:
                return u
        raise ValueError(f"no unread tile at {cell_name(cell)}")

    def _several_changed(
        self, state: BlockersState, seat: int, snapshot: Snapshot, changed: list[Cell]
    ) -> Judgement[BlockersState]:
        lifted = [rc for rc in changed if snapshot.cells[rc[0]][rc[1]] == EMPTY]
        added = [rc for rc in changed if rc not in lifted]
        if len(lifted) == 1 and len(added) == 1:
            (fr, fc), (tr, tc) = lifted[0], added[0]
            tile = state.board[fr][fc]
            if snapshot.cells[tr][tc] == tile or (tile[1] == UNREAD and snapshot.cells[tr][tc][0] == tile[0]):
                return Judgement(
                    "illegal",
                    seat=seat,
                    reason=f"the tile {tile} moved from {cell_name(lifted[0])} to "
                    f"{cell_name(added[0])}; a placed tile stays where it is",
                    cells=tuple(changed),
                )
        return Judgement(
            "illegal",
            seat=seat,
            reason=f"{len(changed)} cells changed ({cell_list(changed)}); a move places exactly one tile",
            cells=tuple(changed),
        )

    def _lifted(self, state: BlockersState, seat: int, cell: Cell, old: str) -> Judgement[BlockersState]:
        """A tile taken off: the first half of a capture if the seat to move may make it."""
        where = cell_name(cell)
        capturers = [c for c in self.colours_left(state, seat) if c != old[0]]
        if not capturers:
            colour = self.colour_name(old[0])
            why = (
                f"{self.seat_text(seat)} may not capture its own colour"
                if len(self.seat_colours[seat]) == 1
                else f"a {colour} tile is only captured by another colour, and {colour} is "
                f"the only colour {self.seat_name(seat)} has left to place"
            )
            return Judgement(
                "illegal",
                seat=seat,
                reason=f"the {colour} tile at {where} was taken off; {why}",
                cells=(cell,),
            )
        if capture_splits(state.board, cell):
            group = sorted(group_of(state.board, cell) - {cell})
            return Judgement(
                "illegal",
                seat=seat,
                reason=f"the tile {old} at {where} was taken off, but capturing it would split "
                f"its {self.colour_name(old[0])} group",
                cells=(cell, *group),
            )
        fits = self.map.fits[cell]
        if not any(state.available[self.colour_index[c]] & fits for c in capturers):
            return Judgement(
                "illegal",
                seat=seat,
                reason=f"the tile {old} at {where} was taken off, but no unplayed tile of "
                f"{self.seat_text(seat)} may go there ({self._fits_text(cell)})",
                cells=(cell,),
            )
        return Judgement("pending", seat=seat)

    def _fits_text(self, cell: Cell) -> str:
        band_symbol = self.map.symbol_at(cell)
        return (
            f"only column {cell[1] + 1}, row {cell_name(cell)[0]}, the "
            f"{self.map.symbol_name(band_symbol)} or the wild tile may"
        )

    def _placement_problem(
        self, state: BlockersState, seat: int, move: Placement
    ) -> tuple[str, tuple[Cell, ...]] | None:
        """Why `move` is not legal for `seat`, with the cells to look at; None when it is."""
        colour, glyph, cell = move.colour, move.glyph, move.cell
        where = cell_name(cell)
        here = (cell,)
        if colour not in self.colour_index:
            return (
                f"a {self.colour_name(colour)} tile was put on {where}, "
                f"but {self.colour_name(colour)} is not played in this game",
                here,
            )
        if colour not in self.seat_colours[seat]:
            return (
                f"it is {self.seat_text(seat)}'s turn, but a {self.colour_name(colour)} tile was put on {where}",
                here,
            )
        k = self.colour_index[colour]
        if state.placed[k] >= PLACEMENTS_PER_COLOUR:
            return (
                f"{self.colour_name(colour)} has already placed its {PLACEMENTS_PER_COLOUR} tiles",
                here,
            )
        old = state.board[cell[0]][cell[1]]
        if glyph != UNREAD:
            if cell not in self.map.cells_for[glyph]:
                return (
                    f"{move.tile} may only go in {self.map.place_text(glyph)}, not on {where}",
                    here,
                )
            if glyph not in state.available[k]:
                return self._duplicate(state, move)
        if old != EMPTY:
            if old[0] == colour:
                return (
                    f"{move.tile} was put on {where} over {old}: a tile never captures its own colour",
                    here,
                )
            if capture_splits(state.board, cell):
                group = sorted(group_of(state.board, cell) - {cell})
                return (
                    f"capturing {old} on {where} would split its {self.colour_name(old[0])} group",
                    (cell, *group),
                )
        if glyph == UNREAD and not state.available[k] & self.map.fits[cell]:
            return (
                f"no unplayed {self.colour_name(colour)} tile may go on {where} ({self._fits_text(cell)})",
                here,
            )
        return None

    def _duplicate(self, state: BlockersState, move: Placement) -> tuple[str, tuple[Cell, ...]]:
        """Why a tile that is not available cannot be placed: where its one copy already is."""
        tile = move.tile
        for r, c in ALL_CELLS:
            if state.board[r][c] == tile:
                return (
                    f"{tile} is already on the board at {cell_name((r, c))}; each tile exists once",
                    (move.cell, (r, c)),
                )
        if tile in state.captured_tiles:
            return f"{tile} was captured earlier; each tile exists once", (move.cell,)
        on_board = sorted(u.cell for u in state.unread if u.colour == move.colour and u.cell is not None)
        return (
            f"{tile} must be one of the unread {self.colour_name(move.colour)} tiles "
            f"already played{' (at ' + cell_list(on_board) + ')' if on_board else ''}; "
            "each tile exists once",
            (move.cell, *on_board),
        )

    # -- end ---------------------------------------------------------------------------
    def is_over(self, state: BlockersState) -> bool:
        return state.to_move is None

    def score_parts(self, state: BlockersState, seat: int) -> tuple[int, int, int]:
        """(groups on the board, most captured of one colour, captured in total) for a seat."""
        groups = sum(count_groups(state.board, c) for c in self.seat_colours[seat])
        caught = state.captures[seat]
        return groups, max(caught), sum(caught)

    def result(self, state: BlockersState) -> Result:
        parts = [self.score_parts(state, s) for s in range(self.players)]
        scores = tuple(g + m for g, m, _ in parts)
        detail = "; ".join(
            f"{self.seat_name(s)} {g} groups + {m} captured = {g + m}" for s, (g, m, _) in enumerate(parts)
        )
        if not self.is_over(state):
            made = sum(state.placed)
            return Result(
                False,
                scores=scores,
                reason=f"game in progress: {made} of "
                f"{PLACEMENTS_PER_COLOUR * len(self.colours)} placements made; {detail}",
            )
        best = min(scores)
        lowest = [s for s in range(self.players) if scores[s] == best]
        fewest = min(parts[s][2] for s in lowest)
        winners = tuple(s for s in lowest if parts[s][2] == fewest)
        if len(lowest) == 1:
            verdict = f"{self.seat_name(winners[0])} wins with the lowest score, {best}"
        elif len(winners) == 1:
            others = ", ".join(f"{self.seat_name(s)} {parts[s][2]}" for s in lowest if s not in winners)
            verdict = (
                f"{self._seats_text(lowest)} tie on {best}; {self.seat_name(winners[0])} wins the tie-break "
                f"with the fewest tiles captured in total ({fewest}; {others})"
            )
        else:
            verdict = (
                f"{self._seats_text(winners)} share the win: score {best} and {fewest} tiles captured in total each"
            )
        if any(p < PLACEMENTS_PER_COLOUR for p in state.placed):
            verdict = "no colour can place a tile any more; " + verdict
        return Result(True, winners=winners, scores=scores, reason=f"{verdict} ({detail})")


def _unread_order(u: Unread) -> tuple:
    """Unread tiles in a fixed order, so equal histories give equal states."""
    return (u.colour, u.cell is None, u.cell or (0, 0), sorted(u.glyphs))


def symbol_regions(value, path: str) -> None:
    list_of(text(lambda s: len(s) == 3, "three symbol letters a-i"), length=3)(value, path)
    letters = "".join(value)
    if sorted(letters) != list("abcdefghi"):
        raise ConfigError(path, f"the nine regions must use each symbol letter a-i exactly once, got {letters!r}")


def check_symbols(data: dict, source: str) -> None:
    if "symbols" in data and len(set(data["symbols"])) != 9:
        raise ConfigError("symbols", "the nine symbol names must all differ", source)
