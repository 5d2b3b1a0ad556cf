"""The live page over HTTPS (`web: {https: true}`): a certificate made at the first start for the table's
names and addresses, kept afterwards, its fingerprint in the log; the PIN never crosses the
network in clear, and a missing openssl leaves the referee running without a page, never in clear."""

from __future__ import annotations

import http.client
import json
import logging
import random
import re
import shutil
import ssl

import pytest

from controller.assembly import assemble
from controller.commands.demo import demo_config
from controller.service.app import Service
from controller.service.config import config_from_mapping
from simulation.devices import SimulatedDevices
from simulation.world import SimWorld, starting_board

PIN = "480613"
pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")


def _service(tmp_path, **web) -> Service:
    data = demo_config("flipop", 1, tmp_path)
    data["web"] = {"host": "127.0.0.1", "port": 0, "pin": PIN, "https": True, **web}
    config = config_from_mapping(data, source="test.yaml", base=tmp_path)
    board = starting_board(config.setup, random.Random(1))
    return assemble(
        config,
        devices=SimulatedDevices(lambda pico: SimWorld(config.setup, board, pico=pico)),
        log=logging.getLogger("referee.test"),
    )


def _fingerprint(caplog) -> str:
    said = [r.getMessage() for r in caplog.records if "the page's certificate" in r.getMessage()]
    return re.search(r"SHA-256 ([0-9A-F:]{95})", said[-1]).group(1)


def test_the_page_is_served_over_https_with_a_certificate_of_its_own(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    service = _service(tmp_path)
    try:
        assert service.web is not None and service.web.url.startswith("https://127.0.0.1:")
        port = service.web.port
        cert = tmp_path / "web" / "cert.pem"
        assert cert.exists() and (tmp_path / "web" / "key.pem").stat().st_mode & 0o077 == 0
        assert "made now" in caplog.text
        context = ssl.create_default_context(cafile=str(cert))  # the browser, once told to trust it
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        conn.request("GET", "/api/state")
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["game"] == "flipop"
        conn.request(
            "POST",
            "/api/reveal",
            body=json.dumps({"seat": 9, "colours": ["W"]}),
            headers={"Content-Type": "application/json", "X-Referee-PIN": PIN},
        )
        response = conn.getresponse()
        assert response.status == 400 and "player 10" in json.loads(response.read())["error"]  # past the PIN, in TLS
        conn.close()
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
            plain.request("GET", "/api/state")
            plain.getresponse().read()
        plain.close()
        first = _fingerprint(caplog)
    finally:
        service.close()
    caplog.clear()
    again = _service(tmp_path)  # the next start keeps the same certificate
    try:
        assert "kept" in caplog.text and _fingerprint(caplog) == first
    finally:
        again.close()


@pytest.mark.slow
def test_without_openssl_the_referee_runs_without_its_page_never_in_clear(tmp_path, caplog, monkeypatch):
    import controller.web.https as https

    monkeypatch.setattr(https.shutil, "which", lambda name: None)
    caplog.set_level(logging.WARNING)
    service = _service(tmp_path)
    try:
        assert service.web is None
        assert "sudo apt install openssl" in caplog.text and "runs without its page" in caplog.text
    finally:
        service.close()
