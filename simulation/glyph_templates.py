"""Draw the reader's out-of-the-box Blockers! glyph templates with the renderer, and ship them as data.

Why: the reader (`controller.vision.glyph_model`) must not import the simulation, yet its default
templates must be exactly what the renderer prints, so simulated pictures and templates agree.
This module draws them once; `python -m simulation.glyph_templates` writes
`controller/vision/glyph_templates.npz`, and a test checks the shipped file still equals the drawing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from controller.vision import glyph_ink as ink
from controller.vision import glyph_model as g
from simulation.drawing import glyph_mask

OUT = Path(__file__).resolve().parent.parent / "controller" / "vision" / g.TEMPLATES_FILE


def drawn(glyph: str, angle: float = 0.0, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The renderer's drawing of `glyph` turned by `angle` and moved by `shift` pitches, as a camera
    sees it (`TEMPLATE_SCALE`, softened by `TEMPLATE_BLUR`), PATCH x PATCH, ink 0..1."""
    img = glyph_mask(
        glyph,
        ink.PPG * g.TEMPLATE_SCALE,
        ink.HALF / g.TEMPLATE_SCALE,
        angle,
        (shift[0] / g.TEMPLATE_SCALE, shift[1] / g.TEMPLATE_SCALE),
    )
    img = cv2.GaussianBlur(img, (0, 0), g.TEMPLATE_BLUR)
    return np.clip(img / max(float(np.percentile(img, 99)), 1e-3), 0, 1)


def drawn_turns(glyph: str) -> np.ndarray:
    """(len(ANGLES), K): each angle drawn afresh and centred on its ink, so every glyph and angle
    is exactly as soft as `TEMPLATE_BLUR` (no resampling blur that would differ per glyph)."""
    out = []
    for a in g.ANGLES:
        c = ink.ink_centre(g._prepare(drawn(glyph, a))[None, :])[0]
        out.append(g._prepare(drawn(glyph, a, (-float(c[0]), -float(c[1])))))
    return np.stack(out)


def templates() -> dict[str, np.ndarray]:
    return {
        "glyphs": np.array(g.GLYPHS),
        "images": np.stack([drawn(x) for x in g.GLYPHS]).astype(np.float32),
        "turns": np.stack([drawn_turns(x) for x in g.GLYPHS]).astype(np.float32),
    }


def main() -> int:
    # allow_pickle named (its default): NumPy's stubs would have a template named so fill it
    np.savez_compressed(OUT, allow_pickle=True, **templates())
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
