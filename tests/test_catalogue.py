"""Every sentence for people comes from the catalogues, and both languages have all of it.

Two kinds of check. The catalogue's own: every message the sources say (`_()` in Python, the page's
JavaScript and HTML, the profiles' colours and symbols) is in the English and the French `.po`,
translated, keeping its `{fields}`, with French typography. And a leak test: real output (every
example record judged, its verdicts, events, corrections and result) is said through a marking
language that brackets every piece of text that came from the catalogue; whatever is left outside
the brackets must be data (places, numbers, letters), never English words: a sentence built with an
f-string, or a word a game wrote as plain text, shows up there.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from controller import corrections, words
from controller.games.registry import engine_for
from controller.language import _LITERAL, Language, _, _n, language, said
from controller.language import catalogue as cat
from controller.record import load_record
from controller.referee import Referee, VerdictKind
from controller.snapshot import Snapshot

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml"))


@pytest.mark.slow
def test_every_message_of_the_sources_is_in_both_catalogues_and_translated():
    found = cat.problems()
    assert not found, "the catalogues are not complete (python tools/catalogue.py check):\n" + "\n".join(found[:60])


def test_french_puts_no_break_spaces_before_high_punctuation():
    """`; : ! ?` take a (narrow) no-break space before them in French: never a plain one, where a line could break."""
    bad = []
    for domain in (cat.DOMAIN, cat.PAGE_DOMAIN):
        for m in cat.read("fr", domain):
            strings = m.string if isinstance(m.string, tuple | list) else (m.string,)
            bad.extend(s for s in strings if s and re.search(r" [;:!?»]|« ", s))
    assert not bad, bad[:10]


def test_french_counts_zero_and_one_as_singular():
    tokens = [_n("{n} token left", "{n} tokens left", n) for n in (0, 1, 2)]
    assert [said(t, "en") for t in tokens] == ["0 tokens left", "1 token left", "2 tokens left"]
    # a message the French catalogue has: the French plural rule (n > 1) picks its form, not English's
    singular, plural = (
        "failure: {n} target token left and no group to remove",
        "failure: {n} target tokens left and no group to remove",
    )
    said_fr = [said(_n(singular, plural, n), "fr") for n in (0, 1, 2)]
    assert said_fr[0].endswith("il reste 0 jeton à éliminer et plus aucun groupe à retirer")
    assert said_fr[1].endswith("il reste 1 jeton à éliminer et plus aucun groupe à retirer")
    assert said_fr[2].endswith("il reste 2 jetons à éliminer et plus aucun groupe à retirer")


def test_numbers_are_written_as_each_language_writes_them():
    assert said(1234.5, "en") == "1,234.5"
    assert said(1234.5, "fr") == "1\u202f234,5"  # a narrow no-break space groups, a comma marks the decimals
    assert language("fr").number(0.3, digits=1) == "0,3"
    assert said(_("game over: {reason}", reason=12345), "fr").endswith("12\u202f345")


def test_colours_agree_with_the_pieces_they_are_said_of():
    colorpop = engine_for(load_record(EXAMPLES_BY_GAME["colorpop"]).setup)
    assert said(colorpop.colour("P", 1), "fr") == "rose" and said(colorpop.colour("G", 3), "fr") == "verts"
    assert said(colorpop.colour("G", 0), "fr") == "vert"  # French: 0 is singular
    stay = engine_for(load_record(EXAMPLES_BY_GAME["stay-alive"]).setup)
    assert said(stay.colour("G", 1), "fr") == "verte" and said(stay.colour("G", 2), "fr") == "vertes"
    assert said(stay.seat_name(0), "fr").startswith("Joueur 1 (")


EXAMPLES_BY_GAME = {}
for _path in EXAMPLES:
    EXAMPLES_BY_GAME.setdefault(load_record(_path).setup.game, _path)


# --- the leak test ------------------------------------------------------------------------------------
OPEN, CLOSE = "\u27e6", "\u27e7"


class Marked(Language):
    """French, with every literal piece of every catalogue message bracketed (its fields left open)."""

    def __init__(self) -> None:
        super().__init__("fr")
        self._translations = language("fr")._translations
        self.code = "fr"

    def message(self, msgid, plural=None, n=None, context=None):
        text = super().message(msgid, plural, n, context)
        if context == _LITERAL:
            return text
        out = []
        for literal, field, spec, conversion in string.Formatter().parse(text):
            if literal:
                out.append(OPEN + literal.replace("{", "{{").replace("}", "}}") + CLOSE)
            if field is not None:
                out.append("{" + field + ("!" + conversion if conversion else "") + (":" + spec if spec else "") + "}")
        return "".join(out)


def leaked(text: str) -> list[str]:
    """The words left outside the catalogue's brackets (data such as `E3`, `4,5`, `A->B` is not a word)."""
    outside = re.sub(f"{OPEN}[^{CLOSE}]*{CLOSE}", " ", text)
    return re.findall(r"[A-Za-z]{3,}", outside)


def all_sentences(path: Path) -> list:
    """What people read of one judged record: verdict lines, events, corrections, rules, the result."""
    record = load_record(path)
    engine = engine_for(record.setup)
    referee = Referee(engine)
    out: list = []
    boards = [record.board, *record.observations]
    legal: Snapshot | None = None
    for index, entry in enumerate(boards):
        if isinstance(entry, Snapshot):
            verdict = referee.observe(entry, index)
        elif entry.board is not None:
            verdict = referee.accept(entry.board, index)
        else:
            verdict = referee.act(entry.name, index)
        out.append(words.verdict_line(verdict, engine, referee.to_move()))
        if verdict.rule is not None:
            out.append(verdict.rule.line())
        if verdict.verdict == VerdictKind.ILLEGAL and legal is not None and isinstance(entry, Snapshot):
            out.extend(step.text for step in corrections.plan(engine, legal, entry))
        if verdict.verdict in (VerdictKind.SETUP_OK, VerdictKind.LEGAL, VerdictKind.RESTORED):
            legal = referee.expected()
    out.append(words.result_line(referee.record_result()))
    out.extend(engine.seat_name(s) for s in range(record.setup.players))
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_sentence_of_a_judged_game_comes_from_the_catalogue(path):
    marked = Marked()
    problems = []
    for sentence in all_sentences(path):
        text = said(sentence, marked)
        if leaked(text):
            problems.append(f"{leaked(text)} in {text!r} (English: {sentence!r})")
    assert not problems, "\n".join(problems[:20])


def test_the_leak_test_sees_a_sentence_written_outside_the_catalogue():
    assert leaked(said(_("game over: {reason}", reason="player 2 won"), Marked()))
    assert not leaked(said(_("game over: {reason}", reason=_("no winner yet")), Marked()))


def test_every_text_of_the_pages_html_is_marked_for_the_catalogue():
    """Text written in the page's HTML is said by the page's scripts in the reader's language only when
    marked (`data-i18n` on its element, `data-i18n-attrs` for an attribute people read)."""
    from html.parser import HTMLParser

    class Unmarked(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.stack: list[bool] = []
            self.found: list[str] = []

        def handle_starttag(self, tag, attrs):
            values = dict(attrs)
            for name in ("title", "alt", "placeholder", "aria-label"):
                if values.get(name) and name not in (values.get("data-i18n-attrs") or "").split():
                    self.found.append(f"<{tag} {name}={values[name]!r}>")
            if tag not in ("input", "img", "meta", "link", "br"):
                self.stack.append("data-i18n" in values or tag in ("script", "style"))

        def handle_endtag(self, tag):
            if self.stack:
                self.stack.pop()

        def handle_data(self, data):
            if re.search(r"[A-Za-z]{2,}", data) and not (self.stack and self.stack[-1]):
                self.found.append(data.strip())

    page = Path(cat.ROOT / cat.PAGE_FOLDER / "index.html").read_text("utf-8")
    parser = Unmarked()
    parser.feed(page)
    assert not parser.found, parser.found
