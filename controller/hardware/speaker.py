"""A voice for the table: espeak-ng (Debian's `espeak-ng` package) saying a sentence aloud, or into a WAV file.

Why espeak-ng: it is offline, small, in Raspberry Pi OS's archive (`apt-get install espeak-ng`), and has
French and English voices; nothing is downloaded at run time. Each sentence is one `espeak-ng` process
(tens of milliseconds to start on a Pi), so a sentence that fails (no sound card, the package missing)
fails alone, with a sentence in the log, and the referee goes on.

`EspeakSpeaker.say` plays the sentence on the default sound device, or, with `to_files` (config.yaml's
`voice: to_files:`), writes `NNNN.wav` files there instead (`espeak-ng -w`): a table without a speaker
can keep what it would have said, and the tests measure the audio rather than play it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from controller.errors import HardwareError
from controller.language import _

#: espeak-ng's voice for each language the referee speaks.
VOICES = {"en": "en-gb", "fr": "fr-fr"}
#: Words a minute (espeak-ng's default is 175; a little slower carries across a table).
DEFAULT_RATE = 160
#: Longest a sentence may take to say before the process is stopped (seconds).
SAY_TIMEOUT = 60.0


def espeak_program() -> str | None:
    """The espeak-ng program, or None when the package is not installed."""
    return shutil.which("espeak-ng")


class EspeakSpeaker:
    """Says sentences through espeak-ng, in one language, at a volume (0-100) and a rate (words a minute)."""

    def __init__(self, language: str, volume: int = 80, rate: int = DEFAULT_RATE, to_files: Path | None = None) -> None:
        self.voice = VOICES.get(language, VOICES["en"])
        self.volume = max(0, min(100, int(volume)))
        self.rate = int(rate)
        self.to_files = Path(to_files) if to_files is not None else None
        self.spoken = 0
        program = espeak_program()
        if program is None:
            raise HardwareError(_("the voice needs espeak-ng, which is not installed: sudo apt-get install espeak-ng"))
        self.program = program
        if self.to_files is not None:
            self.to_files.mkdir(parents=True, exist_ok=True)

    def command(self, text: str) -> tuple[list[str], Path | None]:
        """The espeak-ng command line for `text` and the file it writes (None: it plays)."""
        # espeak-ng's amplitude runs 0-200, 100 its default: the volume's 0-100 maps onto 0-200
        args = [self.program, "-v", self.voice, "-a", str(2 * self.volume), "-s", str(self.rate)]
        target = None
        if self.to_files is not None:
            target = self.to_files / f"{self.spoken + 1:04d}.wav"
            args += ["-w", str(target)]
        return args + ["--", text], target

    def say(self, text: str) -> Path | None:
        """Say `text` (blocks until said); returns the file written, if any. HardwareError when it cannot."""
        args, target = self.command(text)
        try:
            done = subprocess.run(args, capture_output=True, timeout=SAY_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise HardwareError(_("the voice could not speak ({why})", why=str(exc))) from None
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            raise HardwareError(_("the voice could not speak ({why})", why=why[0]))
        self.spoken += 1
        return target
