# Two commands do everything on a fresh machine:
#   make demo   sets up what is missing (the virtual environment and its packages), then referees
#               one game of each of the four games on simulated hardware;
#   make test   sets up what is missing, then runs the whole test suite (ruff included).
# `make setup` only sets up. System packages the tests use (Debian's mosquitto, chromium,
# chromium-driver) are installed by `.ci/run`, or by hand: see README.md.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: setup demo test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/referee demo

test: $(STAMP)
	$(VENV)/bin/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
