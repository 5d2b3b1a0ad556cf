"""Each illegal verdict names the rule it breaks, where `docs/rules.md` states it and what the French book says.

The rules are typed values of the engines (`controller.games.rulebook.Rule`); these tests keep them
honest: every identifier is its game's and listed in rules.md §7, every section names a heading of
that game's part of rules.md, every quotation of a rule book is the book's own text (checked against
the French rule books when they are at hand), and every illegal verdict of the example records and
of a few hand-made boards carries a rule, which the page and the log can say in both languages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.games import registry
from controller.games.registry import engine_for
from controller.games.registry import find_rule as find
from controller.language import said
from controller.record import load_record
from controller.referee import VerdictKind, judge_record
from controller.words import stored_verdict_line

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = (ROOT / "docs" / "rules.md").read_text("utf-8")
#: The French rule books (seeds of the spec), beside the repository when the checkout has them.
SEEDS = ROOT.parent / "shared" / "seeds"
BOOK_FILES = {"colorpop": "000_", "blockers": "002_", "flipop": "003_", "stay-alive": "004_"}
ALL_RULES = [rule for game in registry.names() for rule in registry.get(game).rules]


def _squeezed(text: str) -> str:
    """Text compared without its spacing and typographic variants (a quotation keeps the words)."""
    text = text.replace("\u2019", "'").replace("\u00a0", " ").replace("\u202f", " ")
    return re.sub(r"\s+", "", text)


def _part_of(game: str) -> str:
    """rules.md's part about `game` (its § section)."""
    number = {"colorpop": 1, "blockers": 2, "flipop": 3, "stay-alive": 4}[game]
    start = RULES_MD.index(f"## {number}.")
    end = RULES_MD.index(f"## {number + 1}.", start)
    return RULES_MD[start:end]


def test_every_game_names_its_rules():
    for game in registry.names():
        rules = registry.get(game).rules
        assert rules, f"{game} declares no rules"
        assert len({r.id for r in rules}) == len(rules), f"{game} has two rules of one identifier"
        for rule in rules:
            assert rule.game == game and find(rule.id) is rule


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_a_rules_section_is_a_heading_of_its_game_in_rules_md_and_listed_in_section_7(rule):
    number, _, heading = rule.section.partition(" ")
    part = _part_of(rule.game)
    assert part.startswith(f"## {number[1:]}."), f"{rule.id}: {rule.section} is not {rule.game}'s section"
    assert f"**{heading}.**" in part or f"**{heading}**" in part, f"{rule.id}: no heading {heading!r} in rules.md"
    seventh = RULES_MD[RULES_MD.index("## 7.") :]
    assert f"`{rule.id}`" in seventh, f"{rule.id} is not listed in rules.md §7"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the French rule books (../shared/seeds) are not beside this checkout")
@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.book], ids=lambda r: r.id)
def test_a_rule_books_sentence_is_quoted_as_the_book_prints_it(rule):
    book = next(SEEDS.glob(BOOK_FILES[rule.game] + "*.txt")).read_text("utf-8")
    for piece in rule.book.split("[...]"):
        assert _squeezed(piece.strip()) in _squeezed(book), f"{rule.id}: not in the rule book: {piece!r}"


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_illegal_verdict_of_a_game_names_its_rule_in_both_languages(path):
    record = load_record(path)
    engine = engine_for(record.setup)
    for line in judge_record(record):
        if line.get("verdict") not in (VerdictKind.ILLEGAL.value, VerdictKind.SETUP_INVALID.value):
            continue
        if line.get("doubtful"):
            assert "rule" not in line  # the reading is blamed, not a rule broken
            continue
        rule = find(line.get("rule"))
        assert rule is not None, f"{path.name}: verdict {line['index']} names no rule"
        english = said(rule.line(), "en")
        french = said(rule.line(), "fr")
        assert english.startswith("rule: ") and french.startswith("règle\u00a0: ") and english != french
        # the stored verdict (read back from its JSON) knows its rule again
        assert stored_verdict_line(line, engine, record.setup.first)


def test_rule_identifiers_are_found_again_and_unknown_ones_are_none():
    assert find("colorpop.no-lone-token") is not None
    assert find("colorpop.no-such-rule") is None and find(None) is None and find(3) is None
