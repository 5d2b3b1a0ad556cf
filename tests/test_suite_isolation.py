"""The suite passes in any order: what a test changes for the whole process is put back after it
(`conftest.py`'s autouse fixtures), checked here on an inner pytest run in a fixed order."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")


@pytest.mark.slow  # an inner pytest run
def test_logging_a_command_set_up_is_undone_before_the_next_test(pytester):
    pytester.makeconftest(CONFTEST.read_text("utf-8"))
    pytester.makepyfile(
        """
        import logging
        import sys

        def test_1_a_command_sets_up_logging_as_referee_run_does(capsys):
            handler = logging.StreamHandler(sys.stderr)  # the test's own captured stderr
            logging.getLogger().handlers[:] = [handler]
            logging.getLogger().setLevel("DEBUG")

        def test_2_the_next_test_logs_as_before():
            root = logging.getLogger()
            assert root.level == logging.WARNING
            assert not [h for h in root.handlers if getattr(getattr(h, "stream", None), "closed", False)]
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
