"""`referee demo --web`: the live page served while the simulated players play at real speed (here three
times faster), their mistakes included, so the correction guidance can be seen on the page."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from mqtt_helpers import free_port
from test_web_browser import CHROMEDRIVER, CHROMIUM, start_browser, wait_for

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_serves_the_page_and_its_mistakes_show_the_corrections():
    port = free_port()
    demo = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "demo", "--web", "--game", "colorpop", "--port", str(port)]
        + ["--speed", "3", "--quiet-lights", "--pin", "731946"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        said = ""
        while "live page on" not in said:
            line = demo.stdout.readline()
            assert line, said
            said += line
        url = re.search(r"live page on (http://\S+) \(PIN 731946", said).group(1)
        assert url == f"http://127.0.0.1:{port}/"
        started = time.monotonic()

        def state():
            with urllib.request.urlopen(url + "api/state", timeout=5) as answer:
                return json.loads(answer.read())

        first = state()
        browser = start_browser() if CHROMIUM is not None and CHROMEDRIVER is not None else None
        try:
            if browser is not None:  # a phone watching the table: the corrections appear when a mistake is made
                browser.get(url)

                def shown():
                    steps = browser.execute_script(
                        "return [...document.querySelectorAll('#corrections li')].map(li => li.textContent)"
                    )
                    shown_now = steps and "Illegal move" in browser.find_element("id", "status").text
                    return shown_now and (s := state())["illegal"] and s["correction"] and s

                seen = wait_for(shown, timeout=90)
            else:
                seen = wait_for(lambda: (s := state())["illegal"] and s["correction"] and s, timeout=90)
        finally:
            if browser is not None:
                browser.quit()
        assert time.monotonic() - started > 1.0  # real time (sped up three times), not all at once
        assert first["verdict_count"] < seen["verdict_count"]
        assert seen["correction"]["steps"], seen["correction"]
    finally:
        os.kill(demo.pid, signal.SIGINT)
        demo.communicate(timeout=30)
