"""`config.yaml`: what the service referees and with which devices, checked before anything starts.

The whole file is one model (`ConfigFile`), each section declared once beside the code it
configures: `camera:` in vision (`CameraSection`), `gpio:` and `switches:` in hardware, `mqtt:` in
the club, `log:`, `simulation:` and `web:` here. The game keys (game, variant, players, first,
seats, secrets, targets, profile) are the keys of a game record, so they are checked by
`controller.record.setup_from_mapping` and stored as they are in the journal; so is `computer`
(the seats the computer plays, `controller.ai.table`), though a record does not need it. Every error names
the key and what was expected.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator

from controller.ai.table import check_coach, computer_levels
from controller.club.config import MqttConfig, validate_mqtt
from controller.errors import ConfigError
from controller.files import load_yaml
from controller.games import registry
from controller.games.base import GameSetup
from controller.games.registry import engine_for
from controller.hardware.config import GpioConfig, SwitchConfig
from controller.language import LANGUAGES, _, literal
from controller.record import setup_from_mapping
from controller.schema import Section, checked, choice, file_path, seconds, sentence, validate
from controller.service.pictures import PictureSettings
from controller.service.voice import DEFAULT_EVENTS, EVENTS
from controller.vision.sources import CameraSection

GAME_KEYS = ("game", "variant", "players", "first", "seats", "secrets", "targets", "profile", "computer", "coach")
LOG_LEVELS = ("debug", "info", "warning", "error")
#: Where systemd's `RuntimeDirectory=referee` puts the socket (the unit in systemd/referee.service).
SYSTEM_SOCKET = Path("/run/referee/control.sock")
SOCKET_NAME = "control.sock"
#: A host name or an address in `web.hosts`.
HOST_NAME = re.compile(r"[A-Za-z0-9.:-]{1,253}")


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
    return validate(_ControlSocket, {"control_socket": data["control_socket"]}, source, context={"base": base}).path


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise sentence(_("expected true or false, got {value}", value=literal(repr(value))))
    return value


def _whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise sentence(_("expected a whole number, got {value}", value=literal(repr(value))))
    return value


Flag = Annotated[bool, checked(_flag)]
FilePath = Annotated[Path, checked(file_path)]


class _ControlSocket(Section):
    control_socket: FilePath

    @property
    def path(self) -> Path:
        return self.control_socket


def _optional_path(value: Any, info: ValidationInfo) -> Path | None:
    return None if value is None else file_path(value, info)


def _log_file(value: Any, info: ValidationInfo) -> Path | None:
    return None if value in (None, "-") else file_path(value, info)


class LogSection(Section):
    """Where the referee's log goes (`file: -` or none: stderr, which systemd keeps) and how much of it."""

    level: Annotated[str, choice(*LOG_LEVELS)] = "info"
    file: Annotated[Path | None, checked(_log_file)] = None


class SimulationConfig(Section):
    """The simulated player of `referee run` with simulated devices (ignored with real ones)."""

    player: Flag = True
    seed: Annotated[int, checked(_whole)] = 0
    move_every: Annotated[float, seconds(0.5, 600.0)] = 2.0


def _host(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise sentence(_("expected an address to listen on (0.0.0.0: all), got {value}", value=literal(repr(value))))
    return value


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise sentence(_("expected a port number 1-65535 (0: any free port), got {value}", value=literal(repr(value))))
    return value


def _pin(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        # `pin: 0123` reaches here as 83 (YAML reads a number with a leading 0 as octal), `pin: 0012` as 10:
        # the digits written cannot be known, so a number is never taken as a PIN
        raise sentence(
            _(
                'write the PIN in quotes, e.g. pin: "048061": unquoted it is read as the number {value}, and YAML '
                "changes numbers that start with 0 (0123 becomes 83)",
                value=literal(str(value)),
            )
        )
    if not isinstance(value, str):
        raise sentence(
            _(
                "expected 6 to 12 digits in quotes (or null: a random PIN at each start), got {value}",
                value=literal(repr(value)),
            )
        )
    pin = value
    if not (pin.isascii() and pin.isdigit() and len(pin) <= 12):
        raise sentence(
            _("expected 6 to 12 digits (or null: a random PIN at each start), got {value}", value=literal(repr(pin)))
        )
    # the page's guard says which PINs are weak; imported here because it loads aiohttp, which
    # reading a config file never needs otherwise
    from controller.guard import weak_pin

    weak = weak_pin(pin)
    if weak is not None:
        raise sentence(
            _(
                "the PIN {pin} is too easy to guess: {why}; choose 6 to 12 digits that are not one digit repeated, "
                "not in sequence and not a short pattern repeated, in quotes (or null: a random PIN at each start)",
                pin=literal(pin),
                why=weak,
            )
        )
    return pin


def _hosts(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(h, str) and HOST_NAME.fullmatch(h.strip("[]")) for h in value):
        raise sentence(
            _(
                "expected a list of the names and addresses people use to reach this table's page, e.g. "
                "[table-3.club.example, 192.168.1.23], got {value}",
                value=literal(repr(value)),
            )
        )
    return tuple(value)


def _whole_in(low: int, high: int, what: Any) -> BeforeValidator:
    """A whole number from `low` to `high`: `Annotated[int, _whole_in(8, 64, _("pixels per place"))]`."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise sentence(
                _(
                    "expected {what}, a whole number from {low} to {high}, got {value}",
                    what=what,
                    low=low,
                    high=high,
                    value=literal(repr(value)),
                )
            )
        return value

    return checked(check)


def _limit(what: Any) -> BeforeValidator:
    """A positive number of `what`, or None (null: no limit): `Annotated[float | None, _limit("days")]`."""

    def check(value: Any) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise sentence(
                _(
                    "expected a number of {what} above 0 (or null: no limit), got {value}",
                    what=what,
                    value=literal(repr(value)),
                )
            )
        return float(value)

    return checked(check)


class PicturesSection(Section):
    """The picture behind every verdict (`controller.service.pictures`): kept or not, its size and
    quality, and how old pictures are pruned (by age, then by the space they take all together)."""

    keep: Flag = True
    pixels_per_place: Annotated[int, _whole_in(8, 64, _("pixels per place"))] = 20
    quality: Annotated[int, _whole_in(30, 95, _("a JPEG quality"))] = 60
    max_age_days: Annotated[float | None, _limit(_("days"))] = 365.0
    max_megabytes: Annotated[float | None, _limit(_("megabytes"))] = 200.0

    def settings(self) -> PictureSettings:
        return PictureSettings(self.keep, self.pixels_per_place, self.quality, self.max_age_days, self.max_megabytes)


class WebConfig(Section):
    """The live page (`controller.web`): where it listens and the PIN its controls need (None: a random one).

    `hosts`: names and addresses the page answers to besides this machine's own names (localhost,
    its host name and `<host>.local`) and the address a client connected to (`controller.guard`).
    """

    enabled: Flag = True
    host: Annotated[str, checked(_host)] = "0.0.0.0"
    port: Annotated[int, checked(_port)] = 8080
    pin: Annotated[str | None, checked(_pin)] = None
    hosts: Annotated[tuple[str, ...], checked(_hosts)] = ()
    #: Serve the page over HTTPS (the PIN then never crosses the network in clear), with this
    #: certificate and key; the referee makes a self-signed pair there at the first start when
    #: neither file exists (`controller/web/https.py`).
    https: Flag = False
    certificate: FilePath = Field(default="web/cert.pem", validate_default=True)
    key: FilePath = Field(default="web/key.pem", validate_default=True)


def _voice_language(value: Any) -> str | None:
    if value is not None and value not in LANGUAGES:
        raise sentence(
            _(
                "expected one of {languages} (or null: the table's language), got {value}",
                languages=literal(", ".join(LANGUAGES)),
                value=literal(repr(value)),
            )
        )
    return value


def _voice_events(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not value or any(e not in EVENTS for e in value):
        raise sentence(
            _(
                "expected a list of what the voice says, from {events}; got {value}",
                events=literal(", ".join(EVENTS)),
                value=literal(repr(value)),
            )
        )
    return tuple(dict.fromkeys(value))


def _percent(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise sentence(_("expected a whole number from 0 to 100, got {value}", value=literal(repr(value))))
    return value


def _rate(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 80 <= value <= 400:
        raise sentence(
            _("expected words a minute, a whole number from 80 to 400, got {value}", value=literal(repr(value)))
        )
    return value


class VoiceConfig(Section):
    """The table's voice (`controller.service.voice`): off unless enabled; what it says, in which
    language (null: the table's), how loud (0-100) and fast (words a minute). `to_files`: null plays on
    the sound card; a folder keeps each sentence there as a WAV file instead (a table without a speaker,
    the tests: the sound card simulated at its boundary)."""

    enabled: Flag = False
    language: Annotated[str | None, checked(_voice_language)] = None
    events: Annotated[tuple[str, ...], checked(_voice_events)] = DEFAULT_EVENTS
    volume: Annotated[int, checked(_percent)] = 80
    rate: Annotated[int, checked(_rate)] = 160
    to_files: Annotated[Path | None, checked(_optional_path)] = None


class ConfigFile(Section):
    """Every key of config.yaml; the game keys are a game record's, checked by `setup_from_mapping`."""

    game: Any = None
    variant: Any = None
    players: Any = None
    first: Any = None
    seats: Any = None
    secrets: Any = None
    targets: Any = None
    profile: Any = None
    #: The seats the computer plays: one entry per seat, null for a person or a level (`controller.ai.table`).
    computer: Any = None
    #: false: a table that plays without help (no hints, no legal moves shown).
    coach: Any = None
    settle_time: Annotated[float, seconds(0.0, 5.0)] = 0.0
    patience: Annotated[float, seconds(0.2, 30.0)] = 1.5
    resolve_doubt: Flag = True
    frame_timeout: Annotated[float, seconds(0.2, 60.0)] = 2.0
    journal: FilePath = Field(default="referee-journal.sqlite", validate_default=True)
    control_socket: Annotated[Path | None, checked(_optional_path)] = None
    camera: CameraSection = CameraSection()
    switches: SwitchConfig = SwitchConfig()
    gpio: GpioConfig = GpioConfig()
    log: LogSection = LogSection()
    simulation: SimulationConfig = SimulationConfig()
    #: Checked once the number of players is known (its `names:` has one per seat).
    mqtt: Any = None
    web: WebConfig = WebConfig()
    #: The table's language: the log, the lights' spoken words, the page until a browser asks for another.
    language: Annotated[str, choice(*LANGUAGES)] = "en"
    voice: VoiceConfig = VoiceConfig()
    pictures: PicturesSection = PicturesSection()

    @model_validator(mode="after")
    def _across_sections(self) -> ConfigFile:
        """What spans several keys: patience against settle_time, the switches a game needs."""
        if self.patience < self.settle_time:
            raise sentence(
                _(
                    "expected at least settle_time ({settle} seconds): an illegal-looking board cannot be called "
                    "before a legal one is confirmed, got {patience}",
                    settle=self.settle_time,
                    patience=self.patience,
                ),
                key="patience",
            )
        if registry.known(self.game) and registry.get(self.game).uses_switches and self.switches.source == "none":
            raise sentence(
                _("Stay Alive needs the slide switches: use serial (a real switch board) or simulated"),
                key="switches.source",
            )
        return self


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
    #: The table's language (`en`, `fr`): the log's sentences, the page's default, the demo's narration.
    language: str = "en"
    #: Seconds an illegal-looking or unreadable board must stay unchanged before the referee says so.
    patience: float = 1.5
    #: The table's voice (off by default).
    voice: VoiceConfig = VoiceConfig()

    @property
    def voice_language(self) -> str:
        """The voice's language: its own, else the table's."""
        return self.voice.language or self.language

    pictures: PictureSettings = PictureSettings()
    #: A reading unsure of a few places is judged when exactly one legal board fits it.
    resolve_doubt: bool = True

    @property
    def uses_switches(self) -> bool:
        return registry.get(self.setup.game).uses_switches


def load_config(path: str | Path) -> ServiceConfig:
    """Read and check a config file; relative paths in it are relative to the file."""
    file = Path(path)
    return config_from_mapping(load_yaml(file, _("the config file")), source=str(file), base=file.parent)


def _sub(exc: ConfigError, source: str, prefix: str = "") -> ConfigError:
    """A validator's error, re-labelled with the config file's name."""
    key = exc.key if exc.key.startswith(prefix) else f"{prefix}{exc.key}"
    message = str(exc).split(f"key '{exc.key}': ", 1)[-1]
    return ConfigError(key, message, source)


def validate_camera_section(section: Any, source: str) -> dict:
    """The `camera:` section alone (`referee calibrate --camera`), checked as config.yaml's."""
    return validate(CameraSection, section, source, prefix="camera").model_dump(exclude_none=True)


def config_from_mapping(data: Any, source: str = "config.yaml", base: Path | None = None) -> ServiceConfig:
    """Check a parsed config file; `base` is the folder relative paths start from."""
    base = base or Path.cwd()
    if not isinstance(data, dict):
        raise ConfigError("game", _("the config file should be a set of 'name: value' settings"), source)
    checked_file = validate(ConfigFile, data, source, context={"base": base})
    game_keys = {k: data[k] for k in GAME_KEYS if k in data and data[k] is not None}
    if "game" not in game_keys:  # here, not in ConfigFile: a section is checked alone without one
        raise ConfigError("game", _("is required: one of {games}", games=literal(", ".join(registry.names()))), source)
    if isinstance(game_keys.get("profile"), str):
        profile_path = Path(os.path.expanduser(game_keys["profile"]))
        game_keys["profile"] = str(profile_path if profile_path.is_absolute() else base / profile_path)
    setup = setup_from_mapping(game_keys, source)
    try:
        engine = engine_for(setup)  # the engine checks players, seats and variant against each other
    except ConfigError as exc:
        raise _sub(exc, source) from None
    computer_levels(game_keys, setup.players, source, engine)
    check_coach(game_keys, source)
    return ServiceConfig(
        source=source,
        game_keys=game_keys,
        setup=setup,
        settle_time=checked_file.settle_time,
        patience=checked_file.patience,
        pictures=checked_file.pictures.settings(),
        resolve_doubt=checked_file.resolve_doubt,
        frame_timeout=checked_file.frame_timeout,
        journal=checked_file.journal,
        control_socket=checked_file.control_socket or default_control_socket(),
        camera=checked_file.camera.model_dump(exclude_none=True),
        switches=checked_file.switches,
        gpio=checked_file.gpio,
        log_level=checked_file.log.level,
        log_file=checked_file.log.file,
        simulation=checked_file.simulation,
        mqtt=validate_mqtt(checked_file.mqtt, base, source, setup.players),
        web=checked_file.web,
        language=checked_file.language,
        voice=checked_file.voice,
    )
