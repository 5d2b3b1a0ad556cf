# Two commands do everything on a fresh machine:
#   make demo   sets up what is missing (the virtual environment and its packages), then referees
#               one game of each of the four games on simulated hardware;
#   make test   sets up what is missing, then runs the whole test suite (ruff included).
# `make setup` only sets up. System packages the tests use (Debian's mosquitto, chromium,
# chromium-driver) are installed by `.ci/run`, or by hand: see README.md.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-fast bench clean render3d

# The message catalogues (controller/language/locale/*/LC_MESSAGES/*.po) compiled to .mo beside them.
PO := $(wildcard controller/language/locale/*/LC_MESSAGES/*.po)
MO := $(PO:.po=.mo)

setup: $(STAMP) $(MO)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $(STAMP)

%.mo: %.po $(STAMP)
	$(VENV)/bin/python tools/catalogue.py compile --only $<

demo: setup
	$(VENV)/bin/referee demo

test: setup
	$(VENV)/bin/python -m pytest

# The fast lane: the rules, formats, vision and commands without the tests marked slow (a real
# browser or broker, the service run whole, many renders, mypy); under a minute.
test-fast: setup
	$(VENV)/bin/python -m pytest -m "not slow"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis

# The 3D renderer of the benches (bench/scenes3d.py): Blender's Cycles as a Python module, in its own
# environment, since bpy needs exactly Python 3.11 and numpy < 2. Not needed by the referee or its tests.
RENDER_PYTHON ?= python3.11
render3d: .venv-render/.installed

.venv-render/.installed: simulation/render3d-requirements.txt
	test -x .venv-render/bin/python || $(RENDER_PYTHON) -m venv .venv-render
	.venv-render/bin/pip install --quiet -r simulation/render3d-requirements.txt
	touch .venv-render/.installed
