"""What a computer player may know about one game besides its rules, declared by the game.

Why a separate object: the search (`controller.ai.search`) is written once over the `Engine`
interface, so every registered game gets a player for free. A game adds knowledge only where it
has some, in its own module (`GameSpec.ai` names it): an evaluation of positions (for the greedy
player, and where the search stops a playout), and, when the game hides information from a seat,
how that information is dealt, what each seat privately knows, and how to sample the rest
consistently with what a seat has seen (determinization: the player never peeks).

Words used here:
- *hidden*: everything the engine's state does not hold that a full game needs (Blockers!' racks,
  Colorpop's secret colours as drawn); None for games of perfect information.
- *private*: the part of the hidden information one seat knows (its rack, its secret colour);
  plain JSON values, so the service can journal a computer seat's private part.
- *view*: the engine state as one seat may see it (`observe`): nothing of other seats' secrets.

Every method is pure: no I/O, randomness only from the `rng` handed in.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


class GameKnowledge:
    """The defaults: perfect information, no evaluation; a game overrides what it knows better."""

    #: How many search iterations this game's moves afford, relative to a cheap game (1.0): a game
    #: whose legal moves are costly to list searches fewer, so every level keeps its time.
    effort: float = 1.0
    #: The work one search iteration may cost on average (None: no bound but the iterations). A
    #: unit of work is one move listed or one move made, what a search's time goes to; a search
    #: stops once its iterations have cost this much each on average. A position of many moves
    #: (a game's first moves, a full rack) costs more per iteration, so it gets fewer: the longest
    #: think stays near a typical move's, without a clock (the same choice on any machine,
    #: however loaded). Set a little above what a mid-game iteration of the game costs.
    work_per_iteration: float | None = None
    #: Plies a playout runs before the evaluation judges where it stopped (None: to the end).
    playout_depth: int | None = None
    #: Whether a seat's moves depend on its private part (Blockers!: its rack). When they do not,
    #: a search lists a position's moves once, however often its iterations pass through it.
    private_moves: bool = False
    #: Whether positions can come back (Flipop's doors): then a line of the search that returns to
    #: a position it passed through ends there, judged by `repeated`.
    repeats: bool = False

    # -- positions -----------------------------------------------------------------------
    def evaluate(self, engine: Any, state: Any) -> tuple[float, ...] | None:
        """Per seat, how good `state` looks for that seat, from 0 (a sure loss) to 1 (a sure win);
        None when the game declares no evaluation (the search then plays playouts to the end)."""
        return None

    def settled(self, engine: Any, state: Any) -> tuple[float, ...] | None:
        """Per seat, the outcome (as `evaluate`'s, 0 to 1) of a position whose end is already fixed
        though the rules would play on, as players would end it by agreement (Flipop: the doors
        lock the balls in a cycle of forced moves); None while play can still change something."""
        return None

    def repeated(self, engine: Any, state: Any) -> tuple[float, ...]:
        """Per seat, the outcome players would agree on when play goes round in a circle back to
        `state` (nobody gains by repeating): by default an even share."""
        players = int(engine.setup.players)
        return (1.0 / players,) * players

    def explain(self, engine: Any, state: Any, move: Any, seat: int, private: Any = None) -> Any:
        """A sentence on why `move` is good for `seat`, for the coach's hint (a `Text` of the
        catalogue, `controller.language`); empty when the game has nothing to say."""
        return ""

    # -- hidden information -----------------------------------------------------------------
    def deal(self, engine: Any, state: Any, rng: random.Random) -> Any:
        """The hidden information of a fresh game, for every seat (simulations and benches)."""
        return None

    def private(self, engine: Any, hidden: Any, seat: int) -> Any:
        """What `seat` privately knows of `hidden` (JSON values)."""
        return None

    def table_private(self, engine: Any, state: Any, seat: int, seed: str) -> Any:
        """What a computer seat at a real table privately knows in `state`, drawn by the referee
        itself and the same for the same `seed` (a journalled game resumes with it): Colorpop's
        secret colour. None for games of perfect information, and for Blockers!' racks, which a
        person draws for the computer and taps on the page (`controller.ai.table.think`)."""
        return None

    def table_refusal(self, engine: Any, computer: dict[int, str]) -> Any:
        """Why the computer cannot play the seats `computer` names in this game as it is set up (a
        catalogue `Text`; Colorpop: its secret colour could be one a person holds), or None."""
        return None

    def table_reveal(self, engine: Any, state: Any, seat: int, seed: str) -> Any:
        """What a computer seat shows once the game is over, as a person would (Colorpop: its secret
        colours, when the referee does not know them yet); None: nothing."""
        return None

    def observe(self, engine: Any, state: Any, seat: int) -> Any:
        """The state as `seat` may see it: other seats' secrets taken out."""
        return state

    def sample(self, engine: Any, state: Any, seat: int, private: Any, rng: random.Random) -> Any:
        """Hidden information consistent with the view `state` and `seat`'s own `private` part:
        one determinization. Only what the seat knows may shape it."""
        return None

    def resolve(self, engine: Any, state: Any, hidden: Any) -> Any:
        """The engine state of the full game `hidden` completes (Colorpop: secrets filled in)."""
        return state

    def moves(self, engine: Any, state: Any, private: Any) -> Sequence[Any]:
        """The moves the seat to move may make, knowing its `private` part (Blockers!: its rack)."""
        return engine.legal_moves(state)

    def playout_move(self, engine: Any, state: Any, private: Any, rng: random.Random) -> tuple[Any, int]:
        """A move for a search's random playout from `state` (None: the playout stops there), and
        the work it cost (units of `work_per_iteration`). By default one of `moves` at random, each
        as likely. A game whose moves are costly to list may draw one more cheaply, with other odds
        (Colorpop: a random token's group), as long as every move it draws is legal."""
        moves = self.moves(engine, state, private)
        return (moves[rng.randrange(len(moves))] if moves else None), len(moves) + 1

    def after_move(self, engine: Any, before: Any, move: Any, hidden: Any, rng: random.Random) -> Any:
        """`hidden` once `move` was made from `before` (Blockers!: the tile leaves the rack, one is
        drawn). Also used on a seat's private part alone: what it does not hold stays untouched."""
        return hidden
