"""Reading the files a person hands the referee (config, profiles, records, grids): one wording for every failure.

Why one home: a missing file, a binary file given where text was expected and a YAML slip are
the same mistakes whichever command made them, so they are worded the same way everywhere:
``cannot read the profile my.yaml: No such file or directory``, ``the config file x.dat is not a
text file``, ``the game record g.yaml is not valid YAML: line 3, column 5: found a tab character
...``. `what` names the kind of file as a person would ("the config file", "the profile").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from controller.errors import FormatError, RefereeError, os_words
from controller.language import _, literal


def read_text(path: str | Path, what: Any) -> str:
    """The text of `path`; a RefereeError naming the file when it cannot be read or is not text."""
    try:
        return Path(path).read_text("utf-8")
    except OSError as exc:
        why = os_words(exc)
        raise RefereeError(_("cannot read {what} {path}: {why}", what=what, path=str(path), why=why)) from None
    except UnicodeDecodeError:
        raise RefereeError(_("{what} {path} is not a text file", what=what, path=str(path))) from None


def yaml_problem(exc: yaml.YAMLError) -> Any:
    """A YAML error as one line: where it is (line and column from 1) and what was found."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is None or problem is None:
        return " ".join(str(exc).split())
    # the parser's own words (`found character '\\t' ...`) stay as PyYAML says them
    return _(
        "line {line}, column {column}: {problem}",
        line=literal(str(mark.line + 1)),
        column=literal(str(mark.column + 1)),
        problem=problem,
    )


#: Why a YAML text nested deeper than the parser's recursion allows is refused.
TOO_DEEP = _("nested too deeply (lists or mappings inside each other hundreds of levels down)")


def parse_yaml(text: str, where: str) -> Any:
    """The data of a YAML text; a FormatError `where: not valid YAML: ...` for a slip."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FormatError(_("not valid YAML: {problem}", problem=yaml_problem(exc)), where) from None
    except RecursionError:
        raise FormatError(_("not valid YAML: {problem}", problem=TOO_DEEP), where) from None


def load_yaml(path: str | Path, what: Any) -> Any:
    """The data of the YAML file `path` (what `read_text` says for an unreadable file)."""
    text = read_text(path, what)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problem = yaml_problem(exc)
        raise RefereeError(
            _("{what} {path} is not valid YAML: {problem}", what=what, path=str(path), problem=problem)
        ) from None
    except RecursionError:
        raise RefereeError(
            _("{what} {path} is not valid YAML: {problem}", what=what, path=str(path), problem=TOO_DEEP)
        ) from None
