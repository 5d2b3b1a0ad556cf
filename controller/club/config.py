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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import ConfigError, RefereeError

MQTT_KEYS = ("host", "port", "tls", "username", "password_file", "table", "prefix", "keepalive", "names")
TLS_KEYS = ("ca_file", "cert_file", "key_file")
#: One MQTT topic level: no '/', '+' or '#', nothing a shell or a page would trip on.
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
PREFIX = re.compile(r"^[A-Za-z0-9_.-]{1,64}(/[A-Za-z0-9_.-]{1,64})*$")
DEFAULT_PREFIX = "referee"


@dataclass(frozen=True)
class TlsFiles:
    """TLS to the broker: the CA that signed it (None: the system's CAs), and a client certificate."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None


@dataclass(frozen=True)
class MqttConfig:
    host: str
    port: int
    table: str
    prefix: str = DEFAULT_PREFIX
    tls: TlsFiles | None = None
    username: str | None = None
    password_file: Path | None = None
    keepalive: int = 30
    #: Each seat's player, as the club's standings know them ("" entries are not allowed).
    names: tuple[str, ...] = ()

    def topic(self, leaf: str) -> str:
        return f"{self.prefix}/{self.table}/{leaf}"

    def password(self) -> str | None:
        """The password, read from its file when connecting (never kept in the config object)."""
        return read_password(self.password_file)

    def seat_names(self, players: int) -> list[str]:
        return list(self.names) if self.names else [f"{self.table} seat {n}" for n in range(1, players + 1)]

    def __repr__(self) -> str:  # no credentials in a repr that may end up in a log
        return f"MqttConfig(host={self.host!r}, port={self.port}, table={self.table!r}, prefix={self.prefix!r})"


def read_password(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise RefereeError(f"cannot read the MQTT password file {path}: {exc.strerror}") from None
    return text.rstrip("\r\n")


def default_table_name() -> str:
    """The host name, made a valid topic level (a Pi per table is usually named after it)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:64]
    return name or "table"


def _file(section: dict, key: str, base: Path, source: str) -> Path | None:
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"mqtt.{key}", f"expected a file path, got {value!r}", source)
    path = Path(os.path.expanduser(value))
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        raise ConfigError(f"mqtt.{key}", f"the file {path} does not exist", source)
    return path


def validate_mqtt(data: Any, base: Path, source: str, players: int) -> MqttConfig | None:
    """Check the `mqtt:` section (None or absent: the table publishes nothing)."""
    if data is None or data is False:
        return None
    if not isinstance(data, dict):
        raise ConfigError("mqtt", f"expected a section of 'name: value' settings, got {data!r}", source)
    if "password" in data:
        raise ConfigError(
            "mqtt.password",
            "the password is never written in the config file: put it alone in a file only the referee can "
            "read and give that file's path as mqtt.password_file",
            source,
        )
    for key in data:
        if key not in MQTT_KEYS:
            raise ConfigError(f"mqtt.{key}", f"is not a known setting; the settings are {', '.join(MQTT_KEYS)}", source)
    host = data.get("host")
    if not isinstance(host, str) or not host.strip():
        raise ConfigError("mqtt.host", f"expected the broker's host name or address, got {host!r}", source)

    tls_value = data.get("tls", False)
    tls: TlsFiles | None = None
    if tls_value is True:
        tls = TlsFiles()
    elif isinstance(tls_value, dict):
        for key in tls_value:
            if key not in TLS_KEYS:
                raise ConfigError(
                    f"mqtt.tls.{key}", f"is not a known setting; the settings are {', '.join(TLS_KEYS)}", source
                )
        files = {k: _file(tls_value, k, base, source + " (mqtt.tls)") for k in TLS_KEYS}
        if (files["cert_file"] is None) != (files["key_file"] is None):
            raise ConfigError("mqtt.tls", "a client certificate needs both cert_file and key_file", source)
        tls = TlsFiles(**files)
    elif tls_value not in (False, None):
        raise ConfigError("mqtt.tls", f"expected false, true or a section with {', '.join(TLS_KEYS)}", source)

    port = data.get("port", 8883 if tls else 1883)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ConfigError("mqtt.port", f"expected a port number from 1 to 65535, got {port!r}", source)
    keepalive = data.get("keepalive", 30)
    if isinstance(keepalive, bool) or not isinstance(keepalive, int) or not 5 <= keepalive <= 600:
        raise ConfigError("mqtt.keepalive", f"expected 5 to 600 seconds, got {keepalive!r}", source)
    username = data.get("username")
    if username is not None and (not isinstance(username, str) or not username):
        raise ConfigError("mqtt.username", f"expected a user name, got {username!r}", source)
    password_file = _file(data, "password_file", base, source)
    if password_file is not None and username is None:
        raise ConfigError("mqtt.password_file", "a password needs a username", source)

    table = data.get("table") or default_table_name()
    if not isinstance(table, str) or not NAME.match(table):
        raise ConfigError(
            "mqtt.table", f"expected a name of letters, digits, '-', '_' or '.' (at most 64), got {table!r}", source
        )
    prefix = data.get("prefix", DEFAULT_PREFIX)
    if not isinstance(prefix, str) or not PREFIX.match(prefix):
        raise ConfigError(
            "mqtt.prefix", f"expected topic levels such as 'referee' or 'club/referee', got {prefix!r}", source
        )
    names = data.get("names") or []
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() and len(n) <= 60 for n in names):
        raise ConfigError("mqtt.names", "expected a list of player names, one per seat, e.g. [Ann, Bob]", source)
    if names and len(names) != players:
        raise ConfigError("mqtt.names", f"expected {players} names, one per seat, got {len(names)}", source)
    return MqttConfig(
        host=host.strip(),
        port=port,
        table=table,
        prefix=prefix,
        tls=tls,
        username=username,
        password_file=password_file,
        keepalive=keepalive,
        names=tuple(n.strip() for n in names),
    )
