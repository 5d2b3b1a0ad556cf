"""No sentence for people written outside the catalogue in the modules that speak to them.

`test_catalogue.py` says real output through a marking language, which catches an English word that a
verdict, an event or a correction carries; this test reads the sources instead (Python's `ast`), so a
refusal, an advice line or a page's answer that no test happens to provoke is caught too. In the
modules listed in `SPEAKING`, a string with English words in it (two words of letters, once its
`{fields}` are left out) must not reach a person without `_()`: none as the argument of a `raise`,
of a call that shows it (`print`, `write`, a refusal such as `BadRequest`, an error's constructor,
`sentence`), as a `return` value, nor as a value of the keys a JSON answer shows (`error`, `message`,
...). Inside `_()`, `_n()`, `_p()`, `N_()`, `literal()`, in a log line (the log is the operator's,
English like `--help`), in a command's `--help`, and in a docstring, a string is not a leak. What is
left is listed in `ALLOWED`, with why: the machine's own texts that look like words.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The modules whose strings reach players, club organisers and people setting a copy up.
SPEAKING = (
    "controller/cli.py",
    "controller/errors.py",
    "controller/files.py",
    "controller/guard.py",
    "controller/schema.py",
    "controller/service/config.py",
    "controller/record.py",
    "controller/profile.py",
    "controller/hardware/config.py",
    "controller/vision/sources.py",
    "controller/vision/settings.py",
    "controller/club/config.py",
    "controller/games/registry.py",
    "controller/games/spec.py",
    "controller/club/page.py",
    "controller/club/server.py",
    "controller/club/store.py",
    "controller/commands/club.py",
    "controller/commands/status.py",
    "controller/commands/new_game.py",
    "controller/commands/accept.py",
    "controller/commands/reveal.py",
    "controller/commands/end.py",
    "controller/service/control.py",
    "controller/commands/render.py",
    "controller/commands/aim.py",
    "controller/commands/holes.py",
    "controller/commands/export.py",
    "controller/commands/read.py",
    "controller/commands/lights_test.py",
    "controller/commands/demo.py",
    "controller/commands/calibrate.py",
    "controller/commands/setup.py",
    "controller/commands/setup_calibrate.py",
    "controller/commands/markers.py",
    "controller/commands/lattice.py",
    "controller/exclusive.py",
    "controller/hardware/lights_test.py",
    "controller/vision/geometry.py",
    "controller/vision/lattice/inputs.py",
    "controller/vision/lattice/model.py",
    "calibration/camera.py",
    "calibration/vision.py",
    "calibration/vision_glyphs.py",
    "controller/service/journal.py",
    "controller/service/session.py",
    "controller/service/loop.py",
    "controller/service/camera_watch.py",
    "controller/club/reach.py",
    "controller/vision/frames.py",
    "controller/referee.py",
    "controller/games/base.py",
    "controller/games/colorpop/rules.py",
    "controller/snapshot.py",
    "controller/hardware/pins.py",
    "controller/hardware/button.py",
    "controller/hardware/feedback.py",
    "controller/games/flipop/rules.py",
    "controller/games/flipop/doors.py",
    "controller/games/blockers/rules.py",
    "controller/games/blockers/board.py",
    "controller/games/stay_alive/holes.py",
    "controller/games/events.py",
    "controller/vision/classify.py",
    "controller/web/*.py",
    "controller/vision/aim.py",
    "controller/vision/glyph_model.py",
    "controller/vision/doors.py",
    "controller/ai/table.py",
    "controller/service/devices.py",
    "controller/games/*/__init__.py",
    "calibration/guided.py",
    "calibration/checks.py",
    "calibration/holes.py",
    "calibration/holes_guide.py",
)

#: (file, the string's start): strings the scan takes for sentences that are not said to people.
ALLOWED: dict[tuple[str, str], str] = {
    ("controller/club/server.py", "attachment; filename="): "an HTTP header, read by the browser",
    ("controller/web/server.py", "attachment; filename="): "an HTTP header, read by the browser",
    ("controller/club/store.py", "game {} of journal {}"): "names a game in the club's log lines (the operator's)",
    ("controller/profile.py", "default {} profile"): "a profile's source, compared as its name (the messages name it)",
    ("controller/record.py", "tag:yaml.org,2002:str"): "a YAML tag",
    ("controller/web/view.py", "the live page has heard nothing"): "a RuntimeError for the log (the page says a 500)",
    ("controller/commands/setup_calibrate.py", "take the pictures from files in DIR"): "its --images option's help",
    ("controller/service/journal.py", "SELECT "): "SQL",
    ("controller/service/session.py", "# the secret colours are left out"): "a comment in a record (notation.md)",
    ("controller/games/colorpop/rules.py", "no valid Colorpop setup found"): "the simulated shuffle's RuntimeError",
    ("controller/hardware/feedback.py", "unknown LED mode"): "a ValueError: a mode the code itself never asks for",
    ("controller/vision/classify.py", "no samples for class"): "a ValueError: calibration checks its samples first",
    ("controller/games/blockers/rules.py", "the game is over"): "a ValueError: the engine asked to move after the end",
    ("controller/games/blockers/rules.py", "no unread tile at"): "a ValueError: the engine's own bookkeeping",
    ("controller/games/blockers/board.py", "no region covers"): "a ValueError: a place off the board, never asked",
    ("controller/games/stay_alive/holes.py", "expected a hole pattern"): "a ValueError: a caller's programming error",
}

#: Calls whose string arguments are sentences for the catalogue, or never for people.
WRAPPED = {"_", "_n", "_p", "N_", "N_n", "literal", "Text"}
LOGGING = {"debug", "info", "warning", "error", "exception", "critical", "log"}
ARGPARSE = {"add_argument", "add_parser", "ArgumentParser", "add_argument_group", "add_mutually_exclusive_group"}
#: Calls that show their string arguments to people.
SHOWN = {"print", "write", "say", "BadRequest", "sentence", "_refusal", "_fail", "_bad", "_Disagree", "CaptureTimeout"}
#: The keys of a JSON answer whose values a page shows.
SHOWN_KEYS = {"error", "message", "problem", "why", "why_not", "instruction", "title", "sentence", "advice", "report"}
WORDS = re.compile(r"[A-Za-z]{2,}[ ,;:'’]+[A-Za-z]{2,}")


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _shows(name: str) -> bool:
    return name in SHOWN or name.endswith("Error")


def leaks(path: Path) -> list[tuple[int, str]]:
    """The sentences of one module that reach people outside the catalogue: (line, text)."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, shown: bool) -> None:
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name in WRAPPED or name in LOGGING or name in ARGPARSE:
                return
            visit(node.func, False)
            for child in [*node.args, *(k.value for k in node.keywords)]:
                visit(child, shown or _shows(name))
            return
        if isinstance(node, ast.Raise | ast.Return):
            for child in ast.iter_child_nodes(node):
                visit(child, True)
            return
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if key is not None:
                    visit(key, False)
                visit(value, shown or _text(key) in SHOWN_KEYS if key is not None else shown)
            return
        text = _text(node)
        if text is not None:
            if shown and WORDS.search(re.sub(r"\{[^}]*\}", " ", text)):
                found.append((node.lineno, text))
            return
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and _text(body[0].value) is not None:
                body = body[1:]  # the docstring
            for child in [*getattr(node, "decorator_list", []), *body]:
                visit(child, False)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, shown)

    visit(ast.parse(path.read_text("utf-8")), False)
    return found


def speaking_files() -> list[Path]:
    return sorted({p for pattern in SPEAKING for p in ROOT.glob(pattern)})


def test_the_modules_that_speak_to_people_say_nothing_outside_the_catalogue():
    left = []
    for path in speaking_files():
        relative = str(path.relative_to(ROOT))
        for line, text in leaks(path):
            if not any(relative == f and text.startswith(start) for f, start in ALLOWED):
                left.append(f"{relative}:{line}: {text[:100]!r}")
    assert not left, (
        "sentences for people outside _() (wrap them, then python tools/catalogue.py update):\n" + "\n".join(left)
    )


def test_the_scan_finds_a_sentence_written_outside_the_catalogue(tmp_path):
    """The scan itself: each way a sentence reaches people is caught, each way it is kept out is not."""
    source = tmp_path / "speaks.py"
    source.write_text(
        '''
def f(x):
    """A docstring is no leak."""
    log.warning("the log is the operator's, in English")
    parser.add_argument("--x", help="help stays English")
    ok = _("a sentence from the catalogue {x}", x=x)
    if x:
        raise RefereeError(f"the value {x} is wrong")
    print("shown to the player")
    answer = {"error": "refused for a reason", "state": "machine word"}
    return "returned to a person"
''',
        "utf-8",
    )
    found = [text for _line, text in leaks(source)]
    assert found == ["the value {} is wrong", "shown to the player", "refused for a reason", "returned to a person"]


def test_every_module_listed_exists_and_every_allowance_is_still_needed():
    assert all(list(ROOT.glob(pattern)) for pattern in SPEAKING)
    for (file, start), why in ALLOWED.items():
        assert why, f"{file}: say why {start!r} is allowed"
        assert any(text.startswith(start) for _line, text in leaks(ROOT / file)), f"{file}: {start!r} is gone"


def _binds_underscore(function: ast.AST) -> list[int]:
    """The lines where a function (not the functions and comprehensions inside it) binds the name `_`."""
    lines = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.comprehension
            ):
                continue
            if isinstance(child, ast.Name) and child.id == "_" and isinstance(child.ctx, ast.Store):
                lines.append(child.lineno)
            visit(child)

    visit(function)
    return lines


def _calls_underscore(function: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"
        for node in ast.walk(function)
    )


def test_no_function_that_says_a_sentence_takes_the_name_of_the_catalogue_for_a_throwaway_value():
    """`for _ in range(n)` or `a, _ = pair` makes `_` a local of the whole function: its `_("...")`
    then calls an int or fails as unbound, a traceback instead of the sentence (`referee aim` with a
    camera that gave no picture did)."""
    found = []
    modules = [*ROOT.glob("controller/**/*.py"), *ROOT.glob("calibration/*.py"), *ROOT.glob("simulation/*.py")]
    for path in sorted(set(modules)):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _calls_underscore(node):
                found += [f"{path.relative_to(ROOT)}:{line}" for line in _binds_underscore(node)]
    assert not found, "name the throwaway value otherwise (_frame, _round, ...): " + ", ".join(found)
