"""Colorpop's ceiling against a random player (issue 29): why the strong level loses the games it loses.

    python bench/colorpop_levels.py paired --a strong --b random --deals 100 --results out/ceiling.jsonl
    python bench/colorpop_levels.py paired --a strong --b random --deals 100 --oracle --results out/ceiling.jsonl
    python bench/colorpop_ceiling.py out/ceiling.jsonl paired/strong/random/sampled paired/strong/random/oracle

Reads the games `bench/colorpop_levels.py paired` wrote (each with its deal's layout of the secret
colours and every move) and, per tag (player A against player B, here the random player), replays
A's lost games: how each ended (B's colour gone first, and who removed it; or the count at the end),
whether A's removals of B's colour were forced (every legal move was of B's colour) or chosen, and
what A believed of B's colour when it chose them (the weight its sampling gives the true colour,
`ColorpopKnowledge.sample`). Then the deal's luck: A's score against how the deal laid out B's colour
(its lone tokens: a lone token leaves only with a group that others bring to it) and A's. With a
second tag on the same deals, the two A players are compared deal by deal (the t interval of the
per-deal differences: each deal's luck cancels).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai_bench import wilson  # noqa: E402
from bench.colorpop_levels import deal_start, pair_scores, t_interval  # noqa: E402
from controller.games.colorpop import ai as colorpop_ai  # noqa: E402

Game = dict[str, Any]


def load(path: Path) -> dict[str, dict[tuple[int, int], Game]]:
    """Per tag, its games keyed by (deal, A's seat); a later line for the same game wins."""
    out: dict[str, dict[tuple[int, int], Game]] = defaultdict(dict)
    for text in path.read_text().splitlines():
        row = json.loads(text)
        if "tag" in row:
            out[row["tag"]][(row["deal"], row["a_seat"])] = row
    return out


def replay(game: Game) -> Iterator[tuple[Any, Any, int, Any]]:
    """(engine, state before the move, seat, move) for every move of a recorded game, from its deal."""
    engine, state, hidden = deal_start(game["deal"])
    if ["".join(h) for h in hidden] != game["secret"]:
        raise ValueError(f"deal {game['deal']} does not deal the recorded secret colours")
    for seat, _colour, cells in game["line"]:
        move = next(m for m in engine.legal_moves(state) if sorted(r * 100 + c for r, c in m.cells) == cells)
        yield engine, state, seat, move
        state = engine.apply(state, move)[0]


def belief(engine: Any, state: Any, seat: int, truth: str) -> float:
    """The chance `seat`'s sampling gives the other seat's true colour `truth` in a two-seat game: its
    weights e^(INFERENCE x tokens the other removed) over the colours not its own (`sample`; its
    rejection of already-cleared colours counted as a zero weight)."""
    own = set(state.secrets[seat])
    other = 1 - seat
    cleared = {ch for ch, _, _ in state.cleared}
    removed = dict(state.removed[other])
    weights = {
        ch: 0.0 if ch in cleared else math.exp(colorpop_ai.INFERENCE * removed.get(ch, 0))
        for ch in engine.colours
        if ch not in own
    }
    total = sum(weights.values())
    return weights.get(truth, 0.0) / total if total else 0.0


def explain_game(game: Game) -> dict[str, Any]:
    """How A's game went with B's colour: A's removals of it (forced or chosen, and A's belief in it
    then), who removed its last token, and how the game ended."""
    a = game["a_seat"]
    b = 1 - a
    b_colours = set(game["secret"][b])
    forced = chosen = 0
    beliefs: list[float] = []
    last_by = None
    for engine, state, seat, move in replay(game):
        if move.colour not in b_colours:
            continue
        last_by = seat
        if seat != a:
            continue
        if all(m.colour in b_colours for m in engine.legal_moves(state)):
            forced += 1
        else:
            chosen += 1
            beliefs.append(belief(engine, state, a, move.colour))
    left = game["left"]
    if left[b] == 0:
        ended = "B's colour gone"
    elif left[a] == 0:
        ended = "A's colour gone"
    else:
        ended = "count at the end"
    return {
        "ended": ended,
        "a_took_b": game["took"][a][b],
        "forced": forced,
        "chosen": chosen,
        "beliefs": beliefs,
        "last_by_a": last_by == a,
        "left": (left[a], left[b]),
    }


def report(tag: str, games: dict[tuple[int, int], Game]) -> None:
    rows = [games[k] for k in sorted(games)]
    n = len(rows)
    score = sum(g["score"] for g in rows)
    low, high = wilson(score, n)
    pairs = list(pair_scores(games).values())
    mean, p_low, p_high = t_interval(pairs)
    thought = sum(g["think"][g["a_seat"]] for g in rows) / sum(g["moves"][g["a_seat"]] for g in rows)
    longest = max(g["think_max"][g["a_seat"]] for g in rows)
    print(
        f"{tag}: {n} games, A scores {score / n:.1%} (Wilson {low:.1%}-{high:.1%}); {len(pairs)} paired deals "
        f"{mean:.1%} (t {p_low:.1%}-{p_high:.1%}); A thinks {thought:.3f} processor s/move, longest {longest:.3f} s"
    )
    lost = [g for g in rows if g["score"] < 1]
    explained = [(g, explain_game(g)) for g in lost]
    ends = Counter(e["ended"] for _, e in explained)
    shared = sum(g["score"] > 0 for g in lost)
    print(f"  not won: {len(lost)} ({len(lost) - shared} lost, {shared} shared): {dict(ends)}")
    won = [g for g in rows if g["score"] == 1]
    print(
        f"  A's wins: {sum(g['left'][g['a_seat']] == 0 for g in won)} its colour gone first, the rest on the count; "
        f"A removed {_mean_took(rows, won=True):.1f} of B's 19 tokens on average in them"
    )
    for kind in ("B's colour gone", "count at the end"):
        picked = [(g, e) for g, e in explained if e["ended"] == kind]
        if not picked:
            continue
        beliefs = [x for _, e in picked for x in e["beliefs"]]
        print(
            f"  {kind} ({len(picked)}): A had removed {statistics.fmean(e['a_took_b'] for _, e in picked):.1f} of B's "
            f"19 tokens on average, in {sum(e['chosen'] for _, e in picked)} moves it chose and "
            f"{sum(e['forced'] for _, e in picked)} it was forced to; A's belief in B's true colour when it chose "
            f"them: {statistics.fmean(beliefs) if beliefs else float('nan'):.2f} (uniform 0.25)"
            + (
                f"; A removed B's last token in {sum(e['last_by_a'] for _, e in picked)}"
                if kind != "count at the end"
                else ""
            )
        )
        print(
            "    deal/A's seat: tokens left A-B, A took of B's colour (chosen/forced moves; A's belief at each "
            "chosen): " + "; ".join(_detail(g, e) for g, e in picked)
        )
    luck(rows)


def _detail(game: Game, explained: dict[str, Any]) -> str:
    beliefs = ",".join(f"{x:.2f}" for x in explained["beliefs"])
    return (
        f"{game['deal']}/{game['a_seat']}: {explained['left'][0]}-{explained['left'][1]}, {explained['a_took_b']} "
        f"({explained['chosen']}/{explained['forced']}{'; ' + beliefs if beliefs else ''})"
    )


def _mean(values: list[float]) -> float:
    """The mean, or nan where there is nothing to average (A won every game, or none)."""
    return statistics.fmean(values) if values else float("nan")


def _mean_took(rows: list[Game], won: bool) -> float:
    return _mean([g["took"][g["a_seat"]][1 - g["a_seat"]] for g in rows if (g["score"] == 1) == won])


def luck(rows: list[Game]) -> None:
    """A's score by how the deal laid out B's colour and A's own (lone tokens of each)."""
    for whose, side in (("B's", 1), ("A's", 0)):

        def lone(g: Game, side: int = side) -> int:
            return g["shape"][g["a_seat"] if side == 0 else 1 - g["a_seat"]]["lone"]

        buckets: dict[str, list[float]] = defaultdict(list)
        for g in rows:
            buckets[_bucket(lone(g))].append(g["score"])
        text = ", ".join(
            f"{key}: {statistics.fmean(v):.0%} of {len(v)}" for key, v in sorted(buckets.items(), key=lambda kv: kv[0])
        )
        won = _mean([lone(g) for g in rows if g["score"] == 1])
        rest = _mean([lone(g) for g in rows if g["score"] < 1])
        print(
            f"  {whose} colour's lone tokens at the deal: mean {won:.1f} in A's wins, "
            f"{rest:.1f} in the rest; A's score by them: {text}"
        )


def _bucket(lone: int) -> str:
    return "<=5" if lone <= 5 else "6-8" if lone <= 8 else ">=9"


def compare(tag_a: str, games_a: dict[tuple[int, int], Game], tag_b: str, games_b: dict[tuple[int, int], Game]) -> None:
    """The two tags' A players on the deals both played in both seats: per-deal difference of scores."""
    first, second = pair_scores(games_a), pair_scores(games_b)
    deals = sorted(set(first) & set(second))
    if len(deals) < 2:
        print(f"{tag_b} - {tag_a}: fewer than 2 common deals")
        return
    diffs = [second[d] - first[d] for d in deals]
    mean, low, high = t_interval(diffs)
    both_lost = sum(1 for d in deals for s in (0, 1) if games_a[(d, s)]["score"] < 1 and games_b[(d, s)]["score"] < 1)
    print(
        f"{tag_b} - {tag_a} on {len(deals)} common deals: {statistics.fmean(first[d] for d in deals):.1%} -> "
        f"{statistics.fmean(second[d] for d in deals):.1%}, difference {mean:+.1%} (t {low:+.1%} to {high:+.1%}); "
        f"deals better {sum(x > 0 for x in diffs)}, worse {sum(x < 0 for x in diffs)}, equal "
        f"{sum(x == 0 for x in diffs)}; games not won by either {both_lost}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="a jsonl written by bench/colorpop_levels.py paired")
    parser.add_argument("tags", nargs="+", help="tags to report; each after the first is compared with the first")
    args = parser.parse_args()
    games = load(Path(args.results))
    for tag in args.tags:
        if not games.get(tag):
            raise SystemExit(f"no games tagged {tag!r} in {args.results} (tags: {', '.join(sorted(games))})")
        report(tag, games[tag])
    for tag in args.tags[1:]:
        compare(args.tags[0], games[args.tags[0]], tag, games[tag])
    return 0


if __name__ == "__main__":
    sys.exit(main())
