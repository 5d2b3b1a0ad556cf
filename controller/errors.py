"""Errors a person sees.

Every error the referee raises for bad input carries a sentence a player or a club organiser
can act on: which file, line or key is wrong and what was expected there.
"""

from __future__ import annotations

import errno
from typing import Any

from controller.language import Text, _, literal


class RefereeError(Exception):
    """Base of every user-facing error; its message is meant to be shown as it is (a `Text` where it
    can be said in the reader's language: `sentence(exc)`)."""


def sentence(exc: BaseException) -> Any:
    """An error's sentence: the `Text` it was raised with (said in any language), else its English."""
    arg = exc.args[0] if len(exc.args) == 1 else None
    return arg if isinstance(arg, Text) else str(exc)


def os_words(exc: OSError) -> Any:
    """Why the system refused a file, in words: the common reasons from the catalogue (their English
    as the C library says it), any other as the system says it."""
    common = {
        errno.ENOENT: _("No such file or directory"),
        errno.EACCES: _("Permission denied"),
        errno.EPERM: _("Operation not permitted"),
        errno.EISDIR: _("Is a directory"),
        errno.ENOTDIR: _("Not a directory"),
        errno.ENOSPC: _("No space left on device"),
        errno.EROFS: _("Read-only file system"),
    }
    return (common.get(exc.errno) if exc.errno is not None else None) or exc.strerror or str(exc)


class FormatError(RefereeError):
    """Text (a snapshot, a record) that does not follow `notation.md`.

    `where` says which line or entry, so the message points a person at the right place.
    """

    def __init__(self, message: Any, where: Any = None) -> None:
        self.where = where
        super().__init__(_("{where}: {message}", where=where, message=message) if where else message)


class ConfigError(RefereeError):
    """A profile or `config.yaml` value that is missing, unknown or of the wrong kind.

    `key` is the dotted key path (``geometry.markers.ids``) so the message names it.
    """

    def __init__(self, key: str, message: Any, source: str | None = None) -> None:
        self.key = key
        self.source = source
        #: The sentence alone (a `Text` where it can be said in the reader's language).
        self.message = message
        said = _("key '{key}': {message}", key=literal(key), message=message)
        super().__init__(_("{where}: {message}", where=source, message=said) if source else said)


class HardwareError(RefereeError):
    """A device (camera, microcontroller, GPIO) that cannot be used right now."""
