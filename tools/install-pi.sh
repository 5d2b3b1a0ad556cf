#!/usr/bin/env bash
# Install the referee on a Raspberry Pi as a service, in one command (docs/pi.md):
#
#     sudo ./tools/install-pi.sh            # from a checkout of this repository
#
# Each step is done only when needed, so running it again changes nothing (after `git pull` it
# installs the new code and restarts the service):
#   1. the OS packages: python3-venv, python3-numpy, openssl, python3-picamera2, python3-lgpio
#   2. the `referee` user (groups gpio, video, dialout) and yours in the `referee` group
#   3. /opt/referee/.venv: the OS's Python 3.11 seeing the OS packages (picamera2, numpy), with
#      this checkout and the Pi's pinned packages (pi/constraints.txt: never a numpy of its own)
#   4. /etc/referee/config.yaml from pi/config.yaml, naming the camera found (never overwritten)
#   5. /etc/udev/rules.d/99-referee-switches.rules: the switch board as /dev/referee-switches
#   6. /etc/systemd/system/referee.service, enabled
#   7. a last check: `referee lights-test` and `referee aim` as the service would run them, then
#      the service (re)started, and what to do next
#
# Options:
#   --not-a-pi   go on although this is not a Raspberry Pi with 64-bit Raspberry Pi OS bookworm
#                (a test, or a Debian bookworm computer with a USB camera)
#   --root DIR   install below DIR instead of / and leave the system alone (no apt-get, useradd,
#                usermod, chown, udevadm, systemctl): how the test suite checks this script
#   --no-checks  leave out the lights test and the aim check
#
# Exit codes: 0 installed (and the checks passed); 1 installed, but a check or the config says
# what to fix; 2 refused (not a Pi, not root, an unknown option); 3 a step failed (it says which).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=/usr/bin/python3
PYTHON_WANTED=3.11
ROOT=""
NOT_A_PI=0
CHECKS=1

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --not-a-pi) NOT_A_PI=1 ;;
        --no-checks) CHECKS=0 ;;
        --root)
            [ $# -ge 2 ] || { echo "install-pi: --root needs a folder" >&2; exit 2; }
            ROOT=$(realpath -m "$2")
            shift
            ;;
        --root=*) ROOT=$(realpath -m "${1#--root=}") ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install-pi: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

PREFIX=/opt/referee
VENV=$PREFIX/.venv
ETC=/etc/referee
CONFIG=$ETC/config.yaml
UNIT=/etc/systemd/system/referee.service
RULE=/etc/udev/rules.d/99-referee-switches.rules
STATE=/var/lib/referee
LINK=/usr/local/bin/referee
CHANGED=0      # something on the system changed in this run: the service restarts, the checks run
PROBLEMS=0     # installed, but something needs the person's attention (exit code 1)

say() { printf '%s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }
changed() { CHANGED=1; say "  $*"; }
problem() { PROBLEMS=1; say "  ! $*"; }
fail() { say "install-pi: $*" >&2; exit 3; }
trap 'fail "the step above stopped with an error (line $LINENO): nothing after it was done; run the script again once it is fixed"' ERR

# A command that changes the system; with --root it is only shown.
system() {
    if [ -n "$ROOT" ]; then
        say "  skipped (--root): $*"
    else
        "$@"
    fi
}

# Install a file when its content or mode differs: install_file SOURCE DEST MODE [OWNER:GROUP]
install_file() {
    local src=$1 dest=$ROOT$2 mode=$3 owner=${4:-root:root}
    if [ -f "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c %a "$dest")" = "${mode#0}" ]; then
        say "  unchanged: $2"
        return 1
    fi
    install -D -m "$mode" "$src" "$dest"
    [ -n "$ROOT" ] || chown "$owner" "$dest"
    changed "installed: $2"
}

# A folder with its mode (and owner, not with --root): make_dir PATH MODE [OWNER:GROUP]
make_dir() {
    local dir=$ROOT$1 mode=$2 owner=${3:-root:root}
    if [ -d "$dir" ] && [ "$(stat -c %a "$dir")" = "${mode#0}" ] \
        && { [ -n "$ROOT" ] || [ "$(stat -c %U:%G "$dir")" = "$owner" ]; }; then
        return 0
    fi
    install -d -m "$mode" "$dir"
    [ -n "$ROOT" ] || chown "$owner" "$dir"
    if [ -n "$ROOT" ]; then changed "folder: $1 ($mode)"; else changed "folder: $1 ($mode, $owner)"; fi
}

# --- 0. is this the machine the script is for? ---------------------------------------------------
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    say "install-pi: run it as root: sudo $0 $*" >&2
    exit 2
fi
model=$( { tr -d '\0' </proc/device-tree/model; } 2>/dev/null || true)
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-unknown}")
why_not=()
if [[ "$model" != *"Raspberry Pi"* ]]; then
    why_not+=("this machine is not a Raspberry Pi (/proc/device-tree/model: ${model:-none})")
elif [ "$arch" != arm64 ]; then
    why_not+=("this Pi runs the $arch system: install the 64-bit Raspberry Pi OS (arm64), as OpenCV has no wheels for 32-bit ARM")
fi
[ "$codename" = bookworm ] || why_not+=("Raspberry Pi OS bookworm is needed, this is $codename (pi/constraints.txt pins the packages for bookworm's Python 3.11 and numpy 1.24)")
if [ ${#why_not[@]} -gt 0 ]; then
    if [ "$NOT_A_PI" -eq 0 ]; then
        say "install-pi: not installed, because ${why_not[0]}." >&2
        for reason in "${why_not[@]:1}"; do say "  Also: $reason." >&2; done
        say "  To install anyway (a test, or a Debian bookworm computer with a USB camera), add --not-a-pi." >&2
        exit 2
    fi
    say "Going on although ${why_not[*]} (--not-a-pi)."
fi
IS_PI=0
[[ "$model" == *"Raspberry Pi"* ]] && IS_PI=1
say "Installing the referee from $SRC${ROOT:+ below $ROOT (--root: the system itself is left alone)}."

# --- 1. OS packages -------------------------------------------------------------------------------
step "1. OS packages"
wanted=(python3-venv python3-numpy openssl espeak-ng)  # espeak-ng: the voice (config.yaml's voice:)
for optional in python3-picamera2 python3-lgpio; do
    # the camera and GPIO packages come from Raspberry Pi OS's own archive; elsewhere they may not exist
    if [ "$IS_PI" -eq 1 ] || apt-cache show "$optional" >/dev/null 2>&1; then
        wanted+=("$optional")
    else
        say "  not in this system's archive (Raspberry Pi OS has it): $optional"
    fi
done
missing=()
for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q '^install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    say "  unchanged: ${wanted[*]}"
else
    say "  installing ${missing[*]}"
    system apt-get update -qq
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    [ -n "$ROOT" ] || CHANGED=1
fi
if ! "$PYTHON" -c "import sys; assert sys.version.startswith('$PYTHON_WANTED.')" 2>/dev/null; then
    say "install-pi: $PYTHON is not Python $PYTHON_WANTED (bookworm's), which pi/constraints.txt is made for: not installed." >&2
    exit 2
fi
os_numpy=$("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo none)
pinned_numpy=$(sed -n 's/^numpy==\([^ ]*\).*/\1/p' "$SRC/pi/constraints.txt")
if [ "$os_numpy" != "$pinned_numpy" ]; then
    say "install-pi: the OS's numpy is $os_numpy, pi/constraints.txt is made for bookworm's $pinned_numpy (python3-numpy): not installed." >&2
    exit 2
fi

# --- 2. the referee user and its groups -----------------------------------------------------------
step "2. The referee user"
if id referee >/dev/null 2>&1; then
    say "  unchanged: user referee"
else
    system useradd --system --user-group --home-dir "$STATE" --no-create-home --shell /usr/sbin/nologin referee
    [ -n "$ROOT" ] || changed "user referee created"
fi
# gpio: the pins (/dev/gpiochip*); video: the camera (/dev/video*, /dev/media*, /dev/dma_heap/*);
# dialout: the switch board's USB serial port. Groups this system lacks are left out.
for group in gpio video dialout; do
    if ! getent group "$group" >/dev/null; then
        say "  no group $group on this system: left out"
    elif id -nG referee 2>/dev/null | tr ' ' '\n' | grep -qx "$group"; then
        say "  unchanged: referee is in group $group"
    else
        system usermod -aG "$group" referee
        [ -n "$ROOT" ] || changed "referee added to group $group"
    fi
done
admin=${SUDO_USER:-}
if [ -n "$admin" ] && [ "$admin" != root ]; then
    if id -nG "$admin" 2>/dev/null | tr ' ' '\n' | grep -qx referee; then
        say "  unchanged: $admin is in group referee"
    else
        system usermod -aG referee "$admin"
        [ -n "$ROOT" ] || changed "$admin added to group referee (for referee status, new-game, ...; log in again for it to count)"
    fi
fi

# --- 3. the venv ----------------------------------------------------------------------------------
step "3. The Python environment $VENV"
venv=$ROOT$VENV
cfg=$venv/pyvenv.cfg
if [ -f "$cfg" ] && ! { grep -qx 'include-system-site-packages = true' "$cfg" && grep -qx "home = $(dirname "$PYTHON")" "$cfg"; }; then
    rm -rf "$venv"
    changed "the old venv did not see the OS's packages through $PYTHON: made again"
fi
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$(dirname "$venv")"
    "$PYTHON" -m venv --system-site-packages "$venv"
    changed "made $VENV ($PYTHON, seeing the OS's packages)"
fi
own_numpy=$(find "$venv"/lib/python3*/site-packages -maxdepth 1 -name numpy -type d 2>/dev/null | head -1)
if [ -n "$own_numpy" ]; then
    "$venv/bin/pip" uninstall --quiet --yes numpy
    changed "removed the venv's own numpy (an install of the old instructions): it shadowed the OS's and broke picamera2"
fi
# What goes into the venv: the packages and what building them reads; copied, so that pip's build
# leaves the checkout as it was. The fingerprint says whether the installed code is this code.
parts=(pyproject.toml README.md pi/constraints.txt controller calibration firmware_bridge simulation)
fingerprint=$(cd "$SRC" && find "${parts[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 \
    | sort -z | xargs -0 sha256sum | { cat; "$PYTHON" --version; echo "numpy $os_numpy"; } | sha256sum | cut -d' ' -f1)
stamp=$venv/.referee-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fingerprint" ]; then
    say "  unchanged: the referee in $VENV is this checkout's"
else
    build=$(mktemp -d)
    (cd "$SRC" && tar --exclude=__pycache__ --exclude='*.pyc' -cf - "${parts[@]}") | tar -C "$build" -xf -
    say "  installing this checkout with pi/constraints.txt (a minute or two the first time)"
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -c "$SRC/pi/constraints.txt" "$build" \
        > "$build/pip.log" 2>&1; then
        grep -v 'is ignored: it is neither' "$build/pip.log" | tail -20 >&2
        fail "pip could not install the referee into $VENV (its messages are above)"
    fi
    rm -rf "$build"
    echo "$fingerprint" >"$stamp"
    changed "installed the referee into $VENV"
fi
# The promise of this whole step: the OS's numpy (with picamera2 and its compiled helpers), OpenCV
# with the ArUco detector the reader uses, and the referee, all importable together.
import_check='
import numpy, cv2
assert numpy.__file__.startswith("/usr/lib/python3/"), "numpy comes from " + numpy.__file__ + ", not from the OS"
cv2.aruco.ArucoDetector
import controller.cli
'
[ "$IS_PI" -eq 1 ] && import_check+='
from picamera2 import Picamera2
'
if ! check_out=$("$venv/bin/python" -c "$import_check" 2>&1); then
    say "$check_out" | tail -5 >&2
    fail "the venv does not import what the referee needs (above)"
fi
say "  checked: numpy $os_numpy (the OS's), OpenCV $("$venv/bin/python" -c 'import cv2; print(cv2.__version__)') with ArUco$([ "$IS_PI" -eq 1 ] && echo ", picamera2") and the referee import together"
if [ "$(readlink "$ROOT$LINK" 2>/dev/null || true)" != "$VENV/bin/referee" ]; then
    mkdir -p "$(dirname "$ROOT$LINK")"
    ln -sfn "$VENV/bin/referee" "$ROOT$LINK"
    changed "$LINK -> $VENV/bin/referee"
else
    say "  unchanged: $LINK"
fi
install_file "$SRC/docs/pi.md" "$PREFIX/pi.md" 0644 || true

# --- 4. the configuration -------------------------------------------------------------------------
step "4. The configuration $CONFIG"
make_dir "$ETC" 0755 root:referee
make_dir "$ETC/profiles" 0775 referee:referee
make_dir "$ETC/web" 0750 referee:referee   # web.https: the certificate the referee makes, and its key
make_dir "$STATE" 0750 referee:referee
if [ -f "$ROOT$CONFIG" ]; then
    say "  unchanged: $CONFIG (yours: never overwritten; pi/config.yaml is the template)"
else
    camera="picamera"
    found=""
    if [ -z "$ROOT" ]; then
        count=$("$venv/bin/python" -c 'from picamera2 import Picamera2; print(len(Picamera2.global_camera_info()))' 2>/dev/null || echo 0)
        usb=$(ls /dev/v4l/by-id/*-video-index0 2>/dev/null | head -1 || true)
        if [[ "$count" =~ ^[1-9][0-9]*$ ]]; then
            found="the camera module"
        elif [ -n "$usb" ]; then
            camera="usb"
            found="the USB camera $usb"
        fi
    fi
    tmp=$(mktemp)
    if [ "$camera" = usb ]; then
        sed -e 's|^  source: picamera .*|  source: usb             # found when installing|' \
            -e "s|^  device: 0 .*|  device: $usb|" "$SRC/pi/config.yaml" >"$tmp"
    else
        cp "$SRC/pi/config.yaml" "$tmp"
    fi
    install -m 0660 "$tmp" "$ROOT$CONFIG"
    rm -f "$tmp"
    [ -n "$ROOT" ] || chown root:referee "$ROOT$CONFIG"
    changed "written: $CONFIG (camera: ${found:-none found now, so the camera module; for a USB camera set camera.source: usb})"
fi
config_check='
import sys
from controller.errors import RefereeError
from controller.service.config import load_config
try:
    load_config(sys.argv[1])
except RefereeError as exc:
    sys.exit(str(exc))
'
if ! config_problem=$("$venv/bin/python" -c "$config_check" "$ROOT$CONFIG" 2>&1); then
    problem "$CONFIG does not load: $config_problem"
fi

# --- 5. the switch board's stable name ------------------------------------------------------------
step "5. The switch board's name /dev/referee-switches"
if install_file "$SRC/pi/99-referee-switches.rules" "$RULE" 0644; then
    system udevadm control --reload-rules
    system udevadm trigger --action=add --subsystem-match=tty
fi

# --- 6. the service -------------------------------------------------------------------------------
step "6. The service referee.service"
if install_file "$SRC/systemd/referee.service" "$UNIT" 0644; then
    system systemctl daemon-reload
fi
if [ -z "$ROOT" ] && systemctl is-enabled --quiet referee 2>/dev/null; then
    say "  unchanged: enabled (starts at boot)"
else
    system systemctl enable --quiet referee
    [ -n "$ROOT" ] || changed "enabled (starts at boot)"
fi

# --- 7. the last check, and what next -------------------------------------------------------------
step "7. Lights, sound and camera"
active=0
[ -z "$ROOT" ] && systemctl is-active --quiet referee 2>/dev/null && active=1
as_service=(runuser -u referee --)
[ -n "$ROOT" ] && as_service=()
referee_cmd="sudo -u referee $LINK"
if [ "$CHECKS" -eq 0 ]; then
    say "  left out (--no-checks)"
elif [ "$active" -eq 1 ] && [ "$CHANGED" -eq 0 ]; then
    say "  the referee is running and nothing changed, so nothing was checked; to check again:"
    say "    sudo systemctl stop referee && $referee_cmd lights-test --config $CONFIG && $referee_cmd aim --config $CONFIG; sudo systemctl start referee"
else
    [ "$active" -eq 1 ] && system systemctl stop referee
    say "  Watch the lights and listen: each step says what should happen; press and hold the button when asked."
    if "${as_service[@]}" "$venv/bin/referee" lights-test --config "$ROOT$CONFIG"; then
        say "  lights test: done (did every step do what it said? if not, see firmware_bridge/WIRING.md and gpio.pins)"
    else
        problem "the lights test did not pass (above); fix the wiring or gpio: in $CONFIG, then run: $referee_cmd lights-test --config $CONFIG"
    fi
    if "${as_service[@]}" "$venv/bin/referee" aim --config "$ROOT$CONFIG"; then
        say "  camera: the board is well in view"
    else
        problem "the camera check says what to change (above); then run: $referee_cmd aim --config $CONFIG"
    fi
fi
if [ "$active" -eq 1 ] && [ "$CHANGED" -eq 0 ]; then
    :
elif [ "$active" -eq 1 ] || [ "$CHANGED" -eq 1 ]; then
    system systemctl restart referee
    [ -n "$ROOT" ] || say "  the service is (re)started"
else
    system systemctl start referee
fi

host=$(hostname 2>/dev/null || echo raspberrypi)
cat <<EOF

Next:
  1. Choose the game and the players, and check the pins, in $CONFIG
     (sudo nano $CONFIG), then: sudo systemctl restart referee
  2. Aim the camera until \`referee aim --config $CONFIG\` (or the live page's setup panel)
     says the board is well in view.
  3. Teach the referee your copy's colours: the live page's "Calibrate from the live camera", or
     sudo systemctl stop referee && $referee_cmd setup calibrate --game GAME --config $CONFIG --name my-copy
  4. Play: the live page is http://$host.local:8080/ (its PIN: journalctl -u referee | grep PIN);
     the verdicts: journalctl -u referee -f;  referee status
  Everything about the Pi: $PREFIX/pi.md (docs/pi.md in the repository).
EOF
if [ "$PROBLEMS" -eq 1 ]; then
    say "Installed, but see the lines marked ! above."
    exit 1
fi
say "Installed."
