"""The referee: rules engines, vision, hardware interfaces, the service loop and the command line.

Per-frame work is many small array operations: one BLAS thread is faster than several fighting
over a Pi's four cores with the camera and serial threads (measured here: Blockers! glyph scoring
0.8 ms single-threaded against 24 ms with the default threads on a loaded machine). The setting
must be made before numpy loads, so it is made here, where every entry point starts.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
