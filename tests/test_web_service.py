"""`referee run` serves the live page (config `web:`), with the renderer camera's picture."""

from __future__ import annotations

import json
import logging
import random
import urllib.error
import urllib.request

import pytest

from controller.assembly import assemble
from controller.commands.demo import demo_config
from controller.errors import ConfigError
from controller.service.config import config_from_mapping
from simulation.devices import SimulatedDevices
from simulation.world import SimWorld, starting_board


def _config(tmp_path, **web):
    data = demo_config("flipop", 1, tmp_path)
    if web:
        data["web"] = web
    return config_from_mapping(data, source="test.yaml", base=tmp_path)


def test_web_settings_have_defaults_and_bad_ones_are_named(tmp_path):
    web = _config(tmp_path).web
    assert (web.enabled, web.host, web.port, web.pin) == (True, "0.0.0.0", 8080, None)
    assert _config(tmp_path, pin="048061").web.pin == "048061"
    for bad, key in (
        ({"port": 70000}, "web.port"),
        ({"pin": "12ab"}, "web.pin"),
        ({"enabled": "yes"}, "web.enabled"),
        ({"colour": 1}, "web.colour"),
    ):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            _config(tmp_path, **bad)


@pytest.mark.slow
def test_the_service_serves_the_page_and_the_camera_picture(tmp_path, caplog):
    config = _config(tmp_path, host="127.0.0.1", port=0, pin="480613")
    board = starting_board(config.setup, random.Random(1))
    caplog.set_level(logging.INFO)
    service = assemble(
        config,
        devices=SimulatedDevices(lambda pico: SimWorld(config.setup, board, pico=pico)),
        log=logging.getLogger("referee.test"),
    )
    try:
        assert service.web is not None
        url = service.web.url
        assert any("live page on" in r.getMessage() and "PIN 480613" in r.getMessage() for r in caplog.records)
        with pytest.raises(urllib.error.HTTPError) as no_picture:
            urllib.request.urlopen(url + "camera.jpg", timeout=5)
        assert no_picture.value.code == 404
        for _ in range(20):
            service.world.advance_frame()
            service.loop.tick()
        with urllib.request.urlopen(url + "camera.jpg", timeout=5) as response:
            assert response.headers["Content-Type"] == "image/jpeg"
            assert response.read()[:2] == b"\xff\xd8"
        with urllib.request.urlopen(url + "api/state", timeout=5) as response:
            state = json.load(response)
        assert state["game"] == "flipop" and state["reading"]["snapshot"] is not None
    finally:
        service.close()
    assert not service.web.thread.is_alive()


def test_a_port_in_use_is_a_warning_and_the_referee_runs_on(tmp_path, caplog):
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        config = _config(tmp_path, host="127.0.0.1", port=taken.getsockname()[1])
        board = starting_board(config.setup, random.Random(1))
        caplog.set_level(logging.WARNING)
        service = assemble(
            config,
            devices=SimulatedDevices(lambda pico: SimWorld(config.setup, board, pico=pico)),
            log=logging.getLogger("referee.test"),
        )
        try:
            assert service.web is None
            assert any("cannot listen" in r.getMessage() for r in caplog.records)
        finally:
            service.close()
    finally:
        taken.close()
