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
from typing import Annotated, Any, NamedTuple

from pydantic import AfterValidator

from controller.errors import ConfigError, FormatError
from controller.games.base import ActionNotAllowed, Engine, GameSetup, Judgement, Result, SetupCheck
from controller.games.blockers.board import (
    ALL_CELLS,
    ALL_GLYPHS,
    DIGITS,
    EMPTY,
    ROW_LETTERS,
    SYMBOL_LETTERS,
    UNREAD,
    WILD,
    BoardMap,
    Cell,
    capture_splits,
    cell_list,
    cell_name,
    count_groups,
    group_of,
)
from controller.games.events import EventType, GameEvent
from controller.games.rulebook import Rule
from controller.games.spec import Snapshot
from controller.language import N_, Text, _, as_text, listed
from controller.matching import everyone_matched
from controller.schema import items, sentence, text

#: A tile was placed whose glyph the camera could not read yet.
GLYPH_UNREAD = EventType(
    "glyph-unread", "cell", N_("the glyph of the tile on {place} could not be read yet"), about_reading=True
)

# --- the rules a move or a starting board can break (`controller.games.rulebook`) -------------------
SETUP_EMPTY = Rule(
    "blockers.setup-empty",
    N_("the game starts on an empty board"),
    N_("§2 Equipment"),
    "Le tablier de jeu est placé au centre de la table. Chaque joueur choisit une couleur et prend toutes les pièces "
    "de cette couleur ainsi qu'un chevalet.",
)
ONE_TILE = Rule(
    "blockers.one-tile",
    N_("a move places exactly one tile, and a placed tile stays where it is"),
    N_("§2 A move"),
    "Le joueur actif prend une des pièces de son chevalet, et la place sur le tablier.",
)
WHERE_IT_GOES = Rule(
    "blockers.where-it-goes",
    N_("a digit goes in its column, a letter in its row, a symbol in its region, the wild tile anywhere"),
    N_("§2 Where a tile may go"),
    "Les pièces Chiffre doivent être placées dans la colonne correspondant au chiffre. Les pièces Lettre doivent être "
    "placées sur la ligne avec la lettre correspondante. Les pièces Symbole tuiles doivent être placées sur une case "
    "avec ce même symbole",
)
NO_OWN_CAPTURE = Rule(
    "blockers.no-own-capture",
    N_("a tile captures only another colour's tile"),
    N_("§2 A move"),
    "Une pièce peut être placée soit sur une case libre, soit pour remplacer une pièce d'un autre joueur qui est "
    "alors capturée.",
)
NO_SPLIT = Rule(
    "blockers.no-split",
    N_("a capture must not split the captured tile's group in two"),
    N_("§2 A move"),
    "Il est également possible de prendre une pièce adverse qui appartient à un groupe plus important si cela ne "
    "provoque pas la division de ce groupe en plusieurs groupes distincts.",
)
TURN = Rule(
    "blockers.turn",
    N_("players place in turn, clockwise; each places only their own colour"),
    N_("§2 Seat order"),
    "Le premier joueur est déterminé aléatoirement. On joue ensuite en sens horaire.",
)
COLOURS_PLAYED = Rule(
    "blockers.colours-played",
    N_("only the colours the players chose are placed"),
    N_("§2 Seat order"),
    "Chaque joueur choisit une couleur et prend toutes les pièces de cette couleur ainsi qu'un chevalet.",
)
TWENTY_FOUR = Rule(
    "blockers.twenty-four",
    N_("each colour places 24 tiles; 4 stay unplayed on its rack"),
    N_("§2 End of game"),
    "Chaque joueur a donc sur son chevalet quatre pièces inutilisés à la fin de la partie.",
)
EACH_TILE_ONCE = Rule(
    "blockers.each-tile-once",
    N_("each tile exists once: a colour has one tile of each digit, letter and symbol, and one wild tile"),
    N_("§2 Equipment"),
    "140 pièces (28 par couleur)",
)
GAME_OVER = Rule(
    "blockers.game-over",
    N_("once every colour has placed its last tile, the game is over and the board stays as it is"),
    N_("§2 End of game"),
    "Quand tous les joueurs ont tiré leurs dernières pièces, chaque joueur pose une dernière fois. Puis la partie est "
    "terminée.",
)
RULES = (
    SETUP_EMPTY,
    ONE_TILE,
    WHERE_IT_GOES,
    NO_OWN_CAPTURE,
    NO_SPLIT,
    TURN,
    COLOURS_PLAYED,
    TWENTY_FOUR,
    EACH_TILE_ONCE,
    GAME_OVER,
)

#: Placements each colour makes in a game (5 in hand + 23 draws; 4 of its 28 tiles stay unplayed).
PLACEMENTS_PER_COLOUR = 24
#: Tiles on a rack: 5 in hand, one drawn after each placement while the colour's pile lasts.
RACK = 5
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
    """Whether every unread tile can be a different glyph from its choices, none of `banned`."""
    return everyone_matched([[glyph for glyph in tile if glyph not in banned] for tile in choices])


class BlockersEngine(Engine[BlockersState, Placement]):
    piece_noun = "tile"
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
                raise ConfigError(
                    "players", _("the two-player variant has 2 players, got {players}", players=setup.players)
                )
            if seats is None:
                raise ConfigError("seats", _("give each seat's two colours, e.g. [[R, G], [B, Y]]"))
            out = []
            for i, seat in enumerate(seats):
                if not isinstance(seat, tuple) or len(seat) != 2:
                    raise ConfigError(
                        f"seats[{i}]", _("each seat plays two colours, e.g. [R, G]; got {seat}", seat=repr(seat))
                    )
                out.append(tuple(seat))
        else:
            if setup.players not in STANDARD_PLAYERS:
                raise ConfigError(
                    "players",
                    _(
                        "Blockers! is played by 3 to 5 players (use variant two-player for 2); got {players}",
                        players=setup.players,
                    ),
                )
            if seats is None:
                raise ConfigError("seats", _("give each seat's colour, e.g. [R, G, B]"))
            out = []
            for i, seat in enumerate(seats):
                if not isinstance(seat, str):
                    raise ConfigError(
                        f"seats[{i}]", _("each seat plays one colour letter, got {seat}", seat=repr(list(seat)))
                    )
                out.append((seat,))
        used = [c for seat in out for c in seat]
        for colour in used:
            if used.count(colour) > 1:
                raise ConfigError("seats", _("the colour {colour} is given to more than one seat", colour=colour))
        return tuple(out)

    # -- words -------------------------------------------------------------------------
    def axis_labels(self, rows: int, cols: int) -> tuple[list[str], list[str]]:
        """As printed on the board: rows lettered A to I from the top, columns numbered from 1."""
        return [chr(ord("A") + r) for r in range(rows)], [str(c + 1) for c in range(cols)]

    def colour_name(self, colour: str) -> Text:
        """A colour alone (`green`), in the players' language."""
        return as_text(self.colour(colour))

    def tile_words(self, tile: str) -> Text:
        """A tile as players name it, its colour in words: `red tile 5`, `red moon tile`, `red wild tile`."""
        colour, glyph = self.colour(tile[0], 1), tile[1:2]
        if glyph in DIGITS or glyph in ROW_LETTERS:
            return _("{colour} tile {glyph}", colour=colour, glyph=glyph)
        if glyph in SYMBOL_LETTERS:
            return _("{colour} {symbol} tile", colour=colour, symbol=self.map.symbol_name(glyph))
        if glyph == WILD:
            return _("{colour} wild tile", colour=colour)
        return _("{colour} tile", colour=colour)

    def piece_words(self, tile: str) -> Text:
        """A tile with its article, as corrections name it: `the red tile 5`."""
        return _("the {tile}", tile=self.tile_words(tile))

    def move_words(self, move: str) -> str:
        """`R7 on C7 captures G4` as players say it: `red tile 7 on C7, capturing green tile 4`."""
        parts = move.split()
        if len(parts) == 3 and parts[1] == "on":
            return _("{tile} on {place}", tile=self.tile_words(parts[0]), place=parts[2])
        if len(parts) == 5 and parts[1] == "on" and parts[3] == "captures":
            return _(
                "{tile} on {place}, capturing {captured}",
                tile=self.tile_words(parts[0]),
                place=parts[2],
                captured=self.tile_words(parts[4]),
            )
        return move

    def seat_colours_of(self, seat: int) -> tuple[str, ...]:
        return tuple(self.seat_colours[seat]) if 0 <= seat < len(self.seat_colours) else ()

    def _seats_text(self, seats: Sequence[int]) -> str:
        return listed(self.seat_name(s) for s in seats)

    def seat_text(self, seat: int) -> str:
        return self.seat_name(seat)

    # -- setup -------------------------------------------------------------------------
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        tiles = tuple((r, c) for r, c in ALL_CELLS if snapshot.cells[r][c] != EMPTY)
        if tiles:
            return SetupCheck(
                False,
                reason=_("the board must start empty; take the tiles off {places}", places=cell_list(tiles)),
                cells=tiles,
                rule=SETUP_EMPTY,
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

    # -- racks (a person draws for a computer seat and taps the tiles on the page) -------------------
    rack_glyphs = DIGITS + ROW_LETTERS + SYMBOL_LETTERS + WILD

    def tile_symbol(self, glyph: str) -> str | None:
        return self.map.symbols[SYMBOL_LETTERS.index(glyph)] if glyph and glyph in SYMBOL_LETTERS else None

    def rack_colours(self, seat: int) -> tuple[str, ...]:
        return tuple(self.seat_colours[seat]) if 0 <= seat < len(self.seat_colours) else ()

    def rack_words(self, tiles: str) -> Any:
        return listed(self.tile_words(t) for t in tiles.split())

    def rack_full(self, state: BlockersState, colour: str) -> int:
        """How many tiles `colour`'s rack holds now: 5, or the 4 left once its 24th tile is placed."""
        return min(RACK, len(ALL_GLYPHS) - state.placed[self.colour_index[colour]])

    def rack_held(self, state: BlockersState, colour: str, told: Sequence[str]) -> tuple[tuple[str, ...], int]:
        if colour not in self.colour_index:
            return (), 0
        k = self.colour_index[colour]
        held = tuple(g for g in told if g in state.available[k])
        if state.placed[k] >= PLACEMENTS_PER_COLOUR:
            return held, 0  # the colour has placed its last tile: nothing more to draw
        return held, max(0, self.rack_full(state, colour) - len(held))

    def tiles_for_place(self, state: BlockersState, move: str) -> tuple[str, ...]:
        try:
            chosen = self.parse_move(state, move)
        except FormatError:
            return ()
        fits = {m.glyph for m in self.legal_moves(state) if m.cell == chosen.cell and m.colour == chosen.colour}
        return tuple(chosen.colour + g for g in sorted(fits, key=self.rack_glyphs.index))

    def hint_words(self, move: str, tiles: str) -> Any:
        """`R7 on C7` with `R7 RA Rb`: `red tile 7, red tile A or red moon tile on C7, whichever you hold`."""
        parts, named = move.split(), tiles.split()
        if not named or len(parts) not in (3, 5) or parts[1] != "on":
            return self.move_words(move)
        choice = listed([self.tile_words(t) for t in named], conjunction="or")
        if len(parts) == 5:
            captured = self.tile_words(parts[4])
            if len(named) == 1:
                return _(
                    "{tile} on {place}, capturing {captured}, if you hold it",
                    tile=choice,
                    place=parts[2],
                    captured=captured,
                )
            return _(
                "{tiles} on {place}, capturing {captured}, whichever you hold",
                tiles=choice,
                place=parts[2],
                captured=captured,
            )
        if len(named) == 1:
            return _("{tile} on {place}, if you hold it", tile=choice, place=parts[2])
        return _("{tiles} on {place}, whichever you hold", tiles=choice, place=parts[2])

    def check_rack(self, state: BlockersState, tiles: str) -> tuple[str, tuple[str, ...]]:
        """`R3 RA Ra R*`: tiles of one of the game's colours, each once, each still in that colour's
        pile or on its rack (not on the board, not captured), no more than a rack holds."""
        tokens = tiles.split()
        colours = {t[:1] for t in tokens}
        bad = [t for t in tokens if len(t) != 2 or t[1] not in ALL_GLYPHS]
        if not tokens or bad or len(colours) != 1:
            raise ActionNotAllowed(
                _(
                    "a rack is tiles of one colour, each a colour letter and its glyph (1-9, A-I, a-i, *), "
                    "for example {example}; got {tiles}",
                    example="R3 RA Ra R*",
                    tiles=repr(tiles),
                )
            )
        colour = tokens[0][0]
        if colour not in self.colour_index:
            raise ActionNotAllowed(_("{colour} tiles are not played in this game", colour=self.colour(colour, 2)))
        glyphs = tuple(t[1] for t in tokens)
        twice = sorted({g for g in glyphs if glyphs.count(g) > 1})
        if twice:
            raise ActionNotAllowed(
                _(
                    "the {tile} was tapped twice: each tile exists once",
                    tile=self.tile_words(colour + twice[0]),
                )
            )
        available = state.available[self.colour_index[colour]]
        for glyph in glyphs:
            if glyph in available:
                continue
            tile = colour + glyph
            cell = next((cell for cell in ALL_CELLS if state.board[cell[0]][cell[1]] == tile), None)
            if cell is not None:
                why = _("it is on the board at {place}", place=cell_name(cell))
            elif tile in state.captured_tiles:
                why = _("it was captured")
            else:
                why = _("it may be the tile on the board whose glyph could not be read")
            raise ActionNotAllowed(
                _(
                    "the {tile} cannot have been drawn: {why}; look again at the tile drawn and tap that one",
                    tile=self.tile_words(tile),
                    why=why,
                )
            )
        full = self.rack_full(state, colour)
        if len(glyphs) > full:
            raise ActionNotAllowed(
                _(
                    "the rack of the {colour} tiles holds {count} now, not {tapped}",
                    colour=self.colour(colour, 2),
                    count=full,
                    tapped=len(glyphs),
                )
            )
        return colour, tuple(sorted(glyphs, key=self.rack_glyphs.index))  # one way to write a rack

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
        events: list[GameEvent] = []

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
    ) -> tuple[int | None, list[GameEvent]]:
        """The next seat able to place, with a pass for every seat skipped for lack of a placement.

        Seats whose colours have all placed 24 tiles are skipped silently; when nobody can
        place any more, the game is over (None).
        """
        passes: list[GameEvent] = []
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
                reason=_("the game is over, but {places} changed", places=cell_list(changed)),
                cells=tuple(changed),
                rule=GAME_OVER,
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
            reason, cells, rule = problem
            return Judgement("illegal", seat=seat, reason=reason, cells=cells, rule=rule)
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
                    reason=_(
                        "the {tile} moved from {start} to {end}; a placed tile stays where it is",
                        tile=self.tile_words(tile),
                        start=cell_name(lifted[0]),
                        end=cell_name(added[0]),
                    ),
                    cells=tuple(changed),
                    rule=ONE_TILE,
                )
        return Judgement(
            "illegal",
            seat=seat,
            reason=_(
                "{n} cells changed ({places}); a move places exactly one tile",
                n=len(changed),
                places=cell_list(changed),
            ),
            cells=tuple(changed),
            rule=ONE_TILE,
        )

    def _lifted(self, state: BlockersState, seat: int, cell: Cell, old: str) -> Judgement[BlockersState]:
        """A tile taken off: the first half of a capture if the seat to move may make it."""
        where = cell_name(cell)
        capturers = [c for c in self.colours_left(state, seat) if c != old[0]]
        if not capturers:
            if len(self.seat_colours[seat]) == 1:
                why = _("{player} may not capture its own colour", player=self.seat_text(seat))
            else:
                why = _(
                    "a {colour} tile is only captured by another colour, and {colour_alone} is the only colour "
                    "{player} has left to place",
                    colour=self.colour(old[0], 1),
                    colour_alone=self.colour(old[0]),
                    player=self.seat_name(seat),
                )
            return Judgement(
                "illegal",
                seat=seat,
                reason=_(
                    "the {colour} tile at {place} was taken off; {why}",
                    colour=self.colour(old[0], 1),
                    place=where,
                    why=why,
                ),
                cells=(cell,),
                rule=NO_OWN_CAPTURE,
            )
        if capture_splits(state.board, cell):
            group = sorted(group_of(state.board, cell) - {cell})
            return Judgement(
                "illegal",
                seat=seat,
                reason=_(
                    "the {tile} at {place} was taken off, but capturing it would split its {colour} group",
                    tile=self.tile_words(old),
                    place=where,
                    colour=self.colour_name(old[0]),
                ),
                cells=(cell, *group),
                rule=NO_SPLIT,
            )
        fits = self.map.fits[cell]
        if not any(state.available[self.colour_index[c]] & fits for c in capturers):
            return Judgement(
                "illegal",
                seat=seat,
                reason=_(
                    "the {tile} at {place} was taken off, but no unplayed tile of {player} may go there ({fits})",
                    tile=self.tile_words(old),
                    place=where,
                    player=self.seat_text(seat),
                    fits=self._fits_text(cell),
                ),
                cells=(cell,),
                rule=WHERE_IT_GOES,
            )
        return Judgement("pending", seat=seat)

    def _fits_text(self, cell: Cell) -> Text:
        band_symbol = self.map.symbol_at(cell)
        return _(
            "only column {column}, row {row}, the {symbol} or the wild tile may",
            column=str(cell[1] + 1),
            row=cell_name(cell)[0],
            symbol=self.map.symbol_name(band_symbol),
        )

    def _placement_problem(
        self, state: BlockersState, seat: int, move: Placement
    ) -> tuple[Text, tuple[Cell, ...], Rule] | None:
        """Why `move` is not legal for `seat`, with the cells to look at and the rule; None when it is."""
        colour, glyph, cell = move.colour, move.glyph, move.cell
        where = cell_name(cell)
        here = (cell,)
        if colour not in self.colour_index:
            return (
                _(
                    "a {colour} tile was put on {place}, but {colour_alone} is not played in this game",
                    colour=self.colour(colour, 1),
                    place=where,
                    colour_alone=self.colour_name(colour),
                ),
                here,
                COLOURS_PLAYED,
            )
        if colour not in self.seat_colours[seat]:
            return (
                _(
                    "it is {player}'s turn, but a {colour} tile was put on {place}",
                    player=self.seat_text(seat),
                    colour=self.colour(colour, 1),
                    place=where,
                ),
                here,
                TURN,
            )
        k = self.colour_index[colour]
        if state.placed[k] >= PLACEMENTS_PER_COLOUR:
            return (
                _(
                    "{colour} has already placed its {count} tiles",
                    colour=self.colour_name(colour),
                    count=PLACEMENTS_PER_COLOUR,
                ),
                here,
                TWENTY_FOUR,
            )
        old = state.board[cell[0]][cell[1]]
        if glyph != UNREAD:
            if cell not in self.map.cells_for[glyph]:
                return (
                    _(
                        "the {tile} may only go in {where_allowed}, not on {place}",
                        tile=self.tile_words(move.tile),
                        where_allowed=self.map.place_text(glyph),
                        place=where,
                    ),
                    here,
                    WHERE_IT_GOES,
                )
            if glyph not in state.available[k]:
                return self._duplicate(state, move)
        if old != EMPTY:
            if old[0] == colour:
                return (
                    _(
                        "the {tile} was put on {place} over the {old}: a tile never captures its own colour",
                        tile=self.tile_words(move.tile),
                        place=where,
                        old=self.tile_words(old),
                    ),
                    here,
                    NO_OWN_CAPTURE,
                )
            if capture_splits(state.board, cell):
                group = sorted(group_of(state.board, cell) - {cell})
                return (
                    _(
                        "capturing the {tile} on {place} would split its {colour} group",
                        tile=self.tile_words(old),
                        place=where,
                        colour=self.colour_name(old[0]),
                    ),
                    (cell, *group),
                    NO_SPLIT,
                )
        if glyph == UNREAD and not state.available[k] & self.map.fits[cell]:
            return (
                _(
                    "no unplayed {colour} tile may go on {place} ({fits})",
                    colour=self.colour(colour, 1),
                    place=where,
                    fits=self._fits_text(cell),
                ),
                here,
                WHERE_IT_GOES,
            )
        return None

    def _duplicate(self, state: BlockersState, move: Placement) -> tuple[Text, tuple[Cell, ...], Rule]:
        """Why a tile that is not available cannot be placed: where its one copy already is."""
        tile = move.tile
        for r, c in ALL_CELLS:
            if state.board[r][c] == tile:
                return (
                    _(
                        "the {tile} is already on the board at {place}; each tile exists once",
                        tile=self.tile_words(tile),
                        place=cell_name((r, c)),
                    ),
                    (move.cell, (r, c)),
                    EACH_TILE_ONCE,
                )
        if tile in state.captured_tiles:
            return (
                _("the {tile} was captured earlier; each tile exists once", tile=self.tile_words(tile)),
                (move.cell,),
                EACH_TILE_ONCE,
            )
        on_board = sorted(u.cell for u in state.unread if u.cell is not None and u.colour == move.colour)
        if on_board:
            reason = _(
                "the {tile} must be one of the unread {colour} tiles already played (at {places}); each tile exists "
                "once",
                tile=self.tile_words(tile),
                colour=self.colour(move.colour, 2),
                places=cell_list(on_board),
            )
        else:
            reason = _(
                "the {tile} must be one of the unread {colour} tiles already played; each tile exists once",
                tile=self.tile_words(tile),
                colour=self.colour(move.colour, 2),
            )
        return reason, (move.cell, *on_board), EACH_TILE_ONCE

    # -- end ---------------------------------------------------------------------------
    def is_over(self, state: BlockersState) -> bool:
        return state.to_move is None

    def score_parts(self, state: BlockersState, seat: int) -> tuple[int, int, int]:
        """(groups on the board, most captured of one colour, captured in total) for a seat."""
        groups = sum(count_groups(state.board, c) for c in self.seat_colours[seat])
        caught = state.captures[seat]
        return groups, max(caught), sum(caught)

    def _ranking(self, parts: list[tuple[int, int, int]]) -> tuple[tuple[int, ...], list[int], int, int]:
        """(winners, seats on the lowest score, that score, the fewest captures among them)."""
        scores = [g + m for g, m, _c in parts]
        best = min(scores)
        lowest = [s for s in range(self.players) if scores[s] == best]
        fewest = min(parts[s][2] for s in lowest)
        return tuple(s for s in lowest if parts[s][2] == fewest), lowest, best, fewest

    def winners(self, state: BlockersState) -> tuple[int, ...] | None:
        if not self.is_over(state):
            return None
        return self._ranking([self.score_parts(state, s) for s in range(self.players)])[0]

    def result(self, state: BlockersState) -> Result:
        parts = [self.score_parts(state, s) for s in range(self.players)]
        scores = tuple(g + m for g, m, _c in parts)
        detail = listed(
            (
                _(
                    "{player} {groups} groups + {captured} captured = {score}",
                    player=self.seat_name(s),
                    groups=g,
                    captured=m,
                    score=g + m,
                )
                for s, (g, m, _c) in enumerate(parts)
            ),
            separator=";",
        )
        if not self.is_over(state):
            made = sum(state.placed)
            return Result(
                False,
                scores=scores,
                reason=_(
                    "game in progress: {made} of {total} placements made; {detail}",
                    made=made,
                    total=PLACEMENTS_PER_COLOUR * len(self.colours),
                    detail=detail,
                ),
            )
        winners, lowest, best, fewest = self._ranking(parts)
        if len(lowest) == 1:
            others = listed(
                _("{score} for {player}", score=scores[s], player=self.seat_name(s))
                for s in range(self.players)
                if s not in winners
            )
            verdict = _(
                "{player} wins with the lowest score, {score}, against {others}",
                player=self.seat_name(winners[0]),
                score=best,
                others=others,
            )
        elif len(winners) == 1:
            others = listed(
                (
                    _("{player} {count}", player=self.seat_name(s), count=parts[s][2])
                    for s in lowest
                    if s not in winners
                ),
                conjunction=None,
            )
            verdict = _(
                "{players} tie on {score}; {player} wins the tie-break with the fewest tiles captured in total "
                "({fewest}; {others})",
                players=self._seats_text(lowest),
                score=best,
                player=self.seat_name(winners[0]),
                fewest=fewest,
                others=others,
            )
        else:
            verdict = _(
                "{players} share the win: score {score} and {fewest} tiles captured in total each",
                players=self._seats_text(winners),
                score=best,
                fewest=fewest,
            )
        if any(p < PLACEMENTS_PER_COLOUR for p in state.placed):
            verdict = _("no colour can place a tile any more; {said}", said=verdict)
        return Result(True, winners=winners, scores=scores, reason=_("{said} ({detail})", said=verdict, detail=detail))


def _unread_order(u: Unread) -> tuple:
    """Unread tiles in a fixed order, so equal histories give equal states."""
    return (u.colour, u.cell is None, u.cell or (0, 0), sorted(u.glyphs))


def _each_symbol_once(regions: list[str]) -> list[str]:
    letters = "".join(regions)
    if sorted(letters) != list("abcdefghi"):
        raise sentence(
            _("the nine regions must use each symbol letter a-i exactly once, got {letters}", letters=repr(letters))
        )
    return regions


#: The profile's `regions:`: the nine symbols' letters as three regions of three.
Regions = Annotated[
    list[Annotated[str, text(lambda s: len(s) == 3, _("three symbol letters a-i"))]],
    items(length=3),
    AfterValidator(_each_symbol_once),
]


def check_symbols(profile: Any) -> None:
    """The nine symbols' names differ (the checked profile's keys as attributes)."""
    if profile.symbols is not None and len(set(profile.symbols)) != 9:
        raise sentence(_("the nine symbol names must all differ"), key="symbols")
