"""The Raspberry Pi's install (`tools/install-pi.sh`, docs/pi.md), run here as the Pi would run it.

On Raspberry Pi OS bookworm numpy (1.24), picamera2 and its compiled helpers (simplejpeg) are OS
packages, and the referee's venv sees them (`--system-site-packages`). A numpy 2 in the venv
shadows the OS's and breaks every extension built against it: picamera2 cannot import, the referee
cannot see. This machine's Debian bookworm stands in: its own /usr/bin/python3 (3.11, as on the
Pi), python3-numpy 1.24.2, and python3-scipy, whose compiled extensions are built against that
numpy as simplejpeg is (Debian has no python3-simplejpeg). The script runs below a scratch root
(`--root`: no apt-get, useradd or systemctl) with `--not-a-pi`, over a venv holding the numpy 2
that the old instructions (`pip install -e .`) put there; then the OS's extension is imported and
games are refereed inside the venv. Skipped, with that sentence, where Debian's python3 or its
packages are absent (`.ci/run` installs them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.service.config import load_config

pytestmark = pytest.mark.slow  # the Pi's install is made once for the module: minutes

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "install-pi.sh"
OS_PYTHON = Path("/usr/bin/python3")
PINS = ROOT / "pi" / "constraints.txt"
#: The numpy 2 the old instructions installed into the venv (opencv-python-headless 5 requires numpy>=2).
SHADOWING_NUMPY = "numpy==2.4.6"


def pinned() -> dict[str, str]:
    pins = {}
    for line in PINS.read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


PROBE = "import sys, ensurepip, venv, numpy, scipy.ndimage; print(sys.version[:4], numpy.__version__)"


def os_stack_missing() -> str | None:
    """Why the OS's side of the Pi cannot be stood in for here (None: it can)."""
    need = "Debian's /usr/bin/python3 3.11 with python3-numpy, python3-scipy and python3-venv (.ci/run installs them)"
    if not OS_PYTHON.exists() or shutil.which("dpkg-query") is None:
        return f"the Pi install check needs {need}: this is not such a Debian"
    probe = subprocess.run(
        [OS_PYTHON, "-c", PROBE],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"the Pi install check needs {need}: {probe.stderr.strip().splitlines()[-1]}"
    python, numpy = probe.stdout.split()
    if python != "3.11" or numpy != pinned()["numpy"]:
        return f"the Pi install check needs {need}; this one has Python {python} and numpy {numpy}"
    return None


MISSING = os_stack_missing()
needs_os_stack = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def install(root: Path, *options: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "SUDO_USER")}
    return subprocess.run(
        ["bash", str(SCRIPT), "--root", str(root), *options], capture_output=True, text=True, env=env, timeout=900
    )


def in_venv(root: Path, *command: str, timeout: float = 300) -> subprocess.CompletedProcess:
    venv = root / "opt" / "referee" / ".venv" / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    command = (str(venv / command[0]), *command[1:])
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def pi(tmp_path_factory):
    """(root, the first run, the import of the OS's extension before it): the script run over a
    venv made by the old instructions, whose numpy 2 shadows the OS's."""
    if MISSING:
        pytest.skip(MISSING)
    root = tmp_path_factory.mktemp("pi-root")
    venv = root / "opt" / "referee" / ".venv"
    subprocess.run([OS_PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    subprocess.run([venv / "bin" / "pip", "install", "--quiet", SHADOWING_NUMPY], check=True, capture_output=True)
    before = in_venv(root, "python", "-c", "import scipy.ndimage")
    first = install(root, "--not-a-pi")
    return root, first, before


@needs_os_stack
def test_the_old_install_broke_the_os_extensions_and_the_script_mends_it(pi):
    root, first, before = pi
    assert before.returncode != 0 and "numpy" in before.stderr, "a venv numpy 2 should break Debian's scipy"
    assert "removed the venv's own numpy" in first.stdout, first.stdout + first.stderr
    probe = in_venv(
        root,
        "python",
        "-c",
        "import json, numpy, scipy.ndimage, cv2\n"
        "blurred = scipy.ndimage.gaussian_filter(numpy.eye(9), 1.0)\n"  # the OS's compiled extension at work
        "dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)\n"
        "marker = cv2.aruco.generateImageMarker(dictionary, 2, 120)\n"
        "picture = numpy.full((240, 240), 255, numpy.uint8); picture[60:180, 60:180] = marker\n"
        "corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(picture)\n"
        "print(json.dumps([numpy.__version__, numpy.__file__, round(float(blurred.sum()), 6), ids.ravel().tolist()]))",
    )
    assert probe.returncode == 0, probe.stderr
    version, path, total, ids = json.loads(probe.stdout)
    assert version == pinned()["numpy"]
    assert path.startswith("/usr/lib/python3/dist-packages/"), path
    assert total == pytest.approx(9.0, abs=1e-3)
    assert ids == [2]


@needs_os_stack
# Blockers! as well: its simulated tiles are printed with letters that once came from OpenCV's own
# typeface, which differs between the Pi's OpenCV 4.11 and the development machine's 5.x.
@pytest.mark.parametrize("game", ["flipop", "blockers"])
def test_the_referee_plays_inside_the_pi_venv(pi, tmp_path, game):
    root, first, _ = pi
    assert "installed the referee into /opt/referee/.venv" in first.stdout, first.stdout + first.stderr
    played = in_venv(root, "referee", "demo", "--game", game)
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
    assert f"=== {game}:" in played.stdout


@needs_os_stack
def test_the_venv_holds_the_pinned_versions_and_no_numpy(pi):
    root, _, _ = pi
    listed = in_venv(root, "python", "-m", "pip", "list", "--local", "--format=json", "--disable-pip-version-check")
    assert listed.returncode == 0, listed.stderr
    own = {re.sub(r"[-_.]+", "-", p["name"]).lower(): p["version"] for p in json.loads(listed.stdout)}
    own.pop("tabletop-referee")
    pins = pinned()
    assert "numpy" not in own
    unpinned = {name: v for name, v in own.items() if pins.get(name) != v and name not in ("pip",)}
    assert not unpinned, f"installed at versions pi/constraints.txt does not pin: {unpinned}"
    os_has = subprocess.run(
        [
            OS_PYTHON,
            "-c",
            "import json, importlib.metadata as m; print(json.dumps({d.metadata['Name']: d.version "
            "for d in m.distributions()}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    os_versions = {re.sub(r"[-_.]+", "-", k).lower(): v for k, v in json.loads(os_has.stdout).items()}
    for name, version in pins.items():
        if name not in own:
            assert os_versions.get(name) == version, f"{name}=={version} is neither in the venv nor the OS's"


@needs_os_stack
def test_the_last_step_checks_lights_and_camera_and_says_what_next(pi):
    _, first, _ = pi
    out = first.stdout + first.stderr
    # Here there are no pins and no camera: both checks say so in a sentence, and the install says what next.
    assert first.returncode == 1, out
    assert "the lights test did not pass" in out and "cannot use GPIO" in out
    assert "the camera check says what to change" in out and "picamera2" in out
    assert "Next:" in first.stdout and "Traceback" not in out


@needs_os_stack
def test_the_config_names_the_pis_devices(pi):
    root, _, _ = pi
    config = load_config(root / "etc" / "referee" / "config.yaml")
    assert config.camera["source"] == "picamera"
    assert config.gpio.backend == "real"
    assert config.journal == Path("/var/lib/referee/journal.sqlite")
    rule = (root / "etc" / "udev" / "rules.d" / "99-referee-switches.rules").read_text()
    link = re.search(r'SYMLINK\+="([^"]+)"', rule).group(1)
    assert config.switches.source == "serial" and config.switches.port == f"/dev/{link}"
    assert (root / "usr" / "local" / "bin" / "referee").readlink() == Path("/opt/referee/.venv/bin/referee")


@needs_os_stack
def test_a_second_run_changes_nothing(pi):
    root, _, _ = pi

    def state() -> dict[str, tuple]:
        return {
            str(p.relative_to(root)): (p.stat().st_mtime_ns, p.stat().st_size, p.stat().st_mode)
            for p in root.rglob("*")
            if "__pycache__" not in p.parts and not p.is_symlink()
        }

    before = state()
    again = install(root, "--not-a-pi")
    assert again.returncode == 1, again.stdout + again.stderr  # the checks still find no pins nor camera here
    assert state() == before
    assert "unchanged: the referee in /opt/referee/.venv is this checkout's" in again.stdout


@needs_os_stack
@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is absent (Debian: systemd)")
def test_the_installed_unit_verifies_and_is_sandboxed(pi, tmp_path):
    root, _, _ = pi
    unit = (root / "etc" / "systemd" / "system" / "referee.service").read_text()
    # verify checks that ExecStart's program exists: point it at the venv below the scratch root.
    installed = str(root / "opt" / "referee" / ".venv" / "bin" / "referee")
    assert "ExecStart=/opt/referee/.venv/bin/referee run" in unit
    local = tmp_path / "referee.service"
    local.write_text(unit.replace("ExecStart=/opt/referee/.venv/bin/referee", f"ExecStart={installed}"))
    verified = subprocess.run(["systemd-analyze", "verify", str(local)], capture_output=True, text=True)
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr
    for directive in ("ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes"):
        assert f"\n{directive}\n" in unit
    assert "DevicePolicy=closed" in unit and "LimitNOFILE=" in unit
    # 9.2 (UNSAFE) with none of it; 1.5 (OK) with it: the threshold is in tenths.
    security = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--threshold=20", "--no-pager", str(local)],
        capture_output=True,
        text=True,
    )
    assert security.returncode == 0, security.stdout[-2000:] + security.stderr


def test_the_script_refuses_a_machine_that_is_not_a_pi(tmp_path):
    model = Path("/proc/device-tree/model")
    if model.exists() and "Raspberry Pi" in model.read_text(errors="replace"):
        pytest.skip("this machine is a Raspberry Pi")
    refused = install(tmp_path / "root")
    assert refused.returncode == 2
    assert "not installed, because this machine is not a Raspberry Pi" in refused.stderr
    assert "--not-a-pi" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "root").exists()
    unknown = install(tmp_path / "root", "--colour")
    assert unknown.returncode == 2 and "unknown option --colour" in unknown.stderr


def test_every_pinned_package_has_a_wheel_for_the_pi():
    """Every package the Pi installs, at its pinned version, has a wheel for CPython 3.11 on aarch64
    (nothing is compiled on a Pi), and pyproject.toml's dependencies are all pinned (PyPI is asked)."""
    checked = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "pi_constraints.py")], capture_output=True, text=True, timeout=600
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{len(pinned())} packages, each with a wheel for CPython 3.11 on aarch64" in checked.stdout
