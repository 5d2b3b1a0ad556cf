"""Vision: camera frames to board snapshots. Vision knows nothing of the rules.

A game's board is read by `reader.BoardReader`, a recipe of named stages, each in its module:
load (`frames`), localise (`localise`: markers or fixed corners, the missed-marker search, over
`geometry`), rectify (`features.Rectifier`), light (`light`: the markers' white paper), describe
places (`features`), classify (`classify`, with the classes of `settings`), hand check (`hands`),
and the add-ons a game declares: glyphs (`glyphs`, over `glyph_ink` and `glyph_model`) and doors
(`doors`). Beside it: the motion gate (`gating`), camera aim advice (`aim`), frame sources
(`sources`), the standard edition's colours (`looks`), and the generic reader of any grid game
learned from labelled pictures (`lattice`, a package of its own stages and rules).
"""
