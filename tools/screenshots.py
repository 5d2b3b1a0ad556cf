"""Screenshots of the live page for each game (docs/live-<game>.png), as a phone shows it, in English
and in French (docs/live-<game>.fr.png: a phone asking for French, with the page's patterns and letters on
the pieces' colours, the colour-blind option).

Each game is played a few moves on the stand-in rig, then one piece is moved where it does not
belong, so the page shows an illegal board with its corrections. The camera picture is the
renderer's drawing of the same board, read by the real board reader.

`docs/live-setup.png` is the page's "Set up the copy" panel on a Stay Alive copy: the aim drawn over
the picture, and the holes taken by a simulated person who forgot two slides at step 4, the point
that contradicts circled.

Usage: python tools/screenshots.py [--games colorpop ...] [--languages en fr] [--setup-only] [--out docs] [--width 412]
Needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tests"))  # the browser helpers' own imports

from controller.commands.demo import GAMES  # noqa: E402
from controller.games import registry  # noqa: E402
from controller.service.loop import CameraSensor  # noqa: E402
from controller.snapshot import EMPTY  # noqa: E402
from controller.vision.gating import MotionGate  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from controller.web import WebApp, WebServer  # noqa: E402
from simulation.camera import RendererSource  # noqa: E402
from simulation.world import StubRig  # noqa: E402

MOVES = {"colorpop": 3, "blockers": 4, "flipop": 3, "stay-alive": 6}
#: What the browser asks pages for, per language of the screenshots.
ACCEPT = {"en": "en-GB,en", "fr": "fr-FR,fr"}


def misplace(board, rng: random.Random):
    """The board with one piece moved to an empty place (an illegal change in every game).

    Where pieces rest at the bottom of their column (Colorpop), a piece moved elsewhere is a
    doubtful reading, not a player's move, so there two tokens of the bottom row are taken off.
    """
    cells = [list(r) for r in board.cells]
    if registry.get(board.game).play.falls_to_bottom:
        for c in rng.sample(range(0, board.cols, 2), 2):
            cells[-1][c] = EMPTY
        return board.with_cells(cells)
    pieces = [(r, c) for r, row in enumerate(cells) for c, v in enumerate(row) if v != EMPTY]
    empties = [(r, c) for r, row in enumerate(cells) for c, v in enumerate(row) if v == EMPTY]
    (r, c), (r2, c2) = rng.choice(pieces), rng.choice(empties)
    cells[r2][c2], cells[r][c] = cells[r][c], EMPTY
    return board.with_cells(cells)


def shoot(game: str, out: Path, width: int, folder: Path, language: str = "en") -> Path:
    from selenium.webdriver.common.by import By

    from tests.test_web_browser import set_viewport, start_browser, wait_for

    journal = folder / f"{game}-{language}.sqlite"
    rig = StubRig(dict(registry.get(game).demo), journal, seed=2, troubles=False, max_moves=40)
    steps = rig.player.steps()
    while rig.player.moves < MOVES[game]:
        rig.driver.do(next(steps))
    rig.world.set_hand(None)
    rig.world.set_board(misplace(rig.loop.session.referee.expected(), random.Random(5)))
    rig.driver.run_frames(30)
    camera = CameraSensor(
        RendererSource(rig.world, 960, 720, 2, "clean"), BoardReader(rig.setup.profile), MotionGate(settle=2)
    )
    for _ in range(6):  # still frames: the gate lets the reader look
        camera.sense()
    app = WebApp(rig.loop, sensor=camera, switches=rig.switches, pin="000000")
    server = WebServer(app, "127.0.0.1", 0)
    if not server.start():
        raise SystemExit(server.error)
    browser = start_browser(width, 900, accept_language=ACCEPT[language])
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#history li"))
        if language != "en":  # the colour-blind option shown too: patterns and letters on the colours
            browser.find_element(By.ID, "patterns").click()
        wait_for(lambda: browser.execute_script("return document.getElementById('camera').naturalWidth > 0"))
        time.sleep(0.5)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        set_viewport(browser, width, height + 20)
        time.sleep(0.5)
        path = out / (f"live-{game}.png" if language == "en" else f"live-{game}.{language}.png")
        browser.save_screenshot(str(path))
        return path
    finally:
        browser.quit()
        server.close()


def shoot_setup(out: Path, width: int, folder: Path) -> Path:
    from selenium.webdriver.common.by import By

    from controller.profile import default_profile
    from controller.web import holes_api
    from simulation.holes_person import HolesPerson, HolesTable, copy_profile
    from tests.test_web_browser import set_viewport, start_browser, wait_for

    rig = StubRig(dict(registry.get("stay-alive").demo), folder / "setup.sqlite", seed=2, troubles=False, max_moves=2)
    copy, _ = copy_profile(default_profile("stay-alive"))
    table = HolesTable(copy, seed=2, size=(960, 720))
    person = HolesPerson(table, forgets={4: ["orange 1", "white 2"]})
    holes_api.STILL_WAIT = 0.05
    server = WebServer(WebApp(rig.loop, sensor=table, pin="000000"), "127.0.0.1", 0)
    if not server.start():
        raise SystemExit(server.error)
    browser = start_browser(width, 900)
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        browser.find_element(By.ID, "pin").send_keys("000000")
        browser.find_element(By.ID, "aim-check").click()
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#aim-svg g.marker.found"))
        wait_for(lambda: browser.find_element(By.ID, "holes-box").get_attribute("hidden") is None)
        browser.find_element(By.ID, "holes-start").click()
        instruction = browser.find_element(By.ID, "holes-instruction")
        for step in range(1, 10):
            wait_for(lambda s=step: instruction.get_attribute("data-step") == str(s))
            person.follow(instruction.text)
            browser.find_element(By.ID, "holes-capture").click()
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#holes-svg g.contradiction"))
        time.sleep(0.5)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        set_viewport(browser, width, height + 20)
        time.sleep(0.5)
        path = out / "live-setup.png"
        browser.find_element(By.ID, "setup-box").screenshot(str(path))
        return path
    finally:
        browser.quit()
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument(
        "--languages", nargs="+", choices=list(ACCEPT), default=list(ACCEPT), help="the page's languages (default both)"
    )
    parser.add_argument("--setup-only", action="store_true", help="only docs/live-setup.png (the setup panel)")
    parser.add_argument("--out", default="docs", help="folder of the pictures (default docs)")
    parser.add_argument("--width", type=int, default=412, help="page width in CSS pixels (default 412, a phone)")
    args = parser.parse_args()
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        print("Chromium and chromedriver are needed: apt-get install chromium chromium-driver", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        for game in [] if args.setup_only else args.games:
            for language in args.languages:
                print(shoot(game, out, args.width, Path(folder), language))
        print(shoot_setup(out, args.width, Path(folder)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
