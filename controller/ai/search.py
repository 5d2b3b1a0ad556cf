"""The computer player of every game: information-set Monte Carlo tree search with UCT.

One search over the `Engine` interface (legal moves, apply, result), so any registered game gets
a player without code of its own. What a game knows better it declares in its `GameKnowledge`
(`controller.ai.knowledge`): an evaluation that judges a playout cut short, and for hidden
information (Blockers! racks, Colorpop secret colours) how to sample what the seat does not know.

Each iteration draws one *determinization* (a full game consistent with what the seat knows:
its own secret, the public board; never the others' secrets), walks down the one shared tree using
only the moves legal in that determinization (single-observer ISMCTS: a child's exploration term
counts the iterations in which it was available, Cowling, Powley and Whitehouse 2012), adds one
node, plays a random playout (cut after `playout_depth` plies where the game has an evaluation),
and backs the result up: every node holds the total reward of the seat that made its move, so the
same search plays two, three or five seats. Where positions can come back (`GameKnowledge.repeats`),
a line that returns to a position it passed through ends there, judged as the players would end it
(`GameKnowledge.repeated`). A search stops after its iterations, or sooner where the game declares
what an iteration may cost (`GameKnowledge.work_per_iteration`, counted in moves listed and made):
its longest think is bounded without a clock. For games of perfect information the determinization
is the position itself and this is plain UCT.

Pure: no I/O; randomness only from the `random.Random` handed in.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from controller.ai.knowledge import GameKnowledge


@dataclass(frozen=True)
class SearchSettings:
    """How hard the search thinks. `iterations` is scaled by the game's `effort`."""

    iterations: int
    #: Stop after this many seconds of thinking even if iterations are left (a slow machine).
    seconds: float = 5.0
    #: The UCT exploration constant (rewards are from 0 to 1).
    exploration: float = 0.7
    #: Cut playouts after this many plies and judge with the game's evaluation (None: the game's own
    #: `playout_depth`); 0 judges the new node itself.
    playout_depth: int | None = None
    #: Pick the final move in proportion to visits ** (1 / temperature); 0: the most visited.
    temperature: float = 0.0


@dataclass(frozen=True)
class Choice:
    """The move a search chose, with what it saw: per candidate move its visits and mean reward."""

    move: Any
    iterations: int
    seconds: float
    #: (move, visits, mean reward for the seat) of every root move tried, most visited first.
    stats: tuple[tuple[Any, int, float], ...] = ()
    #: Work units the search did (`GameKnowledge.work_per_iteration`).
    work: int = 0

    @property
    def value(self) -> float:
        """The chosen move's mean reward (0 to 1): the search's estimate of its chances."""
        for move, _, mean in self.stats:
            if move == self.move:
                return mean
        return 0.5


class _Node:
    __slots__ = ("mover", "children", "visits", "total", "available")

    def __init__(self, mover: int) -> None:
        #: The seat that made the move leading here (whose reward `total` sums).
        self.mover = mover
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0


def rewards_of(engine: Any, state: Any, knowledge: GameKnowledge, players: int) -> tuple[float, ...]:
    """Per seat, 1 for a win (shared among the winners), 0 for a loss, where the game ended or its
    end is already fixed (`GameKnowledge.settled`); the game's evaluation (or an even share) where
    it is not."""
    if engine.is_over(state):
        winners = engine.winners(state)
        if winners:
            share = 1.0 / len(winners)
            return tuple(share if s in winners else 0.0 for s in range(players))
        return (1.0 / players,) * players
    settled = knowledge.settled(engine, state)
    if settled is not None:
        return settled
    judged = knowledge.evaluate(engine, state)
    return judged if judged is not None else (1.0 / players,) * players


def players_of(engine: Any) -> int:
    return int(engine.setup.players)


class Search:
    """One seat's search. `choose` is the whole interface."""

    def __init__(self, knowledge: GameKnowledge, settings: SearchSettings) -> None:
        self.knowledge = knowledge
        self.settings = settings

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice:
        """The move for `seat` in `view` (the state as that seat sees it), knowing `private`."""
        knowledge, settings = self.knowledge, self.settings
        started = time.perf_counter()
        legal = list(knowledge.moves(engine, view, private))
        if len(legal) <= 1:
            return Choice(legal[0] if legal else None, 0, time.perf_counter() - started)
        players = players_of(engine)
        depth = settings.playout_depth if settings.playout_depth is not None else knowledge.playout_depth
        budget = max(1, round(settings.iterations * knowledge.effort))
        per_iteration = knowledge.work_per_iteration
        work_budget = math.inf if per_iteration is None else budget * per_iteration
        deadline = started + settings.seconds
        root = _Node(seat)
        c = settings.exploration
        done = work = 0
        # Within one search the tree's positions come back on every iteration through them: their
        # moves (where they do not hang on a seat's private part) and the positions they lead to are
        # worked out once. A position already listed costs one unit of work, not its moves again.
        listed: dict[Any, Sequence[Any]] | None = None if knowledge.private_moves else {}
        applied: dict[tuple[Any, Any], Any] = {}
        while done < budget and work < work_budget:
            if done and time.perf_counter() > deadline:
                break
            done += 1
            hidden = knowledge.sample(engine, view, seat, private, rng)
            state = knowledge.resolve(engine, view, hidden)
            node = root
            path = [root]
            seen = {state} if knowledge.repeats else None
            ended: tuple[float, ...] | None = None
            while True:
                mover = engine.to_move(state)
                if mover is None or engine.is_over(state):
                    break
                moves = listed.get(state) if listed is not None else None
                if moves is None:
                    moves = knowledge.moves(engine, state, knowledge.private(engine, hidden, mover))
                    work += len(moves) + 1
                    if listed is not None:
                        listed[state] = moves
                else:
                    work += 1
                if not moves:
                    break
                children = node.children
                untried = [m for m in moves if m not in children]
                if untried:
                    move = untried[rng.randrange(len(untried))]
                    for m in moves:
                        if m in children:
                            children[m].available += 1
                    child = _Node(mover)
                    child.available = 1
                    children[move] = child
                    hidden = knowledge.after_move(engine, state, move, hidden, rng)
                    state = self._apply(engine, state, move, applied)
                    path.append(child)
                    if seen is not None and state in seen:
                        ended = knowledge.repeated(engine, state)
                    break
                best = None
                best_score = -1.0
                for m in moves:
                    child = children[m]
                    child.available += 1
                    score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
                    if score > best_score:
                        best, best_score = m, score
                node = children[best]
                hidden = knowledge.after_move(engine, state, best, hidden, rng)
                state = self._apply(engine, state, best, applied)
                path.append(node)
                if seen is not None:
                    if state in seen:  # round in a circle: judged as the players would end it
                        ended = knowledge.repeated(engine, state)
                        break
                    seen.add(state)
            if ended is not None:
                rewards = ended
            else:
                rewards, spent = self._playout(engine, state, hidden, depth, players, rng)
                work += spent
            for visited in path:
                visited.visits += 1
                visited.total += rewards[visited.mover]
        return replace(self._pick(root, legal, done, time.perf_counter() - started, rng), work=work)

    @staticmethod
    def _apply(engine: Any, state: Any, move: Any, applied: dict[tuple[Any, Any], Any]) -> Any:
        """The position `move` leads to from a position of the tree, worked out once per search."""
        key = (state, move)
        after = applied.get(key)
        if after is None:
            after = applied[key] = engine.apply(state, move)[0]
        return after

    def warm(self, engine: Any, view: Any, seat: int, private: Any) -> None:
        """Search `view` once and forget the choice, before a game's clock starts (a computer seat is
        prepared so when its game is set up): the engine's own caches of the positions near the start
        are then filled, so the game's first moves cost what later ones do (a cold Flipop first move
        took twice as long). Choices never change: the caches only remember what the rules compute."""
        mover = engine.to_move(view)
        if mover is None or engine.is_over(view):
            return
        # as the seat to move sees it (a seat that moves later warms with what it would not know)
        self.choose(engine, view, mover, private if mover == seat else None, random.Random(0))

    def _playout(
        self, engine: Any, state: Any, hidden: Any, depth: int | None, players: int, rng: random.Random
    ) -> tuple[tuple[float, ...], int]:
        """Random moves from `state` to the end or `depth` plies: the rewards, and the work done."""
        knowledge = self.knowledge
        plies = work = 0
        while not engine.is_over(state) and (depth is None or plies < depth):
            mover = engine.to_move(state)
            if mover is None:
                break
            move, spent = knowledge.playout_move(engine, state, knowledge.private(engine, hidden, mover), rng)
            work += spent
            if move is None:
                break
            hidden = knowledge.after_move(engine, state, move, hidden, rng)
            state = engine.apply(state, move)[0]
            plies += 1
        return rewards_of(engine, state, knowledge, players), work

    def _pick(self, root: _Node, legal: Sequence[Any], done: int, seconds: float, rng: random.Random) -> Choice:
        tried = [(m, n) for m, n in root.children.items() if n.visits]
        tried.sort(key=lambda mn: -mn[1].visits)
        stats = tuple((m, n.visits, n.total / n.visits) for m, n in tried)
        if not tried:
            return Choice(legal[rng.randrange(len(legal))], done, seconds, stats)
        temperature = self.settings.temperature
        if temperature <= 0:
            best = max(tried, key=lambda mn: (mn[1].visits, mn[1].total / mn[1].visits))[0]
        else:
            weights = [n.visits ** (1.0 / temperature) for _, n in tried]
            best = rng.choices([m for m, _ in tried], weights=weights)[0]
        return Choice(best, done, seconds, stats)
