"""Probe every `referee` command with bad input, as a newcomer would give it, and tally the answers.

Each probe is a command line and the words a clear answer must hold (what is wrong, in the user's
terms). An answer is counted as
- *traceback*: a Python traceback (or an exception out of `main`);
- *silently accepted*: exit code 0 for input that should have been refused;
- *misleading*: refused, but without the words that say what is wrong;
- *clear*: refused with those words, no traceback.

Usage: python tools/probe_bad_input.py [--verbose]   (prints the tally; exit 1 unless every answer is clear)
`tests/test_bad_input_probe.py` runs the same probes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@dataclass
class Probe:
    args: list[str]
    #: Words a clear answer holds (any one of the tuples' alternatives, all of the entries).
    words: list[str | tuple[str, ...]]
    #: Files to make in the scratch folder first: name -> text (bytes for binary).
    files: dict[str, str | bytes] = field(default_factory=dict)
    #: Exit codes that are a refusal (2 by default).
    codes: tuple[int, ...] = (2,)


def _config(**changes: str) -> str:
    text = (ROOT / "config.yaml").read_text()
    for old, new in changes.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


CONFIG_TEXT = (ROOT / "config.yaml").read_text() if (ROOT / "config.yaml").exists() else ""
RECORD = (ROOT / "examples" / "colorpop-standard.yaml").read_text() if (ROOT / "examples").exists() else ""


def probes() -> list[Probe]:
    bad_rows = "game: colorpop\nsetup: |\n" + "  G Y O B P J . . . .\n" * 9
    return [
        # replay
        Probe(["replay", "missing.yaml"], ["cannot read the game record", "missing.yaml"]),
        Probe(["replay", "folder"], ["folder"], {"folder/": ""}),
        Probe(["replay", "binary.dat"], ["not a text file"], {"binary.dat": b"\x00\xff\xfe" * 30}),
        Probe(["replay", "empty.yaml"], ["game record"], {"empty.yaml": ""}),
        Probe(["replay", "rows.yaml"], ["10 board rows, found 9"], {"rows.yaml": bad_rows}),
        Probe(["replay", "game.yaml"], ["'game'", "expected one of"], {"game.yaml": "game: chess\nsetup: x\n"}),
        Probe(["replay", "key.yaml"], ["unknown key"], {"key.yaml": RECORD + "colour: red\n"}),
        Probe(
            ["replay", "action.yaml"],
            ["action", "end-by-agreement"],
            {"action.yaml": RECORD.replace("observations:\n", "observations:\n- action: dance\n", 1)},
        ),
        Probe(
            ["replay", "accept.yaml"],
            ["accept-board", "board"],
            {"accept.yaml": RECORD.replace("observations:\n", "observations:\n- action: accept-board\n", 1)},
        ),
        Probe(["replay", "yaml.yaml"], ["not valid YAML"], {"yaml.yaml": "game: [colorpop\n"}),
        # export
        Probe(["export", "nothing.sqlite"], ["there is no journal at"]),
        Probe(["export", "text.sqlite"], [("not a referee journal", "not an SQLite")], {"text.sqlite": "hello\n"}),
        Probe(["export", "--list", "empty.sqlite"], [("empty", "0 bytes")], {"empty.sqlite": ""}),
        # read
        Probe(["read", "--game", "colorpop", "--image", "pictures"], ["is a folder, not a picture"], {"pictures/": ""}),
        Probe(["read", "--game", "colorpop", "--image", "none.png"], ["does not exist"]),
        Probe(["read", "--game", "colorpop", "--image", "text.png"], ["not a picture"], {"text.png": "hello"}),
        Probe(["read", "--game", "chess", "--image", "x.png"], ["invalid choice", "chess"]),
        Probe(
            ["read", "--game", "colorpop", "--image", "text.png", "--corners", "1,2 3"], ["corners"], {"text.png": "x"}
        ),
        # render
        Probe(["render", "--game", "colorpop", "--snapshot", "none.txt", "--out", "b.png"], ["none.txt"]),
        Probe(
            ["render", "--game", "colorpop", "--snapshot", "s.txt", "--out", "b.png"],
            [("10 board rows", "expected 10 cells")],
            {"s.txt": "G Y O\n"},
        ),
        Probe(["render", "--game", "colorpop", "--snapshot", "s.txt", "--out", "no/b.png"], ["no"], {"s.txt": "x"}),
        # markers
        Probe(["markers", "--game", "colorpop", "--out", "m.jpg"], ["write a .pdf or a .png file"]),
        Probe(["markers", "--game", "colorpop", "--out", "no/m.pdf"], ["does not exist"]),
        Probe(["markers", "--game", "colorpop", "--out", "m.png", "--dpi", "5"], ["--dpi", "72 to 2400"]),
        # calibrate and aim
        Probe(["calibrate", "--game", "colorpop", "--out", "p.yaml"], ["nothing to learn from"]),
        Probe(
            ["calibrate", "--game", "colorpop", "--setup", "b.png", "--out", "p.yaml"],
            ["--setup needs --empty"],
            {"b.png": "x"},
        ),
        Probe(["aim", "--game", "colorpop"], ["give either --config", "--image"]),
        Probe(["aim", "--game", "colorpop", "--image", "pictures"], ["is a folder"], {"pictures/": ""}),
        # holes and lattice
        Probe(["holes", "derive", "--grids", "none.txt"], ["none.txt"]),
        Probe(["holes", "derive", "--grids", "g.txt"], [("missing observation", "orange")], {"g.txt": "nonsense\n"}),
        Probe(["lattice", "read", "--size", "ten", "--corners", "1,1 2,1 2,2 1,2", "--image", "x.png"], ["size"]),
        Probe(["setup", "holes"], ["give either --config", "--images"]),
        Probe(
            ["setup", "holes", "--config", "config.yaml"], ["the holes are Stay Alive's"], {"config.yaml": CONFIG_TEXT}
        ),
        Probe(
            ["setup", "calibrate", "--game", "flipop", "--config", "config.yaml", "--name", "x"],
            ["is a colorpop config"],
            {"config.yaml": CONFIG_TEXT},
        ),
        # run: mistakes in config.yaml
        Probe(["run", "--config", "none.yaml"], ["none.yaml"]),
        Probe(
            ["run", "--config", "typo.yaml"],
            ["does not exist", "Check the 'journal:' path"],
            {"typo.yaml": _config(**{"journal: referee-journal.sqlite": "journal: nowhere/at/all/j.sqlite"})},
        ),
        Probe(
            ["run", "--config", "pin.yaml"],
            ["web.pin", "write the PIN in quotes"],
            {"pin.yaml": _config(**{"  pin: null ": "  pin: 0123 "})},
        ),
        Probe(
            ["run", "--config", "first.yaml"],
            ["'first'", "players are 1 to 3"],
            {"first.yaml": _config(**{"first: 0 ": "first: 7 "})},
        ),
        Probe(
            ["run", "--config", "port.yaml"],
            ["web.port"],
            {"port.yaml": _config(**{"  port: 8080": "  port: 99999"})},
        ),
        Probe(
            ["run", "--config", "key.yaml"],
            ["colour", ("unknown", "not a known setting")],
            {"key.yaml": CONFIG_TEXT + "colour: red\n"},
        ),
        Probe(
            ["run", "--config", "game.yaml"],
            ["'game'", "expected one of"],
            {"game.yaml": _config(**{"game: colorpop ": "game: chess "})},
        ),
        # the service commands with no referee running
        Probe(["status", "--socket", "none.sock"], ["no referee is running"]),
        Probe(["new-game", "--socket", "none.sock"], ["no referee is running"]),
        Probe(["reveal", "0", "G", "--socket", "none.sock"], ["players are counted from 1"]),
        Probe(["end", "--socket", "none.sock"], ["no referee is running"]),
        Probe(["accept", "--socket", "none.sock"], ["no referee is running"]),
        # lights-test, demo, club
        Probe(["lights-test", "--config", "none.yaml"], ["none.yaml"]),
        Probe(["demo", "--game", "chess"], ["invalid choice"]),
        Probe(["demo", "--web", "--port", "70000", "--game", "flipop"], ["--port"]),
        Probe(["club", "--broker", "nowhere:port"], ["--broker"]),
        Probe(["club", "--broker", "localhost:1883", "--port", "-1"], ["--port"]),
    ]


@dataclass
class Answer:
    probe: Probe
    code: int | None
    out: str
    err: str
    kind: str


def run_probe(probe: Probe, folder: Path, main: Callable[[list[str]], int]) -> Answer:
    for name, content in probe.files.items():
        path = folder / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    out, err = io.StringIO(), io.StringIO()
    code: int | None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(probe.args)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # noqa: BLE001 - a probe counts it
            code = None
            err.write(f"Traceback (most recent call last):\n  ... {type(exc).__name__}: {exc}\n")
    said = out.getvalue() + err.getvalue()
    if "Traceback" in said or code is None:
        kind = "traceback"
    elif code == 0:
        kind = "silently accepted"
    elif code in probe.codes and all(
        any(w in said for w in (word if isinstance(word, tuple) else (word,))) for word in probe.words
    ):
        kind = "clear"
    else:
        kind = "misleading"
    return Answer(probe, code, out.getvalue(), err.getvalue(), kind)


def run_all(verbose: bool = False) -> dict[str, list[Answer]]:
    from controller.cli import main

    tally: dict[str, list[Answer]] = {"clear": [], "misleading": [], "silently accepted": [], "traceback": []}
    here = os.getcwd()
    for probe in probes():
        folder = Path(tempfile.mkdtemp(prefix="referee-probe-"))
        try:
            os.chdir(folder)
            answer = run_probe(probe, folder, main)
        finally:
            os.chdir(here)
            shutil.rmtree(folder, ignore_errors=True)
        tally[answer.kind].append(answer)
        if verbose or answer.kind != "clear":
            said = (answer.err or answer.out).strip().splitlines()
            print(f"{answer.kind:17} referee {' '.join(probe.args)} -> {answer.code}: {said[-1] if said else ''}")
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print every answer, not only the unclear ones")
    args = parser.parse_args()
    tally = run_all(args.verbose)
    total = sum(len(v) for v in tally.values())
    print(f"{total} bad inputs: " + ", ".join(f"{len(v)} {k}" for k, v in tally.items()))
    return 0 if len(tally["clear"]) == total else 1


if __name__ == "__main__":
    sys.exit(main())
