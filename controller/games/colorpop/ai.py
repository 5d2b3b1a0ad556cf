"""What a computer player knows of Colorpop besides its rules (`controller.ai.knowledge`).

Hidden information: the secret colours. A seat knows its own (its private part) and sees the
board and every seat's removal tallies. It samples the others' colours among the colours it does
not hold, excluding colours whose clearing would already have ended the game, and weighs each
by what the others removed: a player removes its own colour more than others, so a colour an
opponent removed much is likelier theirs (a weight of e^(0.25 x tokens removed)).

Playouts: each mover goes for its own colour (as it is in the determinization) most of the time,
as players do, and plays to the end of the game, whose result the search backs up. A random
token's group cut after 6 plies and judged by the evaluation (before, issue 29) made a search that
hardly told moves apart: club's 200 iterations beat a random player 72.0% of 200 paired games, and
89.8% with these playouts (`bench/colorpop_levels.py`, figures in `docs/ai.md`).

Evaluation (the greedy yardstick, and the solo variant's playouts): the game is won by having the
fewest tokens of one's colour(s) left (or none at all, at once). A seat's standing is its tokens
left against the others', counting a token that is alone of its colour in its slide neighbourhood
as harder to ever remove.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from controller.ai.knowledge import GameKnowledge
from controller.games.colorpop.rules import JOKER, Move
from controller.grid import Cell, flood
from controller.language import _, _n
from controller.snapshot import EMPTY

#: How strongly an opponent's removals point at its colour (per token removed).
INFERENCE = 0.25
#: How many tokens of difference make a position clearly won (the evaluation's scale).
SCALE = 4.0
#: What each token of its own colour a unit removed itself counts, against a token left: the rules'
#: tie-break (fewest of one's own removed wins equal scores), never worth a token left.
TIE_BREAK = 0.02
#: Random tokens a playout tries (the group of one, if it holds two or more) before it lists every move.
PLAYOUT_TRIES = 8


def _needed(engine: Any) -> int:
    return 2 if engine.variant == "two-colours" else 1


def _units(engine: Any) -> list[tuple[int, ...]]:
    return engine._teams()


class ColorpopKnowledge(GameKnowledge):
    # Playouts take a random token's group (`playout_move`) rather than list every group with its
    # choices of jokers, and the tree lists a position's moves once: an iteration costs a third of
    # what it did, so the strong level plays all its 800 (240 before: the hidden colour and too few
    # iterations were what it lost to a random player by).
    effort = 1.0
    # The work budget: 45 units an iteration (a new tree position's moves listed, a playout's draws).
    # With playouts to the end an early iteration costs more (one game's strong searches: 200 units
    # at ply 0, 105 at ply 8, 50 at ply 12, 14 at ply 16), so the budget, not the iterations, ends the
    # searches of the first half of a game (strong: 180 iterations at ply 0, 345 at ply 8, 723 at
    # ply 12, all 800 from ply 16): the longest think stays bounded.
    work_per_iteration = 45.0
    # Playouts run to the end of the game (the rules' result, not the evaluation's guess) and each
    # mover goes for its own colour (`aim`): a search then tells moves apart. They cost more than the
    # 6 plies of before, so the work budget cuts a search's iterations where they are dear (strong:
    # 0.35 -> 0.46 processor s/move); the solo variant's stop before a failed end (`playout_move`).
    playout_depth = None
    #: How often a playout's mover takes a group of its own colour, when it has one (else a random
    #: token's group, any colour).
    aim = 0.7
    #: The evaluation's scale (`SCALE`).
    scale = SCALE
    #: What a token with no neighbour of its colour counts in the evaluation (one with some: 1).
    alone = 1.5

    # -- hidden information -----------------------------------------------------------------
    def _hidden(self, engine: Any) -> bool:
        return engine.variant != "solo"

    def deal(self, engine: Any, state: Any, rng: random.Random) -> Any:
        """Every seat's secret colour(s), drawn from the secret tokens (one per colour)."""
        if not self._hidden(engine):
            return None
        colours = list(engine.colours)
        rng.shuffle(colours)
        need = _needed(engine)
        return tuple(tuple(colours[i * need : (i + 1) * need]) for i in range(engine.players))

    def private(self, engine: Any, hidden: Any, seat: int) -> Any:
        if hidden is None or hidden[seat] is None:
            return None
        return list(hidden[seat])

    def table_private(self, engine: Any, state: Any, seat: int, seed: str) -> Any:
        """The computer's secret colour(s): the ones `secrets:` gives its seat, else drawn by the
        referee (the same for the same `seed`). One deal from the colours no seat was given hands
        each seat without a given secret colours of its own, so two computer seats never share one,
        and none is a colour given to a person (`table_refusal` makes sure every person's is given
        when the computer's is not). The deal depends on the game's setup only, never on colours
        revealed later: the computer keeps the colour it played with."""
        if not self._hidden(engine):
            return None
        given = engine.setup.secrets or tuple(None for _ in range(engine.players))
        if given[seat] is not None:
            return list(given[seat])
        taken = {ch for secret in given for ch in secret or ()}
        pool = sorted(ch for ch in engine.colours if ch not in taken)
        unknown = [s for s in range(engine.players) if given[s] is None]
        need = _needed(engine)
        deal = random.Random(f"{seed}/secrets").sample(pool, need * len(unknown))
        mine = unknown.index(seat)
        return sorted(deal[mine * need : (mine + 1) * need])

    def table_refusal(self, engine: Any, computer: dict[int, str]) -> Any:
        """The referee draws a computer seat's colour but cannot see which tokens the people drew:
        unless the computer's own colour is given (drawn from the tokens at the table for it), every
        person's must be given, so that the referee draws the computer's among the others. The
        computer never looks at them: its search sees only its own (`observe`, `sample`)."""
        if not self._hidden(engine) or not computer:
            return None
        given = engine.setup.secrets or tuple(None for _ in range(engine.players))
        if all(given[seat] is not None for seat in computer):
            return None
        unknown = [s for s in range(engine.players) if s not in computer and given[s] is None]
        if not unknown:
            return None
        return _(
            "the computer's secret colour could be one a person holds: give every person's secret colour "
            "in secrets (the computer never looks at them and draws its own among the others), or the "
            "computer's own, drawn for it from the tokens at the table"
        )

    def table_reveal(self, engine: Any, state: Any, seat: int, seed: str) -> Any:
        if not self._hidden(engine) or not engine.is_over(state) or state.secrets[seat] is not None:
            return None
        return self.table_private(engine, state, seat, seed)

    def observe(self, engine: Any, state: Any, seat: int) -> Any:
        if not self._hidden(engine):
            return state
        return replace(state, secrets=tuple(None for _ in state.secrets))

    def sample(self, engine: Any, state: Any, seat: int, private: Any, rng: random.Random) -> Any:
        if not self._hidden(engine):
            return None
        own = tuple(private) if private else None
        need = _needed(engine)
        cleared = {ch for ch, _, _ in state.cleared}
        others = [s for s in range(engine.players) if s != seat]
        pool = [ch for ch in engine.colours if not own or ch not in own]
        weights = {s: {ch: math.exp(INFERENCE * dict(state.removed[s]).get(ch, 0)) for ch in pool} for s in others}
        if own is None:
            others = list(range(engine.players))
            weights[seat] = {ch: 1.0 for ch in pool}
        for _attempt in range(50):
            left = list(pool)
            secrets: list[tuple[str, ...] | None] = [own] * engine.players
            for s in sorted(others, key=lambda _: rng.random()):
                mine = []
                for _colour in range(need):
                    ch = rng.choices(left, weights=[weights[s][c] for c in left])[0]
                    left.remove(ch)
                    mine.append(ch)
                secrets[s] = tuple(mine)
            if self._consistent(engine, secrets, cleared, seat):
                return tuple(secrets)
        return tuple(secrets)

    @staticmethod
    def _consistent(engine: Any, secrets: Sequence, cleared: set[str], seat: int) -> bool:
        """No other scoring unit's colours are all cleared: it would already have won."""
        for unit in _units(engine):
            if seat in unit:
                continue
            colours = [ch for s in unit for ch in secrets[s] or ()]
            if colours and all(ch in cleared for ch in colours):
                return False
        return True

    def resolve(self, engine: Any, state: Any, hidden: Any) -> Any:
        if hidden is None:
            return state
        return replace(state, secrets=tuple(hidden))

    # -- positions --------------------------------------------------------------------------
    def evaluate(self, engine: Any, state: Any) -> tuple[float, ...] | None:
        """Tokens of each unit's colours left (a token with no same-colour neighbour counts 1.5:
        it needs others to come to it), and a little for each of them the unit removed itself (the
        rules' tie-break: equal scores are won by whoever removed fewer of their own), against the
        best other unit's; a logistic of the lead."""
        board = state.board
        weight = _weighted_counts(board, self.alone)
        units = _units(engine)
        if engine.variant == "solo":
            targets = engine.targets()
            targets_left = sum(weight.get(ch, 0.0) for ch in set(targets))
            return (1.0 / (1.0 + math.exp((targets_left - 3.0) / self.scale)),)
        lefts: list[float | None] = []
        for unit in units:
            colours = [ch for s in unit for ch in state.secrets[s] or ()]
            if not colours:
                lefts.append(None)
                continue
            own_removed = sum(dict(state.removed[s]).get(ch, 0) for s in unit for ch in colours)
            lefts.append(sum(weight.get(ch, 0.0) for ch in set(colours)) + TIE_BREAK * own_removed)
        values = [0.5] * engine.players
        for i, (unit, left) in enumerate(zip(units, lefts)):
            if left is None:
                continue
            rivals = [x for j, x in enumerate(lefts) if j != i and x is not None]
            best_rival = min(rivals) if rivals else left
            value = 1.0 / (1.0 + math.exp((left - best_rival) / self.scale))
            for s in unit:
                values[s] = value
        return tuple(values)

    def playout_move(self, engine: Any, state: Any, private: Any, rng: random.Random) -> tuple[Any, int]:
        """Mostly (`aim`) a group of the mover's own colour, else the group of a random token, if it
        holds two or more, without listing every move (the groups with every choice of jokers they
        may take: most of a search's time): a bigger group is likelier, as a token of it is. Where a
        few tokens find none (a board of scattered tokens and jokers), every move is listed as `moves`
        does. In the solo variant a playout stops before a move that ends the game in failure, for
        the evaluation to judge: the search scores a one-seat game that ends without a winner as an
        even share, a failure as a success."""
        move, work = self._playout_move(engine, state, private, rng)
        if move is not None and not self._hidden(engine):
            after = engine.apply(state, move)[0]
            if engine.is_over(after) and not engine.winners(after):
                return None, work + 1
        return move, work

    def _playout_move(self, engine: Any, state: Any, private: Any, rng: random.Random) -> tuple[Any, int]:
        board = state.board
        rows, cols = len(board), len(board[0])
        if private and self.aim and rng.random() < self.aim:
            aimed = _own_group(board, tuple(private), rng)
            if aimed is not None:
                return aimed, 2
        for tries in range(1, PLAYOUT_TRIES + 1):
            r, c = rng.randrange(rows), rng.randrange(cols)
            colour = board[r][c]
            if colour in (EMPTY, JOKER):
                continue
            group = flood((r, c), partial(_holds, board, colour), rows, cols)
            if len(group) >= 2:
                return Move(colour, frozenset(group), ((colour, len(group)),)), tries + 1
        move, work = super().playout_move(engine, state, private, rng)
        return move, work + PLAYOUT_TRIES

    def explain(self, engine: Any, state: Any, move: Any, seat: int, private: Any = None) -> Any:
        own = tuple(private or state.secrets[seat] or ())
        count = len(move.cells)
        colour = move.colour
        if not own:  # a person's hint: the coach does not know their colour
            return _n(
                "it removes {n} token and leaves the others as few chances as it can",
                "it removes {n} tokens and leaves the others as few chances as it can",
                count,
                n=count,
            )
        before = sum(row.count(ch) for row in state.board for ch in own)
        if colour in own:
            left = before - dict(move.counts).get(colour, 0)
            if left == 0:
                return _("it removes your last {colour} tokens: you win at once", colour=engine.colour(colour))
            mine = dict(move.counts).get(colour, 0)
            return _n(
                "it removes {n} tokens, {mine} of your colour; {left} of it stay on the board",
                "it removes {n} tokens, {mine} of your colour; {left} of it stay on the board",
                count,
                n=count,
                mine=mine,
                left=left,
            )
        return _n(
            "it removes {n} token, none of your colour, and leaves the others as few chances as it can",
            "it removes {n} tokens, none of your colour, and leaves the others as few chances as it can",
            count,
            n=count,
        )


def _own_group(board: Sequence[Sequence[str]], colours: tuple[str, ...], rng: random.Random) -> Move | None:
    """A random group of one of `colours` (a whole component of two or more tokens of one colour, no
    joker: a legal move), or None; a bigger group is likelier, as in `playout_move`."""
    rows, cols = len(board), len(board[0])
    cells = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v in colours]
    rng.shuffle(cells)
    seen: set[Cell] = set()
    for r, c in cells:
        if (r, c) in seen:
            continue
        colour = board[r][c]
        group = flood((r, c), partial(_holds, board, colour), rows, cols)
        if len(group) >= 2:
            return Move(colour, frozenset(group), ((colour, len(group)),))
        seen.update(group)
    return None


def _holds(board: Sequence[Sequence[str]], letter: str, cell: Cell) -> bool:
    """Whether `cell` of the board holds `letter` (a group's member, for `grid.flood`)."""
    return board[cell[0]][cell[1]] == letter


def _weighted_counts(board: Sequence[Sequence[str]], alone: float = 1.5) -> dict[str, float]:
    """Per letter, its tokens on the board: 1 each, 1.5 for a token with no neighbour of its colour
    (harder to remove); in one pass over the rows (the greedy player judges every move with it)."""
    rows, cols = len(board), len(board[0])
    out: dict[str, float] = {}
    for r, row in enumerate(board):
        up = board[r - 1] if r else None
        down = board[r + 1] if r + 1 < rows else None
        for c, v in enumerate(row):
            if v == EMPTY:
                continue
            together = (
                (c and row[c - 1] == v)
                or (c + 1 < cols and row[c + 1] == v)
                or (up is not None and up[c] == v)
                or (down is not None and down[c] == v)
            )
            out[v] = out.get(v, 0.0) + (1.0 if together else alone)
    return out


KNOWLEDGE = ColorpopKnowledge()
