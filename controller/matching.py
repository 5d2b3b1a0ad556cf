"""Assignment and matching, done by SciPy (one home for both, for the corrections, the rules and vision).

Why SciPy and not our own: the least-cost assignment (`scipy.optimize.linear_sum_assignment`) and
the maximum bipartite matching (`scipy.sparse.csgraph.maximum_bipartite_matching`, Hopcroft-Karp)
are well kept there, tested on far more than our boards, and SciPy has wheels for the Pi (and is
one of Raspberry Pi OS's own packages). What is ours is only how our questions are put to them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

_NONE = object()


def min_cost_assignment(cost: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Rows paired with distinct columns at the least total cost, (row, column) pairs in row order.

    Any rectangular matrix: the shorter side is fully paired. Among pairings of the same least
    cost, which one is SciPy's choice.
    """
    if not cost or not cost[0]:
        return []
    rows, cols = linear_sum_assignment(np.asarray(cost, dtype=np.float64))
    return sorted(zip(rows.tolist(), cols.tolist()))


def everyone_matched(options: Sequence[Iterable[Hashable]]) -> bool:
    """Whether each item can be given one of its `options`, no option given to two items (a
    bipartite matching that covers every item). A first pass hands out the first free option of
    each in turn, which settles most of our small questions in microseconds; when it leaves one
    without, SciPy's maximum matching (a few hundred microseconds to set up) decides."""
    taken: set[Hashable] = set()
    for choices in options:  # most questions are settled by handing out the first free option
        free = next((choice for choice in choices if choice not in taken), _NONE)
        if free is _NONE:
            break
        taken.add(free)
    else:
        return True
    column: dict[Hashable, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, choices in enumerate(options):
        for choice in choices:
            rows.append(i)
            cols.append(column.setdefault(choice, len(column)))
    if len(column) < len(options):  # fewer options in all than items: someone goes without
        return False
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(len(options), len(column)))
    matched = maximum_bipartite_matching(graph, perm_type="column")
    return bool((matched >= 0).all())
