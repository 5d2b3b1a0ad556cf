"""Keeping the catalogues: what the sources say (extraction), the `.po` files brought up to date, and `.mo` compiled.

Used by `tools/catalogue.py` (by hand: `update`, `compile`, `check`), by the package's build and
`make setup` (compile), and by the suite (`tests/test_catalogue.py`: every message of the sources is
in both languages' catalogues, translated). Babel does the extraction (Python and the page's
JavaScript), the `.po` reading and writing and the `.mo` compiling; the page's HTML is extracted
here (`extract_html`: the text of elements marked `data-i18n`, and the attributes `data-i18n-attrs`
names), and the colours of the games' default profiles are added, one entry per noun they qualify.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from controller.games import registry
from controller.language import COLOUR_CONTEXTS, DOMAIN, KEYWORDS, LANGUAGES, LOCALE_DIR, PAGE_DOMAIN, compile_po
from controller.profile import default_profile

ROOT = Path(__file__).resolve().parent.parent.parent
#: Where the Python side's sentences are written (every `_()` there is extracted).
PYTHON_FOLDERS = ("controller", "calibration", "firmware_bridge", "simulation")
PAGE_FOLDER = Path("controller") / "web" / "static"
#: The plural rule each language's catalogue declares (French: 0 and 1 are singular).
PLURAL_FORMS = {"en": "nplurals=2; plural=(n != 1);", "fr": "nplurals=2; plural=(n > 1);"}
#: French typography: no-break spaces before the high punctuation (a narrow one before ; ! ? and a
#: full one before :), as a French reader expects (and no line may break there).
NARROW_NBSP = "\u202f"
NBSP = "\u00a0"


@dataclass(frozen=True)
class Message:
    msgid: str | tuple[str, str]
    context: str | None
    locations: tuple[tuple[str, int], ...]
    comments: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.msgid if isinstance(self.msgid, str) else self.msgid[0], self.context)


# --- extraction -------------------------------------------------------------------------------------
class _Marked(HTMLParser):
    """The texts of elements with `data-i18n` and the attributes named by `data-i18n-attrs`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[str, bool, list[str], int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        line = self.getpos()[0]
        for name in values.get("data-i18n-attrs", "").split():
            if values.get(name):
                self.found.append((line, " ".join(values[name].split())))
        if tag in ("br", "img", "input", "meta", "link", "hr"):
            return
        self._open.append((tag, "data-i18n" in values, [], line))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            name, marked, texts, line = self._open.pop()
            if marked:
                text = " ".join("".join(texts).split())
                if text:
                    self.found.append((line, text))
            if self._open:
                self._open[-1][2].extend(texts)
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)


def profile_words() -> dict[str, tuple[str, ...]]:
    """The names the games' default profiles give people (colours, each with the nouns it is said of;
    Blockers!' symbols) and the games' own names (`Named(title, "game")`), with the contexts they are
    said in: the catalogue's extraction adds an entry per pair, and the catalogue test checks French
    has them all."""
    out: dict[str, set[str]] = {}
    for game in registry.names():
        spec = registry.get(game)
        profile = default_profile(game)
        noun = spec.piece_noun
        for letter in profile.letters:
            name = str(profile.classes.get(letter, {}).get("name", letter))
            out.setdefault(name, {"colour"}).update({noun, noun + "s"} if noun in COLOUR_CONTEXTS else set())
        for symbol in profile.get("symbols") or ():
            out.setdefault(str(symbol), set()).add("symbol")
        out.setdefault(spec.title, set()).add("game")
    return {name: tuple(sorted(contexts)) for name, contexts in sorted(out.items())}


def extract_html(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[tuple]:
    """Babel extraction method for the page's HTML (Babel's signature)."""
    parser = _Marked()
    parser.feed(fileobj.read().decode("utf-8"))
    for line, text in parser.found:
        yield line, None, text, []


def extract(root: Path = ROOT) -> dict[str, list[Message]]:
    """Every message the sources say, per domain (`referee`: Python; `page`: JavaScript and HTML)."""
    from babel.messages.extract import extract as babel_extract

    out: dict[str, list[Message]] = {DOMAIN: [], PAGE_DOMAIN: []}
    files: list[tuple[str, Path, Any]] = []
    for folder in PYTHON_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            files.append((DOMAIN, path, "python"))
    for path in sorted((root / PAGE_FOLDER).glob("*.js")):
        files.append((PAGE_DOMAIN, path, "javascript"))
    for path in sorted((root / PAGE_FOLDER).glob("*.html")):
        files.append((PAGE_DOMAIN, path, extract_html))
    for domain, path, method in files:
        relative = str(path.relative_to(root))
        with path.open("rb") as f:
            for lineno, message, comments, context in babel_extract(
                method, f, keywords=KEYWORDS, options={"encoding": "utf-8"}, strip_comment_tags=True
            ):
                if not message or (isinstance(message, tuple) and not message[0]):
                    continue
                if isinstance(message, tuple):  # (singular,) or (singular, plural)
                    message = message[0] if len(message) == 1 else (message[0], message[1])
                out[domain].append(Message(message, context, ((relative, lineno),), tuple(comments)))
    for name, contexts in profile_words().items():
        for context in contexts:
            out[DOMAIN].append(
                Message(name, context, (("controller/games/*/profile.yaml", 0),), (_colour_comment(context),))
            )
    return out


def _colour_comment(context: str) -> str:
    if context == "symbol":
        return "a symbol printed on a Blockers! tile and its region of the board"
    if context == "game":
        return "a game's name, as its French edition calls it"
    if context == "colour":
        return "a colour named alone, as in 'player 2 (red)'"
    noun = context.rstrip("s")
    many = context.endswith("s") and context in COLOUR_CONTEXTS[1:] and context != noun
    return f"a colour said of {'several ' + noun + 's' if many else 'one ' + noun} (agrees with the piece's noun)"


# --- the .po files ----------------------------------------------------------------------------------
def po_path(code: str, domain: str) -> Path:
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{domain}.po"


def read(code: str, domain: str) -> Any:
    from babel.messages.pofile import read_po

    path = po_path(code, domain)
    if not path.exists():
        return _new_catalog(code, domain)
    with path.open("rb") as f:
        return read_po(f, locale=code, domain=domain)


def _new_catalog(code: str, domain: str) -> Any:
    from babel.messages.catalog import Catalog

    return Catalog(
        locale=code,
        domain=domain,
        project="tabletop-referee",
        header_comment=f"# {domain} messages of the tabletop referee, {code}.\n# Kept with tools/catalogue.py.",
    )


def template(messages: list[Message], domain: str) -> Any:
    from babel.messages.catalog import Catalog

    pot = Catalog(domain=domain, project="tabletop-referee")
    for m in messages:
        existing = pot.get(m.key[0], m.context)
        if existing is not None:
            existing.locations = list(dict.fromkeys([*existing.locations, *m.locations]))
            continue
        pot.add(m.msgid, locations=list(m.locations), auto_comments=list(m.comments), context=m.context)
    return pot


def update(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Bring every `.po` up to date with the sources: new messages added (English filled in as the source
    says, French left empty for a translator), messages no longer said dropped. Returns, per file, how many
    were added and dropped."""
    from babel.messages.pofile import write_po

    report = {}
    extracted = extract(root)
    for domain in (DOMAIN, PAGE_DOMAIN):
        for code in LANGUAGES:
            pot = template(extracted[domain], domain)  # one per language: update shares its messages
            catalog = read(code, domain)
            before = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in catalog if m.id}
            catalog.update(pot, no_fuzzy_matching=True, update_header_comment=False)
            catalog.obsolete.clear()
            catalog.fuzzy = False
            for m in catalog:
                if not m.id:
                    continue
                if code == "en" and not _translated(m):
                    m.string = m.id if isinstance(m.id, str) else (m.id[0], m.id[1])
                if code == "fr" and _translated(m):
                    m.string = french_typography(m.string)
            after = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in catalog if m.id}
            path = po_path(code, domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            write_po(buffer, catalog, width=120, sort_output=False, include_previous=False)
            text = buffer.getvalue().decode("utf-8")
            text = _with_plural_forms(text, code)
            path.write_text(text, encoding="utf-8")
            report[str(path.relative_to(root))] = (len(after - before), len(before - after))
    return report


def _with_plural_forms(text: str, code: str) -> str:
    # no dates in the header: a catalogue changes only when its messages do
    dropped = ('"Plural-Forms:', '"POT-Creation-Date:', '"PO-Revision-Date:', '"Generated-By:')
    lines = [line for line in text.splitlines() if not line.startswith(dropped)]
    for i, line in enumerate(lines):
        if line.startswith('"Content-Transfer-Encoding:'):
            lines.insert(i + 1, f'"Plural-Forms: {PLURAL_FORMS[code]}\\n"')
            break
    return "\n".join(lines) + "\n"


def _translated(m: Any) -> bool:
    strings = m.string if isinstance(m.string, tuple | list) else (m.string,)
    return all(bool(s) for s in strings) and not m.fuzzy


def french_typography(value: Any) -> Any:
    """A French translation with the no-break spaces French puts before `; : ! ?` and inside « »."""
    if isinstance(value, tuple | list):
        return type(value)(french_typography(v) for v in value)
    text = str(value)
    for mark in ";!?":
        text = text.replace(f" {mark}", f"{NARROW_NBSP}{mark}").replace(f"{NBSP}{mark}", f"{NARROW_NBSP}{mark}")
    text = text.replace(" :", f"{NBSP}:")
    text = text.replace("« ", f"«{NARROW_NBSP}").replace(" »", f"{NARROW_NBSP}»")
    return text


def compile_all(only: Path | None = None) -> list[Path]:
    """Write the `.mo` of every `.po` beside it (what an install ships); `only`: that `.po` alone."""

    written = []
    for code in LANGUAGES:
        for domain in (DOMAIN, PAGE_DOMAIN):
            po = po_path(code, domain)
            if po.exists() and (only is None or po.resolve() == only):
                mo = po.with_suffix(".mo")
                mo.write_bytes(compile_po(po))
                written.append(mo)
    return written


def problems(root: Path = ROOT) -> list[str]:
    """What keeps the catalogues from being complete, one sentence each (empty when all is well)."""
    out: list[str] = []
    extracted = extract(root)
    for domain in (DOMAIN, PAGE_DOMAIN):
        wanted: dict[tuple[str, str | None], Message] = {}
        for m in extracted[domain]:
            wanted.setdefault(m.key, m)
        for code in LANGUAGES:
            catalog = read(code, domain)
            path = po_path(code, domain).relative_to(root)
            held = {(m.id if isinstance(m.id, str) else m.id[0], m.context): m for m in catalog if m.id}
            for key, m in wanted.items():
                where = f"{m.locations[0][0]}:{m.locations[0][1]}"
                entry = held.get(key)
                shown = key[0] if key[1] is None else f"{key[1]} | {key[0]}"
                if entry is None:
                    out.append(f"{path}: missing {shown!r} ({where}): run python tools/catalogue.py update")
                elif not _translated(entry):
                    out.append(f"{path}: not translated: {shown!r} ({where})")
                else:
                    out.extend(f"{path}: {p}: {shown!r}" for p in _fields_differ(m.msgid, entry.string))
            for key in held.keys() - wanted.keys():
                out.append(f"{path}: {key[0]!r} is no longer in the sources: run python tools/catalogue.py update")
    return out


def _fields(text: str) -> set[str]:
    import string

    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _fields_differ(msgid: Any, translation: Any) -> list[str]:
    """The `{fields}` a translation must keep (a plural's forms may leave `{n}` out: "un jeton")."""
    ids = [msgid] if isinstance(msgid, str) else list(msgid)
    strings = [translation] if isinstance(translation, str) else list(translation)
    wanted = set().union(*(_fields(i) for i in ids))
    out = []
    try:
        for s in strings:
            got = _fields(s)
            if got - wanted:
                out.append(f"the translation names fields the message lacks ({', '.join(sorted(got - wanted))})")
            if wanted - got - {"n"}:
                out.append(f"the translation leaves out {', '.join(sorted(wanted - got - {'n'}))}")
    except ValueError as exc:
        out.append(f"the translation's braces are unbalanced ({exc})")
    return out
