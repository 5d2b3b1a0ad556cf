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
#: An empty cell on the board (`notation.md` §1).
EMPTY_CELL = "."
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


# --------------------------------------------------------------------------- the rules' push
#
# The same physics as `push` in strict mode, for the rules engine's move lists (a computer player's
# search pushes thousands of times a move): the board as a flat list of 25 cells, the doors as a
# list of 16 strings, each door's quarter turn planned once (its new shape, the wings that would be
# in the way, the cells it sweeps), and no words for a push that breaks a rule. `tests/
# test_flipop_fast_push.py` checks it against `push` on random boards of every door shape.

_CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
_INDEX = {cell: i for i, cell in enumerate(_CELLS)}
_POST_INDEX = {post: i for i, post in enumerate(POSTS)}


def _holders_of(edge: Edge) -> tuple[tuple[int, str], ...]:
    """The (post index, wing) pairs that would lie on `edge`: one or two posts."""
    return tuple((p, w) for p, post in enumerate(POSTS) for w in DIRECTIONS if wing_edge(post, w) == edge)


#: Per cell index and direction: the neighbour's index (-1 off the board) and the wings that could
#: lie on the edge between them (``()`` where none can).
_NEIGHBOUR: tuple[dict[str, tuple[int, tuple[tuple[int, str], ...]]], ...] = tuple(
    {
        d: (
            (_INDEX[step(cell, d)], _holders_of(edge_between(cell, step(cell, d))))
            if on_board(step(cell, d))
            else (-1, ())
        )
        for d in DIRECTIONS
    }
    for cell in _CELLS
)


#: Per cell index and direction, the push (cell, direction) as one shared object: moves, displaced
#: balls and push-back bans are made of them.
_PUSH: tuple[dict[str, tuple[Cell, str]], ...] = tuple({d: (cell, d) for d in DIRECTIONS} for cell in _CELLS)


def shared_push(cell: Cell, direction: str) -> tuple[Cell, str]:
    """The pair (cell, direction) as the one object every move list uses (fewer objects to keep)."""
    return _PUSH[_INDEX[cell]][direction]


class _Illegal(Exception):
    """A rule is broken: the push is not a legal move."""


class _Unsound(Exception):
    """Two wings lie on one edge where the push looks (a layout the rules forbid, seen only on a
    board a person declared): the full model decides, as it always did for such boards."""


@dataclass(frozen=True)
class _TurnPlan:
    """A door's quarter turn, worked out once: its shape after, the other posts' wings whose edges
    it would land on (or shares now: an unsound layout), and the cells swept with the push's direction."""

    door: str
    in_the_way: tuple[tuple[int, str], ...]
    shared: tuple[tuple[int, str], ...]
    sweeps: tuple[tuple[int, str], ...]


@lru_cache(maxsize=4096)
def _turn_plan(post_index: int, door: str, pushed: str, direction: str) -> _TurnPlan:
    """`turn_door` of the full model, as data: the same order of wings and sweeps."""
    post = POSTS[post_index]
    sense = CLOCKWISE if CLOCKWISE[pushed] == direction else ANTICLOCKWISE
    order = [pushed] + [w for w in door if w != pushed]
    in_the_way = tuple(
        holder for wing in order for holder in _holders_of(wing_edge(post, sense[wing])) if holder[0] != post_index
    )
    shared = tuple(holder for wing in door for holder in _holders_of(wing_edge(post, wing)) if holder[0] != post_index)
    sweeps = tuple((_INDEX[swept_cell(post, wing, sense[wing])], sense[wing]) for wing in order)
    return _TurnPlan(turned(door, sense), in_the_way, shared, sweeps)


def legal_push(
    balls: tuple[tuple[str, ...], ...],
    doors: tuple[str, ...],
    start: Cell,
    direction: str,
    exits: Mapping[str, frozenset[Cell]],
) -> PushOutcome | None:
    """The outcome `push` gives for a legal push, None for a push that breaks a rule (without
    saying which: the rules' move lists only need to know)."""
    index = _INDEX.get(start)
    if index is None:
        return None
    flat: list[str] = []
    for row in balls:
        flat += row
    if flat[index] == EMPTY_CELL:
        return None
    target, holders = _NEIGHBOUR[index][direction]
    if target < 0:
        return None
    if not any(wing in doors[post] for post, wing in holders):
        return None
    now = list(doors)
    moved: dict[int, set[str]] = {}  # cell index -> directions the ball now there moved in
    exit_cells: list[Cell] = []
    exit_colours: list[str] = []
    ball_moves = 0

    def move_ball(cell: int, way: str) -> None:
        nonlocal ball_moves
        ball_moves += 1
        if ball_moves > MAX_BALL_MOVES:
            raise _Illegal
        colour = flat[cell]
        flat[cell] = EMPTY_CELL
        dirs = moved.pop(cell, None)
        there, holders = _NEIGHBOUR[cell][way]
        if there < 0:
            raise _Illegal
        holder = None
        for post, wing in holders:
            if wing in now[post]:
                if holder is not None:
                    raise _Unsound
                holder = (post, wing)
        if holder is not None:
            turn_door(holder[0], holder[1], way)
        if flat[there] != EMPTY_CELL:
            raise _Illegal
        if dirs is None:
            dirs = {way}
        else:
            dirs.add(way)
        cell_there = _CELLS[there]
        if cell_there in exits.get(colour, ()):
            exit_cells.append(cell_there)
            exit_colours.append(colour)
        else:
            flat[there] = colour
            moved[there] = dirs

    def turn_door(post: int, pushed: str, way: str) -> None:
        plan = _turn_plan(post, now[post], pushed, way)
        for other, wing in plan.shared:
            if wing in now[other]:
                raise _Unsound
        for other, wing in plan.in_the_way:
            if wing in now[other]:
                raise _Illegal
        now[post] = plan.door
        for cell, sweep in plan.sweeps:
            if flat[cell] != EMPTY_CELL:
                move_ball(cell, sweep)

    try:
        move_ball(index, direction)
    except _Illegal:
        return None
    except _Unsound:
        full = push(balls, doors, start, direction, exits)
        return full if isinstance(full, PushOutcome) else None
    # Rows the push left alone are the same objects as before (a search keeps thousands of boards).
    rows = []
    for r, row in enumerate(balls):
        new_row = tuple(flat[r * SIZE : (r + 1) * SIZE])
        rows.append(row if new_row == row else new_row)
    return PushOutcome(
        balls=tuple(rows),
        doors=tuple(now),
        displaced=frozenset(_PUSH[cell][d] for cell, dirs in moved.items() for d in dirs),
        exits=tuple(exit_cells),
        exited=tuple(exit_colours),
        problem=None,
    )


#: Per cell index: (the push as a move, the wings that could lie in front of it) for each direction
#: with a neighbour a wing can separate; one move object per push, shared by every move list.
_PUSHES: tuple[tuple[tuple[tuple[Cell, str], tuple[tuple[int, str], ...]], ...], ...] = tuple(
    tuple((_PUSH[i][d], holders) for d, (there, holders) in _NEIGHBOUR[i].items() if holders)
    for i in range(SIZE * SIZE)
)


def pushable(balls: tuple[tuple[str, ...], ...], doors: tuple[str, ...], colour: str) -> list[tuple[Cell, str]]:
    """Every (cell, direction) where a ball of `colour` has a wing in front of it to push, cell by
    cell from the top left, directions in N E S W order."""
    out: list[tuple[Cell, str]] = []
    first = 0
    for row in balls:
        if colour in row:
            for c, here in enumerate(row):
                if here == colour:
                    for move, holders in _PUSHES[first + c]:
                        for post, wing in holders:
                            if wing in doors[post]:
                                out.append(move)
                                break
        first += SIZE
    return out


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
