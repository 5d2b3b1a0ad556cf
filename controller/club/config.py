"""The `mqtt:` section of `config.yaml`: where a table publishes and under which name.

Why a section of its own, checked here: the broker's address, TLS files and credentials belong to
the club's network, not to the game, and a typo must be named before the referee starts. The
password itself never appears in the config (nor, therefore, in the journal's setup or any log):
only the path of a file holding it.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field, ValidationInfo, model_validator

from controller.errors import RefereeError
from controller.language import N_, _
from controller.schema import Section, checked, folder_of, sentence, validate

MQTT_KEYS = ("host", "port", "tls", "username", "password_file", "table", "prefix", "keepalive", "names")
TLS_KEYS = ("ca_file", "cert_file", "key_file")
#: One MQTT topic level: no '/', '+' or '#', nothing a shell or a page would trip on.
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
PREFIX = re.compile(r"^[A-Za-z0-9_.-]{1,64}(/[A-Za-z0-9_.-]{1,64})*$")
DEFAULT_PREFIX = "referee"


def _existing_file(value: Any, info: ValidationInfo) -> Path | None:
    """A file named relative to the config file's folder, which must exist."""
    if value is None or isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value.strip():
        raise sentence(_("expected a file path, got {value}", value=repr(value)))
    path = Path(os.path.expanduser(value))
    path = path if path.is_absolute() else folder_of(info) / path
    if not path.is_file():
        raise sentence(_("the file {path} does not exist", path=str(path)))
    return path


File = Annotated[Path | None, checked(_existing_file)]


class TlsFiles(Section):
    """TLS to the broker: the CA that signed it (None: the system's CAs), and a client certificate."""

    ca_file: File = None
    cert_file: File = None
    key_file: File = None

    @model_validator(mode="after")
    def _certificate_with_its_key(self) -> TlsFiles:
        if (self.cert_file is None) != (self.key_file is None):
            raise sentence(_("a client certificate needs both cert_file and key_file"))
        return self


def _tls(value: Any) -> Any:
    if value is True:
        return {}
    if value is False or value is None or isinstance(value, (dict, TlsFiles)):
        return None if value is False else value
    raise sentence(_("expected false, true or a section with {value}", value=", ".join(TLS_KEYS)))


def _host(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise sentence(_("expected the broker's host name or address, got {value}", value=repr(value)))
    return value.strip()


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise sentence(_("expected a port number from 1 to 65535, got {value}", value=repr(value)))
    return value


def _keepalive(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 5 <= value <= 600:
        raise sentence(_("expected 5 to 600 seconds, got {value}", value=repr(value)))
    return value


def _username(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise sentence(_("expected a user name, got {value}", value=repr(value)))
    return value


def _table(value: Any) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise sentence(
            _("expected a name of letters, digits, '-', '_' or '.' (at most 64), got {value}", value=repr(value))
        )
    return value


def _prefix(value: Any) -> str:
    if not isinstance(value, str) or not PREFIX.match(value):
        raise sentence(_("expected topic levels such as 'referee' or 'club/referee', got {value}", value=repr(value)))
    return value


def _names(value: Any, info: ValidationInfo) -> tuple[str, ...]:
    names = value or []
    if not isinstance(names, (list, tuple)) or not all(
        isinstance(n, str) and n.strip() and len(n) <= 60 for n in names
    ):
        raise sentence(_("expected a list of player names, one per seat, e.g. [Ann, Bob]"))
    players = (info.context or {}).get("players")
    if names and players is not None and len(names) != players:
        raise sentence(_("expected {players} names, one per seat, got {n}", players=players, n=len(names)))
    return tuple(n.strip() for n in names)


class MqttConfig(Section):
    """The `mqtt:` section: the club's broker, this table's name and its players' names."""

    refused: ClassVar[dict[str, str]] = {
        "password": N_(
            "the password is never written in the config file: put it alone in a file only the referee "
            "can read and give that file's path as mqtt.password_file"
        )
    }

    host: Annotated[str, checked(_host)] = Field(default=None, validate_default=True)
    port: Annotated[int, checked(_port)] = 1883
    tls: Annotated[TlsFiles | None, checked(_tls)] = None
    username: Annotated[str | None, checked(_username)] = None
    password_file: File = None
    table: Annotated[str, checked(_table)] = Field(default_factory=lambda: default_table_name())
    prefix: Annotated[str, checked(_prefix)] = DEFAULT_PREFIX
    keepalive: Annotated[int, checked(_keepalive)] = 30
    #: Each seat's player, as the club's standings know them ("" entries are not allowed).
    names: Annotated[tuple[str, ...], checked(_names)] = ()

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        if "port" not in data:  # TLS listens on its own port
            data["port"] = 8883 if data.get("tls") not in (None, False) else 1883
        if not data.get("table"):
            data.pop("table", None)
        return data

    @model_validator(mode="after")
    def _password_with_a_user(self) -> MqttConfig:
        if self.password_file is not None and self.username is None:
            raise sentence(_("a password needs a username"), key="password_file")
        return self

    def topic(self, leaf: str) -> str:
        return f"{self.prefix}/{self.table}/{leaf}"

    def password(self) -> str | None:
        """The password, read from its file when connecting (never kept in the config object)."""
        return read_password(self.password_file)

    def seat_names(self, players: int) -> list[str]:
        return list(self.names) if self.names else [f"{self.table} seat {n}" for n in range(1, players + 1)]

    def __repr__(self) -> str:  # no credentials in a repr that may end up in a log
        return f"MqttConfig(host={self.host!r}, port={self.port}, table={self.table!r}, prefix={self.prefix!r})"

    __str__ = __repr__


def read_password(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise RefereeError(
            _("cannot read the MQTT password file {path}: {strerror}", path=str(path), strerror=exc.strerror)
        ) from None
    return text.rstrip("\r\n")


def default_table_name() -> str:
    """The host name, made a valid topic level (a Pi per table is usually named after it)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:64]
    return name or "table"


def validate_mqtt(data: Any, base: Path, source: str, players: int) -> MqttConfig | None:
    """Check the `mqtt:` section (None or absent: the table publishes nothing)."""
    if data is None or data is False:
        return None
    return validate(MqttConfig, data, source, prefix="mqtt", context={"base": base, "players": players})
