"""The shape of the code: the simulation stays beside production code, and only games know games.

As gpiozero's devices never import its mock pins, the service, vision, hardware, rules and
firmware bridge never import the simulated rig (`simulation/`); only composition roots (the
commands that want a simulated rig, benches, tests) do. And outside each game's own module, no
code compares a game's name: it asks the game registry.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = [
    "controller/service",
    "controller/vision",
    "controller/hardware",
    "controller/games",
    "controller/web",
    "controller/club",
    "firmware_bridge",
    "calibration",
    "controller/referee.py",
    "controller/snapshot.py",
    "controller/record.py",
    "controller/profile.py",
    "controller/words.py",
    "controller/corrections.py",
]
GAME_NAMES = ("colorpop", "blockers", "flipop", "stay-alive")


def _modules(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for name in paths:
        path = ROOT / name
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return out


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module":
            first = node.args[0] if node.args else None  # importlib.import_module("simulation...")
            text = first.value if isinstance(first, ast.Constant) else None
            if isinstance(text, str) and re.match(r"^simulation", text):
                found.add(text)
    return found


@pytest.mark.parametrize("path", _modules(PRODUCTION), ids=lambda p: str(p.relative_to(ROOT)))
def test_production_code_never_imports_the_simulation(path: Path):
    assert not [m for m in _imports(path) if m == "simulation" or m.startswith("simulation.")]


def _game_name_comparisons(path: Path) -> list[int]:
    """Lines where a game's name is compared (==, !=, in) with something."""
    tree = ast.parse(path.read_text("utf-8"))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            for part in parts:
                for sub in ast.walk(part):
                    if isinstance(sub, ast.Constant) and sub.value in GAME_NAMES:
                        lines.append(node.lineno)
    return sorted(set(lines))


#: Everything but the games' own modules (`controller/games/`): the reader and its calibration
#: dispatch on what a game declares (`GameSpec.vision`), the simulated rig on `GameSpec.play`.
GAME_NEUTRAL = [
    "controller/service",
    "controller/hardware",
    "controller/web",
    "controller/club",
    "firmware_bridge",
    "controller/vision",
    "calibration",
    "controller/commands",
    "simulation",
    "controller/referee.py",
    "controller/snapshot.py",
    "controller/record.py",
    "controller/profile.py",
    "controller/words.py",
    "controller/corrections.py",
]


@pytest.mark.parametrize("path", _modules(GAME_NEUTRAL), ids=lambda p: str(p.relative_to(ROOT)))
def test_game_neutral_code_never_compares_a_game_name(path: Path):
    assert _game_name_comparisons(path) == []


def _yaml_loads(path: Path) -> list[int]:
    """Lines that parse YAML themselves (`yaml.safe_load`, `yaml.load`)."""
    tree = ast.parse(path.read_text("utf-8"))
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in ("safe_load", "load", "full_load", "unsafe_load")
        and isinstance(node.value, ast.Name)
        and node.value.id == "yaml"
    )


@pytest.mark.parametrize(
    "path", _modules(PRODUCTION + ["controller/commands", "simulation"]), ids=lambda p: str(p.relative_to(ROOT))
)
def test_yaml_is_read_by_one_function(path: Path):
    """`controller/files.py` reads every YAML text, so every slip is worded the same way."""
    if path == ROOT / "controller/files.py":
        return
    assert _yaml_loads(path) == [], "read YAML with controller.files.load_yaml or parse_yaml"
