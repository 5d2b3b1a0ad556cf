"""Tests run with the referee's own thread settings (controller/__init__.py), set before any test
module loads numpy."""

import controller  # noqa: F401
