"""`referee demo [--game G] [--seed N]`: whole games refereed on the simulated rig, end to end.

A simulated player moves pieces in a simulated world; vision's renderer draws the camera's
frames (hands over the board, glare, a camera bump, the camera unplugged for a while), the
simulated microcontroller sends Stay Alive's slide switches over a pseudo-terminal (and is
unplugged and plugged back), and the lights, buzzer and button are gpiozero mock pins. The
referee is the same `Service` as `referee run`; it sees only frames, switch messages and button
presses. Time is simulated (30 frames per second) so a game takes seconds, not minutes.

`--web` serves the live page while the games are played at real speed instead (a game takes a minute
or two), so the page can be watched as on a real table, the simulated player's mistakes included: an
illegal board is left for `MISTAKE_SHOW` seconds, long enough to read the corrections the page lists.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.ai.levels import DEFAULT_LEVEL, level_names
from controller.assembly import assemble
from controller.errors import RefereeError
from controller.games import registry
from controller.language import LANGUAGES, N_n, Text, _, _n, listed, literal, said
from controller.record import setup_from_mapping
from controller.service.app import Service
from controller.service.config import config_from_mapping
from controller.web.http import random_pin
from simulation.devices import SimulatedDevices
from simulation.world import (
    SimClock,
    SimDriver,
    SimPlayer,
    SimWorld,
    Step,
    all_agree,
    first_difference,
    starting_board,
)

#: The games the demo plays: every game that says who plays it in a demo (its `GameSpec.demo`).
GAMES = tuple(g for g in registry.names() if registry.get(g).demo)
#: A game that may go round in circles (Flipop) is ended by agreement after this many moves.
AGREE_AFTER = 30
#: With --web: seconds an illegal board stays before the simulated player puts it right, and the
#: seconds the page shows a finished game before the next one starts.
MISTAKE_SHOW = 12.0
RESULT_SHOW = 10.0
#: Frame times the simulated camera's pictures arrive late: each game draws its own from this
#: range, as real cameras differ (`simulation.camera.DelayedFrames`).
CAMERA_DELAY = (1, 3)
#: The share of moves the simulated players make in two parts, the hand off the board in between.
MID_MOVE = 0.3


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "demo",
        help="referee whole games on simulated hardware and print every verdict, light and sound",
        description=(
            "Play whole games on the simulated rig (renderer camera, simulated slide microcontroller, "
            "mock pins) and print every verdict, light and sound, and the winner. Without --game, one "
            "game of each of the four games."
        ),
    )
    parser.add_argument("--game", choices=GAMES, help="play only this game")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated players (default 1)")
    parser.add_argument("--quiet-lights", action="store_true", help="do not print the light and sound lines")
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve the live page and play at real speed, so the page can be watched (the mistakes included)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="--web: where the page listens (0.0.0.0: the network)")
    parser.add_argument("--port", type=int, default=8080, help="--web: the page's port (default 8080; 0: any free)")
    parser.add_argument("--pin", help="--web: the PIN of the page's controls (default: a random one, printed)")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="--web: how many times faster than real time (default 1)"
    )
    parser.add_argument(
        "--voice",
        action="store_true",
        help="say the illegal moves, the turn and the winner aloud through espeak-ng, in --language "
        "(best with --web: at simulated speed the voice keeps only the newest lines)",
    )
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        default=None,
        help="the language of the referee's sentences, the narration and the page's default (default: the "
        "person's locale, LANG, else en)",
    )
    parser.add_argument(
        "--computer",
        nargs="?",
        const=DEFAULT_LEVEL,
        choices=level_names(),
        help=(
            "the last seat is the referee's computer player, at this level (default "
            f"{DEFAULT_LEVEL}): the simulated person makes its moves on the board, sometimes wrongly first"
        ),
    )
    return parser


class WallClock(SimClock):
    """Simulated time that keeps pace with the wall clock (`--web`): each frame waits for its moment."""

    def __init__(self, speed: float = 1.0) -> None:
        super().__init__()
        self.speed = speed
        self._wall0 = time.monotonic()
        self._sim0 = self.now

    def advance(self, seconds: float) -> None:
        super().advance(seconds)
        due = self._wall0 + (self.now - self._sim0) / self.speed
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)


@dataclass
class DemoResult:
    game: str
    verdicts: list[dict[str, Any]]
    intended: list[dict[str, Any]]
    result: dict[str, Any]
    ticks: int
    renders: int
    lines: list[str] = field(default_factory=list)
    #: Every light and sound change, with the simulated time it happened (seconds).
    lights: list[tuple[float, str]] = field(default_factory=list)
    #: Every step of the player, with the simulated time it began.
    steps: list[tuple[float, Step]] = field(default_factory=list)
    #: The simulated time the game ended.
    ended_at: float = 0.0
    #: Frame times the simulated camera's pictures arrived late.
    camera_delay: int = 0
    #: What the voice said (with `voice`), in its language.
    spoken: list[str] = field(default_factory=list)
    #: Verdicts given on a reading whose unsure places the rules completed: index -> those places.
    resolved: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    @property
    def faithful(self) -> bool:
        return all_agree(self.verdicts, self.intended)


def demo_config(
    game: str,
    seed: int,
    folder: Path,
    settle_time: float | None = None,
    preset: str = "clean",
    size: tuple[int, int] = (640, 480),
    resolve_doubt: bool = True,
) -> dict[str, Any]:
    """The config.yaml of a demo game: simulated devices, a journal in `folder`; `preset` is the
    renderer's look (`clean`, or `hard`: uneven light, blur, noise, as `simulation.render` draws it),
    `size` the camera's picture (the demo's 640x480 is small for speed; config.yaml's is 1280x720)."""
    return {
        **registry.get(game).demo,
        **({"settle_time": settle_time} if settle_time is not None else {}),
        "resolve_doubt": resolve_doubt,
        "frame_timeout": 2.0,
        "journal": str(folder / f"{game}-journal.sqlite"),
        "control_socket": str(folder / f"{game}.sock"),
        "camera": {
            "source": "renderer",
            "width": size[0],
            "height": size[1],
            "fps": 30,
            "seed": seed,
            "preset": preset,
        },
        "switches": {"source": "simulated"},
        "gpio": {"backend": "mock", "hold_time": 0.1},
        "log": {"level": "warning"},
        "simulation": {"player": False, "seed": seed},
    }


def play_game(
    game: str,
    seed: int,
    folder: Path,
    *,
    print_line=None,
    print_lights: bool = True,
    troubles: bool = True,
    settle_time: float | None = None,
    max_moves: int = 400,
    noise_frames: int = 1,
    preset: str = "clean",
    size: tuple[int, int] = (640, 480),
    camera_delay: int | tuple[int, int] = CAMERA_DELAY,
    mid_move: float = MID_MOVE,
    web: dict[str, Any] | None = None,
    speed: float = 1.0,
    language: str = "en",
    voice: dict[str, Any] | None = None,
    computer: str | None = None,
    resolve_doubt: bool = True,
    lamp: bool = False,
) -> DemoResult:
    """Play one whole demo game; returns the referee's verdicts and the ones the player intended.

    `camera_delay`: frame times the camera's pictures arrive late, or a (low, high) range the
    game's own delay is drawn from (by the seed); `mid_move`: the share of moves the player makes
    in two parts, the hand off the board in between (`SimPlayer`). `web` (the `web:` section of a
    config) serves the live page and plays at real speed (`speed` times faster), an illegal board held
    `MISTAKE_SHOW` seconds. `computer`: the last seat is the referee's computer at this level; the
    simulated person makes its moves as the referee shows them, another move first now and then.
    `lamp`: at the eighth move a lamp's reflection covers a place the move changes, for a few seconds
    (`SimPlayer`)."""
    rng = random.Random(seed)
    if isinstance(camera_delay, tuple):
        camera_delay = random.Random(f"camera delay {seed}").randint(*camera_delay)
    mapping = demo_config(game, seed, folder, settle_time, preset, size, resolve_doubt)
    if web is not None:
        mapping["web"] = web
    mapping["language"] = language
    if voice is not None:
        mapping["voice"] = voice
    spec = registry.get(game)
    players = setup_from_mapping(mapping, "demo").players
    if computer is not None:
        mapping["computer"] = [None] * (players - 1) + [computer]
    secrets = rng.sample(list(spec.secret_colours), players) if spec.secret_colours else None
    if secrets is not None and computer is not None:
        # the computer's own secret colour is its (here given in the config; else the referee draws it)
        mapping["secrets"] = [None] * (players - 1) + [secrets[-1]]
    config = config_from_mapping(mapping, source="demo config", base=folder)
    truth_keys = dict(config.game_keys)
    truth_keys.pop("computer", None)
    if secrets is not None:  # the players know their secret colours; the referee learns them at the end
        truth_keys["secrets"] = secrets
    truth_setup = setup_from_mapping(truth_keys, "demo")
    board = starting_board(truth_setup, rng)
    lines: list[str] = []
    clock = SimClock() if web is None else WallClock(speed)
    timeline: list[tuple[float, str]] = []
    steps: list[tuple[float, Step]] = []

    def say(line: Any) -> None:
        line = said(line, language)
        lines.append(line)
        if print_line is not None:
            print_line(line)

    def lights(message: str) -> None:
        timeline.append((clock(), message))
        if print_lights:
            if message.startswith("buzzer") and isinstance(message, Text) and "sound" in message.args:
                say(_("  sound: {what}", what=message.args["sound"]))
            elif message.startswith("buzzer"):
                say(_("  sound: {what}", what=message))
            else:
                say(_("  lights: {what}", what=message))

    service = assemble(
        config,
        devices=SimulatedDevices(
            lambda pico: SimWorld(truth_setup, board, pico=pico, noise_frames=noise_frames), camera_delay
        ),
        clock=clock,
        on_line=say,
        light_listener=lights,
        feedback_tempo=0.02 if web is None else 1.0,
        control=False,
        log=_quiet_log(game),
        web=web is not None,
    )
    try:
        world = service.world
        assert world is not None
        player = SimPlayer(
            world,
            truth_setup,
            config.setup,
            seed=seed,
            settle_time=config.settle_time,
            troubles=troubles,
            agree_after=AGREE_AFTER if spec.ends_by_agreement else None,
            max_moves=max_moves,
            mid_move=mid_move,
            patience=config.patience,
            lamp=lamp,
        )
        player.computer_seats = frozenset(service.loop.session.computer)
        player.shown_move = lambda: _awaited(service)

        def on_step(step: Step) -> None:
            steps.append((clock(), step))
            _narrate(step, say)

        driver = SimDriver(
            world,
            clock,
            service.loop.tick,
            switches=service.switches,
            button=service.button,
            submit=lambda name, args: service.submit(name, **args),
            on_step=on_step,
        )
        if web is not None:
            if service.web is None:
                raise RefereeError(
                    _(
                        "the live page could not be served on {host}:{port} (port in use?)",
                        host=str(web["host"]),
                        port=str(web["port"]),
                    )
                )
            say(
                _(
                    "[{game}] live page on {url} (PIN {pin} for its controls)",
                    game=game,
                    url=service.web.url,
                    pin=service.web.web_app.pin,
                )
            )
        _wait_for_switches(service, driver)
        for step in player.steps():
            driver.do(step)
            if web is not None and (step.intended or {}).get("verdict") == "illegal":
                driver.run_frames(round(MISTAKE_SHOW * driver.fps))  # time to read the corrections
        driver.run(player.finish())
        driver.run_frames(10 if web is None else round(RESULT_SHOW * driver.fps))
        loop = service.loop
        result = loop.session.referee.result().to_json()
        winners = result.get("winners")
        if result.get("finished") and winners:
            names = listed(loop.session.referee.engine.seat_name(s) for s in winners)
            say(_("[{game}] winner: {players} ({reason})", game=game, players=names, reason=result.get("reason", "")))
        else:
            say(
                _(
                    "[{game}] result: {reason}",
                    game=game,
                    reason=result.get("reason") or _("the game did not finish"),
                )
            )
        verdicts = list(loop.session.verdicts)
        spoken: list[str] = []
        if service.voice is not None:  # the last lines (the winner) said before the demo goes on
            service.voice.drain()
            spoken = list(service.voice.said)
        return DemoResult(
            game,
            verdicts,
            player.intended,
            result,
            driver.ticks,
            getattr(service.source, "renders", 0),
            lines,
            timeline,
            steps,
            clock(),
            camera_delay,
            spoken,
            dict(loop.session.resolved),
        )
    finally:
        service.close()


def _awaited(service: Service) -> str | None:
    """The computer's move the referee shows now (what a person reads on the page), if any."""
    awaited = service.loop.session.referee.awaited
    return awaited.move if awaited is not None else None


def _quiet_log(game: str) -> logging.Logger:
    """The demo prints its own lines; its service log goes nowhere."""
    log = logging.getLogger(f"referee.demo.{game}")
    log.propagate = False
    if not log.handlers:
        log.addHandler(logging.NullHandler())
    return log


def _narrate(step: Step, say) -> None:
    say(_("  (player: {step})", step=step.label))


def _wait_for_switches(service: Service, driver: SimDriver) -> None:
    """Let the simulated switch board boot and report before play starts (real time, < 1 s)."""
    if service.switches is not None:
        state = service.switches.wait_for(lambda s: s.link_ok, timeout=5.0)
        if state is None:
            raise RefereeError(_("the simulated slide switch board did not start"))
        driver.do(Step(_("the switch board is plugged in"), 0.1))


#: The verdicts' kinds (notation.md section 3) as the demo's summary counts them, in words.
KIND_WORDS = {
    "setup-ok": N_n("{n} valid setup", "{n} valid setups"),
    "setup-invalid": N_n("{n} invalid setup", "{n} invalid setups"),
    "legal": N_n("{n} legal", "{n} legal"),
    "illegal": N_n("{n} illegal", "{n} illegal"),
    "pending": N_n("{n} pending", "{n} pending"),
    "restored": N_n("{n} restored", "{n} restored"),
    "unchanged": N_n("{n} unchanged", "{n} unchanged"),
    "action": N_n("{n} action", "{n} actions"),
}


def summary_line(game: str, verdicts: list[dict], frames: int) -> Text:
    """`=== colorpop: 52 verdicts (1 valid setup, 40 legal, 3 illegal, ...) in 2100 frames`."""
    kinds: dict[str, int] = {}
    for v in verdicts:
        kinds[v["verdict"]] = kinds.get(v["verdict"], 0) + 1
    parts = [
        Text(KIND_WORDS[k][0], plural=KIND_WORDS[k][1], n=n) if k in KIND_WORDS else literal(f"{n} {k}")
        for k, n in kinds.items()
    ]
    return _n(
        "=== {game}: {n} verdict ({summary}) in {frames} frames",
        "=== {game}: {n} verdicts ({summary}) in {frames} frames",
        len(verdicts),
        game=game,
        summary=listed(parts, conjunction=None),
        frames=str(frames),
    )


def run(args: argparse.Namespace) -> int:
    games = [args.game] if args.game else list(GAMES)
    # the switch link's own reconnect messages: the demo prints the referee's fault lines instead
    logging.getLogger("firmware_bridge").setLevel(logging.ERROR)
    failures = []
    web = None
    if args.web:
        if not 0 <= args.port <= 65535:
            raise RefereeError(_("--port: expected 0 to 65535, got {port}", port=str(args.port)))
        if not 0.1 <= args.speed <= 100:
            raise RefereeError(_("--speed: expected 0.1 to 100 times real time, got {speed}", speed=float(args.speed)))
        pin = args.pin or random_pin()
        web = {"enabled": True, "host": args.host, "port": args.port, "pin": pin}
    with tempfile.TemporaryDirectory(prefix="referee-demo-") as tmp:
        for i, game in enumerate(games):
            print(said(_("=== {game} (seed {seed}) ===", game=game, seed=str(args.seed + i)), args.language))
            outcome = play_game(
                game,
                args.seed + i,
                Path(tmp),
                print_line=lambda line: print(line, flush=True),
                print_lights=not args.quiet_lights,
                web=web,
                speed=args.speed,
                language=args.language,
                voice={"enabled": True} if args.voice else None,
                computer=args.computer,
            )
            print(said(summary_line(game, outcome.verdicts, outcome.ticks), args.language))
            if not outcome.faithful:
                failures.append(game)
                why = first_difference(outcome.verdicts, outcome.intended)
                differ = _(
                    "!!! {game}: the referee's verdicts differ from what the simulated player did: {why}",
                    game=game,
                    why=why,
                )
                print(said(differ, args.language), file=sys.stderr)
    if failures:
        differed = _("referee demo: verdicts differed in {games}", games=", ".join(failures))
        print(said(differed, args.language), file=sys.stderr)
        return 1
    return 0
