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
@pytest.mark.slow
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
@pytest.mark.slow
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
@pytest.mark.slow
def test_yaml_is_read_by_one_function(path: Path):
    """`controller/files.py` reads every YAML text, so every slip is worded the same way."""
    if path == ROOT / "controller/files.py":
        return
    assert _yaml_loads(path) == [], "read YAML with controller.files.load_yaml or parse_yaml"


# --- the import graph -----------------------------------------------------------------------------
PACKAGES = ("controller", "calibration", "simulation", "firmware_bridge")


def _module_names() -> dict[str, Path]:
    names = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _under_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _own_imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """(module imported, line, inside a function) for each import of the project's own modules that
    runs (those under `if TYPE_CHECKING:` only name types). `from package import module` imports the
    module; a package's parents, loaded first by Python anyway, are not counted."""

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _under_type_checking(child):
                continue
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                    for _ in range(child.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                submodules = [f"{base}.{alias.name}" for alias in child.names]
                targets = [t for t in submodules if t in modules] or [base]
            for target in targets:
                if target.split(".")[0] in PACKAGES:
                    resolved = resolve(target)
                    if resolved is not None and resolved != name:
                        found.append((resolved, child.lineno, inside))
            visit(child, inside)

    visit(ast.parse(path.read_text("utf-8")), False)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


@pytest.mark.slow
def test_no_import_circle():
    """Every import that runs counts, inside functions too: a module imported late is still a module
    that needs the other. A circle is named with one import that closes it, to be cut or moved down."""
    modules = _module_names()
    imports = {name: _own_imports(name, path, modules) for name, path in modules.items()}
    graph = {name: {target for target, _, _ in found} for name, found in imports.items()}
    problems = []
    for circle in _circles(graph):
        members = set(circle)
        edges = [
            f"{modules[a].relative_to(ROOT)}:{line} imports {b}"
            for a in circle
            for b, line, _ in imports[a]
            if b in members
        ]
        problems.append(f"import circle of {len(circle)} modules: {', '.join(circle)}; its imports: {edges}")
    assert problems == [], "\n".join(problems)


# --- the live page's route modules ------------------------------------------------------------------
ROUTE_MODULES = ["controller/web/server.py", "controller/web/aim_api.py", "controller/web/holes_api.py"]
ROUTE_MODULES += ["controller/web/setup_api.py"]


@pytest.mark.parametrize("module", ROUTE_MODULES)
def test_each_route_module_exposes_one_route_table(module: str):
    """Routes are declared as a table (`routes()` returning aiohttp route definitions), never added to
    the application's router by hand, and no route module reaches into another (or into the server)."""
    tree = ast.parse((ROOT / module).read_text("utf-8"))
    tables = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "routes"]
    assert tables == ["routes"]
    by_hand = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in ("add_get", "add_post")]
    assert by_hand == []
    if module != "controller/web/server.py":
        assert "controller.web.server" not in _imports(ROOT / module)


def test_the_projects_own_modules_are_imported_at_the_top_unless_a_comment_says_why():
    """An import inside a function hides what a module needs; where one must be late (a module that
    only some runs need), a comment on its line or just above it says why."""
    modules = _module_names()
    unexplained = []
    for name, path in modules.items():
        lines = path.read_text("utf-8").splitlines()
        for _, line, inside in _own_imports(name, path, modules):
            if not inside:
                continue
            # the import's line, or the first line above the block of imports it is in
            above = line - 1
            while above > 0 and lines[above - 1].strip().startswith(("from ", "import ")):
                above -= 1
            if "#" not in lines[line - 1] and not (above > 0 and lines[above - 1].strip().startswith("#")):
                unexplained.append(f"{path.relative_to(ROOT)}:{line}: {lines[line - 1].strip()}")
    assert unexplained == [], "\n".join(unexplained)


#: The game-neutral modules that still import a game package's own modules, each for a workflow of
#: that game alone: Stay Alive's hole patterns (`referee holes`, its guided steps, its simulated
#: person and drawing) and the simulated world's marble drop. A game's line, event or reader add-on
#: goes through its `SPEC`, not here: the door reader and its calibration name posts by the lattice
#: and take the unread door from the `doors` line's declaration.
GAME_IMPORTS_ALLOWED = {
    "calibration/holes.py",
    "calibration/holes_guide.py",
    "simulation/world.py",
    "simulation/drawing.py",
    "simulation/holes_person.py",
}
GAME_PACKAGES = ("colorpop", "blockers", "flipop", "stay_alive")


def _game_imports(path: Path) -> set[str]:
    """The game packages `path` imports modules of (`controller.games.flipop...`, or
    `from controller.games import flipop`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["controller", "games"] and len(parts) > 2 and parts[2] in GAME_PACKAGES:
                found.add(parts[2])
    return found


def test_game_neutral_code_reaches_a_game_only_through_the_catalogue():
    """Outside `controller/games/`, a game's modules are imported by the catalogue alone (and the few
    workflows above that belong to one game): everything else asks `registry.get(game)`."""
    found = {str(path.relative_to(ROOT)) for path in _modules(GAME_NEUTRAL) if _game_imports(path)}
    assert found <= GAME_IMPORTS_ALLOWED, f"reach the game through the catalogue: {found - GAME_IMPORTS_ALLOWED}"
