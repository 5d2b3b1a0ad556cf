"""The code stays `ruff` clean and `mypy` finds no type error in `controller/`, `calibration/`,
`simulation/`, `firmware_bridge/`, `bench/` and `tools/` (settings in pyproject.toml): the test command
checks both."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: run the README's setup command (pip install -e '.[dev]')"
    result = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing():
    """One layout for every file (`ruff format`), so a diff shows only what changed in meaning."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: run the README's setup command (pip install -e '.[dev]')"
    result = subprocess.run(
        [ruff, "format", "--check", "--no-cache", str(ROOT)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_no_type_error():
    """The product, its benches and its tools type-check (`mypy`, its settings in pyproject.toml): an optional
    part is narrowed before it is used, a function is called with what it declares."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-color-output"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, "mypy (settings in pyproject.toml) finds:\n" + result.stdout + result.stderr
