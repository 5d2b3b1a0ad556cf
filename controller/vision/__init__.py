"""Vision: camera frames to board snapshots (issue 6).

Vision turns pictures into snapshots and knows nothing of the rules. Modules:
`geometry` (lattice, markers, homography), `features` (robust per-place colour statistics),
`classify` (class references and confidence), `reader` (per-game board reading), `gating`
(motion gate), `render` (the simulated camera), `sources` (frame sources), `lattice` (generic
grid reading for any game).
"""
