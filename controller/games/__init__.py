"""The games: one package per game (`colorpop/`, `blockers/`, `flipop/`, `stay_alive/`), each declaring
everything it adds in its `SPEC`; `spec.py` is the vocabulary they are declared in, `registry.py`
the catalogue that lists them, `base.py` the rules engines' common shape."""
