"""Flipop door physics (`rules.md` §3), in one module to read with the spec beside it.

Everything about how doors sit and turn, and how a push ripples through them, is here; the engine
(`flipop.py`) only decides whose turn it is and compares snapshots. A copy whose doors behave
differently is a change to this module (or to the profile's start layout), nothing else.

Geometry
--------
Cells are (row, col) on the 5x5 board, row 0 at the top of the camera image. The 16 posts sit on
the inner grid corners; post (i, j) is the corner shared by four cells, its *quadrants*::

                 N
        (i, j)   |   (i, j+1)          NW quadrant = cell (i, j)
                 |                     NE quadrant = cell (i, j+1)
      W ------ post ------ E           SW quadrant = cell (i+1, j)
                 |                     SE quadrant = cell (i+1, j+1)
      (i+1, j)   |   (i+1, j+1)
                 S

A wing points from its post N, E, S or W and lies on the cell edge along that arm:
N separates (i, j) | (i, j+1), S separates (i+1, j) | (i+1, j+1), E separates (i, j+1) over
(i+1, j+1), W separates (i, j) over (i+1, j).

A push
------
A ball in cell Q pushed in direction d crosses the edge between Q and Q+d. If that edge holds a
wing, the wing turns a quarter turn about its post so that it ends pointing d. Example: the ball
Q at (i, j) pushed E against the N wing of post (i, j) (the post is the ``+``)::

        before              after
        Q | .               . Q          The wing turns N -> E (clockwise) and sweeps the
          +                   +---       quadrant between N and E, the NE cell (i, j+1), which is
        .   .               .   .        Q+d: Q goes there, and a ball already there is pushed
                                         on in d, the way the wing's tip moves.

Every other wing of the same door turns the same way (clockwise or anticlockwise). A wing that
turns from direction w to direction w' sweeps the quadrant between w and w', and a ball found
there is pushed one cell in w' (the way its tip moves as it starts to turn). A straight double
door N+S pushed E from its NW cell turns clockwise: N -> E sweeps the NE cell (x is pushed E),
S -> W sweeps the SW cell (y is pushed W)::

        columns j-1  j   j+1 j+2            j-1  j   j+1 j+2
        row i     .  Q | x   .               .   .   Q   x
                       +           ->            ----+----
        row i+1   .  y | .   .               y   .   .   .

A pushed ball moves on only through a wing (which turns in its turn: a chain) or into an empty
cell. Pushing a ball directly (no wing between two balls), pushing a ball off the board and
turning a wing onto an edge that already holds a wing all make the whole move illegal. A ball that
reaches an exit cell of its own colour leaves the board at once.

Order of events, where the text is silent: the ball being pushed is lifted out of its cell first
(a wing that follows it into the cell it leaves does not push it); a turning door lifts all its
wings, then lands them one by one, the pushed wing first; then the balls in the swept cells are
pushed, the pushed wing's cell first, the others in N E S W order of the wing they were swept by;
the pushed ball is set down in its target cell last.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from controller.errors import FormatError
from controller.language import _

Cell = tuple[int, int]
Edge = tuple[Cell, Cell]

SIZE = 5
POSTS: tuple[Cell, ...] = tuple((i, j) for i in range(SIZE - 1) for j in range(SIZE - 1))
DIRECTIONS = "NESW"
STEPS: dict[str, Cell] = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
CLOCKWISE = {"N": "E", "E": "S", "S": "W", "W": "N"}
ANTICLOCKWISE = {after: before for before, after in CLOCKWISE.items()}
#: A chain this long can only be a loop; real chains on 25 cells with 10 balls are far shorter.
MAX_BALL_MOVES = 60


def on_board(cell: Cell) -> bool:
    return 0 <= cell[0] < SIZE and 0 <= cell[1] < SIZE


def step(cell: Cell, direction: str) -> Cell:
    dr, dc = STEPS[direction]
    return (cell[0] + dr, cell[1] + dc)


def edge_between(a: Cell, b: Cell) -> Edge:
    """The edge between two neighbouring cells, as an ordered pair so both sides name it alike."""
    return (a, b) if a < b else (b, a)


@lru_cache(maxsize=256)
def wing_edge(post: Cell, wing: str) -> Edge:
    """The cell edge a wing pointing `wing` from `post` lies on (`rules.md` §3)."""
    i, j = post
    if wing == "N":
        return edge_between((i, j), (i, j + 1))
    if wing == "S":
        return edge_between((i + 1, j), (i + 1, j + 1))
    if wing == "E":
        return edge_between((i, j + 1), (i + 1, j + 1))
    return edge_between((i, j), (i + 1, j))


def swept_cell(post: Cell, before: str, after: str) -> Cell:
    """The quadrant of `post` between two perpendicular wing directions: the cell a wing sweeps."""
    i, j = post
    row = i if "N" in (before, after) else i + 1
    col = j if "W" in (before, after) else j + 1
    return (row, col)


def post_cells(post: Cell) -> tuple[Cell, ...]:
    """The four cells around a post, for pointing a player at a door."""
    i, j = post
    return ((i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1))


def canonical(wings: str) -> str:
    """A door's wings in N E S W order, so one door shape has one spelling."""
    return "".join(d for d in DIRECTIONS if d in wings)


def turned(door: str, sense: Mapping[str, str]) -> str:
    """A door after a quarter turn (`sense` is CLOCKWISE or ANTICLOCKWISE)."""
    return canonical("".join(sense[w] for w in door))


def rotations(door: str) -> frozenset[str]:
    """Every orientation a door of this shape can show."""
    out = {door}
    for _turn in range(3):
        door = turned(door, CLOCKWISE)
        out.add(door)
    return frozenset(out)


def wing_map(doors: tuple[str, ...]) -> dict[Edge, tuple[Cell, str]]:
    """Which (post, wing) lies on each edge; a shared cached copy, never to be changed."""
    return _wing_map(doors)


@lru_cache(maxsize=4096)
def _wing_map(doors: tuple[str, ...]) -> dict[Edge, tuple[Cell, str]]:
    out: dict[Edge, tuple[Cell, str]] = {}
    for post, door in zip(POSTS, doors):
        for wing in door:
            out[wing_edge(post, wing)] = (post, wing)
    return out


def shared_edges(doors: tuple[str, ...]) -> list[tuple[Cell, Cell, Edge]]:
    """Pairs of posts whose wings lie on one edge (a layout the rules forbid), with the edge."""
    seen: dict[Edge, Cell] = {}
    clashes = []
    for post, door in zip(POSTS, doors):
        for wing in door:
            edge = wing_edge(post, wing)
            if edge in seen:
                clashes.append((seen[edge], post, edge))
            else:
                seen[edge] = post
    return clashes


# --------------------------------------------------------------------------- one push


@dataclass(frozen=True)
class Problem:
    """Why a push is not allowed, in words for a player, the cells to look at, and which rule of the
    rule book it breaks (its identifier: `controller.games.flipop.rules` holds the rules)."""

    reason: str
    cells: tuple[Cell, ...]
    rule: str = ""


@dataclass(frozen=True)
class PushOutcome:
    """The board after one push and its chain.

    `displaced` holds, for each ball that moved and is still on the board, its final cell and a
    direction it moved in (the push-back ban needs both). `exits` are the cells where balls left
    the board, with `exited` their colours. `problem` is the first rule the push broke (None for a
    legal push); in lenient mode the board shows what forcing the push anyway would look like.
    """

    balls: tuple[tuple[str, ...], ...]
    doors: tuple[str, ...]
    displaced: frozenset[tuple[Cell, str]]
    exits: tuple[Cell, ...]
    exited: tuple[str, ...]
    problem: Problem | None


class _Stop(Exception):
    """Raised inside a strict push at the first broken rule."""


class _Chain:
    """The working board of one push: balls by cell (each with an id), doors by post."""

    def __init__(
        self,
        balls: tuple[tuple[str, ...], ...],
        doors: tuple[str, ...],
        exits: Mapping[str, frozenset[Cell]],
        lenient: bool,
    ) -> None:
        self.colours: list[str] = []
        self.ball_at: dict[Cell, int] = {}
        for r, row in enumerate(balls):
            for c, colour in enumerate(row):
                if colour != ".":
                    self.ball_at[(r, c)] = len(self.colours)
                    self.colours.append(colour)
        self.doors = list(doors)
        self.wings = dict(wing_map(doors))
        self.exits = exits
        self.lenient = lenient
        self.moved: dict[int, set[str]] = {}
        self.exit_cells: list[Cell] = []
        self.exit_colours: list[str] = []
        self.problem: Problem | None = None
        self.ball_moves = 0

    def fail(self, reason: str, cells: tuple[Cell, ...], rule: str) -> None:
        if self.problem is None:
            self.problem = Problem(reason, cells, rule)
        if not self.lenient:
            raise _Stop

    def move_ball(self, cell: Cell, direction: str) -> None:
        """Push the ball in `cell` one cell in `direction`, with everything that sets off."""
        self.ball_moves += 1
        if self.ball_moves > MAX_BALL_MOVES:
            self.lenient = False
            self.fail(_("the chain of pushes would never end"), (cell,), "flipop.chain")
        ball = self.ball_at.pop(cell)
        target = step(cell, direction)
        if not on_board(target):
            self.fail(_("a ball would be pushed off the board"), (cell,), "flipop.stay-on-board")
            return  # lenient: the ball ends up off the board
        edge = edge_between(cell, target)
        if edge in self.wings:
            self.turn_door(edge, direction)
        elif target in self.ball_at:
            self.fail(_("a ball pushed another ball without a door between them"), (cell, target), "flipop.chain")
            self.move_ball(target, direction)  # lenient: the ball is shoved along
        if target in self.ball_at:
            self.fail(_("two balls would end in one cell"), (target,), "flipop.chain")
            return  # lenient: the ball is lost
        self.ball_at[target] = ball
        self.moved.setdefault(ball, set()).add(direction)
        colour = self.colours[ball]
        if target in self.exits.get(colour, ()):
            del self.ball_at[target]
            self.exit_cells.append(target)
            self.exit_colours.append(colour)

    def turn_door(self, edge: Edge, direction: str) -> None:
        """Turn the door whose wing on `edge` is pushed in `direction`, then push swept balls."""
        post, pushed = self.wings[edge]
        sense = CLOCKWISE if CLOCKWISE[pushed] == direction else ANTICLOCKWISE
        index = POSTS.index(post)
        door = self.doors[index]
        order = [pushed] + [w for w in door if w != pushed]
        for wing in door:
            self.wings.pop(wing_edge(post, wing), None)
        for wing in order:
            landing = wing_edge(post, sense[wing])
            if landing in self.wings:
                self.fail(
                    _("a door wing would turn onto an edge that already holds a wing"), landing, "flipop.wing-on-wing"
                )
            self.wings.setdefault(landing, (post, sense[wing]))
        self.doors[index] = turned(door, sense)
        for wing in order:
            cell = swept_cell(post, wing, sense[wing])
            if cell in self.ball_at:
                self.move_ball(cell, sense[wing])

    def outcome(self) -> PushOutcome:
        grid = [["."] * SIZE for _ in range(SIZE)]
        final: dict[int, Cell] = {}
        for cell, ball in self.ball_at.items():
            grid[cell[0]][cell[1]] = self.colours[ball]
            final[ball] = cell
        displaced = frozenset((final[ball], d) for ball, dirs in self.moved.items() if ball in final for d in dirs)
        return PushOutcome(
            balls=tuple(tuple(row) for row in grid),
            doors=tuple(self.doors),
            displaced=displaced,
            exits=tuple(self.exit_cells),
            exited=tuple(self.exit_colours),
            problem=self.problem,
        )


def push(
    balls: tuple[tuple[str, ...], ...],
    doors: tuple[str, ...],
    start: Cell,
    direction: str,
    exits: Mapping[str, frozenset[Cell]],
    *,
    lenient: bool = False,
) -> PushOutcome | Problem:
    """Push the ball at `start` in `direction`.

    Strict (the default): the outcome of a legal push, or the `Problem` that makes it illegal.
    Lenient: always an outcome, showing the board a player forcing the push would produce, with
    its first broken rule in `problem` (used to explain an illegal change in words).
    """
    chain = _Chain(balls, doors, exits, lenient)
    target = step(start, direction)
    if start not in chain.ball_at:
        return Problem(_("there is no ball to push there"), (start,), "flipop.push-a-door")
    if not on_board(target):
        return Problem(_("a ball would be pushed off the board"), (start,), "flipop.stay-on-board")
    if edge_between(start, target) not in chain.wings:
        return Problem(_("a ball moved without pushing a door"), (start, target), "flipop.push-a-door")
    try:
        chain.move_ball(start, direction)
    except _Stop:
        return chain.problem or Problem(_("the move is not possible"), (start,), "flipop.push-a-door")
    return chain.outcome()


def pushable(balls: tuple[tuple[str, ...], ...], doors: tuple[str, ...], colour: str) -> list[tuple[Cell, str]]:
    """Every (cell, direction) where a ball of `colour` has a wing in front of it to push."""
    wings = wing_map(doors)
    out: list[tuple[Cell, str]] = []
    for r, row in enumerate(balls):
        for c, here in enumerate(row):
            if here == colour:
                out.extend(((r, c), d) for d, edge in _EDGES_OUT[r][c] if edge in wings)
    return out


#: Per cell, (direction, edge) for every neighbour on the board: `pushable` asks them all the time.
_EDGES_OUT = tuple(
    tuple(
        tuple((d, edge_between((r, c), step((r, c), d))) for d in DIRECTIONS if on_board(step((r, c), d)))
        for c in range(SIZE)
    )
    for r in range(SIZE)
)


# --- the doors line of a snapshot (`notation.md` §1) ------------------------------------------------
WING_ORDER = "NESW"
UNKNOWN_DOOR = "?"
POST_COUNT = 16
_DOOR_TOKEN = re.compile(r"^(\?|[NESW]{1,4})$")


def canonical_door(token: str) -> str:
    """A door's wings in N E S W order, so ``EW`` and ``WE`` compare equal."""
    if token == UNKNOWN_DOOR:
        return token
    return "".join(d for d in WING_ORDER if d in token)


def parse_doors_line(rest: str, rows: int, cols: int, at: str) -> tuple[str, ...]:
    """The 16 door tokens after `doors:`."""
    tokens = rest.split()
    if len(tokens) != POST_COUNT:
        raise FormatError(
            _("'doors:' needs {count} door tokens, found {found}", count=str(POST_COUNT), found=str(len(tokens))), at
        )
    out = []
    for tok in tokens:
        if not _DOOR_TOKEN.match(tok) or len(set(tok)) != len(tok):
            raise FormatError(
                _("bad door {door}: expected wing letters from N E S W (each at most once) or '?'", door=repr(tok)),
                at,
            )
        out.append(canonical_door(tok))
    return tuple(out)
