"""The page's board as a colour-blind player sees it: every two colours of a game told apart.

The page draws each game's pieces in their real colours (the physical pieces'), which a player with
protanopia or deuteranopia (no red or no green cones, about 1 man in 50 between them) or tritanopia
partly confuses: Blockers!' red and green tiles, Colorpop's green and orange tokens. With the page's
"patterns" option each colour also gets its own pattern and letters.

Checked in a real browser: one piece of each colour drawn by the page's own `drawBoard`, the picture
taken, then seen through the standard simulation of each deficiency (Machado, Oliveira & Fernandes
2009, "A physiologically-based model for simulation of color vision deficiency", severity 1, applied
in linear RGB) and compared in CIELAB, pixel by pixel, piece against piece: every two pieces of
different colours must differ by at least `APART` on average, and two pieces of the same colour by
much less (the measure sees the pieces, not where they are drawn). Without the patterns the same
check fails for colours that really are confused, so it can fail.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from test_web_browser import IN_A_BROWSER, PIN, start_browser, wait_for

from controller.games import registry
from controller.web import WebApp, WebServer
from simulation.world import StubRig

pytestmark = IN_A_BROWSER

#: Machado et al. 2009, Table 1, severity 1.0: linear RGB in, linear RGB out.
MACHADO = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}
#: Mean CIELAB difference (ΔE*ab, pixel by pixel) two pieces must keep to be told apart at a glance:
#: 2.3 is the smallest difference seen side by side on large patches; small pieces a metre away need
#: several times more.
APART = 20.0


def linear(srgb: np.ndarray) -> np.ndarray:
    c = srgb / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def encoded(lin: np.ndarray) -> np.ndarray:
    c = np.clip(lin, 0.0, 1.0)
    return 255.0 * np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def seen_with(image: np.ndarray, deficiency: str | None) -> np.ndarray:
    """An RGB image (uint8) as seen with `deficiency` (None: normal vision), in CIELAB (float)."""
    rgb = image.astype(np.float64)
    if deficiency is not None:
        rgb = encoded(linear(rgb) @ MACHADO[deficiency].T)
    return cv2.cvtColor((rgb / 255.0).astype(np.float32), cv2.COLOR_RGB2Lab)


def test_the_simulation_confuses_red_and_green_and_keeps_grey():
    """The matrices as published: a grey stays grey, and pure red and green come out close for a
    deuteranope while a normal eye sees them far apart."""
    grey = np.full((1, 1, 3), 128, np.uint8)
    for deficiency in MACHADO:
        assert np.allclose(seen_with(grey, deficiency), seen_with(grey, None), atol=1.0)
    red, green = np.array([[[200, 40, 40]]], np.uint8), np.array([[[90, 110, 40]]], np.uint8)
    normal = np.linalg.norm(seen_with(red, None) - seen_with(green, None))
    deuteranope = np.linalg.norm(seen_with(red, "deuteranopia") - seen_with(green, "deuteranopia"))
    assert normal > 40 and deuteranope < normal / 3, (normal, deuteranope)


#: One piece of each colour, and a second piece of the first colour (the same-colour yardstick).
BOARDS = {
    "colorpop": lambda letters: [letters + [letters[0]]],
    "blockers": lambda letters: [[f"{x}1" for x in letters + [letters[0]]]],
    "flipop": lambda letters: [letters + [letters[0]]],
    "stay-alive": lambda letters: [letters + [letters[0]]],
}


def pieces_seen(browser, game: str, patterns: bool) -> tuple[list[str], list[np.ndarray]]:
    """The page draws one piece per colour of `game` (its own drawBoard, patterns on or off) on a board
    of its own; returns the colour letters and the picture of each piece's inside (RGB)."""
    browser.execute_script(
        """
        const [game, rows, patterns] = arguments;
        document.getElementById('patterns').checked = patterns;
        let svg = document.getElementById('cvd');
        if (!svg) {
          svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
          svg.id = 'cvd';
          svg.setAttribute('class', 'board');
          document.body.prepend(svg);
        }
        const board = { rows: rows.length, cols: rows[0].length, cells: rows };
        drawBoard(svg, board, state.palette, game, null, { axes: { rows: [], cols: [] } });
        svg.style.width = (rows[0].length * 32 * 3) + 'px';
        svg.style.height = 'auto';
        svg.style.display = 'block';
        """,
        game,
        BOARDS[game](list(browser.execute_script("return Object.keys(state.palette)"))),
        patterns,
    )
    svg = browser.find_element("id", "cvd")
    picture = cv2.cvtColor(
        cv2.imdecode(np.frombuffer(svg.screenshot_as_png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB
    )
    boxes = browser.execute_script(
        """
        const svg = document.getElementById('cvd'), at = svg.getBoundingClientRect();
        return [...svg.querySelectorAll('g.place')].map((g) => {
          const r = g.querySelector('.piece').getBoundingClientRect();
          return [g.getAttribute('data-piece'), r.left - at.left, r.top - at.top, r.width, r.height];
        });
        """
    )
    scale = picture.shape[1] / svg.rect["width"]
    letters, insides = [], []
    for piece, left, top, width, height in boxes:
        # the square inside the piece (a disc's inscribed square; a tile's without its rounded corners)
        half = 0.34 * min(width, height) * scale
        cx, cy = (left + width / 2) * scale, (top + height / 2) * scale
        inside = picture[int(cy - half) : int(cy + half), int(cx - half) : int(cx + half)]
        letters.append(piece[0])
        insides.append(inside)
    side = min(min(p.shape[:2]) for p in insides)
    return letters, [p[:side, :side] for p in insides]


def colour_difference(a: list[int], b: list[int], deficiency: str) -> float:
    """ΔE*ab between two plain colours as seen with `deficiency`."""
    pair = np.array([[a, b]], np.uint8)
    seen = seen_with(pair, deficiency)[0]
    return float(np.linalg.norm(seen[0] - seen[1]))


#: Pixels a piece's picture may be shifted to line up with another's (where the page's pixels fall).
SHIFT = 2


def difference(a: np.ndarray, b: np.ndarray, deficiency: str | None) -> float:
    """Mean ΔE*ab between two pieces' pictures, pixel by pixel, as seen with `deficiency`: the smallest
    over shifts of up to `SHIFT` pixels, so that only what is drawn counts, not where pixels fall."""
    seen_a, seen_b = seen_with(a, deficiency), seen_with(b, deficiency)
    h, w = seen_a.shape[:2]
    core = seen_a[SHIFT : h - SHIFT, SHIFT : w - SHIFT]
    best = np.inf
    for dy in range(2 * SHIFT + 1):
        for dx in range(2 * SHIFT + 1):
            other = seen_b[dy : dy + h - 2 * SHIFT, dx : dx + w - 2 * SHIFT]
            best = min(best, float(np.linalg.norm(core - other, axis=2).mean()))
    return best


@pytest.fixture(scope="module")
def page():
    browser = start_browser(900, 900)
    yield browser
    browser.quit()


@pytest.mark.parametrize("game", list(BOARDS))
def test_with_patterns_every_two_colours_stay_apart_for_colour_blind_players(page, game, tmp_path):
    rig = StubRig(dict(registry.get(game).demo), tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    server = WebServer(WebApp(rig.loop, pin=PIN), "127.0.0.1", 0)
    assert server.start(), server.error
    try:
        page.get(f"http://127.0.0.1:{server.port}/")
        wait_for(lambda: page.execute_script("return Boolean(state && state.palette)"))
        palette = page.execute_script("return state.palette")
        figures = {}
        for patterns in (False, True):
            letters, insides = pieces_seen(page, game, patterns)
            same = [difference(insides[0], insides[-1], d) for d in (None, *MACHADO)]
            assert max(same) < APART / 4, (game, patterns, same)  # the measure sees colours, not places
            for deficiency in (None, *MACHADO):
                for (i, a), (j, b) in itertools.combinations(enumerate(letters[:-1]), 2):
                    pair = "".join(sorted(a + b))
                    figures[patterns, deficiency, pair] = difference(insides[i], insides[j], deficiency)
        # the colours alone: the pairs a colour-blind player confuses are found by the measure on plain pieces
        for deficiency in MACHADO:
            for a, b in itertools.combinations(palette, 2):
                plain = colour_difference(palette[a]["rgb"], palette[b]["rgb"], deficiency)
                if plain < APART:
                    assert figures[False, deficiency, "".join(sorted(a + b))] < APART, (a, b, deficiency, plain)
        apart = {k: round(v, 1) for k, v in figures.items() if k[0] and v < APART}
        assert not apart, f"{game}: with patterns, pieces still too alike (mean ΔE*ab): {apart}"
    finally:
        server.close()
