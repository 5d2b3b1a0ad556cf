"""The Raspberry Pi's pinned Python packages (`pi/constraints.txt`): check them, or write them again.

Why the Pi has its own pins: on Raspberry Pi OS bookworm numpy comes from the OS (python3-numpy
1.24.2), because picamera2 and its compiled helpers (simplejpeg) are OS packages built against it.
A numpy 2 in the referee's venv would shadow it and break the camera ("numpy.dtype size changed").
opencv-python-headless 4.12 and later require numpy 2, so the Pi takes the newest OpenCV that still
accepts numpy 1.24, and every other dependency is pinned at the version resolved for the Pi, so
that what CI installs is what a Pi installs. `tools/install-pi.sh` installs with these pins.

    python tools/pi_constraints.py           # check (exit 1 with sentences when something is off)
    python tools/pi_constraints.py --write   # resolve pyproject.toml's dependencies for the Pi again

The check resolves the project's dependencies with the pins exactly as pip does on a Pi (CPython
3.11, aarch64, glibc 2.36 of bookworm), accepting wheels only (`--only-binary=:all:`): it fails
when a pinned version has no wheel for the Pi (pip would compile it there, or fail), when a
dependency is not pinned (a new one in pyproject.toml: write the pins again), or when a pin is no
longer needed. It is `pip download --only-binary=:all: --platform manylinux2014_aarch64
--python-version 3.11` without downloading the wheels (pip's `--dry-run` resolves from the
index's metadata); `--download DIR` downloads them too.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "pi" / "constraints.txt"
#: numpy of Raspberry Pi OS bookworm (Debian's python3-numpy 1:1.24.2): kept, never installed in the venv.
OS_NUMPY = "1.24.2"
PYTHON_VERSION = "3.11"
#: What pip on a 64-bit Raspberry Pi OS bookworm accepts: manylinux wheels up to its glibc, 2.36.
PLATFORMS = ["manylinux2014_aarch64"] + [f"manylinux_2_{minor}_aarch64" for minor in range(17, 37)]

HEADER = f"""\
# Python packages of the referee on a Raspberry Pi (Raspberry Pi OS bookworm, 64-bit: CPython
# {PYTHON_VERSION}, aarch64), used by tools/install-pi.sh: pip install -c pi/constraints.txt .
# Written by `python tools/pi_constraints.py --write`; checked by the same tool without --write
# (every pin has a wheel for the Pi) and by tests/test_pi_install.py. See docs/pi.md.
#
# numpy is the OS's (python3-numpy), which picamera2 and simplejpeg are built against: the pin
# only keeps pip from putting another numpy in the venv. opencv-python-headless stays below 4.12,
# the first release that requires numpy 2; 4.11 is built against numpy 2 and runs with numpy 1.x,
# and has cv2.aruco.ArucoDetector.
"""


def dependencies() -> list[str]:
    """pyproject.toml's runtime dependencies."""
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]


def resolve(constraint_lines: list[str], download: Path | None = None) -> tuple[dict[str, str], str]:
    """What pip installs on the Pi for the project's dependencies under these constraints, wheels
    only: ({name: version}, "") or ({}, pip's complaint)."""
    with tempfile.TemporaryDirectory(prefix="pi-constraints-") as tmp:
        constraints = Path(tmp) / "constraints.txt"
        constraints.write_text("\n".join(constraint_lines) + "\n", "utf-8")
        report = Path(tmp) / "report.json"
        platform = [f"--platform={p}" for p in PLATFORMS]
        target = ["--python-version", PYTHON_VERSION, "--implementation", "cp", "--abi", "cp311", "--abi", "abi3"]
        if download is None:
            command = ["install", "--dry-run", "--ignore-installed", "--target", str(Path(tmp) / "t")]
            command += ["--report", str(report)]
        else:
            command = ["download", "--dest", str(download)]
        command += ["--quiet", "--only-binary=:all:", *platform, *target, "-c", str(constraints), *dependencies()]
        done = subprocess.run([sys.executable, "-m", "pip", *command], capture_output=True, text=True)
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
            return {}, "\n".join(lines) or done.stderr.strip()
        if download is not None:
            found = {}
            for wheel in download.glob("*.whl"):
                name, version = wheel.name.split("-")[:2]
                found[canonical(name)] = version
            return found, ""
        installs = json.loads(report.read_text("utf-8"))["install"]
        return {canonical(i["metadata"]["name"]): i["metadata"]["version"] for i in installs}, ""


def canonical(name: str) -> str:
    """A package name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path: Path = CONSTRAINTS) -> dict[str, str]:
    """{name: version} of the `name==version` lines of a constraints file."""
    pins = {}
    for line in path.read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonical(name)] = version.strip()
    return pins


def write() -> int:
    resolved, problem = resolve([f"numpy=={OS_NUMPY}"])
    if problem:
        print(f"the dependencies cannot be resolved for the Pi with wheels only:\n{problem}", file=sys.stderr)
        return 1
    lines = [HEADER]
    for name in sorted(resolved):
        note = "  # the OS's python3-numpy: never installed in the venv" if name == "numpy" else ""
        lines.append(f"{name}=={resolved[name]}{note}\n")
    CONSTRAINTS.write_text("".join(lines), "utf-8")
    print(f"wrote {CONSTRAINTS.relative_to(ROOT)}: {len(resolved)} packages")
    return 0


def check(download: Path | None) -> int:
    pins = read_pins()
    lines = [f"{name}=={version}" for name, version in pins.items()]
    resolved, problem = resolve(lines, download)
    if problem:
        print(
            "a pinned version has no wheel for the Pi (CPython 3.11, aarch64), or the pins contradict "
            f"pyproject.toml; pip says:\n{problem}",
            file=sys.stderr,
        )
        return 1
    problems = [f"{name} {v} is needed but not pinned" for name, v in sorted(resolved.items()) if name not in pins]
    problems += [f"{name} is pinned but no longer needed" for name in sorted(pins) if name not in resolved]
    if problems:
        print("; ".join(problems) + ": run python tools/pi_constraints.py --write", file=sys.stderr)
        return 1
    print(f"{len(resolved)} packages, each with a wheel for CPython {PYTHON_VERSION} on aarch64:")
    for name in sorted(resolved):
        print(f"  {name}=={resolved[name]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="resolve for the Pi again and write pi/constraints.txt")
    parser.add_argument("--download", metavar="DIR", help="check by downloading the Pi's wheels into DIR")
    args = parser.parse_args(argv)
    if args.write:
        return write()
    return check(Path(args.download) if args.download else None)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader of the output went away (| head): end quietly, as referee does
        sys.stderr.close()
        sys.exit(141)
