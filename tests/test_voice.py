"""The table's voice: espeak-ng says the verdicts, the turn and the winner, never holding up the referee.

The audio is measured, not played: espeak-ng writes each sentence to a WAV file (`-w`, config.yaml's
`voice: to_files:`), and the test reads it back: not silent (its loudness), as long as the sentence
(its words at the voice's rate), louder at a higher volume, in the language asked for. The subscriber
is tested with a speaker that stalls: the loop's events never wait for it, and only the newest lines
are said, stale ones dropped.
"""

from __future__ import annotations

import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from controller.errors import ConfigError
from controller.hardware.speaker import EspeakSpeaker, espeak_program
from controller.language import said
from controller.service.config import config_from_mapping
from controller.service.events import EventBus, GameOver, Table, VerdictGiven
from controller.service.voice import Voice
from simulation.world import StubRig

needs_espeak = pytest.mark.skipif(
    espeak_program() is None, reason="espeak-ng is not installed (apt-get install espeak-ng; .ci/run does it)"
)


def audio(path: Path) -> tuple[float, float]:
    """A WAV file's length in seconds and its loudness (RMS, dB below full scale)."""
    with wave.open(str(path), "rb") as f:
        assert f.getsampwidth() == 2 and f.getnchannels() == 1
        samples = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float64)
        seconds = f.getnframes() / f.getframerate()
    rms = float(np.sqrt(np.mean(samples**2))) if samples.size else 0.0
    return seconds, 20 * np.log10(max(rms, 1e-9) / 32768)


@needs_espeak
def test_espeak_says_a_verdict_in_french_and_english_as_long_as_its_words(tmp_path):
    english = "player 1: illegal move, a single pink token was removed; a lone token can never be removed"
    french = "Joueur 1 : coup illégal, un seul jeton rose a été retiré ; il est interdit d’éliminer un jeton isolé"
    for language, text in (("en", english), ("fr", french)):
        speaker = EspeakSpeaker(language, volume=80, rate=160, to_files=tmp_path / language)
        short = speaker.say("Joueur 2" if language == "fr" else "player 2")
        long = speaker.say(text)
        assert short is not None and long is not None and long.name == "0002.wav"
        short_s, short_db = audio(short)
        long_s, long_db = audio(long)
        assert short_db > -35 and long_db > -35, (short_db, long_db)  # speech, not silence
        words = len(text.split())
        # at 160 words a minute, about 0.375 s a word; espeak's pauses at the punctuation add a little
        assert 0.5 * words * 60 / 160 < long_s < 2.0 * words * 60 / 160, (long_s, words)
        assert short_s < long_s / 4


@needs_espeak
def test_the_volume_and_the_language_are_heard(tmp_path):
    loud = EspeakSpeaker("fr", volume=90, to_files=tmp_path / "loud").say("coup illégal")
    soft = EspeakSpeaker("fr", volume=15, to_files=tmp_path / "soft").say("coup illégal")
    assert audio(loud)[1] - audio(soft)[1] > 10  # dB
    assert EspeakSpeaker("fr").command("x")[0][:3][1:] == ["-v", "fr-fr"]
    assert EspeakSpeaker("en").command("x")[0][:3][1:] == ["-v", "en-gb"]


class StallingSpeaker:
    """Says nothing until let go; counts what it was asked to say."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.asked: list[str] = []

    def say(self, text: str) -> None:
        self.asked.append(text)
        self.go.wait(10)


def test_a_slow_voice_never_holds_up_the_loop_and_says_only_the_newest_lines(tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=12)
    speaker = StallingSpeaker()
    voice = Voice(speaker, "fr", ("legal", "turn"), engine_of=lambda: rig.loop.session.referee.engine, keep=2)
    rig.loop.bus.subscribe(voice, inline=True, name="voice")
    try:
        rig.play(8)  # the speaker is stuck on the first line all along: the loop goes on judging
        assert len(rig.loop.verdicts) >= 8 and speaker.asked and len(speaker.asked) == 1
        assert voice.dropped >= 5  # only the newest lines wait
        speaker.go.set()
        assert voice.drain()
        assert len(speaker.asked) <= 1 + 2
        newest = said(rig.loop.session.referee.engine.seat_name(rig.loop.session.referee.to_move()), "fr")
        assert speaker.asked[-1].endswith(f"À {newest} de jouer") or speaker.asked[-1].endswith(f"{newest} de jouer")
        assert "coup légal" in speaker.asked[-1]
    finally:
        speaker.go.set()
        voice.close()


def test_a_line_that_waited_too_long_is_dropped_not_said():
    now = [0.0]
    speaker = StallingSpeaker()
    voice = Voice(speaker, "en", ("illegal", "winner"), keep=5, max_age=8.0, clock=lambda: now[0])
    bus = EventBus()
    bus.subscribe(voice, inline=True, name="voice")
    try:
        from controller.games.base import Result
        from controller.referee import Verdict, VerdictKind

        illegal = Verdict(VerdictKind.ILLEGAL, 3, seat=0, reason="a reason")
        bus.emit(VerdictGiven(at=0.0, table=Table("colorpop", 1), verdict=illegal, line="first line"))
        deadline = time.monotonic() + 5
        while not speaker.asked and time.monotonic() < deadline:
            time.sleep(0.01)
        bus.emit(VerdictGiven(at=0.0, table=Table("colorpop", 1), verdict=illegal, line="stale line"))
        now[0] = 20.0  # the first line took 20 s to say: the one behind it is stale
        bus.emit(GameOver(at=20.0, table=Table("colorpop", 1, over=True), result=Result(True, (1,)), line="the end"))
        speaker.go.set()
        assert voice.drain()
        assert speaker.asked == ["first line", "the end"] and voice.dropped == 1
    finally:
        speaker.go.set()
        voice.close()


def test_config_voice_section_and_its_refusals(tmp_path):
    base = {"game": "colorpop", "players": 2}
    config = config_from_mapping({**base, "language": "fr", "voice": {"enabled": True}}, base=tmp_path)
    assert config.voice.enabled and config.voice.language is None and config.voice.volume == 80
    assert config.voice_language == "fr"  # the table's unless the voice names its own
    config = config_from_mapping(
        {**base, "voice": {"enabled": True, "language": "fr", "events": ["winner"], "volume": 30}}, base=tmp_path
    )
    assert config.voice_language == "fr" and config.voice.events == ("winner",) and config.voice.volume == 30
    for bad, said_back in (
        ({"events": ["goals"]}, "goals"),
        ({"volume": 300}, "0 to 100"),
        ({"language": "de"}, "en, fr"),
        ({"enabled": "loud"}, "true or false"),
    ):
        with pytest.raises(ConfigError, match=said_back):
            config_from_mapping({**base, "voice": {"enabled": True, **bad}}, base=tmp_path)


@needs_espeak
@pytest.mark.slow  # a whole game refereed
def test_a_service_with_a_voice_writes_the_winner_and_the_illegal_move_in_its_language(tmp_path):
    """A whole demo game (the simulated rig, its mistakes) with `voice:` writing WAV files: the illegal
    move and the winner are said in French, each file real speech."""
    from controller.commands.demo import play_game

    folder = tmp_path / "said"
    outcome = play_game(
        "flipop", 2, tmp_path, print_lights=False, voice={"enabled": True, "to_files": str(folder)}, language="fr"
    )
    said_lines = outcome.spoken
    assert any("coup illégal" in line for line in said_lines), said_lines
    assert any("gagne" in line or "partie nulle" in line for line in said_lines), said_lines[-3:]
    files = sorted(folder.glob("*.wav"))
    assert len(files) == len(said_lines)
    for path in files[-2:]:
        seconds, loudness = audio(path)
        assert seconds > 0.5 and loudness > -35


@pytest.mark.slow  # a whole game refereed
def test_without_espeak_the_referee_runs_without_a_voice_and_says_why(tmp_path, monkeypatch):
    """espeak-ng not installed: config.yaml's voice is a warning in the log, never a stop."""
    import logging

    from controller.commands.demo import play_game
    from controller.hardware import speaker

    monkeypatch.setattr(speaker, "espeak_program", lambda: None)
    heard: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: heard.append(record.getMessage())  # type: ignore[method-assign]
    log = logging.getLogger("referee.demo.colorpop")  # the demo's service log
    log.addHandler(handler)
    try:
        outcome = play_game(
            "colorpop", 3, tmp_path, print_lights=False, troubles=False, max_moves=2, voice={"enabled": True}
        )
    finally:
        log.removeHandler(handler)
    assert outcome.spoken == [] and len(outcome.verdicts) >= 2  # refereed all the same
    assert any("espeak-ng" in line and "without its voice" in line for line in heard), heard


def test_the_voice_says_the_computers_move_as_the_turn():
    """A computer seat's chosen move is what the person at the table must do now: the voice says it
    (with the turn), never a hint (a hint is for the one who asked, on the page)."""
    from controller.record import COMPUTER_MOVE, HINT
    from controller.referee import Verdict, VerdictKind

    speaker = StallingSpeaker()
    speaker.go.set()
    voice = Voice(speaker, "en", ("turn",))
    bus = EventBus()
    bus.subscribe(voice, inline=True, name="voice")
    try:
        chosen = Verdict(VerdictKind.ACTION, 5, seat=1, move="W (4,2) N", action=COMPUTER_MOVE)
        hint = Verdict(VerdictKind.ACTION, 6, seat=0, move="W (4,2) N", action=HINT)
        line = "the computer plays player 2: the white ball on (5,3) pushed north; make its move on the board"
        bus.emit(VerdictGiven(at=0.0, table=Table("flipop", 1, started=True, to_move=1), verdict=chosen, line=line))
        bus.emit(VerdictGiven(at=0.0, table=Table("flipop", 1, started=True, to_move=0), verdict=hint, line="hint"))
        assert voice.drain()
        assert speaker.asked == [line]
    finally:
        voice.close()
