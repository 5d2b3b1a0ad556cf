"""Words for people in their own language: every sentence a player reads or hears comes from here.

Why this shape: the referee judges once but is read in several languages at the same moment (the
log in the table's `language:`, each phone's page in its own, the club's page in a third). So a
sentence is not translated where it is made; it is made as a `Text`: a `str` whose value is the
English sentence (what the machine formats of `notation.md`, the journal and the tests see, as
before), carrying its catalogue message and its arguments, so `said(text, "fr")` says it in French
wherever it is shown. Arguments are themselves `Text`s, numbers (written as the language writes
them: `1 234,5` in French, with narrow no-break spaces), plain strings (place names, letters) or
anything with a `said(language)` method (`Listed`, `Colour`).

The catalogues are gettext's, kept with Babel: `locale/<language>/LC_MESSAGES/referee.po` for the
Python side and `page.po` for the page's JavaScript and HTML, extracted from the sources by
`python tools/catalogue.py update` and compiled to `.mo` at install (`make setup`, the package's
build, the Pi's install); a checkout whose `.mo` is missing or older than its `.po` compiles it in
memory on first use. In the code a sentence is written `_("the {colour} tokens at {place}", ...)`,
`_n(singular, plural, n, ...)` when it depends on a count (French treats 0 and 1 as singular),
`_p(context, message)` when the same English word needs different translations; `N_` only marks
a message kept in a table, said later with `Text(message, ...)`.
"""

from __future__ import annotations

import gettext
import io
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Protocol

#: The languages the referee speaks, English first (the source language, and the default).
LANGUAGES = ("en", "fr")
DEFAULT = "en"
#: The languages' own names, as the page's switch shows them.
NAMES = {"en": "English", "fr": "Français"}
#: The Python side's catalogue, and the page's (its JavaScript and HTML).
DOMAIN = "referee"
PAGE_DOMAIN = "page"
LOCALE_DIR = Path(__file__).with_name("locale")
#: The keywords the extraction looks for (`tools/catalogue.py`), as Babel spells them.
KEYWORDS: dict[str, Any] = {"_": None, "N_": None, "_n": (1, 2), "N_n": (1, 2), "_p": ((1, "c"), 2)}

_lock = threading.Lock()


class Sayable(Protocol):
    def said(self, language: Language) -> str: ...


class Language:
    """One language's catalogue and its ways with numbers; `language(code)` gives the shared one."""

    def __init__(self, code: str, translations: gettext.NullTranslations | None = None) -> None:
        self.code = code
        self._translations = translations if translations is not None else _load(code, DOMAIN)

    def __repr__(self) -> str:
        return f"Language({self.code!r})"

    # the catalogue ------------------------------------------------------------------------------
    def message(self, msgid: str, plural: str | None = None, n: int | None = None, context: str | None = None) -> str:
        """The message's translation (its English when the catalogue lacks it)."""
        if context == _LITERAL:
            return msgid
        t = self._translations
        if plural is not None:
            count = int(n or 0)
            return t.npgettext(context, msgid, plural, count) if context else t.ngettext(msgid, plural, count)
        return t.pgettext(context, msgid) if context else t.gettext(msgid)

    def has(self, msgid: str, context: str | None = None) -> bool:
        """Whether the catalogue holds this message (colour names a profile adds may be missing)."""
        key = f"{context}\x04{msgid}" if context else msgid
        catalog = getattr(self._translations, "_catalog", None)
        return catalog is not None and (key in catalog or (key, 0) in catalog)

    # numbers ------------------------------------------------------------------------------------
    def number(self, value: int | float | Decimal, digits: int | None = None) -> str:
        """A number as this language writes it: `1,234.5` / `1 234,5` (CLDR's symbols: French groups
        with a narrow no-break space and writes a decimal comma). `digits`: decimals shown, exactly."""
        from babel.numbers import format_decimal

        if digits is None and type(value) is int:
            return _whole_number(self.code, value)
        if digits is not None:
            pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
            return format_decimal(value, format=pattern, locale=self.code)
        return format_decimal(value, locale=self.code)

    def plural_is_one(self, n: int) -> bool:
        """Whether `n` takes the singular (English: 1 only; French: 0 and 1)."""
        from babel import Locale

        return Locale.parse(self.code).plural_form(abs(n)) == "one"


@lru_cache(maxsize=4096)
def _whole_number(code: str, value: int) -> str:
    """A whole number as the language `code` writes it, remembered: rules engines name slides,
    seats and counts in their sentences while a computer player's search tries thousands of moves."""
    from babel.numbers import format_decimal

    return format_decimal(value, locale=code)


@cache
def language(code: str | None = None) -> Language:
    """The language of this code (`en`, `fr`; None or an unknown code: English)."""
    wanted = code if code in LANGUAGES else DEFAULT
    with _lock:
        return Language(wanted)


def as_language(value: str | Language | None) -> Language:
    return value if isinstance(value, Language) else language(value)


def _load(code: str, domain: str) -> gettext.NullTranslations:
    """A compiled catalogue (`.mo`), or the `.po` compiled in memory when the `.mo` is missing or older."""
    folder = LOCALE_DIR / code / "LC_MESSAGES"
    mo, po = folder / f"{domain}.mo", folder / f"{domain}.po"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as f:
            return gettext.GNUTranslations(f)
    if po.exists():
        return gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    return gettext.NullTranslations()


def compile_po(po: Path) -> bytes:
    """A `.po` file as `.mo` bytes (Babel's reader and writer; fuzzy entries left out, as msgfmt does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


@cache
def page_messages(code: str) -> dict[str, Any]:
    """The page's catalogue as JSON for its JavaScript: message -> translation (a list of forms for a
    plural, keyed by its singular), and the plural rule's name."""
    translations = _load(code if code in LANGUAGES else DEFAULT, PAGE_DOMAIN)
    catalog: dict[Any, str] = getattr(translations, "_catalog", {})
    messages: dict[str, Any] = {}
    for key, value in catalog.items():
        if key == "":
            continue
        if isinstance(key, tuple):
            forms = messages.setdefault(key[0], [])
            forms.extend([""] * (key[1] + 1 - len(forms)))
            forms[key[1]] = value
        else:
            messages[key] = value
    return {"language": code, "plural": "n>1" if code == "fr" else "n!=1", "messages": messages}


# --- sentences ----------------------------------------------------------------------------------------
class Text(str):
    """A sentence for people. Its value is the English sentence; `said(text, language)` says it in another.

    It carries the catalogue message (`msgid`, and `plural` with the count `n` for a sentence that
    depends on a number, `context` to tell apart two uses of one English word) and the arguments
    its `{name}` fields are filled with.
    """

    msgid: str
    plural: str | None
    n: int | None
    context: str | None
    args: Mapping[str, Any]

    def __new__(
        cls,
        msgid: str,
        args: Mapping[str, Any] | None = None,
        *,
        plural: str | None = None,
        n: int | None = None,
        context: str | None = None,
    ) -> Text:
        args = dict(args or {})
        english = _render(msgid, plural, n, context, args, language(DEFAULT))
        self = super().__new__(cls, english)
        self.msgid, self.plural, self.n, self.context, self.args = msgid, plural, n, context, args
        return self

    def said(self, lang: str | Language | None) -> str:
        target = as_language(lang)
        if target.code == DEFAULT and not isinstance(lang, Language):
            return str.__str__(self)
        return _render(self.msgid, self.plural, self.n, self.context, self.args, target)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (benches run games in processes) with its parts
        return (_rebuild, (self.msgid, dict(self.args), self.plural, self.n, self.context))


def _rebuild(msgid: str, args: dict, plural: str | None, n: int | None, context: str | None) -> Text:
    return Text(msgid, args, plural=plural, n=n, context=context)


def _render(
    msgid: str, plural: str | None, n: int | None, context: str | None, args: Mapping[str, Any], lang: Language
) -> str:
    template = lang.message(msgid, plural, n, context)
    if not args and "{" not in template:
        return template
    values = {key: said(value, lang) for key, value in args.items()}
    if plural is not None and "n" not in values and n is not None:
        values["n"] = said(n, lang)
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError):  # a translation naming a field the message lacks: English
        return msgid.format_map(values) if lang.code != DEFAULT else template


def said(value: Any, lang: str | Language | None = DEFAULT) -> str:
    """Anything shown to people, in `lang`: a `Text` translated, a number written as the language
    writes it, a `Sayable` asked, a plain string as it is (place names, letters), None as ""."""
    target = as_language(lang)
    if value is None:
        return ""
    if isinstance(value, Text):
        return value.said(target)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float | Decimal):
        return target.number(value)
    if hasattr(value, "said") and not isinstance(value, str):
        return value.said(target)
    return str(value)


def said_all(value: Any, lang: str | Language | None) -> Any:
    """A JSON-like value with every sentence in it (`Text`, `Colour`, `Listed`) said in `lang`; the rest as it is."""
    if isinstance(value, Text) or (hasattr(value, "said") and not isinstance(value, str)):
        return said(value, lang)
    if isinstance(value, dict):
        return {key: said_all(item, lang) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [said_all(item, lang) for item in value]
    return value


def _(msgid: str, /, **args: Any) -> Text:
    """A sentence of the catalogue, with its `{name}` fields filled from `args`."""
    return Text(msgid, args)


def _n(singular: str, plural: str, n: int, /, **args: Any) -> Text:
    """A sentence that depends on the count `n` (`{n}` in it is the count, written as the language writes numbers)."""
    return Text(singular, args, plural=plural, n=int(n))


def _p(context: str, msgid: str, /, **args: Any) -> Text:
    """A message whose English is used with several meanings: the context tells the translator which."""
    return Text(msgid, args, context=context)


def N_(msgid: str) -> str:
    """Marks a message for the catalogue where it is kept in a table; say it later with `Text(msgid, ...)`."""
    return msgid


def N_n(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message that depends on a count, kept in a table; say it with `Text(singular, plural=..., n=...)`."""
    return singular, plural


# --- pieces of sentences --------------------------------------------------------------------------------
class Listed:
    """Items listed as the language lists them: `A`, `A and B`, `A, B and C` (`A, B et C`); with no
    `conjunction`, `A, B, C`; with a space or a line break as `conjunction`, the items joined by it;
    with `separator` `;`, clauses: `A; B` (French puts a narrow no-break space before the semicolon)."""

    def __init__(self, items: Iterable[Any], conjunction: str | None = "and", separator: str = ",") -> None:
        self.items = list(items)
        self.conjunction = conjunction
        self.separator = separator

    def said(self, lang: Language) -> str:
        words = [said(item, lang) for item in self.items]
        if len(words) <= 1:
            return "".join(words)
        if self.separator == ";":
            out = words[0]
            for word in words[1:]:
                out = said(_("{first}; {then}", first=out, then=word), lang)
            return out
        if not self.conjunction:
            return ", ".join(words)
        if not self.conjunction.strip():  # a space, a line break: the items one after the other
            return self.conjunction.join(words)
        if self.conjunction == "or":
            return said(_("{items} or {last}", items=", ".join(words[:-1]), last=words[-1]), lang)
        return said(_("{items} and {last}", items=", ".join(words[:-1]), last=words[-1]), lang)

    def __str__(self) -> str:
        return self.said(language(DEFAULT))


def listed(items: Iterable[Any], conjunction: str | None = "and", separator: str = ",") -> str:
    """`Listed` as a sentence's value: the lone item itself, or a `Text` that lists them."""
    items = list(items)
    if len(items) == 1:
        return items[0] if isinstance(items[0], str) else as_text(items[0])
    if not items:
        return ""
    return Text("{items}", {"items": Listed(items, conjunction, separator)}, context=_LITERAL)


def as_text(value: Any) -> Text:
    """Any sayable value (`Colour`, `Named`, a number) as a `Text`, to stand where a `str` is expected."""
    return value if isinstance(value, Text) else Text("{item}", {"item": value}, context=_LITERAL)


def literal(text: str) -> Text:
    """Text shown as it is in every language (a notation, a name): no catalogue message."""
    return Text(str(text).replace("{", "{{").replace("}", "}}"), context=_LITERAL)


#: The context of a `Text` that is no catalogue message, only its arguments put together.
_LITERAL = "\x00literal"


#: The nouns a colour is said with, by the context its words are kept under in the catalogue: French
#: colours agree with the noun (un jeton vert, une bille verte, des billes vertes), English ones do not.
COLOUR_CONTEXTS = ("colour", "token", "tokens", "tile", "tiles", "marble", "marbles", "ball", "balls")


class Colour:
    """A colour's name (the profile's English name, `pink`) said with the noun it qualifies.

    `noun` is the piece's noun in English (`token`, `tile`, `marble`, `ball`) or None for the colour
    alone (`player 2 (red)`); `count` picks the singular or the plural as the language counts
    (French: 0 and 1 singular). A colour the catalogue does not hold (a profile's own) is said as named.
    """

    def __init__(self, name: str, noun: str | None = None, count: int = 1) -> None:
        self.name = str(name)
        self.noun = noun
        self.count = count

    def said(self, lang: Language) -> str:
        if self.noun is None:
            context = "colour"
        else:
            context = self.noun if lang.plural_is_one(self.count) else self.noun + "s"
        if not lang.has(self.name, context):
            return lang.message(self.name, context="colour") if lang.has(self.name, "colour") else self.name
        return lang.message(self.name, context=context)

    def __str__(self) -> str:
        return self.name


class Named:
    """A name the board profile gives (Blockers!' symbols: `moon`), said as the catalogue has it under
    `context` (`symbol`), or as the profile names it when the catalogue does not (a copy's own)."""

    def __init__(self, name: str, context: str) -> None:
        self.name = str(name)
        self.context = context

    def said(self, lang: Language) -> str:
        return lang.message(self.name, context=self.context) if lang.has(self.name, self.context) else self.name

    def __str__(self) -> str:
        return self.name


# --- choosing a language ----------------------------------------------------------------------------------
_ACCEPT = re.compile(r"\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*")


def negotiate(accept_language: str | None, default: str = DEFAULT) -> str:
    """The language to answer a browser in, from its `Accept-Language` (`fr-CH, fr;q=0.9, en;q=0.8`):
    the first it prefers that the referee speaks, else `default`."""
    if not accept_language:
        return default
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")[:32]):
        match = _ACCEPT.fullmatch(part)
        if match is None:
            continue
        try:
            quality = float(match.group(2)) if match.group(2) else 1.0
        except ValueError:
            continue
        if quality > 0:
            ranked.append((-quality, position, match.group(1).lower()))
    for _quality, _position, tag in sorted(ranked):
        if tag == "*":
            return default
        primary = tag.split("-")[0]
        if primary in LANGUAGES:
            return primary
    return default


def choose(value: Any) -> str | None:
    """A language code given by a person (`fr`, `French`, `fr_FR`, `Français`), or None when it is none of ours."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower().replace("_", "-")
    for code, name in NAMES.items():
        if text in (code, name.lower()) or text.split("-")[0] == code:
            return code
    return {"english": "en", "french": "fr", "francais": "fr"}.get(text)


def sayer(lang: str | Language | None) -> Callable[[Any], str]:
    """A function that says anything in `lang` (for code that shows many sentences)."""
    target = as_language(lang)
    return lambda value: said(value, target)


# --- sentences sent to another program ------------------------------------------------------------------------
#: How deep and how big a sentence read from another program (`from_json`) may be.
MAX_DEPTH, MAX_PARTS = 8, 400
_PLAIN_TEMPLATE = re.compile(r"(?:[^{}]|\{\{|\}\}|\{\w+\})*")


def to_json(value: Any) -> Any:
    """A sentence as JSON another program (the club, from a table's MQTT messages) can say in any
    language with `from_json`: a `Text` as its catalogue message and arguments (`{"m": msgid, "a":
    {...}}`, with `"p"` and `"n"` for a plural, `"c"` for a context), its arguments likewise (a
    colour, a profile's name, a list); a plain string or number as itself."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Text):
        out: dict[str, Any] = {"m": value.msgid, "a": {k: to_json(v) for k, v in value.args.items()}}
        if value.plural is not None:
            out["p"], out["n"] = value.plural, value.n
        if value.context is not None:
            out["c"] = value.context
        return out
    if isinstance(value, str | int | float):
        return value if not isinstance(value, float) or value == value else None
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Colour):
        return {"colour": value.name, "noun": value.noun, "count": value.count}
    if isinstance(value, Named):
        return {"named": value.name, "context": value.context}
    if isinstance(value, Listed):
        return {
            "listed": [to_json(item) for item in value.items],
            "conjunction": value.conjunction,
            "separator": value.separator,
        }
    return str(value)


def from_json(data: Any, fallback: Any = None) -> Any:
    """A sentence `to_json` wrote, sayable in every language again; `fallback` (the English another
    program sent beside it, or None) when `data` is not one: missing, malformed, too deep or too big,
    or naming a message this catalogue does not hold (a newer program's), so that nothing it sends is
    ever used as a template of ours."""
    parts = [0]

    def read(item: Any, depth: int) -> Any:
        parts[0] += 1
        if depth > MAX_DEPTH or parts[0] > MAX_PARTS:
            raise ValueError("too deep or too big")
        if item is None or isinstance(item, bool | int | float | str):
            return item
        if isinstance(item, list | tuple):
            raise ValueError("a list where a sentence's part was expected")
        if not isinstance(item, dict):
            raise ValueError("not a sentence")
        if "m" in item:
            msgid, context, plural = item["m"], item.get("c"), item.get("p")
            args = item.get("a") or {}
            if not isinstance(msgid, str) or not isinstance(args, dict):
                raise ValueError("not a sentence")
            if context is not None and not isinstance(context, str):
                raise ValueError("not a context")
            if plural is not None and (not isinstance(plural, str) or not isinstance(item.get("n"), int)):
                raise ValueError("not a plural")
            if context == _LITERAL:  # no catalogue message: its fields only, no format of its own
                if plural is not None or not _PLAIN_TEMPLATE.fullmatch(msgid):
                    raise ValueError("not a plain template")
            elif not language(DEFAULT).has(msgid, context):
                raise ValueError("not a message of this catalogue")
            if not all(isinstance(k, str) and k.isidentifier() for k in args):
                raise ValueError("not an argument's name")
            values = {k: read(v, depth + 1) for k, v in args.items()}
            return Text(msgid, values, plural=plural, n=item.get("n") if plural is not None else None, context=context)
        if "colour" in item:
            name, noun, count = item["colour"], item.get("noun"), item.get("count", 1)
            if not isinstance(name, str) or not (noun is None or isinstance(noun, str)) or not isinstance(count, int):
                raise ValueError("not a colour")
            return Colour(name, noun, count)
        if "named" in item:
            if not isinstance(item["named"], str) or not isinstance(item.get("context"), str):
                raise ValueError("not a name")
            return Named(item["named"], item["context"])
        if "listed" in item:
            items, conjunction, separator = item["listed"], item.get("conjunction"), item.get("separator", ",")
            if not isinstance(items, list) or not (conjunction is None or isinstance(conjunction, str)):
                raise ValueError("not a list")
            if separator not in (",", ";"):
                raise ValueError("not a separator")
            return Listed([read(i, depth + 1) for i in items], conjunction, separator)
        raise ValueError("not a sentence")

    try:
        value = read(data, 0)
        for lang in LANGUAGES:  # said once in each language here, so a bad one fails now, not on a page
            said(value, lang)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return fallback
    return fallback if value is None else value
