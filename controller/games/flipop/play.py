"""How players leave Flipop's doors: what the simulated rig and the benches need besides the rules
(`PlaySpec.played_lines`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from controller.games.flipop.doors import POSTS, parse_doors_line, rotations, shared_edges


def start_doors(profile: Any) -> tuple[str, ...] | None:
    """The doors of the profile's start position (its `doors:` line), or None when it has none."""
    for line in str(profile.get("start") or "").splitlines():
        key, _, rest = line.partition(":")
        if key.strip().lower() == "doors":
            return parse_doors_line(rest, profile.rows, profile.cols, "start")
    return None


def random_doors(profile: Any, seed: int) -> tuple[str, ...]:
    """Doors as play could leave them: each door of the profile's start turned a random number of
    quarter turns, never two wings on one edge."""
    start = start_doors(profile)
    if start is None:
        raise ValueError("random doors need a profile whose start has a doors line")
    rng = np.random.default_rng(seed)
    doors = list(start)
    for k in range(len(POSTS)):
        options = sorted(rotations(start[k]))
        for _ in range(20):
            doors[k] = str(rng.choice(options))
            if not shared_edges(tuple(doors[: k + 1])):
                break
        else:
            doors[k] = start[k] if not shared_edges(tuple(doors[:k]) + (start[k],)) else doors[k]
    if shared_edges(tuple(doors)):
        return start
    return tuple(doors)


def played_lines(profile: Any, seed: int) -> dict[str, tuple[str, ...]]:
    """`PlaySpec.played_lines`: the doors as play could leave them (none without a start's doors)."""
    return {"doors": random_doors(profile, seed)} if start_doors(profile) is not None else {}
