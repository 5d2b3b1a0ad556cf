"""Errors a person sees.

Every error the referee raises for bad input carries a sentence a player or a club organiser
can act on: which file, line or key is wrong and what was expected there.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every user-facing error; its message is meant to be shown as it is."""


class FormatError(RefereeError):
    """Text (a snapshot, a record) that does not follow `notation.md`.

    `where` says which line or entry, so the message points a person at the right place.
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class ConfigError(RefereeError):
    """A profile or `config.yaml` value that is missing, unknown or of the wrong kind.

    `key` is the dotted key path (``geometry.markers.ids``) so the message names it.
    """

    def __init__(self, key: str, message: str, source: str | None = None) -> None:
        self.key = key
        self.source = source
        #: The sentence alone (a `Text` where it can be said in the reader's language).
        self.message = message
        prefix = f"{source}: " if source else ""
        super().__init__(f"{prefix}key '{key}': {message}")


class HardwareError(RefereeError):
    """A device (camera, microcontroller, GPIO) that cannot be used right now."""
