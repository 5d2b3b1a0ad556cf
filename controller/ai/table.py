"""The computer at a real table: which seats it plays (the game key `computer`), its move for the
seat to move, and the coach's hint, from the referee's state and only what that seat may know.

Why here and not in the service: choosing is pure (no I/O; the randomness comes from a seed), so
the referee loop, the page and the tests all ask the same two functions; the loop only decides
when to ask, and runs the search off its own thread (`controller.service.loop`).

The game key, in `config.yaml` and the page's new-game form: `computer: [null, strong]`, one
entry per seat like `secrets:`, null for a person, or the level the computer plays that seat at
(`controller.ai.levels`: beginner, club, strong).

Hidden information at a real table: the computer's own secret colour (Colorpop) is drawn by the
referee itself from a seed the journal fixes (`GameKnowledge.table_private`), so a game resumed
after a restart has the same secret. Its rack (Blockers!) is what a person drew for it from its
pile, as for any player, and tapped on the page (`computer-rack`, journalled; `Referee.racks`):
the computer waits for its rack, then plays from exactly those tiles. The other seats' secrets are
sampled (determinization), never read.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import ValidationInfo

from controller.ai import knowledge_for, levels
from controller.ai.search import Choice
from controller.errors import ConfigError
from controller.games import registry
from controller.games.base import ActionNotAllowed
from controller.language import _, listed, literal
from controller.schema import Section, checked, sentence, validate
from controller.snapshot import empty_snapshot

#: The game key that marks computer seats.
COMPUTER_KEY = "computer"
#: The game key that turns the coach off (`coach: false`: a table that plays without help).
COACH_KEY = "coach"


def _seats(value: Any, info: ValidationInfo) -> Any:
    """One entry per seat: null (or false) for a person, else the computer's level; a person at least."""
    players = (info.context or {}).get("players")
    names = levels.level_names()
    if value is None:
        return value
    if not isinstance(value, list) or len(value) != players:
        raise sentence(
            _(
                "expected a list of {players} entries, one per seat: null for a person, or the computer's level "
                "({levels}); for example [null, club]; got {value}",
                players=players,
                levels=literal(", ".join(names)),
                value=literal(repr(value)),
            )
        )
    for seat, entry in enumerate(value):
        if entry is not None and entry is not False and entry not in names:
            raise sentence(
                _(
                    "expected null (a person) or a level: {levels}; got {value}",
                    levels=literal(", ".join(names)),
                    value=literal(repr(entry)),
                ),
                key=seat,
            )
    if all(entry is not None and entry is not False for entry in value):
        raise sentence(_("at least one seat must be a person's: the computer moves no pieces"))
    return value


def _coach(value: Any) -> bool:
    if not isinstance(value, bool):
        raise sentence(_("expected true (players may ask for hints) or false; got {value}", value=literal(repr(value))))
    return value


class TableKeys(Section):
    """The game keys of a real table besides a record's: the seats the computer plays, and the coach."""

    computer: Annotated[list[Any] | None, checked(_seats)] = None
    coach: Annotated[bool, checked(_coach)] = True


def computer_levels(
    keys: dict[str, Any], players: int, source: str = "config.yaml", engine: Any = None
) -> dict[int, str]:
    """The computer's seats and levels `keys` ask for (`computer:`), checked: {seat: level}; given
    the game's `engine`, also that the computer can play them as the game is set up
    (`GameKnowledge.table_refusal`: a new game is checked so, a journalled one is resumed as it was)."""
    raw = validate(TableKeys, {COMPUTER_KEY: keys.get(COMPUTER_KEY)}, source, context={"players": players}).computer
    out = {seat: str(entry) for seat, entry in enumerate(raw or ()) if entry is not None and entry is not False}
    refusal = knowledge_for(engine.setup.game).table_refusal(engine, out) if engine is not None and out else None
    if refusal:
        raise ConfigError(COMPUTER_KEY, refusal, source)
    return out


def check_coach(keys: dict[str, Any], source: str = "config.yaml") -> bool:
    """Whether the coach is on (`coach:` true or absent); anything but true or false is refused."""
    return validate(TableKeys, {k: keys[k] for k in (COACH_KEY,) if k in keys}, source).coach


@dataclass(frozen=True)
class Thought:
    """A move the computer chose (or the coach suggests) for `seat`, in the game's notation."""

    seat: int
    move: str
    #: The search's estimate of the seat's chances after the move (0 to 1).
    value: float
    #: Why the move is good, in a sentence (a catalogue `Text`; may be empty).
    why: Any
    seconds: float
    #: A hint for a person whose rack the referee does not know (Blockers!): the tiles that could
    #: make the move in its place (`R7 RA Rb`, the move's one of them), whichever the person holds;
    #: empty when the move is the seat's for sure (no racks, or the person told their tiles).
    tiles: str = ""


def table_seed(journal_id: str, game_id: int) -> str:
    """The seed of a journalled game's computer secrets: the same whenever the game is resumed."""
    return f"{journal_id}/{game_id}"


def think(
    engine: Any,
    state: Any,
    level: str,
    seed: str,
    rng: random.Random | None = None,
    computer: bool = True,
    racks: Mapping[str, Sequence[str]] | None = None,
) -> Thought | None:
    """The move of the seat to move in `state` at `level`, knowing only what that seat knows: a
    computer seat its own secret drawn from `seed`, or its rack as a person drew it (`racks`, the
    referee's: colour -> tiles told); a person's seat (the coach's hint, `computer` False) only what
    the person told for the hint (`racks`: their own tiles, Blockers!), since the referee does not
    know a person's secret colour or rack: without their tiles, the hint names the move's place and
    every tile of theirs that could go there (`Thought.tiles`), never a tile they may not hold.
    None when nobody is to move."""
    seat = engine.to_move(state)
    if seat is None or engine.is_over(state):
        return None
    knowledge = knowledge_for(engine.setup.game)
    view = knowledge.observe(engine, state, seat)
    private = None
    if computer and engine.rack_colours(seat):
        private = {c: list(engine.rack_held(state, c, (racks or {}).get(c, ()))[0]) for c in engine.rack_colours(seat)}
    elif computer:
        private = knowledge.table_private(engine, state, seat, seed)
    elif racks and engine.rack_colours(seat):  # a person who told their own tiles for the hint
        told = {c: list(engine.rack_held(state, c, racks[c])[0]) for c in engine.rack_colours(seat) if c in racks}
        private = {c: tiles for c, tiles in told.items() if tiles} or None
    rng = rng or random.Random(f"{seed}/{engine.position_text(view)}")  # what the seat sees, nothing more
    choice: Choice = levels.player(engine.setup.game, level).choose(engine, view, seat, private, rng)
    if choice.move is None:
        return None
    why = knowledge.explain(engine, view, choice.move, seat, private)
    move = engine.describe(state, choice.move)
    tiles: tuple[str, ...] = ()
    if not computer and engine.rack_colours(seat):
        tiles = engine.tiles_for_place(state, move)
        if tiles and tiles[0][:1] in (private or {}):  # a tile of the rack the person told: theirs for sure
            tiles = ()
    return Thought(seat, move, choice.value, why, choice.seconds, " ".join(tiles))


def warm(engine: Any, seats: Mapping[int, str], seed: str) -> bool:
    """Prepare the computer's seats of a new game while the board is set up (`Search.warm`), so
    that its first move costs what later ones do (a cold Flipop first move took twice as long):
    each seat's level searches the game's start position once and forgets the choice. Only for a
    start the rules fix (Flipop's, an empty Blockers! board); a shuffled start (Colorpop's tokens)
    is not known before the camera sees it. Whether it warmed anything."""
    spec = registry.get(engine.setup.game)
    if spec.play.setup_board is None:
        board = empty_snapshot(engine.setup.game)
    else:
        board = spec.play.setup_board(engine, random.Random(f"{seed}/warm"))
        if spec.play.setup_board(engine, random.Random(f"{seed}/warm again")) != board:
            return False
    state = engine.start(board)
    knowledge = knowledge_for(engine.setup.game)
    for seat, level in sorted(seats.items()):
        view = knowledge.observe(engine, state, seat)
        levels.player(engine.setup.game, level).search.warm(engine, view, seat, None)
    return bool(seats)


def told_tiles(engine: Any, state: Any, seat: int, tiles: str) -> dict[str, tuple[str, ...]]:
    """The tiles a person tells the coach they hold (`R3 RA G1`, Blockers!), for a hint from their own
    rack: colour -> glyphs, each colour one of the seat's and each tile still unplayed (`check_rack`).
    Never journalled: a person's rack is theirs. Raises ActionNotAllowed with the sentence why."""
    groups: dict[str, list[str]] = {}
    for token in tiles.split():
        groups.setdefault(token[:1], []).append(token)
    mine = engine.rack_colours(seat)
    out = {}
    for colour, group in groups.items():
        if colour not in mine and colour in getattr(engine, "colour_index", {}):
            raise ActionNotAllowed(
                _(
                    "the {colour} tiles are not yours: {player} plays {colours}",
                    colour=engine.colour(colour, 2),
                    player=engine.seat_name(seat),
                    colours=listed([engine.colour(c, 2) for c in mine]),
                )
            )
        told, glyphs = engine.check_rack(state, " ".join(group))
        out[told] = glyphs
    return out


def rack_missing(engine: Any, state: Any, seat: int, racks: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """The tiles a person still has to draw for computer seat `seat` and tap (colour -> how many):
    it chooses its move only once none is missing. Empty in a game without racks."""
    if state is None:
        return {}
    out = {c: engine.rack_held(state, c, racks.get(c, ()))[1] for c in engine.rack_colours(seat)}
    return {c: n for c, n in out.items() if n}


def legal_moves(engine: Any, state: Any) -> list[str]:
    """Every legal move of the seat to move, in the game's notation (the coach's list)."""
    if state is None or engine.is_over(state) or engine.to_move(state) is None:
        return []
    return sorted({engine.describe(state, m) for m in engine.legal_moves(state)})


def move_cells(engine: Any, state: Any, move: str) -> list[tuple[int, int]]:
    """The places a move (in the game's notation) changes, for drawing it on the board."""
    try:
        after = engine.apply(state, engine.parse_move(state, move))[0]
    except Exception:  # not a move of this position (the state moved on): nothing to draw
        return []
    return [tuple(c) for c in engine.expected(state).changed_cells(engine.expected(after))]
