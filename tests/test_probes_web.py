"""Probes of the table's live page from the network (issue 30), on a real aiohttp server over loopback:
DNS rebinding (foreign Host and Origin, the live socket too), PIN guessing from another address,
idle and half-open connections, malformed bodies and paths, the games listing, a new game from the
page. `bench/security_probes.py` measures the same against a whole `referee run`."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
import yaml
from web_helpers import with_client

from controller import guard
from controller.errors import ConfigError
from controller.files import load_yaml
from controller.service.config import config_from_mapping
from controller.web import WebApp, WebServer
from simulation.world import StubRig

ROOT = Path(__file__).resolve().parent.parent
PIN = "480613"
COLORPOP = {"game": "colorpop", "players": 3, "secrets": ["G", "Y", "O"]}
#: A control that passes the guard and the PIN, then is refused for its body (400), changing nothing.
NO_SUCH_SEAT = {"seat": 99, "colours": ["G"]}
sys.path.insert(0, str(ROOT / "bench"))
import security_probes  # noqa: E402
from security_probes import MALFORMED_BODIES, MALFORMED_PATHS  # noqa: E402


@contextlib.contextmanager
def served(tmp_path: Path, keys: dict | None = None, **limits):
    rig = StubRig(keys or COLORPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)
    server = WebServer(app, "127.0.0.1", 0, guard.ConnectionLimits(**limits) if limits else None)
    assert server.start()
    try:
        yield server, rig
    finally:
        server.close()


def request(port: int, method: str, path: str, body: bytes | None = None, headers=None, source="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def control(port: int, body, pin=PIN, source="127.0.0.1", path="/api/reveal", headers=None):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    extra = {"Content-Type": "application/json", "X-Referee-PIN": pin, **(headers or {})}
    return request(port, "POST", path, data, extra, source)


def websocket_status(port: int, origin: str, host: str | None = None) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n"
            ).encode()
        )
        return s.recv(200).split(b"\r\n", 1)[0]


def test_rebinding_a_foreign_host_or_origin_gets_nothing(tmp_path):
    with served(tmp_path) as (server, _):
        port = server.port
        foreign = {"Host": f"rebind.example:{port}"}
        for path in ("/", "/api/state", "/api/games", "/api/record", "/camera.jpg", "/static/app.js"):
            status, body = request(port, "GET", path, headers=foreign)
            assert status == 421, path
            assert "its own names" in json.loads(body)["error"]
        # a control under a foreign name, with the right PIN and a matching Origin: refused before the PIN
        status, _ = control(port, NO_SUCH_SEAT, headers={**foreign, "Origin": f"http://rebind.example:{port}"})
        assert status == 421
        # our own name, another site's Origin: refused, the live socket too
        status, body = control(port, NO_SUCH_SEAT, headers={"Origin": "http://rebind.example"})
        assert status == 403 and "another site" in json.loads(body)["error"]
        assert b" 403 " in websocket_status(port, "http://rebind.example") + b" "
        assert websocket_status(port, "null").split()[1] == b"403"
        # the page's own names and addresses are served, the live socket opens from the page itself
        assert websocket_status(port, f"http://127.0.0.1:{port}").split()[1] == b"101"
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"{socket.gethostname()}:{port}"):
            assert request(port, "GET", "/api/state", headers={"Host": host})[0] == 200, host
        assert control(port, NO_SUCH_SEAT, headers={"Origin": f"http://127.0.0.1:{port}"})[0] == 400


def test_a_configured_name_is_served_and_only_that_one():
    hosts = guard.HostAllowList(["table-3.club.example", "192.168.7.9"], machine=False)
    assert hosts.allows("table-3.club.example") and hosts.allows("table-3.club.example.")
    assert hosts.allows("192.168.7.9") and hosts.allows("127.0.0.1") and hosts.allows("::1")
    assert hosts.allows("10.0.0.5", local_address="10.0.0.5")  # the address the client reached
    assert hosts.allows("10.0.0.5", local_address="::ffff:10.0.0.5")
    assert not hosts.allows("10.0.0.6", local_address="10.0.0.5")
    assert not hosts.allows("table-3.club.example.evil.example") and not hosts.allows(None)
    assert guard.host_of("[::1]:8080") == "::1" and guard.host_of("Table-3:80") == "table-3"


def test_wrong_pins_from_one_address_never_lock_out_the_owner(tmp_path):
    with served(tmp_path) as (server, _):
        port = server.port
        for n in range(12):  # someone else guessing from 127.0.0.2
            assert control(port, NO_SUCH_SEAT, pin=f"{n:06d}", source="127.0.0.2")[0] in (403, 429)
        status, body = control(port, NO_SUCH_SEAT, source="127.0.0.2")  # even the right PIN waits there
        assert status == 429 and "wait" in json.loads(body)["error"]
        refused = sum(control(port, NO_SUCH_SEAT, source="127.0.0.1")[0] in (403, 429) for _ in range(15))
        assert refused == 0  # the owner, at another address: 400 (no such seat), past the PIN


def test_the_wait_grows_with_each_round_and_a_right_pin_clears_it():
    now = [0.0]
    pins = guard.PinThrottle(clock=lambda: now[0])
    for _ in range(guard.FREE_TRIES - 1):
        pins.wrong("a")
    assert pins.wait("a") == 0
    pins.wrong("a")
    assert pins.wait("a") == guard.FIRST_WAIT and pins.wait("b") == 0
    now[0] += guard.FIRST_WAIT
    pins.wrong("a")
    assert pins.wait("a") == 2 * guard.FIRST_WAIT
    now[0] += 2 * guard.FIRST_WAIT
    pins.wrong("a")
    assert pins.wait("a") == 4 * guard.FIRST_WAIT
    now[0] += 10_000
    pins.right("a")
    assert pins.wait("a") == 0
    assert guard.client_key(("2001:db8::1", 0, 0, 0)) == guard.client_key(("2001:db8::ff", 0, 0, 0))
    assert guard.client_key(("::ffff:10.1.2.3", 0, 0, 0)) == "10.1.2.3"


@pytest.mark.parametrize("pin", ["0000", "1234", "12345", "111111", "123456", "987654", "890123", "121212", "4711"])
def test_weak_configured_pins_are_refused_with_a_sentence(pin, tmp_path):
    with pytest.raises(ConfigError, match=r"web\.pin.*too easy to guess"):
        config_from_mapping({"game": "flipop", "web": {"pin": pin}}, "config.yaml", tmp_path)


def test_a_good_pin_is_kept_and_the_random_one_is_never_weak(tmp_path):
    assert config_from_mapping({"game": "flipop", "web": {"pin": "480613"}}, "c", tmp_path).web.pin == "480613"
    from controller.web.http import random_pin

    assert all(guard.weak_pin(random_pin()) is None for _ in range(300))


def _drain_one(s: socket.socket, cap: float) -> float:
    start = time.monotonic()
    s.settimeout(cap)
    with contextlib.suppress(OSError):
        while s.recv(1024):
            pass
    return time.monotonic() - start


@pytest.mark.slow
def test_idle_and_half_open_connections_neither_stay_nor_crowd_out_the_owner(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(guard, "IDLE_TIMEOUT", 1.5)
    caplog.set_level(logging.WARNING, "referee.web")
    with served(tmp_path, per_client=4, total=12) as (server, _):
        port = server.port
        # a request line sent one byte at a time is closed at the header timeout all the same
        s = socket.create_connection(("127.0.0.1", port))
        start = time.monotonic()
        for byte in b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n":
            with contextlib.suppress(OSError):
                s.send(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() - start > 6:
                break
        assert _drain_one(s, 10) + (time.monotonic() - start) < 8
        s.close()
        # 60 parked connections from 6 other addresses: at most 4 each, the oldest make room
        held = []
        for i in range(60):
            with contextlib.suppress(OSError):
                held.append(
                    socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(f"127.0.0.{2 + i % 6}", 0))
                )
        time.sleep(0.3)
        assert all(request(port, "GET", "/api/state")[0] == 200 for _ in range(5))  # the owner
        held += [socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.9", 0)) for _ in range(4)]
        refused = request(port, "GET", "/api/state", source="127.0.0.9")
        assert refused[0] == 503 and b"too many connections from your address" in refused[1]
        # every parked socket is closed within the header timeout
        deadline = time.monotonic() + 5
        for s in held:
            assert _drain_one(s, max(0.1, deadline - time.monotonic())) < 5
            s.close()
        assert time.monotonic() < deadline + 0.5
    said = [r.getMessage() for r in caplog.records if "connection" in r.getMessage()]
    assert 1 <= len(said) <= 2  # once per interval, however many were refused or closed


@pytest.mark.slow
def test_a_referee_short_of_file_descriptors_still_answers_its_owner_and_its_control_socket(tmp_path):
    """`referee run` allowed 256 open files, 300 sockets parked on its page from 20 other addresses."""
    referee, port = security_probes.start_referee(tmp_path, limit_files=256)
    try:
        size = len(referee.text())
        held = security_probes._idle_sockets(port, 300)
        time.sleep(1.0)
        assert security_probes._page_answers(port) == 5
        status = subprocess.run(
            [sys.executable, "-m", "controller.cli", "status", "--socket", str(tmp_path / "control.sock")],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert status.returncode == 0, status.stderr
        log = referee.text()[size:]
        assert "Traceback" not in log and len(log) < 2000  # a line a minute, not a traceback per try
        for s in held:
            s.close()
    finally:
        referee.stop()


def test_the_event_loops_own_complaints_are_said_once_per_interval(caplog):
    loop = asyncio.new_event_loop()
    try:
        logger = logging.getLogger("referee.test-loop")
        caplog.set_level(logging.WARNING, logger.name)
        guard.quiet_loop_errors(loop, logger, interval=60)
        for _ in range(1000):
            loop.call_exception_handler(
                {"message": "socket.accept() out of system resource", "exception": OSError(24, "Too many open files")}
            )
        assert len(caplog.records) == 1 and "Traceback" not in caplog.text
    finally:
        loop.close()


def test_malformed_bodies_and_paths_get_a_sentence_never_a_500(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)
    game_before = rig.loop.session.game_id

    async def body(client):
        for path, data in MALFORMED_BODIES:
            response = await client.post(
                path, data=data, headers={"Content-Type": "application/json", "X-Referee-PIN": PIN}
            )
            assert response.status < 500, (path, data[:60], response.status)
            assert (await response.json())["error"], (path, data[:60])
        for path in MALFORMED_PATHS:
            response = await client.get(path)
            assert response.status < 500, (path, response.status)
        for path in ("/api/games/" + "9" * 20, "/api/games/%C2%B2", "/api/calibration/picture/%C2%B2"):
            response = await client.get(path)
            assert response.status == 400 and "number" in (await response.json())["error"], path

    with_client(app, body)
    assert rig.loop.session.game_id == game_before


@pytest.mark.parametrize(
    "key, value", [("secrets", [1, 2, 3]), ("targets", {}), ("secrets", [{}, {}, {}]), ("targets", [[1]])]
)
@pytest.mark.slow
def test_replay_of_a_record_with_wrong_types_says_which_key(key, value, tmp_path):
    data = load_yaml(ROOT / "examples" / "colorpop-standard.yaml", "the game record")
    data[key] = value
    record = tmp_path / "record.yaml"
    record.write_text(yaml.safe_dump(data))
    out = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", str(record)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "not a colour of this board" in out.stderr


@pytest.mark.slow
def test_games_are_listed_from_a_summary_newest_first_a_page_at_a_time(tmp_path):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(2)
    journal = rig.loop.session.journal
    first = rig.loop.session.game_id
    for _ in range(104):
        journal.close_game(journal.new_game(rig.loop.session.keys), "new-game")
    app = WebApp(rig.loop, pin=PIN)
    size_before = (tmp_path / "j.sqlite").stat().st_mtime_ns

    async def body(client):
        games = (await (await client.get("/api/games")).json())["games"]
        assert len(games) == 100 and games[0]["id"] == first + 104 and games[-1]["id"] == first + 5
        older = (await (await client.get(f"/api/games?before={games[-1]['id']}")).json())["games"]
        assert [g["id"] for g in older] == [first + 4, first + 3, first + 2, first + 1, first]
        assert older[-1]["entries"] == len(rig.loop.session.verdicts) and older[0]["entries"] == 0

    with_client(app, body)
    assert (tmp_path / "j.sqlite").stat().st_mtime_ns == size_before  # read-only


def test_a_new_game_from_the_page_keeps_the_configured_players_and_secrets(tmp_path):
    from web_helpers import ticking

    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        with ticking(rig):
            response = await client.post("/api/new-game", json={}, headers={"X-Referee-PIN": PIN})
            assert response.status == 200, await response.text()
            assert rig.loop.session.setup.players == 3 and rig.loop.session.keys["secrets"] == ["G", "Y", "O"]
            response = await client.post(
                "/api/new-game", json={"first": 2, "secrets": None}, headers={"X-Referee-PIN": PIN}
            )
            assert response.status == 200, await response.text()
            assert rig.loop.session.setup.first == 2 and "secrets" not in rig.loop.session.keys
            response = await client.post("/api/new-game", json={"players": 2}, headers={"X-Referee-PIN": PIN})
            assert response.status == 200, await response.text()
            assert rig.loop.session.setup.players == 2 and rig.loop.session.setup.first == 0

    with_client(app, body)


def test_the_owner_still_reaches_the_page_through_aiohttp_from_another_address(tmp_path):
    """The same through aiohttp's client, bound to another loopback address (a second phone)."""
    with served(tmp_path) as (server, _):

        async def main() -> int:
            connector = aiohttp.TCPConnector(local_addr=("127.0.0.3", 0))
            async with (
                aiohttp.ClientSession(connector=connector) as session,
                session.get(f"http://127.0.0.1:{server.port}/api/state") as response,
            ):
                return response.status

        assert asyncio.run(main()) == 200


@pytest.mark.parametrize(
    "deep", ["players: " + "[" * 5000 + "]" * 5000, "secrets: " + "{a: " * 3000 + "1" + "}" * 3000]
)
@pytest.mark.slow
def test_replay_and_run_of_yaml_nested_too_deeply_say_so(deep, tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text(f"game: colorpop\n{deep}\n")
    for command in (["replay", str(path)], ["run", "--config", str(path)]):
        out = subprocess.run(
            [sys.executable, "-m", "controller.cli", *command], capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert "nested too deeply" in out.stderr


def test_the_page_shows_no_secret_colour_while_the_game_is_played(tmp_path):
    """The page is open to anyone on the network: the secret colours the referee was told (for the
    final ranking, and now for a computer seat's draw) stay off it until the game is over."""
    from controller.web.view import keys_shown

    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(1)
    assert rig.loop.session.keys["secrets"] == ["G", "Y", "O"]
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        state = await (await client.get("/api/state")).json()
        assert state["keys"]["players"] == 3 and "secrets" not in state["keys"]
        games = (await (await client.get("/api/games")).json())["games"]
        assert games[0]["id"] == rig.loop.session.game_id and "secrets" not in games[0]["keys"]

    with_client(app, body)
    assert keys_shown({"secrets": ["G"], "profile": {}}, over=True) == {"secrets": ["G"]}


def test_the_record_of_a_game_in_play_leaves_out_the_secret_colours(tmp_path):
    """Anyone on the network may download the record: while the game is played it carries no secret
    colour, and still replays to the verdicts given; once the game is closed it carries them."""
    from web_helpers import ticking

    from controller.record import parse_record
    from controller.referee import judge_record

    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)
    played = rig.loop.session.game_id
    given = len(rig.loop.session.verdicts)

    async def body(client):
        response = await client.get("/api/record")
        assert response.status == 200, await response.text()
        text = await response.text()
        record = parse_record(text)
        assert "secrets" not in yaml.safe_load(text) and record.setup.secrets is None
        assert len([v for v in judge_record(record) if "result" not in v]) == given
        with ticking(rig):
            response = await client.post("/api/new-game", json={}, headers={"X-Referee-PIN": PIN})
            assert response.status == 200, await response.text()
        closed = await (await client.get(f"/api/record?game={played}")).text()
        assert yaml.safe_load(closed)["secrets"] == ["G", "Y", "O"]

    with_client(app, body)
