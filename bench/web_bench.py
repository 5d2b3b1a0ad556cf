"""What the live page costs the referee: per frame with no page open, and with one page watching.

The referee loop runs in real time at 30 frames per second on the simulated camera (the renderer,
a still board, its frames cached as `Service` does), in three conditions of `--seconds` each:
1. no web server at all;
2. the web server running (`WebApp` subscribed to the loop's events), no page open;
3. the same with one page polling `/camera.jpg` 5 times a second and holding the WebSocket open
   (the "page" is a separate process, so its own CPU is not counted).

Printed per condition: the loop thread's CPU per frame (what the referee spends on a frame,
gate and reader included) and the whole process's CPU as a share of one core (the referee, the
web thread and its encoder together). The frame source's rendering is the simulated camera's
cost, not the referee's; it is the same in all three conditions and cancels out in the
differences, which are the figures that matter: (2)-(1) should be ~0, (3)-(1) at most 5% of a core.

Usage: python bench/web_bench.py [--game colorpop] [--seconds 10] [--width 1280 --height 720]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.commands.demo import GAMES  # noqa: E402
from controller.games import registry  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.service.journal import Journal  # noqa: E402
from controller.service.loop import CameraSensor, RefereeLoop, Settings, run_realtime  # noqa: E402
from controller.service.session import GameSession  # noqa: E402
from controller.vision.gating import MotionGate  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from controller.web import WebApp, WebServer  # noqa: E402
from simulation.camera import RendererSource  # noqa: E402
from simulation.world import CachedFrames, RecordingFeedback, SimWorld, starting_board  # noqa: E402

FPS = 30

#: The page: a separate process fetching the picture 5 times a second with the WebSocket open.
PAGE = """
import asyncio, sys, time
import aiohttp

async def main(url, seconds):
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url + "ws") as ws:
            end = time.monotonic() + seconds
            n = 0
            while time.monotonic() < end:
                started = time.monotonic()
                async with s.get(url + "camera.jpg") as r:
                    await r.read()
                n += 1
                await asyncio.sleep(max(0.0, 0.2 - (time.monotonic() - started)))
    print(n)

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""


class TimedLoop:
    """Ticks the loop and adds up the CPU time of the loop's thread per tick."""

    def __init__(self, loop: RefereeLoop) -> None:
        self.loop = loop
        self.cpu = 0.0
        self.ticks = 0

    def tick(self) -> None:
        started = time.thread_time()
        self.loop.tick()
        self.cpu += time.thread_time() - started
        self.ticks += 1


def build(game: str, folder: Path, width: int, height: int) -> tuple[RefereeLoop, CameraSensor]:
    keys = {"game": game, **registry.get(game).demo}
    setup = setup_from_mapping(keys, "bench")
    world = SimWorld(setup, starting_board(setup, random.Random(1)))
    source = CachedFrames(RendererSource(world, width, height, 1, "clean"), world)
    sensor = CameraSensor(source, BoardReader(setup.profile), MotionGate(settle=2))
    journal = Journal(folder / f"{game}-{time.monotonic_ns()}.sqlite")
    session = GameSession.start(journal, keys, setup)
    switches = None
    if registry.get(game).uses_switches:
        from simulation.world import WorldSwitches

        switches = WorldSwitches(world)
    loop = RefereeLoop(session, sensor, RecordingFeedback(), switches=switches, settings=Settings(0.3, 2.0))
    loop.world = world  # type: ignore[attr-defined]
    return loop, sensor


def run(loop: RefereeLoop, seconds: float, page_url: str | None) -> dict:
    timed = TimedLoop(loop)
    world = loop.world  # type: ignore[attr-defined]
    stop = threading.Event()

    def step() -> None:
        world.advance_frame()

    # Warm up: the first still frames read the board and judge the setup.
    for _ in range(FPS):
        world.advance_frame()
        loop.tick()
    page = None
    if page_url is not None:
        page = subprocess.Popen([sys.executable, "-c", PAGE, page_url, str(seconds)], stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)  # the page connects
    thread = threading.Thread(target=lambda: run_realtime(_Ticker(timed), FPS, stop, step), daemon=True)
    wall0, cpu0 = time.monotonic(), time.process_time()
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    wall, cpu = time.monotonic() - wall0, time.process_time() - cpu0
    pictures = None
    if page is not None:
        out, _ = page.communicate(timeout=30)
        pictures = int(out.strip() or 0)
    return {
        "per_frame_ms": 1000 * timed.cpu / max(1, timed.ticks),
        "process_core": cpu / wall,
        "ticks": timed.ticks,
        "pictures": pictures,
    }


class _Ticker:
    """`run_realtime` wants an object with `tick()`."""

    def __init__(self, timed: TimedLoop) -> None:
        self.timed = timed

    def tick(self) -> None:
        self.timed.tick()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, default="colorpop")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        loop, _ = build(args.game, folder, args.width, args.height)
        base = run(loop, args.seconds, None)

        loop, sensor = build(args.game, folder, args.width, args.height)
        app = WebApp(loop, sensor=sensor, pin="000000")
        server = WebServer(app, "127.0.0.1", 0)
        if not server.start():
            print(server.error, file=sys.stderr)
            return 2
        try:
            idle = run(loop, args.seconds, None)
            watched = run(loop, args.seconds, f"http://127.0.0.1:{server.port}/")
        finally:
            server.close()
        encoded, encode_cpu = app.pictures.encoded, app.pictures.cpu

    print(f"{args.game}, {args.width}x{args.height} camera, {FPS} frames/s, {args.seconds:.0f} s per condition")
    rows = [("no web server", base), ("web server, no page open", idle), ("one page, camera.jpg 5/s", watched)]
    for name, r in rows:
        print(
            f"  {name:<28} loop thread {r['per_frame_ms']:.3f} ms/frame"
            f"   process {100 * r['process_core']:.1f}% of a core"
            + (f"   ({r['pictures']} pictures fetched)" if r["pictures"] is not None else "")
        )
    print(
        f"  web, no page open:  {idle['per_frame_ms'] - base['per_frame_ms']:+.3f} ms/frame on the loop thread, "
        f"{100 * (idle['process_core'] - base['process_core']):+.1f}% of a core for the process"
    )
    print(
        f"  web, one page open: {100 * (watched['process_core'] - base['process_core']):+.1f}% of a core "
        f"(target <= 5%); {encoded} pictures encoded, {1000 * encode_cpu / max(1, encoded):.1f} ms CPU each"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
