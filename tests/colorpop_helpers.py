"""Shared by the Colorpop tests: engines for each variant, boards from text or shuffled sets, and
a lone token taken off a stand-in rig's board (the web tests' illegal move)."""

from __future__ import annotations

import random

from controller.games.base import GameSetup
from controller.games.colorpop.rules import ColorpopEngine
from controller.profile import default_profile
from controller.snapshot import Snapshot, parse_snapshot


def engine(
    variant: str = "standard",
    players: int = 2,
    secrets=None,
    targets=None,
    first: int = 0,
    settings: dict | None = None,
    tokens: dict | None = None,
) -> ColorpopEngine:
    profile = default_profile("colorpop")
    overrides: dict = {}
    if settings:
        overrides["settings"] = settings
    if tokens is not None:
        overrides["tokens"] = tokens
    if overrides:
        profile = profile.with_overrides(overrides)
    setup = GameSetup(
        game="colorpop",
        profile=profile,
        variant=variant,
        players=players,
        first=first,
        secrets=None if secrets is None else tuple(None if s is None else tuple(s) for s in secrets),
        targets=None if targets is None else tuple(targets),
    )
    return ColorpopEngine(setup)


def board(text: str) -> Snapshot:
    return parse_snapshot("colorpop", text)


def random_board(rng: random.Random, jokers: int = 5) -> Snapshot:
    """A shuffled full set (19 of each colour and `jokers` jokers, padded to 100 with colours),
    valid setup or not: the Colorpop properties also hold on boards no valid setup starts from."""
    tokens = [ch for ch in "GYOBP" for _ in range(19)] + ["J"] * jokers
    while len(tokens) < 100:
        tokens.append(rng.choice("GYOBP"))
    rng.shuffle(tokens)
    cells = tuple(tuple(tokens[r * 10 : (r + 1) * 10]) for r in range(10))
    return Snapshot("colorpop", cells)


def take_a_lone_token_off(rig) -> int:
    """On a stand-in rig playing Colorpop: the board shown with one bottom-row token taken off on
    its own (illegal: a lone token is never a group), no hand over it, and 60 frames run (2 s: past
    the referee's patience time).
    Returns the token's column (its row is the bottom one, 9)."""
    legal = rig.loop.session.referee.expected()
    cells = [list(r) for r in legal.cells]
    col = next(c for c in range(10) if cells[9][c] != ".")
    cells[9][col] = "."
    rig.world.set_hand(None)
    rig.world.set_board(legal.with_cells(cells))
    rig.driver.run_frames(60)  # past the referee's patience time
    return col
