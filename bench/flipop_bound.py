"""Which Flipop balls could ever leave the board, over-approximated: a proof without going through boards.

`Reach(engine).run(balls, doors)` works out, for every ball on the board, a set of cells that holds
every cell the ball can ever stand on in any play from that board, and for every door a set of
orientations that holds every orientation it can ever show (one fixpoint over those sets, about a
millisecond, where `flipop_dead.DeadCheck` goes through up to thousands of boards). A ball whose set
holds no exit cell of its colour can never leave; a board where no ball's set holds its exit is dead
(`Reach.dead`), and where only some balls might leave, the final ball counts are still bounded
(`Reach.counts`, what `flipop_ceiling.py --whole` scores such a position by).

The rules' push (`doors.legal_push`, the engine's own; `doors.push` the same in words) is a chain
of single steps: a ball moves only (1) across an edge holding a wing, turning that wing's door a
quarter turn so that the wing points the way the ball goes (the player's ball, or a ball moved on in
the chain), or (2) swept by a turning door, from the swept cell one cell the way that wing's tip
moves (across a wing, which is (1), or across an edge with none). A door turns only in (1).

The sets. Some balls are *frozen*: assumed never to move (every ball at first); their cells are
*frozen cells*. Every other ball has a set of cells, every door a set of orientations, grown from the
board's own by the rule below until nothing changes. A *turn* is: door p in an orientation o of its
set, its wing w on the edge between Q and Q+d (d perpendicular to w), crossed by a ball going d.
It *may happen* when (a) Q is a frozen cell or in some ball's set, (b) it is not surely blocked: no
wing it lands on is held by another door q in every orientation of q's set, and (c) it is not
doomed: the ball it sweeps first, from Q+d on in d, is not a frozen one that surely cannot move
(`can_move`: off the board; or into a frozen cell across an edge no door's set can put a wing on; or
across a wing whose turn is surely blocked or dooms the next frozen ball in line, with the doors
already turned in the chain counted in their sets). A turn that may happen and starts from a frozen
cell or sweeps one (with a cell beyond on the board) *thaws* those balls: they stop being frozen, and
everything is looked at again. Otherwise p's new orientation joins p's set, Q+d joins the set of
every ball whose set holds Q, and for each swept cell S (the pushed wing's, Q+d, first) with its tip
direction e, S+e joins the set of every ball whose set holds S, unless S+e is a frozen cell or the
edge between S and S+e holds a wing in every orientation (then that ball crosses a wing: another
turn, looked at on its own). Sets only grow and balls only thaw, so this ends.

Why no legal game from the board leaves them (the claim: every frozen ball still in its cell, every
other ball in its set, every door in its set). Suppose the claim failed; take the first single step
of the game (a door turning, or a ball landing in a cell) after which it fails; before it, it held.
- A door turning: the ball crossing its wing stood in Q (its set, or a frozen cell); the wings it
  lands on were free, and every other door showed an orientation of its set, so it is not surely
  blocked; if it were doomed, the frozen ball in Q+d (still there: nothing else moved since the
  step before) would be pushed at once, each ball in line straight on in d, so off the board or into
  a full cell or against a wing that cannot turn: the push is illegal, not a step of the game. So the
  turn may happen, and, as no ball thawed, its new orientation is in the door's set.
- A frozen ball moving: it starts a push or is swept, by a turn that may happen (as just shown: that
  turn came before, when the claim held), which thaws it, but nothing thawed; or it is swept toward
  off the board, and the push is illegal.
- Another ball landing in a cell: it came from a cell of its set by a turn that may happen (as its
  pusher, or swept), and the rule added that cell (a frozen cell cannot be it: that ball is still
  there; a swept ball crossing a wing crosses it by a turn, which adds the cell beyond).
So no step is the first to fail, and the claim holds for every step of every legal game. What the
rules forbid beyond this (the chain limit, whose turn it is, the push-back ban, passes) only removes
steps: turns and the ban are left out in the over-approximation's favour, as `flipop_reach.dead`
leaves them out of its exhaustive search. A ball that reaches its own exit leaves; by the claim that
exit is in its set, so a ball whose set has no exit of its colour never leaves; balls leaving only
empty cells, which no rule above relied on being full but frozen cells (whose balls never leave).
Which ball is which never changes in a push (two balls in one cell make the push illegal).

The counts: if at most `e` balls of a colour with `n` on the board can ever leave, that colour ends
any game from here with between n - e and n balls, and every way a Flipop game ends scores by the
final ball counts alone (fewer balls wins, equal a draw: a colour that has none left has fewer; both
emptied in one push is a draw, `rules.FlipopEngine.result`). So `counts` bounds every result.

`tests/test_flipop_bound.py` checks the claim against exhaustive search (every board reached from
boards of random games and of the solved opening lies inside the sets; no board proved dead is
found live), and that leaving out a rule (one colour's balls, the sweeps) breaks those checks.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.games.flipop import doors as doors_model  # noqa: E402
from controller.games.flipop.doors import DIRECTIONS, POSTS, SIZE, Cell  # noqa: E402

Balls = tuple[tuple[str, ...], ...]
Doors = tuple[str, ...]

_CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
_INDEX = {cell: i for i, cell in enumerate(_CELLS)}


@dataclass(frozen=True)
class Turn:
    """One quarter turn of one door, as the fixpoint uses it (cells as indices 0..24)."""

    source: int  # the cell of the ball that crosses the pushed wing
    direction: str  # the way it crosses
    target: int  # where that ball goes: the cell the pushed wing sweeps
    door: str  # the door's orientation after
    landing: tuple[tuple[int, str], ...]  # (other post, wing) pairs whose wing would be in the way
    #: (swept cell, the cell a ball there goes to, the (post, wing) pairs that could lie on the edge
    #: between them) for every wing, the pushed one first; only onward cells on the board, and not
    #: the source (its ball is lifted before the door turns)
    sweeps: tuple[tuple[int, int, tuple[tuple[int, str], ...]], ...]


def _other_holders(post: int, edge: doors_model.Edge) -> tuple[tuple[int, str], ...]:
    return tuple(
        (q, w)
        for q, other in enumerate(POSTS)
        if q != post
        for w in DIRECTIONS
        if doors_model.wing_edge(other, w) == edge
    )


@lru_cache(maxsize=1024)
def turns(post: int, door: str) -> tuple[Turn, ...]:
    """Every quarter turn of door `door` on post number `post` that some ball could set off."""
    where = POSTS[post]
    out = []
    for pushed in door:
        a, b = doors_model.wing_edge(where, pushed)
        for d in DIRECTIONS:
            if d in (pushed, doors_model.OPPOSITE[pushed]):
                continue
            if doors_model.step(a, d) == b:
                source, target = a, b
            elif doors_model.step(b, d) == a:
                source, target = b, a
            else:
                continue
            sense = doors_model.CLOCKWISE if doors_model.CLOCKWISE[pushed] == d else doors_model.ANTICLOCKWISE
            landing = tuple(h for w in door for h in _other_holders(post, doors_model.wing_edge(where, sense[w])))
            sweeps = []
            for w in [pushed] + [w for w in door if w != pushed]:
                swept = doors_model.swept_cell(where, w, sense[w])
                onward = doors_model.step(swept, sense[w])
                if swept != source and doors_model.on_board(onward):
                    crossed = _other_holders(post, doors_model.edge_between(swept, onward))
                    sweeps.append((_INDEX[swept], _INDEX[onward], crossed))
            out.append(
                Turn(
                    source=_INDEX[source],
                    direction=d,
                    target=_INDEX[target],
                    door=doors_model.turned(door, sense),
                    landing=landing,
                    sweeps=tuple(sweeps),
                )
            )
    return tuple(out)


def _holders(edge: doors_model.Edge) -> tuple[tuple[int, str], ...]:
    return _other_holders(-1, edge)


#: Per cell index and direction: the neighbour's index (-1 off the board) and the (post, wing)
#: pairs that could lie on the edge between them.
_STEP: tuple[dict[str, tuple[int, tuple[tuple[int, str], ...]]], ...] = tuple(
    {
        d: (
            (_INDEX[doors_model.step(cell, d)], _holders(doors_model.edge_between(cell, doors_model.step(cell, d))))
            if doors_model.on_board(doors_model.step(cell, d))
            else (-1, ())
        )
        for d in DIRECTIONS
    }
    for cell in _CELLS
)
#: How deep `can_move` follows a chain of frozen balls before it gives up (answers "maybe").
CHAIN = 6


@dataclass
class Outcome:
    """What `Reach.run` worked out for one board."""

    colours: tuple[str, ...]  # each ball's colour, top left first
    cells: list[set[int]]  # each ball's cells (indices 0..24)
    doors: list[set[str]]  # each post's orientations
    leaves: list[bool]  # whether each ball's cells hold an exit of its colour


class Reach:
    """The fixpoint of the module docstring, for boards of one engine's profile (its exits).

    `sweeps` and `moving` are there for the tests only: without the sweeps, or with the balls of a
    colour left out of `moving` (standing still, and never in the way), the sets miss boards that
    play reaches, which the tests must notice."""

    def __init__(self, engine: Any, *, sweeps: bool = True, moving: tuple[str, ...] = ("W", "B")) -> None:
        self.exits = {colour: frozenset(_INDEX[c] for c in cells) for colour, cells in engine.exits.items()}
        self.colours = tuple(engine.colours)
        self.sweeps = sweeps
        self.moving = moving

    def run(self, balls: Balls, doors: Doors) -> Outcome:
        colours: list[str] = []
        cells: list[set[int]] = []
        for i, cell in enumerate(_CELLS):
            here = balls[cell[0]][cell[1]]
            if here != doors_model.EMPTY_CELL:
                colours.append(here)
                cells.append({i})
        shown: list[set[str]] = [{door} for door in doors]
        #: cell -> the ball assumed never to move from it: every ball at first, until a turn that
        #: could move it is found (then it moves like the others, `movers`)
        frozen = {next(iter(held)): k for k, held in enumerate(cells) if colours[k] in self.moving}
        movers: list[int] = []
        occupied = set(frozen)  # every cell some ball may stand on

        def orientations(post: int, extra: dict[int, str]) -> set[str]:
            return shown[post] | {extra[post]} if post in extra else shown[post]

        def surely(holders: tuple[tuple[int, str], ...], extra: dict[int, str]) -> bool:
            """Whether one of these wings stands whatever the doors show: some door holds it in every
            orientation of its set (`extra`: orientations a chain has just turned doors to)."""
            return any(all(wing in o for o in orientations(q, extra)) for q, wing in holders)

        def never(holders: tuple[tuple[int, str], ...], extra: dict[int, str]) -> bool:
            """Whether none of these wings can stand: no orientation of its door's set has it."""
            return not any(wing in o for q, wing in holders for o in orientations(q, extra))

        def can_move(cell: int, way: str, extra: dict[int, str]) -> bool:
            """False if the frozen ball in `cell`, pushed `way` by a chain that turned the doors in
            `extra`, surely cannot move (so that push is illegal); True if it may."""
            there, holders = _STEP[cell][way]
            if there < 0:
                return False  # off the board
            if len(extra) > CHAIN:
                return True
            if there not in frozen and not surely(holders, extra):
                return True
            if never(holders, extra):
                return False  # no wing to cross, and a frozen ball fills the cell beyond
            for post, wing in holders:
                for door in orientations(post, extra):
                    if wing not in door:
                        continue
                    for turn in turns(post, door):
                        if turn.source != cell or turn.direction != way or surely(turn.landing, extra):
                            continue
                        if there not in frozen or can_move(there, way, {**extra, post: turn.door}):
                            return True
            return False

        changed = True
        while changed:
            changed = False
            for post in range(len(POSTS)):
                for door in list(shown[post]):
                    for turn in turns(post, door):
                        if turn.source not in occupied or surely(turn.landing, {}):
                            continue
                        if turn.target in frozen and not can_move(turn.target, turn.direction, {post: turn.door}):
                            continue  # the ball in `target` can go nowhere: the push is illegal
                        thawed = [c for c in (turn.source, *(s for s, _o, _c in turn.sweeps)) if c in frozen]
                        if thawed:
                            movers.extend(frozen.pop(c) for c in thawed)
                            changed = True
                            continue  # looked at again on the next pass, with those balls moving
                        if turn.door not in shown[post]:
                            shown[post].add(turn.door)
                            changed = True
                        for k in movers:
                            held = cells[k]
                            if turn.source in held and turn.target not in held:
                                held.add(turn.target)
                                occupied.add(turn.target)
                                changed = True
                            if not self.sweeps:
                                continue
                            for swept, onward, crossed in turn.sweeps:
                                if (
                                    swept in held
                                    and onward not in held
                                    and onward not in frozen
                                    and not surely(crossed, {})
                                ):
                                    held.add(onward)
                                    occupied.add(onward)
                                    changed = True
        leaves = [bool(held & self.exits[colour]) for colour, held in zip(colours, cells)]
        return Outcome(tuple(colours), cells, shown, leaves)

    def dead(self, balls: Balls, doors: Doors) -> bool:
        """True: no ball can ever leave (proved). False: not proved (a ball may, or may not, leave)."""
        return not any(self.run(balls, doors).leaves)

    def counts(self, balls: Balls, doors: Doors) -> dict[str, tuple[int, int]]:
        """Per colour, the fewest and most balls it can have on the board at the end of any game from here."""
        found = self.run(balls, doors)
        out = {}
        for colour in self.colours:
            mine = [leaves for c, leaves in zip(found.colours, found.leaves) if c == colour]
            out[colour] = (len(mine) - sum(mine), len(mine))
        return out
