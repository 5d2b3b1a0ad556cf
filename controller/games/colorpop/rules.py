"""Colorpop (Gigamic): remove complete groups of one colour; the board falls like SameGame.

Rules: `rules.md` §1. The board is the camera's view of the inclined board: column c is slide
c + 1 from the left, row 0 is the top. Tokens rest at the bottom (high rows); an emptied slide is
moved to the far right.

Places are named for players as a column letter and a row number counted from the top
(``F3`` is column 6, row 3), and slides by their number from the left, starting at 1.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any

from controller.errors import ConfigError
from controller.games.base import Engine, GameSetup, Judgement, Result, SetupCheck, no_such_seat
from controller.games.events import EventType, GameEvent
from controller.games.rulebook import Rule
from controller.games.spec import EMPTY, Snapshot
from controller.grid import connected_groups, groups_by_value, neighbours
from controller.language import N_, Text, _, _n, listed
from controller.schema import sentence

JOKER = "J"
Board = tuple[tuple[str, ...], ...]
Cell = tuple[int, int]
MAX_SETUP_GROUP = 5


#: The last token of a colour left the board.
CLEARED = EventType("cleared", "colour", N_("the last {colour} token is gone"))

# --- the rules a move or a starting board can break (`controller.games.rulebook`) -------------------
SETUP_FULL = Rule(
    "colorpop.setup-full",
    N_("every slide holds 10 tokens"),
    N_("§1 Equipment"),
    "On positionne les 100 jetons de façon aléatoire dans les 10 glissières ; [...] chaque glissière en contient 10.",
)
SETUP_SET = Rule(
    "colorpop.setup-set",
    N_("a set is 19 tokens of each of the 5 colours and 5 jokers"),
    N_("§1 Setup"),
    "95 jetons de 5 couleurs différentes plus 5 jetons joker",
)
SETUP_GROUPS = Rule(
    "colorpop.setup-groups",
    N_("at the start, no more than 5 tokens of one colour may touch; turn slides end for end to break bigger groups"),
    N_("§1 Setup"),
    "en vérifiant qu'il n'y ait pas plus de 5 jetons de même couleur connectés de façon orthogonale (en verticale "
    "et/ou en horizontale). Si nécessaire, on inverse des glissières pour modifier les connections",
)
ONLY_REMOVE = Rule(
    "colorpop.only-remove",
    N_("a move takes tokens off the board; tokens are never put on it"),
    N_("§1 A move"),
    "A son tour, un joueur choisit un groupe de jetons de même couleur et les fait tous disparaître du plateau "
    "en les poussant par le dessus (fig. 2).",
)
NO_LONE_TOKEN = Rule(
    "colorpop.no-lone-token",
    N_("a lone token can never be removed: a group has at least 2 tokens"),
    N_("§1 A move"),
    "Il est interdit d'éliminer un jeton isolé.",
)
ONE_COLOUR = Rule(
    "colorpop.one-colour",
    N_("a move removes tokens of one colour, with jokers if the player wishes"),
    N_("§1 A move"),
    "un joueur choisit un groupe de jetons de même couleur et les fait tous disparaître du plateau",
)
WHOLE_GROUP = Rule(
    "colorpop.whole-group",
    N_("the whole group must be removed, not only some of its tokens"),
    N_("§1 A move"),
    "Le joueur doit faire disparaître le groupe complet : il ne peut pas choisir ceux qu'il fait disparaître parmi "
    "un groupe donné.",
)
NOT_JOKERS_ALONE = Rule(
    "colorpop.not-jokers-alone",
    N_("jokers stand for a colour: a group needs at least one coloured token"),
    N_("§1 A move"),
    "Les jokers peuvent être considérés comme n'importe laquelle des 5 couleurs de jetons ; au choix de celui dont "
    "c'est le tour.",
)
CONNECTED = Rule(
    "colorpop.connected",
    N_("a group is made of tokens that touch side by side (left, right, above or below)"),
    N_("§1 A move"),
    "Un groupe est constitué de jetons orthogonalement voisins (à gauche, à droite, au dessus ou en dessous).",
)
A_GROUP = Rule(
    "colorpop.a-group",
    N_("a move removes one complete group of 2 tokens or more"),
    N_("§1 A move"),
    "Le joueur peut supprimer tout groupe complet de 2 jetons ou plus, sans limite de nombre, et de la couleur de "
    "son choix.",
)
GAME_OVER = Rule(
    "colorpop.game-over",
    N_("once the game is over, no token is removed any more"),
    N_("§1 End of game"),
    "Lorsque tous les pions de la couleur d'un joueur ont été retirés du plateau, celui-ci a gagné : il l'annonce et "
    "la partie prend fin.",
)
RULES = (
    SETUP_FULL,
    SETUP_SET,
    SETUP_GROUPS,
    ONLY_REMOVE,
    NO_LONE_TOKEN,
    ONE_COLOUR,
    WHOLE_GROUP,
    NOT_JOKERS_ALONE,
    CONNECTED,
    A_GROUP,
    GAME_OVER,
)


_MOVE_TEXT = re.compile(r"remove (\w) x(\d+)(?: \((\d+) jokers?(?: at (.+?))?\))? at (\w+)")


def place_name(cell: Cell) -> str:
    r, c = cell
    return f"{chr(ord('A') + c)}{r + 1}"


def settle(board: Sequence[Sequence[str]]) -> Board:
    """The board after gravity and slide compaction (SameGame's rule).

    Tokens of each column fall to the bottom keeping their order; empty columns go to the right.
    """
    rows = len(board)
    cols = len(board[0])
    columns = []
    for column in zip(*board):  # a computer's search settles boards thousands of times a move
        tokens = [v for v in column if v != EMPTY]
        if tokens:
            columns.append((EMPTY,) * (rows - len(tokens)) + tuple(tokens))
    columns += [(EMPTY,) * rows] * (cols - len(columns))
    return tuple(zip(*columns))


def _count(board: Board, letter: str) -> int:
    return sum(row.count(letter) for row in board)


def remove_cells(board: Board, cells: frozenset[Cell]) -> Board:
    grid = [list(row) for row in board]
    for r, c in cells:
        grid[r][c] = EMPTY
    return settle(grid)


def _column(board: Board, c: int) -> list[str]:
    """Tokens of column c, bottom first."""
    return [board[r][c] for r in range(len(board) - 1, -1, -1) if board[r][c] != EMPTY]


@dataclass(frozen=True)
class Move:
    """Removing `cells`, a group of real colour `colour` (None for a group of jokers only)."""

    colour: str | None
    cells: frozenset[Cell]
    counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ColorpopState:
    board: Board
    to_move: int
    moves_made: int = 0
    #: Per seat, tokens removed by that seat: (letter, count) pairs in the profile's letter order.
    removed: tuple[tuple[tuple[str, int], ...], ...] = ()
    #: Per seat, the secret colour(s), or None while unknown.
    secrets: tuple[tuple[str, ...] | None, ...] = ()
    #: (colour, number of moves made when it was cleared, the removal tallies at that moment).
    cleared: tuple[tuple[str, int, tuple[tuple[tuple[str, int], ...], ...]], ...] = ()
    #: Set when play has stopped: "no-groups" or "instant-win".
    ended: str | None = None


class ColorpopEngine(Engine[ColorpopState, Move]):
    piece_noun = "token"
    state_type = ColorpopState
    place_name = staticmethod(place_name)

    def __init__(self, setup: GameSetup) -> None:
        super().__init__(setup)
        self.letters = self.profile.letters
        self.colours = tuple(ch for ch in self.letters if ch != JOKER)
        self.joker_only = bool(self.profile.settings.get("joker_only_groups", False))
        tokens = self.profile.get("tokens") or {}
        self.token_counts = {ch: int(tokens.get(ch, 0)) for ch in self.letters}
        self.variant = setup.variant
        self.players = setup.players
        self._check_players()
        self._legal_cache = lru_cache(maxsize=256)(self._compute_legal_moves)

    # -- players and secrets -------------------------------------------------------------
    def _check_players(self) -> None:
        allowed = {"standard": (2, 5), "solo": (1, 1), "two-colours": (2, 2), "teams": (4, 4)}
        lo, hi = allowed[self.variant]
        if not lo <= self.players <= hi:
            if lo == hi:
                why = _n(
                    "the {variant} variant is for {n} player, got {players}",
                    "the {variant} variant is for {n} players, got {players}",
                    lo,
                    variant=self.variant,
                    players=self.players,
                )
            else:
                why = _(
                    "the {variant} variant is for {low} to {high} players, got {players}",
                    variant=self.variant,
                    low=lo,
                    high=hi,
                    players=self.players,
                )
            raise ConfigError("players", why)
        need = 2 if self.variant == "two-colours" else 1
        secrets = self.setup.secrets
        if secrets is not None:
            for i, s in enumerate(secrets):
                if s is not None and self.variant != "solo" and len(s) != need:
                    raise ConfigError(
                        f"secrets[{i}]",
                        _(
                            "each player of the {variant} variant has {need} secret colour(s)",
                            variant=self.variant,
                            need=need,
                        ),
                    )
                for ch in s or ():
                    if ch == JOKER:
                        raise ConfigError(f"secrets[{i}]", _("a secret colour cannot be the joker"))
            known = [ch for s in secrets if s for ch in s]
            if self.variant != "solo" and len(known) != len(set(known)):
                raise ConfigError("secrets", _("two players cannot have the same secret colour"))
        if self.variant == "solo" and not self.targets():
            raise ConfigError("targets", _("the solo variant needs its target colour(s): targets: [G] for example"))

    def targets(self) -> tuple[str, ...]:
        if self.setup.targets:
            return self.setup.targets
        if self.setup.secrets and self.setup.secrets[0]:
            return self.setup.secrets[0]
        return ()

    def _teams(self) -> list[tuple[int, ...]]:
        """The scoring units: a team of seats in the team variant, else each seat alone."""
        if self.variant == "teams":
            return [(0, 2), (1, 3)]
        return [(s,) for s in range(self.players)]

    # -- setup ---------------------------------------------------------------------------
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        board = snapshot.cells
        empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == EMPTY]
        if empty:
            reason = _n(
                "the board must be full; {n} place is empty", "the board must be full; {n} places are empty", len(empty)
            )
            return SetupCheck(False, reason, tuple(empty), rule=SETUP_FULL)
        counts = Counter(v for row in board for v in row)
        wrong = [
            _(
                "{count} {colour} instead of {wanted}",
                count=counts.get(ch, 0),
                colour=self.colour(ch, counts.get(ch, 0)),
                wanted=n,
            )
            for ch, n in self.token_counts.items()
            if counts.get(ch, 0) != n
        ]
        if wrong and self.token_counts and any(self.token_counts.values()):
            reason = _("the tokens are not a complete set: {wrong}", wrong=listed(wrong, conjunction=None))
            return SetupCheck(False, reason, rule=SETUP_SET)
        big = self._big_groups(board)
        if not big:
            return SetupCheck(True)
        cells = tuple(sorted(set().union(*big)))
        names = [
            _(
                "{count} {colour} at {place}",
                count=len(g),
                colour=self.colour(board[min(g)[0]][min(g)[1]], len(g)),
                place=place_name(min(g)),
            )
            for g in big
        ]
        flips = self._fewest_reversals(board)
        if flips is None:
            advice: Text = _("no set of slides turned end for end makes this board valid: refill the slides")
        else:
            numbers = [str(c + 1) for c in flips]
            advice = _n(
                "turn slide {slides}", "turn slides {slides}", len(numbers), slides=listed(numbers)
            )  # end for end
        return SetupCheck(
            False,
            _(
                "groups of more than {most} tokens of one colour: {groups}",
                most=MAX_SETUP_GROUP,
                groups=listed(names, conjunction=None),
            ),
            cells,
            advice,
            rule=SETUP_GROUPS,
        )

    def _big_groups(self, board: Board) -> list[set[Cell]]:
        groups = groups_by_value(board, lambda v: v if v not in (EMPTY, JOKER) else None)
        return [g for _, g in groups if len(g) > MAX_SETUP_GROUP]

    def _fewest_reversals(self, board: Board) -> tuple[int, ...] | None:
        cols = len(board[0])
        for k in range(1, cols + 1):
            for flips in itertools.combinations(range(cols), k):
                flipped = [list(row) for row in board]
                rows = len(board)
                for c in flips:
                    for r in range(rows):
                        flipped[r][c] = board[rows - 1 - r][c]
                if not self._big_groups(tuple(tuple(r) for r in flipped)):
                    return flips
        return None

    def start(self, snapshot: Snapshot) -> ColorpopState:
        zero = tuple((ch, 0) for ch in self.letters)
        secrets = self.setup.secrets or tuple(None for _ in range(self.players))
        if self.variant == "solo":
            secrets = (self.targets(),)
        return ColorpopState(
            board=settle(snapshot.cells),
            to_move=self.setup.first,
            removed=tuple(zero for _ in range(self.players)),
            secrets=secrets,
        )

    # -- moves ---------------------------------------------------------------------------
    def to_move(self, state: ColorpopState) -> int | None:
        return None if state.ended else state.to_move

    def legal_moves(self, state: ColorpopState) -> Sequence[Move]:
        if state.ended:
            return ()
        return self._legal_cache(state.board)

    def _compute_legal_moves(self, board: Board) -> tuple[Move, ...]:
        rows, cols = len(board), len(board[0])
        jokers = [(r, c) for r in range(rows) for c in range(cols) if board[r][c] == JOKER]
        moves: list[Move] = []
        all_groups = groups_by_value(board, lambda v: None if v in (EMPTY, JOKER) else v)
        for colour in self.colours:
            comps = [g for k, g in all_groups if k == colour]
            if not comps:
                continue
            comp_of = {cell: i for i, g in enumerate(comps) for cell in g}
            # X-components each joker touches: including that joker forces them into the move.
            joker_touch = {j: {comp_of[nb] for nb in neighbours(j, rows, cols) if nb in comp_of} for j in jokers}
            for g in comps:
                if len(g) >= 2:
                    moves.append(Move(colour, frozenset(g), ((colour, len(g)),)))
            reach = self._joker_reach(jokers, joker_touch, rows, cols)
            # The X-components are never next to each other (each is maximal), so a set of jokers
            # and the components they force is one connected group exactly when the small graph of
            # those jokers and components is connected: checked on it, not cell by cell.
            reach_set = set(reach)
            joker_next = {j: [nb for nb in neighbours(j, rows, cols) if nb in reach_set] for j in reach}
            for k in range(1, len(reach) + 1):
                for subset in itertools.combinations(reach, k):
                    forced = set().union(*(joker_touch[j] for j in subset))
                    if not forced or not _linked(subset, forced, joker_touch, joker_next):
                        continue
                    cells = frozenset(subset).union(*(comps[i] for i in forced))
                    counts = tuple(sorted(((colour, len(cells) - k), (JOKER, k))))
                    moves.append(Move(colour, cells, counts))
        if self.joker_only and len(jokers) >= 2:
            for k in range(2, len(jokers) + 1):
                for subset in itertools.combinations(jokers, k):
                    if len(connected_groups(subset)) == 1:
                        moves.append(self._move(board, None, frozenset(subset)))
        return tuple(moves)

    def _any_group(self, board: Board) -> bool:
        """Whether some group remains: two touching tokens of one colour, or a joker by a token."""
        rows, cols = len(board), len(board[0])
        for r in range(rows):
            for c in range(cols):
                a = board[r][c]
                if a == EMPTY:
                    continue
                for b in (board[r + 1][c] if r + 1 < rows else EMPTY, board[r][c + 1] if c + 1 < cols else EMPTY):
                    if b == EMPTY:
                        continue
                    if a == b and (a != JOKER or self.joker_only):
                        return True
                    if (a == JOKER) != (b == JOKER):
                        return True
        return False

    @staticmethod
    def _joker_reach(jokers: list[Cell], joker_touch: dict[Cell, set[int]], rows: int, cols: int) -> list[Cell]:
        """Jokers that can belong to a group of this colour: those linked to it through jokers."""
        joker_set = set(jokers)
        reach = {j for j in jokers if joker_touch[j]}
        todo = list(reach)
        while todo:
            j = todo.pop()
            for nb in neighbours(j, rows, cols):
                if nb in joker_set and nb not in reach:
                    reach.add(nb)
                    todo.append(nb)
        return sorted(reach)

    def _move(self, board: Board, colour: str | None, cells: frozenset[Cell]) -> Move:
        counts = Counter(board[r][c] for r, c in cells)
        return Move(colour, cells, tuple(sorted(counts.items())))

    def describe(self, state: ColorpopState, move: Move) -> str:
        """`remove B x5 (2 jokers) at C4`; where another legal move would read the same (the same
        group with other optional jokers), the jokers' places are named too, as SAN names a file."""
        text = self._describe(move)
        if move.colour and dict(move.counts).get(JOKER, 0):
            rivals = [m for m in self.legal_moves(state) if m.cells != move.cells and self._describe(m) == text]
            if rivals:
                jokers = sorted(c for c in move.cells if state.board[c[0]][c[1]] == JOKER)
                where = " and ".join(place_name(c) for c in jokers)
                text = text.replace(" joker)", f" joker at {where})").replace(" jokers)", f" jokers at {where})")
        return text

    def move_words(self, move: str) -> str:
        """The notation's move as players say it, colours in words: `remove B x5 (2 jokers) at C4` ->
        `3 blue tokens and 2 jokers removed at C4`."""
        found = _MOVE_TEXT.fullmatch(move)
        if found is None:
            return move
        letter, total, jokers, joker_places, place = found.groups()
        count, extra = int(total), int(jokers or 0)
        if letter == JOKER:
            return _n("{n} joker removed at {place}", "{n} jokers removed at {place}", count, place=place)
        real = count - extra
        if not extra:
            return _n(
                "{n} {colour} token removed at {place}",
                "{n} {colour} tokens removed at {place}",
                real,
                colour=self.colour(letter, real),
                place=place,
            )
        text = _(
            "{tokens} and {jokers} removed at {place}",
            tokens=_n("{n} {colour} token", "{n} {colour} tokens", real, colour=self.colour(letter, real)),
            jokers=_n("{n} joker", "{n} jokers", extra),
            place=place,
        )
        if joker_places:
            places = joker_places.split(" and ")
            return _n(
                "{said} (the joker at {places})",
                "{said} (the jokers at {places})",
                len(places),
                said=text,
                places=listed(places),
            )
        return text

    def _describe(self, move: Move) -> str:
        jokers = dict(move.counts).get(JOKER, 0)
        extra = f" ({jokers} joker{'s' if jokers > 1 else ''})" if jokers and move.colour else ""
        colour = move.colour or JOKER
        return f"remove {colour} x{len(move.cells)}{extra} at {place_name(min(move.cells))}"

    def apply(self, state: ColorpopState, move: Move) -> tuple[ColorpopState, tuple[GameEvent, ...]]:
        board = remove_cells(state.board, move.cells)
        seat = state.to_move
        gained = dict(move.counts)
        removed = list(state.removed)
        removed[seat] = tuple((ch, n + gained.get(ch, 0)) for ch, n in removed[seat])
        # A colour is cleared when the move took every token of it left (the move's counts are its
        # tokens by letter): counted on the board for the move's colours only, not the whole board.
        newly = [ch for ch in self.colours if gained.get(ch) and _count(state.board, ch) == gained[ch]]
        moves_made = state.moves_made + 1
        cleared = state.cleared + tuple((ch, moves_made, tuple(removed)) for ch in newly)
        events = tuple(CLEARED(ch) for ch in newly)
        new = replace(
            state,
            board=board,
            to_move=(seat + 1) % self.players,
            moves_made=moves_made,
            removed=tuple(removed),
            cleared=cleared,
        )
        if self._instant_winners(new) is not None or self._solo_success(new):
            new = replace(new, ended="instant-win")
        elif not self._any_group(board):
            new = replace(new, ended="no-groups")
        return new, events

    def adopt(self, state: ColorpopState, snapshot: Snapshot) -> ColorpopState:
        """Go on from a board a person declared right: the tallies stay; a colour no longer on the
        board counts as cleared now; play ends if no group is left."""
        board = settle(snapshot.cells)
        on_board = {v for row in board for v in row}
        known = {ch for ch, _, _ in state.cleared}
        newly = [ch for ch in self.colours if ch not in on_board and ch not in known]
        new = replace(
            state,
            board=board,
            cleared=state.cleared + tuple((ch, state.moves_made, state.removed) for ch in newly),
            ended=None,
        )
        if self._instant_winners(new) is not None or self._solo_success(new):
            return replace(new, ended="instant-win")
        if not self._any_group(board):
            return replace(new, ended="no-groups")
        return new

    # -- judging -------------------------------------------------------------------------
    def expected(self, state: ColorpopState) -> Snapshot:
        return Snapshot(self.setup.game, state.board)

    def judge(self, state: ColorpopState, snapshot: Snapshot) -> Judgement[ColorpopState]:
        seat = self.to_move(state)
        observed = snapshot.cells
        if observed == state.board:
            return Judgement("unchanged", seat)
        settled = settle(observed)
        before = Counter(v for row in state.board for v in row if v != EMPTY)
        after = Counter(v for row in settled for v in row if v != EMPTY)
        if any(after[ch] > before[ch] for ch in after):
            return self._appeared(state, observed, before, after, seat)
        if state.ended:
            return Judgement(
                "illegal",
                seat,
                reason=_("the game is over: tokens must not be removed any more"),
                cells=tuple(Snapshot(self.setup.game, state.board).changed_cells(snapshot)),
                rule=GAME_OVER,
            )
        removed = before - after
        removed_counts = tuple(sorted(removed.items()))
        moves = self.legal_moves(state)
        for move in moves:
            if move.counts == removed_counts and remove_cells(state.board, move.cells) == settled:
                if settled != observed:
                    # Right tokens gone, but the board has not finished falling or the empty
                    # slide is not yet at the far right: the move is under way.
                    return Judgement("pending", seat)
                new, events = self.apply(state, move)
                return Judgement("legal", seat, new, self.describe(state, move), events)
        for move in moves:
            counts = dict(move.counts)
            if all(counts.get(ch, 0) >= n for ch, n in removed.items()) and _explains(state.board, settled, move.cells):
                return Judgement("pending", seat)
        return self._explain_illegal(state, settled, observed, removed, seat)

    def _appeared(
        self, state: ColorpopState, observed: Board, before: Counter, after: Counter, seat: int | None
    ) -> Judgement[ColorpopState]:
        changed = tuple(Snapshot(self.setup.game, state.board).changed_cells(Snapshot(self.setup.game, observed)))
        more = [ch for ch in after if after[ch] > before[ch]]
        if sum(after.values()) <= sum(before.values()):
            # Nothing a player can do makes a token change colour: blame the reading.
            return Judgement(
                "illegal",
                seat,
                reason=_(
                    "the reading is doubtful: more {colours} tokens are seen than were on the board; "
                    "check the places shown for glare or a token out of line",
                    colours=listed(self.colour(ch, 2) for ch in more),
                ),
                cells=changed,
                doubtful=True,
            )
        return Judgement(
            "illegal",
            seat,
            reason=_(
                "tokens were put on the board ({colours}); tokens are only ever removed",
                colours=listed(self.colour(ch) for ch in more),
            ),
            cells=changed,
            rule=ONLY_REMOVE,
        )

    def _explain_illegal(
        self, state: ColorpopState, settled: Board, observed: Board, removed: Counter, seat: int | None
    ) -> Judgement[ColorpopState]:
        board = state.board
        gone = _removed_cells(board, settled)
        cells = (
            tuple(sorted(gone))
            if gone
            else tuple(Snapshot(self.setup.game, board).changed_cells(Snapshot(self.setup.game, observed)))
        )
        real = [ch for ch in removed if ch != JOKER]
        total = sum(removed.values())
        if gone is None:
            reason = _("tokens changed places: the board cannot come from removing tokens")
            return Judgement("illegal", seat, reason=reason, cells=cells, doubtful=True)
        rule: Rule
        if total == 1:
            (ch,) = removed
            reason = _(
                "a single {colour} token was removed; a lone token can never be removed", colour=self.colour(ch, 1)
            )
            rule = NO_LONE_TOKEN
        elif len(real) > 1:
            names = listed(self.colour(ch) for ch in real)
            reason = _(
                "tokens of several colours were removed ({colours}); a move removes one colour, with jokers",
                colours=names,
            )
            rule = ONE_COLOUR
            for colour in real:
                part = {cell for cell in gone if board[cell[0]][cell[1]] == colour}
                missing = self._left_behind(board, part, colour)
                if missing:
                    reason = _(
                        "the group of {colour} tokens at {place} was not removed completely, "
                        "tokens of several colours were removed ({colours}); a move removes one colour, with jokers",
                        colour=self.colour(colour, 2),
                        place=place_name(min(part)),
                        colours=names,
                    )
                    rule = WHOLE_GROUP
                    cells = tuple(sorted(gone | missing))
                    break
        elif not real:
            reason = _("only jokers were removed; a group needs at least one coloured token")
            rule = NOT_JOKERS_ALONE
        elif len(connected_groups(gone)) > 1:
            reason = _("the removed {colour} tokens were not one connected group", colour=self.colour(real[0], 2))
            rule = CONNECTED
        else:
            colour = real[0]
            missing = self._left_behind(board, gone, colour)
            at = place_name(min(gone))
            if missing:
                cells = tuple(sorted(gone | missing))
                reason = _(
                    "the group of {colour} tokens at {place} was not removed completely",
                    colour=self.colour(colour, 2),
                    place=at,
                )
                rule = WHOLE_GROUP
            else:
                reason = _(
                    "the {colour} tokens removed at {place} are not a group that may be removed",
                    colour=self.colour(colour, 2),
                    place=at,
                )
                rule = A_GROUP
        if state.ended:
            reason = _("the game is over: tokens must not be removed any more")
            rule = GAME_OVER
        return Judgement("illegal", seat, reason=reason, cells=cells, rule=rule)

    def _left_behind(self, board: Board, gone: set[Cell], colour: str) -> set[Cell]:
        rows, cols = len(board), len(board[0])
        return {
            nb
            for cell in gone
            for nb in neighbours(cell, rows, cols)
            if nb not in gone and board[nb[0]][nb[1]] == colour
        }

    # -- end -----------------------------------------------------------------------------
    def is_over(self, state: ColorpopState) -> bool:
        return state.ended is not None

    def check_reveal(self, state: ColorpopState, seat: int, colours: tuple[str, ...]) -> Text | None:
        """Secret colours are one token each (`rules.md` §1): no two players share one, a player
        has as many as the variant gives, and once the result is given with a colour it stays."""
        if self.variant == "solo":
            return _("the solo game has target colours, not secret colours: there is nothing to reveal")
        if not 0 <= seat < self.players:
            return no_such_seat(seat, self.players)
        for ch in colours:
            if ch not in self.colours:
                return _(
                    "{letter} is not a colour of this board; the colours are {colours}",
                    letter=repr(ch),
                    colours=" ".join(self.colours),
                )
        need = 2 if self.variant == "two-colours" else 1
        if len(colours) != need or len(set(colours)) != len(colours):
            if need == 2:
                return _(
                    "each player of the {variant} variant has two different colours; got {colours}",
                    variant=self.variant,
                    colours=" ".join(colours),
                )
            return _(
                "each player of the {variant} variant has one colour; got {colours}",
                variant=self.variant,
                colours=" ".join(colours),
            )
        for other, theirs in enumerate(state.secrets):
            if other != seat and theirs is not None:
                for ch in colours:
                    if ch in theirs:
                        return _(
                            "{colour} is already the secret colour of {player}: each player has a colour of their own",
                            colour=self.colour(ch),
                            player=self.seat_name(other),
                        )
        known = state.secrets[seat]
        if known is not None and tuple(known) != tuple(colours) and self.result(state).winners is not None:
            return _(
                "the result was already given with {player}'s secret colour {colours}; it cannot be changed now. "
                "If it was told wrongly, start a new game; this one stays in the journal as it was judged",
                player=self.seat_name(seat),
                colours=" ".join(known),
            )
        return None

    def reveal(self, state: ColorpopState, seat: int, colours: tuple[str, ...]) -> ColorpopState:
        if not 0 <= seat < self.players:
            raise ConfigError("seat", no_such_seat(seat, self.players))
        for ch in colours:
            if ch not in self.colours:
                raise ConfigError("colour", _("{letter} is not a colour of this board", letter=repr(ch)))
        secrets = list(state.secrets)
        secrets[seat] = tuple(colours)
        new = replace(state, secrets=tuple(secrets))
        if new.ended is None and self._instant_winners(new) is not None:
            new = replace(new, ended="instant-win")
        return new

    def _solo_success(self, state: ColorpopState) -> bool:
        if self.variant != "solo":
            return False
        on_board = {v for row in state.board for v in row}
        return not any(ch in on_board for ch in self.targets())

    def _unit_colours(self, state: ColorpopState, unit: tuple[int, ...]) -> tuple[str, ...] | None:
        colours: list[str] = []
        for seat in unit:
            secret = state.secrets[seat]
            if secret is None:
                return None
            colours.extend(secret)
        return tuple(colours)

    def _instant_winners(self, state: ColorpopState) -> tuple[tuple[int, ...], ...] | None:
        """Scoring units whose colours were all cleared at the earliest such moment, or None."""
        if self.variant == "solo":
            return None
        cleared_at = {ch: n for ch, n, _ in state.cleared}
        best: tuple[int, list[tuple[int, ...]]] | None = None
        for unit in self._teams():
            colours = self._unit_colours(state, unit)
            if not colours or any(ch not in cleared_at for ch in colours):
                continue
            when = max(cleared_at[ch] for ch in colours)
            if best is None or when < best[0]:
                best = (when, [unit])
            elif when == best[0]:
                best[1].append(unit)
        return None if best is None else tuple(best[1])

    def _own_removed(
        self, tallies: tuple[tuple[tuple[str, int], ...], ...], unit: tuple[int, ...], colours: tuple[str, ...]
    ) -> int:
        return sum(n for seat in unit for ch, n in tallies[seat] if ch in colours)

    def result(self, state: ColorpopState) -> Result:
        on_board = Counter(v for row in state.board for v in row)
        if self.variant == "solo":
            left = sum(on_board[ch] for ch in self.targets())
            success = left == 0
            finished = success or state.ended is not None
            names = listed(self.colour(ch) for ch in self.targets())
            reason = (
                _("success: every {colours} token was cleared", colours=names)
                if success
                else _n(
                    "failure: {n} target token left and no group to remove",
                    "failure: {n} target tokens left and no group to remove",
                    left,
                )
            )
            if not finished:
                return Result(False, None, (left,))
            return Result(True, (0,) if success else (), (left,), reason)
        scores = tuple(
            None if colours is None else sum(on_board[ch] for ch in colours)
            for colours in (self._unit_colours(state, (s,)) for s in range(self.players))
        )
        if state.ended is None:
            return Result(False, None, scores)
        instant = self._instant_winners(state)
        if instant is not None:
            winning = self._unit_colours(state, instant[0]) or ()  # known: their colours were all cleared
            when = max(n for ch, n, _ in state.cleared if ch in winning)
            tallies = next(t for ch, n, t in state.cleared if n == when)
            winners = self._rank(state, list(instant), tallies, by_left=False)
            return Result(True, winners, scores, self._instant_reason(state, winners))
        units = self._teams()
        unknown = [seat for u in units for seat in u if state.secrets[seat] is None]
        if unknown:
            return Result(
                True,
                None,
                scores,
                _n(
                    "no group is left; reveal the secret colour of {players} to rank the players",
                    "no group is left; reveal the secret colours of {players} to rank the players",
                    len(unknown),
                    players=listed(self.seat_name(s) for s in unknown),
                ),
            )
        winners = self._rank(state, units, state.removed, by_left=True)
        return Result(True, winners, scores, self._left_reason(state, units, winners))

    def _rank(
        self,
        state: ColorpopState,
        units: list[tuple[int, ...]],
        tallies: tuple[tuple[tuple[str, int], ...], ...],
        by_left: bool,
    ) -> tuple[int, ...]:
        best = min(self._key(state, u, tallies, by_left) for u in units)
        return tuple(sorted(seat for u in units if self._key(state, u, tallies, by_left) == best for seat in u))

    def _key(
        self,
        state: ColorpopState,
        unit: tuple[int, ...],
        tallies: tuple[tuple[tuple[str, int], ...], ...],
        by_left: bool,
    ) -> tuple[int, int]:
        """How a scoring unit ranks: tokens of its colours left (when play ran out), then its own removed."""
        on_board = Counter(v for row in state.board for v in row)
        colours = self._unit_colours(state, unit) or ()
        left = sum(on_board[ch] for ch in colours) if by_left else 0
        return (left, self._own_removed(tallies, unit, colours))

    def _unit_name(self, unit: tuple[int, ...]) -> Text:
        if self.variant == "teams":
            return _("the team of {players}", players=listed(self.seat_name(s) for s in unit))
        return self.seat_name(unit[0])

    def _winners(self, winners: tuple[int, ...]) -> tuple[list[tuple[int, ...]], Text]:
        """The winning units and the start of the sentence: who wins (and whether they share the win)."""
        units = [u for u in self._teams() if u[0] in winners]
        names = listed(self._unit_name(u) for u in units)
        if len(units) > 1:
            return units, _("{winners} win (a shared win)", winners=names)
        return units, _("{winner} wins", winner=names)

    def _left_reason(self, state: ColorpopState, units: list[tuple[int, ...]], winners: tuple[int, ...]) -> Text:
        """Who won when play ran out, by how much, and why: tokens of their colour(s) left against the others',
        and the tie-break (own colour removed by themselves) when it decided."""
        won, who = self._winners(winners)
        mine = self._key(state, won[0], state.removed, True)
        others = [u for u in units if u not in won]
        if not others:
            return _("{who}: fewest tokens of their colour left ({left} each)", who=who, left=mine[0])
        tied = [u for u in others if self._key(state, u, state.removed, True)[0] == mine[0]]
        against = listed(
            _("{count} for {player}", count=self._key(state, u, state.removed, True)[0], player=self._unit_name(u))
            for u in others
        )
        if not tied:
            if len(won) > 1:
                return _(
                    "{who}: fewest tokens of their colour left, {left} each against {others}",
                    who=who,
                    left=mine[0],
                    others=against,
                )
            return _(
                "{who}: fewest tokens of their colour left, {left} against {others}",
                who=who,
                left=mine[0],
                others=against,
            )
        own_against = listed(
            _("{count} for {player}", count=self._key(state, u, state.removed, True)[1], player=self._unit_name(u))
            for u in tied
        )
        return _(
            "{who}: fewest tokens of their colour left, {left} against {others}; tied with {tied}, fewer tokens of "
            "their own colour removed by themselves: {own} against {own_others}",
            who=who,
            left=mine[0],
            others=against,
            tied=listed(self._unit_name(u) for u in tied),
            own=mine[1],
            own_others=own_against,
        )

    def _instant_reason(self, state: ColorpopState, winners: tuple[int, ...]) -> Text:
        """Who cleared all of their colour(s) first, and the tokens of the others' colours still on the board."""
        won, who = self._winners(winners)
        on_board = Counter(v for row in state.board for v in row)
        still = [
            _(
                "{count} for {player}",
                count=sum(on_board[ch] for ch in colours),
                player=self._unit_name(u),
            )
            for u in self._teams()
            if u not in won and (colours := self._unit_colours(state, u)) is not None
        ]
        if not still:
            return _("{who}: cleared all of their colour", who=who)
        return _(
            "{who}: cleared all of their colour; tokens of the others' colours still on the board: {others}",
            who=who,
            others=listed(still),
        )


def _linked(
    subset: Sequence[Cell], forced: set[int], joker_touch: dict[Cell, set[int]], joker_next: dict[Cell, list[Cell]]
) -> bool:
    """Whether jokers `subset` and the components `forced` form one connected whole (a joker links
    to the jokers next to it and to the components it touches)."""
    chosen = set(subset)
    start = subset[0]
    seen_jokers = {start}
    seen_comps: set[int] = set()
    todo = [start]
    while todo:
        j = todo.pop()
        seen_comps |= joker_touch[j]
        for nb in joker_next[j]:
            if nb in chosen and nb not in seen_jokers:
                seen_jokers.add(nb)
                todo.append(nb)
        # a component reached links every chosen joker touching it
        for other in chosen:
            if other not in seen_jokers and joker_touch[other] & seen_comps:
                seen_jokers.add(other)
                todo.append(other)
    return len(seen_jokers) == len(chosen) and forced <= seen_comps


# --------------------------------------------------------------------------- alignment
# Which cells were removed, given the board before and the settled board after? Columns keep
# their order and each column's tokens keep theirs, so this is a small alignment problem.


def _explains(before: Board, after: Board, allowed: frozenset[Cell] | None) -> bool:
    return _removed_cells(before, after, allowed) is not None


def _removed_cells(before: Board, after: Board, allowed: frozenset[Cell] | None = None) -> set[Cell] | None:
    """Cells whose removal (then settling) turns `before` into `after`, or None if none do.

    Only cells in `allowed` may be removed when it is given. Among several answers, one is chosen.
    """
    rows = len(before)
    cols = len(before[0])
    src = [_column(before, c) for c in range(cols)]
    dst = [col for col in (_column(after, c) for c in range(cols)) if col]
    positions = [[rows - 1 - i for i in range(len(src[c]))] for c in range(cols)]

    def deletable(c: int, i: int) -> bool:
        return allowed is None or (positions[c][i], c) in allowed

    # col_match[c][k]: removed rows if source column c can become destination column k.
    memo: dict[tuple[int, int], set[Cell] | None] = {}

    def col_match(c: int, k: int) -> set[Cell] | None:
        if (c, k) not in memo:
            memo[(c, k)] = _match_column(src[c], dst[k], lambda i, c=c: deletable(c, i), positions[c], c)
        return memo[(c, k)]

    def clear_column(c: int) -> set[Cell] | None:
        if all(deletable(c, i) for i in range(len(src[c]))):
            return {(positions[c][i], c) for i in range(len(src[c]))}
        return None

    # Align source columns to destination columns in order.
    @cache
    def align(c: int, k: int) -> tuple[Cell, ...] | None:
        if c == cols:
            return () if k == len(dst) else None
        options = []
        # Emptying a whole slide is tried first: it explains a change with fewer, larger gaps,
        # which is what a hand removing one group usually leaves.
        cleared = clear_column(c)
        if cleared is not None:
            rest = align(c + 1, k)
            if rest is not None:
                options.append(tuple(cleared) + rest)
        if not options and k < len(dst):
            m = col_match(c, k)
            if m is not None:
                rest = align(c + 1, k + 1)
                if rest is not None:
                    options.append(tuple(m) + rest)
        return options[0] if options else None

    found = align(0, 0)
    return None if found is None else set(found)


def _match_column(src: list[str], dst: list[str], deletable, positions: list[int], col: int) -> set[Cell] | None:
    """Delete cells of `src` (bottom first) to obtain `dst`; which ones, or None."""
    n, m = len(src), len(dst)
    if m > n:
        return None
    # ok[i][j]: src[i:] can become dst[j:]
    ok = [[False] * (m + 1) for _ in range(n + 1)]
    ok[n][m] = True
    for i in range(n - 1, -1, -1):
        for j in range(m, -1, -1):
            can = deletable(i) and ok[i + 1][j]
            if not can and j < m and src[i] == dst[j]:
                can = ok[i + 1][j + 1]
            ok[i][j] = can
    if not ok[0][0]:
        return None
    gone: set[Cell] = set()
    i = j = 0
    while i < n:
        if j < m and src[i] == dst[j] and ok[i + 1][j + 1]:
            j += 1
        else:
            gone.add((positions[i], col))
        i += 1
    return gone


def check_tokens(profile: Any) -> None:
    """A token count is for one of the profile's classes (the checked profile's keys as attributes)."""
    for letter in profile.tokens or {}:
        if letter not in profile.classes:
            raise sentence(_("this letter is not one of the profile's classes"), key=f"tokens.{letter}")


def setup_board(engine: ColorpopEngine, rng) -> Snapshot:
    """Players shuffle the profile's tokens into the slides until the setup is a valid one."""
    tokens = engine.setup.profile.get("tokens") or {}
    bag = [letter for letter, n in tokens.items() for _ in range(int(n))]
    for _attempt in range(500):
        rng.shuffle(bag)
        cells = tuple(tuple(bag[r * 10 : r * 10 + 10]) for r in range(10))
        board = Snapshot(engine.setup.game, cells)
        if engine.check_setup(board).ok:
            return board
    raise RuntimeError("no valid Colorpop setup found")


def partial_boards(engine: ColorpopEngine, state: ColorpopState, before: Snapshot, after: Snapshot, move: Move):
    """A group of three or more is taken out token by token, the ones above falling after each."""
    cells = sorted(move.cells)
    if len(cells) >= 3:
        for k in range(1, len(cells)):
            yield before.with_cells(remove_cells(before.cells, frozenset(cells[:k])))
