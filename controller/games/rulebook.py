"""The rules a move can break, each with an identifier and where the rule book says it.

Why: "illegal" is not enough for players who doubt the referee. Each illegal verdict carries the
`Rule` it breaks (typed, never a sentence to parse): its identifier (`colorpop.whole-group`, in the
verdict's JSON as `rule`), the rule in one short sentence in the players' language (`says`, a
catalogue message), the section of `docs/rules.md` that states it, and the French rule book's own
sentence (`book`, quoted as printed: it is the publisher's text, so it is never translated). The
page shows the short line and opens the rest on request; the log says the rule after the reason.

Each game declares its rules beside its engine and lists them in its `GameSpec.rules`; `registry.find_rule`
looks one up by its identifier (a verdict read back from a journal or a record).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.language import Text, _


@dataclass(frozen=True)
class Rule:
    """One rule of a game's rule book."""

    #: `game.name`: stable, in the verdict JSON (`notation.md` §3) and the tests.
    id: str
    #: The rule in a short sentence, English (a catalogue message, marked with `N_`).
    says: str
    #: Where `docs/rules.md` states it: "§1 A move" (a catalogue message too: the heading is translated).
    section: str
    #: The French rule book's own sentence, as printed ("" when the book is silent and rules.md decides).
    book: str = ""

    @property
    def game(self) -> str:
        return self.id.partition(".")[0]

    def text(self) -> Text:
        """The rule in a sentence, in any language (`said`)."""
        return Text(self.says)

    def line(self) -> Text:
        """The short line a verdict adds: "rule: a lone token can never be removed (rules §1 A move)"."""
        return _("rule: {rule} (rules {section})", rule=self.text(), section=Text(self.section))

    def to_json(self, say: Any = str) -> dict[str, Any]:
        """What the page shows and opens: `id`, `says` and `section` (in the page's language), `book`."""
        return {"id": self.id, "says": say(self.text()), "section": say(Text(self.section)), "book": self.book}
