"""`config.yaml`: what the service referees and with which devices, checked before anything starts.

The game keys (game, variant, players, first, seats, secrets, targets, profile) are the keys of a
game record, so they are checked by `controller.record.setup_from_mapping` and stored as they are
in the journal; the `camera:`, `gpio:` and `switches:` sections belong to vision and hardware and
are checked by their own validators. Every error names the key and what was expected.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from controller.club.config import MqttConfig, validate_mqtt
from controller.errors import ConfigError, RefereeError
from controller.games import engine_for, registry
from controller.games.base import GameSetup
from controller.hardware.config import GpioConfig, SwitchConfig, validate_gpio, validate_switches
from controller.record import setup_from_mapping

GAME_KEYS = ("game", "variant", "players", "first", "seats", "secrets", "targets", "profile")
SERVICE_KEYS = (
    "settle_time",
    "frame_timeout",
    "journal",
    "control_socket",
    "camera",
    "switches",
    "gpio",
    "log",
    "simulation",
    "mqtt",
    "web",
)
LOG_LEVELS = ("debug", "info", "warning", "error")
#: Where systemd's `RuntimeDirectory=referee` puts the socket (the unit in systemd/referee.service).
SYSTEM_SOCKET = Path("/run/referee/control.sock")
SOCKET_NAME = "control.sock"


def default_control_socket() -> Path:
    """The control socket when config.yaml names none: always inside a private runtime folder.

    Why not /tmp: anyone may create a file there, so another user could take the path first.
    Under systemd `RUNTIME_DIRECTORY` is /run/referee (group referee, 0770); a desktop session has
    `XDG_RUNTIME_DIR` (the user's own 0700 folder); otherwise a per-user folder that the server
    creates with mode 0700 and checks is the user's own (`private_fallback_folder`).
    """
    runtime = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if runtime:
        return Path(runtime) / SOCKET_NAME
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "referee" / SOCKET_NAME
    return private_fallback_folder() / SOCKET_NAME


def private_fallback_folder() -> Path:
    """A per-user folder for the socket on systems without a runtime folder (like tmux's /tmp/tmux-UID)."""
    return Path(tempfile.gettempdir()) / f"referee-{os.getuid()}"


def control_socket_setting(data: dict, base: Path, source: str) -> Path:
    """config.yaml's `control_socket:` (relative to the file), or the default when absent or null."""
    if data.get("control_socket") is None:
        return default_control_socket()
    return _path(data, "control_socket", "", base, source)


@dataclass(frozen=True)
class SimulationConfig:
    """The simulated player of `referee run` with simulated devices (ignored with real ones)."""

    player: bool
    seed: int
    move_every: float


@dataclass(frozen=True)
class WebConfig:
    """The live page (`controller.web`): where it listens and the PIN its controls need (None: a random one)."""

    enabled: bool = True
    host: str = "0.0.0.0"
    port: int = 8080
    pin: str | None = None


@dataclass(frozen=True)
class ServiceConfig:
    source: str
    game_keys: dict[str, Any]
    setup: GameSetup
    settle_time: float
    frame_timeout: float
    journal: Path
    control_socket: Path
    camera: dict[str, Any]
    switches: SwitchConfig
    gpio: GpioConfig
    log_level: str
    log_file: Path | None
    simulation: SimulationConfig
    #: Where the table publishes for the club (`controller/club`); None: it publishes nothing.
    mqtt: MqttConfig | None = None
    web: WebConfig = WebConfig()

    @property
    def uses_switches(self) -> bool:
        return registry.get(self.setup.game).uses_switches


def load_config(path: str | Path) -> ServiceConfig:
    """Read and check a config file; relative paths in it are relative to the file."""
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except OSError as exc:
        raise RefereeError(f"cannot read the config file {file}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RefereeError(f"{file}: not valid YAML: {exc}") from None
    return config_from_mapping(data, source=str(file), base=file.parent)


def _number(data: dict, key: str, default: float, low: float, high: float, source: str) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(key, f"expected a number of seconds, got {value!r}", source)
    if not low <= value <= high:
        raise ConfigError(key, f"expected {low} to {high} seconds, got {value}", source)
    return float(value)


def _path(data: dict, key: str, default: str, base: Path, source: str) -> Path:
    value = data.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, f"expected a file path, got {value!r}", source)
    p = Path(os.path.expanduser(value))
    return p if p.is_absolute() else base / p


def _mapping(data: dict, key: str, source: str) -> dict:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(key, f"expected a section of 'name: value' settings, got {value!r}", source)
    return value


def _sub(exc: ConfigError, source: str, prefix: str = "") -> ConfigError:
    """A hardware/vision validator's error, re-labelled with the config file's name."""
    key = exc.key if exc.key.startswith(prefix) else f"{prefix}{exc.key}"
    message = str(exc).split(f"key '{exc.key}': ", 1)[-1]
    return ConfigError(key, message, source)


def validate_camera_section(section: dict, source: str) -> dict:
    """The `camera:` section, checked by vision's own validator."""
    from controller.vision.sources import validate_camera

    try:
        return validate_camera(section)
    except ConfigError as exc:
        raise _sub(exc, source, "camera.") from None


def config_from_mapping(data: Any, source: str = "config.yaml", base: Path | None = None) -> ServiceConfig:
    """Check a parsed config file; `base` is the folder relative paths start from."""
    base = base or Path.cwd()
    if not isinstance(data, dict):
        raise ConfigError("game", "the config file should be a set of 'name: value' settings", source)
    for key in data:
        if key not in GAME_KEYS + SERVICE_KEYS:
            raise ConfigError(
                str(key), f"is not a known setting; the settings are {', '.join(GAME_KEYS + SERVICE_KEYS)}", source
            )
    game_keys = {k: data[k] for k in GAME_KEYS if k in data and data[k] is not None}
    if "game" not in game_keys:
        raise ConfigError("game", f"is required: one of {', '.join(registry.names())}", source)
    if isinstance(game_keys.get("profile"), str):
        profile_path = Path(os.path.expanduser(game_keys["profile"]))
        game_keys["profile"] = str(profile_path if profile_path.is_absolute() else base / profile_path)
    setup = setup_from_mapping(game_keys, source)
    try:
        engine_for(setup)  # the engine checks players, seats and variant against each other
    except ConfigError as exc:
        raise _sub(exc, source) from None

    try:
        switches = validate_switches(data.get("switches"))
        gpio = validate_gpio(data.get("gpio"))
    except ConfigError as exc:
        raise _sub(exc, source) from None
    if registry.get(setup.game).uses_switches and switches.source == "none":
        raise ConfigError(
            "switches.source",
            "Stay Alive needs the slide switches: use serial (a real switch board) or simulated",
            source,
        )
    camera = validate_camera_section(_mapping(data, "camera", source), source)

    log = _mapping(data, "log", source)
    for key in log:
        if key not in ("level", "file"):
            raise ConfigError(f"log.{key}", "is not a known setting; the settings are level, file", source)
    level = log.get("level", "info")
    if level not in LOG_LEVELS:
        raise ConfigError("log.level", f"expected one of {', '.join(LOG_LEVELS)}, got {level!r}", source)
    log_file = _path(log, "file", "-", base, source) if log.get("file") not in (None, "-") else None

    sim = _mapping(data, "simulation", source)
    for key in sim:
        if key not in ("player", "seed", "move_every"):
            raise ConfigError(
                f"simulation.{key}", "is not a known setting; the settings are player, seed, move_every", source
            )
    player = sim.get("player", True)
    if not isinstance(player, bool):
        raise ConfigError("simulation.player", f"expected true or false, got {player!r}", source)
    seed = sim.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError("simulation.seed", f"expected a whole number, got {seed!r}", source)
    try:
        move_every = _number(sim, "move_every", 2.0, 0.5, 600.0, source)
    except ConfigError as exc:
        raise ConfigError("simulation.move_every", str(exc).split(": ", 2)[-1], source) from None

    web = _web_section(_mapping(data, "web", source), source)

    return ServiceConfig(
        source=source,
        game_keys=game_keys,
        setup=setup,
        settle_time=_number(data, "settle_time", 0.3, 0.05, 5.0, source),
        frame_timeout=_number(data, "frame_timeout", 2.0, 0.2, 60.0, source),
        journal=_path(data, "journal", "referee-journal.sqlite", base, source),
        control_socket=control_socket_setting(data, base, source),
        camera=camera,
        switches=switches,
        gpio=gpio,
        log_level=level,
        log_file=log_file,
        simulation=SimulationConfig(player=player, seed=seed, move_every=move_every),
        mqtt=validate_mqtt(data.get("mqtt"), base, source, setup.players),
        web=web,
    )


def _web_section(web: dict, source: str) -> WebConfig:
    for key in web:
        if key not in ("enabled", "host", "port", "pin"):
            raise ConfigError(f"web.{key}", "is not a known setting; the settings are enabled, host, port, pin", source)
    enabled = web.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError("web.enabled", f"expected true or false, got {enabled!r}", source)
    host = web.get("host", "0.0.0.0")
    if not isinstance(host, str) or not host.strip():
        raise ConfigError("web.host", f"expected an address to listen on (0.0.0.0: all), got {host!r}", source)
    port = web.get("port", 8080)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError("web.port", f"expected a port number 1-65535 (0: any free port), got {port!r}", source)
    pin = web.get("pin")
    if pin is not None:
        pin = str(pin)
        if not (4 <= len(pin) <= 12 and pin.isdigit()):
            raise ConfigError(
                "web.pin", f"expected 4 to 12 digits (or null: a random PIN at each start), got {pin!r}", source
            )
    return WebConfig(enabled=enabled, host=host, port=port, pin=pin)
