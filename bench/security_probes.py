"""Black-box security probes (issue 30), over loopback only, each printing its figure.

    python bench/security_probes.py                       # every probe against this checkout
    python bench/security_probes.py --only forged,csv     # some of them
    PYTHONPATH=/path/to/other/checkout python bench/security_probes.py   # against another checkout

The probes talk to what a user runs: `referee run` and `referee club` as processes of their own,
the real Mosquitto set up as `docs/mqtt.md` says (its ACL, and its client-id binding when the
docs of the checkout under test set one up), simulated tables replaying `examples/` records
through the real referee loop and publisher, and plain sockets, HTTP and MQTT clients. Nothing
leaves 127.0.0.0/8. The checkout under test is the one `import controller` finds, so the same
script measures "before" on an old checkout and "after" on this one. The suite's own checks of
these figures are in tests/test_security_probes.py (smaller sizes, bounded time).

Figures (lower is better unless said):
  forged        wins credited by 20 forged results; wins or players credited by lone results in 20 journals
                the table never had; a genuine result rewritten (0/1); players added by one inflated result
  takeover      times a table was kicked by another client taking its client id (of 5); verdicts the
                broker acknowledged that never reached the club while its id was taken over (of N)
  idle          page answers (of 5, higher is better) and `referee status` (1 = answered) with more idle
                sockets than the process may open; log bytes written meanwhile; seconds a half request
                line is held open; the same for the club's page
  outage        journal entries and results that never reached the club after a broker SIGKILL with
                messages queued; players whose standings differ from the journals
  replaced      a table's journal moved aside mid-evening (a fresh one restarts at game 1): finished games
                of the fresh journal missing from the standings; players whose standings differ from both
                journals together; verdicts of the fresh journal the club did not store (taken for the old
                journal's: repeats or disputes)
  lockout       the owner's right PIN refused (of 15) while someone else guesses from another address
  rebinding     answers to a foreign Host (of 6 paths), a control passed with a foreign Origin (0/1),
                /ws opened with a foreign Origin (0/1)
  two-referees  a second `referee run` on the same journal still running after 8 s (0/1)
  csv           formula cells in /standings.csv (of 5 formula names)
  malformed     500 answers (of the bodies and paths sent); `referee replay` tracebacks; /api/games
                milliseconds at 34,000 entries; players after a new game from the page with {}
  pins          weak configured PINs accepted (of 6); the club page without a CSP (0/1)
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import http.client
import json
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import yaml

import controller
from controller.files import load_yaml

HERE = Path(__file__).resolve().parent
#: The checkout under test: the one `import controller` found.
ROOT = Path(controller.__file__).resolve().parent.parent
EXAMPLES = HERE.parent / "examples"
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
PASSWORDS = {"club": "club-pw-Zp3k", "t1": "t1-pw-Xq7w", "t2": "t2-pw-Lm4r", "t3": "t3-pw-Hc8v"}
ACL = """user club
topic read referee/#
topic write referee/+/ack

pattern write referee/%u/#
pattern read referee/%u/ack
"""


# --- processes and clients ------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env() -> dict[str, str]:
    """The environment of a process running the checkout under test."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def wait_until(condition, timeout: float, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            value = condition()
            if value:
                return value
        time.sleep(interval)
    return None


def docs_bind_client_ids() -> bool:
    """Whether the checkout's docs/mqtt.md sets the broker up to bind client ids to user names."""
    docs = ROOT / "docs" / "mqtt.md"
    return docs.exists() and "use_username_as_clientid true" in docs.read_text("utf-8")


class Broker:
    """Mosquitto with the users and ACL of docs/mqtt.md, on a free loopback port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        passwords = folder / "passwords"
        passwords.write_text("")
        for name, password in PASSWORDS.items():
            subprocess.run([MOSQUITTO_PASSWD, "-b", str(passwords), name, password], check=True, capture_output=True)
            (folder / f"{name}.password").write_text(password + "\n")
        (folder / "acl").write_text(ACL)
        lines = [
            f"listener {self.port} 127.0.0.1",
            f"user {getpass.getuser()}",
            "persistence true",
            f"persistence_location {folder}/",
            f"log_dest file {folder / 'mosquitto.log'}",
            "allow_anonymous false",
            f"password_file {passwords}",
            f"acl_file {folder / 'acl'}",
        ]
        if docs_bind_client_ids():
            lines.append("use_username_as_clientid true")
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen | None = None

    def password_file(self, user: str) -> Path:
        return self.folder / f"{user}.password"

    def start(self) -> Broker:
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stderr=subprocess.DEVNULL)
        if not wait_until(lambda: _accepts(self.port), 10):
            raise RuntimeError("mosquitto did not start")
        return self

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


class Proc:
    """A `referee` command of the checkout under test, its output in a file."""

    def __init__(self, args: list[str], folder: Path, name: str, limit_files: int | None = None) -> None:
        self.log = folder / f"{name}.log"
        self.args = args
        self.folder = folder
        self.limit_files = limit_files
        self.process: subprocess.Popen | None = None

    def start(self) -> Proc:
        def limits() -> None:
            if self.limit_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (self.limit_files, self.limit_files))

        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "controller.cli", *self.args],
                cwd=self.folder,
                env=env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=limits,
            )
        return self

    def text(self) -> str:
        return self.log.read_text("utf-8", "replace") if self.log.exists() else ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def referee_config(folder: Path, port: int, **extra: Any) -> Path:
    """A `referee run` config with the simulated rig, small pictures, no simulated player."""
    data: dict[str, Any] = {
        "game": "colorpop",
        "variant": "standard",
        "players": 3,
        "settle_time": 0.3,
        "journal": str(folder / "journal.sqlite"),
        "control_socket": str(folder / "control.sock"),
        "camera": {"source": "renderer", "width": 320, "height": 240, "fps": 5, "seed": 1},
        "switches": {"source": "simulated"},
        "gpio": {"backend": "mock"},
        "log": {"level": "info"},
        "simulation": {"player": False},
        "web": {"enabled": True, "host": "127.0.0.1", "port": port, "pin": "509217"},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def start_referee(folder: Path, limit_files: int | None = None, **extra: Any) -> tuple[Proc, int]:
    port = free_port()
    config = referee_config(folder, port, **extra)
    proc = Proc(["run", "--config", str(config)], folder, "referee", limit_files).start()
    if not wait_until(lambda: http_get(port, "/api/state")[0] == 200, 60, 0.2):
        proc.stop()
        raise RuntimeError(f"referee run did not serve its page; its log:\n{proc.text()[-2000:]}")
    return proc, port


def start_club(folder: Path, broker: Broker, limit_files: int | None = None) -> tuple[Proc, int]:
    port = free_port()
    args = ["club", "--broker", f"127.0.0.1:{broker.port}", "--db", str(folder / "club.sqlite"), "--port", str(port)]
    args += ["--bind", "127.0.0.1", "--username", "club", "--password-file", str(broker.password_file("club"))]
    proc = Proc(args, folder, "club", limit_files).start()
    if not wait_until(lambda: http_get(port, "/api/tables")[0] == 200, 60, 0.2):
        proc.stop()
        raise RuntimeError(f"referee club did not serve its page; its log:\n{proc.text()[-2000:]}")
    wait_until(lambda: "listening to" in proc.text(), 10)
    return proc, port


def http_get(port: int, path: str, headers: dict | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    return http_request(port, "GET", path, headers=headers, timeout=timeout)


def http_request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict | None = None,
    timeout: float = 5.0,
    source: str | None = None,
) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None
    )
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def control(port: int, path: str, body: Any, pin: str = "509217", **kw: Any) -> tuple[int, bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-Referee-PIN": pin, **kw.pop("headers", {})}
    return http_request(port, "POST", path, body=data, headers=headers, **kw)


def mqtt_client(broker: Broker, user: str, client_id: str, clean: bool = True) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
    client.username_pw_set(user, PASSWORDS[user])
    client.connect("127.0.0.1", broker.port, keepalive=10)
    client.loop_start()
    return client


def table_process(
    folder: Path, broker: Broker, table: str, record: str, names: str | list[str], steps: int, every: float = 0.05
) -> subprocess.Popen:
    """A simulated table (this script's `table` mode) playing `record` through the code under test."""
    args = [
        sys.executable,
        str(Path(__file__).resolve()),
        "table",
        str(EXAMPLES / record),
        str(folder / f"{table}.sqlite"),
    ]
    names = names.split(",") if isinstance(names, str) else names
    args += ["--port", str(broker.port), "--table", table, "--names", json.dumps(names)]
    args += ["--steps", str(steps)]
    args += ["--every", str(every), "--password-file", str(broker.password_file(table))]
    log = open(folder / f"{table}.log", "ab")  # noqa: SIM115 (closed with the process)
    return subprocess.Popen(args, env=env(), stdout=log, stderr=subprocess.STDOUT)


def run_table(argv: list[str]) -> int:
    """`table` mode: one simulated table with credentials, for `steps` steps, then a clean stop."""
    from controller.club.config import MqttConfig
    from simulation.club_table import RecordTable

    parser = argparse.ArgumentParser()
    parser.add_argument("record")
    parser.add_argument("journal")
    parser.add_argument("--port", type=int)
    parser.add_argument("--table")
    parser.add_argument("--names")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--every", type=float)
    parser.add_argument("--password-file")
    parser.add_argument("--linger", type=float, default=30.0, help="seconds to stay connected after the last step")
    args = parser.parse_args(argv)
    config = MqttConfig(
        host="127.0.0.1",
        port=args.port,
        table=args.table,
        username=args.table,
        password_file=Path(args.password_file),
        keepalive=5,
        names=tuple(json.loads(args.names)),
    )
    table = RecordTable(args.record, args.journal, config)
    try:
        for _ in range(args.steps):
            table.step()
            time.sleep(args.every)
        print("played", flush=True)
        deadline = time.monotonic() + args.linger
        while time.monotonic() < deadline and not Path(args.journal + ".stop").exists():
            time.sleep(0.1)
    finally:
        table.close()
    return 0


def journal_points(path: Path) -> set[tuple[int, int]]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return {(g, s) for g, s in db.execute("SELECT game_id, seq FROM entries")}


def club_points(folder: Path, table: str) -> set[tuple[int, int]]:
    with contextlib.closing(sqlite3.connect(f"file:{folder / 'club.sqlite'}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT game_id, seq FROM verdicts WHERE table_name = ?", (table,))
        return {(g, s) for g, s in rows}


def standings(port: int) -> dict[str, dict[str, Any]]:
    status, body = http_get(port, "/api/standings")
    return {s["name"]: s for s in json.loads(body)["standings"]} if status == 200 else {}


def _sum3(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _accepts(port: int) -> bool:
    """Whether something listens on `port` here (raises while nothing does, as `wait_until` expects)."""
    socket.create_connection(("127.0.0.1", port), 0.2).close()
    return True


def expected_standings(journals: dict[str, tuple[Path, list[str]]]) -> dict[str, tuple[int, int, int]]:
    """(played, wins, losses+draws) per player, worked out from the tables' journals themselves."""
    from controller.commands.replay import judge_record
    from controller.record import parse_record
    from controller.service.journal import Journal
    from controller.service.session import export_record

    out: dict[str, list[int]] = {}
    for path, names in journals.values():
        journal = Journal(path, read_only=True)
        try:
            for row in journal.games():
                if not journal.entries(row.id):
                    continue
                result = next(v for v in judge_record(parse_record(export_record(journal, row.id))) if "result" in v)
                result = result["result"]
                if not result.get("finished"):
                    continue
                winners = set(result.get("winners") or [])
                for seat, name in enumerate(names):
                    s = out.setdefault(name, [0, 0, 0])
                    s[0] += 1
                    if seat in winners and len(winners) == 1:
                        s[1] += 1
                    else:
                        s[2] += 1
        finally:
            journal.close()
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


# --- the probes ----------------------------------------------------------------------------------
def probe_forged(folder: Path) -> dict[str, Any]:
    broker = Broker(folder).start()
    club, port = start_club(folder, broker)
    tables = []
    try:
        # a genuine game at t1 (Ann, Bob, Cy) and one at t2 (Dee, Eve, Fay)
        tables = [
            table_process(folder, broker, "t1", "colorpop-standard.yaml", "Ann,Bob,Cy", 60),
            table_process(folder, broker, "t2", "colorpop-standard.yaml", "Dee,Eve,Fay", 60),
        ]
        wait_until(lambda: all("played" in (folder / f"t{i}.log").read_text() for i in (1, 2)), 120, 0.2)
        time.sleep(2)
        genuine = standings(port)
        # t1's own credentials (its password file is on its SD card); with client ids bound to user names
        # the thief is t1 at the broker, so t1 itself is off meanwhile (the two would take turns)
        (folder / "t1.sqlite.stop").touch()
        tables[0].wait(30)
        rogue = mqtt_client(broker, "t1", "rogue-t1")
        for i in range(20):  # results naming t2's players, with no game behind them
            body = {"v": 1, "table": "t1", "game_id": 100 + i, "seq": 5, "game": "colorpop", "variant": "standard"}
            body |= {"names": ["Dee", "Eve", "Fay"], "sent": time.time()}
            body["result"] = {"finished": True, "winners": [0], "scores": [0, 9, 9], "reason": "forged"}
            rogue.publish("referee/t1/result", json.dumps(body), qos=1).wait_for_publish(5)
        time.sleep(3)
        after_forged = standings(port)
        forged_wins = after_forged.get("Dee", {}).get("wins", 0) - genuine.get("Dee", {}).get("wins", 0)
        for i in range(20):  # each in a journal of its own that t1 never had: a lone verdict carrying a result
            body = {"v": 1, "table": "t1", "journal": f"{i:032x}", "game_id": 1, "seq": 5, "index": 5}
            body |= {"verdict": "legal", "seat": 0, "move": "forged", "sent": time.time()}
            body["result"] = {"finished": True, "winners": [0], "scores": [0, 9, 9], "reason": "forged"}
            rogue.publish("referee/t1/verdict", json.dumps(body), qos=1).wait_for_publish(5)
            result = body | {"game": "colorpop", "variant": "standard", "names": ["Dee", "Eve", "Fay"]}
            rogue.publish("referee/t1/result", json.dumps(result), qos=1).wait_for_publish(5)
        time.sleep(3)
        after_invented = standings(port)
        invented_wins = sum(after_invented[n]["wins"] - after_forged[n]["wins"] for n in after_forged) + (
            len(after_invented) - len(after_forged)
        )
        after_forged = after_invented
        # a genuine result of t1, sent again with seq 2^53-1 and another winner
        game_ids = sorted({g for g, _ in club_points(folder, "t1")})
        body = {"v": 1, "table": "t1", "game_id": game_ids[0], "seq": 2**53 - 1, "game": "colorpop"}
        body |= {"variant": "standard", "names": ["Ann", "Bob", "Cy"], "sent": time.time()}
        loser = min(genuine[n]["wins"] for n in ("Ann", "Bob", "Cy"))
        who = next(i for i, n in enumerate(("Ann", "Bob", "Cy")) if genuine[n]["wins"] == loser)
        body["result"] = {"finished": True, "winners": [who], "scores": [0, 0, 0], "reason": "rewritten"}
        rogue.publish("referee/t1/result", json.dumps(body), qos=1).wait_for_publish(5)
        time.sleep(3)
        now = standings(port)
        rewritten = int(any(now[n]["wins"] != after_forged[n]["wins"] for n in ("Ann", "Bob", "Cy")))
        # one result of 6,000 players
        names = [f"p{i:04d}" for i in range(6000)]
        body = {"v": 1, "table": "t1", "game_id": 900, "seq": 3, "game": "colorpop", "names": names}
        body["result"] = {"finished": True, "winners": [0], "scores": [], "reason": "inflated"}
        rogue.publish("referee/t1/result", json.dumps(body), qos=1).wait_for_publish(5)
        time.sleep(3)
        added = len(standings(port)) - len(now)
        rogue.loop_stop()
        rogue.disconnect()
        refused_logged = club.text().count("t1")
        return {
            "forged wins credited (of 20)": forged_wins,
            "wins or players credited by results in 20 invented journals": invented_wins,
            "genuine result rewritten": rewritten,
            "players added by one inflated result": added,
            "club log lines naming t1": refused_logged,
        }
    finally:
        for t in tables:
            t.terminate()
            t.wait(10)
        club.stop()
        broker.stop()


def probe_takeover(folder: Path) -> dict[str, Any]:
    broker = Broker(folder).start()
    club, port = start_club(folder, broker)
    table = None
    try:
        table = table_process(folder, broker, "t2", "flipop-standard.yaml", "Dee,Eve", 4, every=0.2)
        wait_until(lambda: _table_view(port, "t2").get("online") is True, 60)
        kicked = 0
        for _ in range(5):  # t1's credentials, t2's client id
            thief = mqtt_client(broker, "t1", "referee-t2")
            time.sleep(1.0)
            if _table_view(port, "t2").get("online") is False:
                kicked += 1
            thief.loop_stop()
            thief.disconnect()
            wait_until(lambda: _table_view(port, "t2").get("online") is True, 20)
        table.terminate()
        table.wait(10)
        # the club's id taken over with a clean session while a table plays: verdicts lost at the club
        stop = threading.Event()

        def take_over() -> None:
            while not stop.is_set():
                with contextlib.suppress(Exception):
                    thief = mqtt_client(broker, "t1", "referee-club", clean=True)
                    time.sleep(0.5)
                    thief.loop_stop()
                    thief.disconnect()
                time.sleep(0.5)

        thread = threading.Thread(target=take_over, daemon=True)
        thread.start()
        table = table_process(folder, broker, "t3", "colorpop-standard.yaml", "Gus,Hal,Ivy", 40, every=0.4)
        wait_until(lambda: table.poll() is not None or "played" in (folder / "t3.log").read_text(), 60)
        stop.set()
        thread.join(5)
        journal = journal_points(folder / "t3.sqlite")
        wait_until(lambda: club_points(folder, "t3") >= journal, 30)
        lost = len(journal - club_points(folder, "t3"))
        return {"t2 kicked by another user taking its id (of 5)": kicked, f"verdicts lost (of {len(journal)})": lost}
    finally:
        if table is not None and table.poll() is None:
            table.terminate()
            table.wait(10)
        club.stop()
        broker.stop()


def _table_view(port: int, name: str) -> dict[str, Any]:
    status, body = http_get(port, "/api/tables")
    return {t["table"]: t for t in json.loads(body)}.get(name, {}) if status == 200 else {}


def _idle_sockets(port: int, count: int, addresses: int = 20) -> list[socket.socket]:
    """`count` connections that never finish a request, from `addresses` addresses other than the
    owner's (127.0.0.2, 127.0.0.3, ...): half of them send half a request line."""
    held = []
    for i in range(count):
        try:
            s = socket.create_connection(
                ("127.0.0.1", port), timeout=2, source_address=(f"127.0.0.{2 + i % addresses}", 0)
            )
            if i % 2:
                s.send(b"GET / HTTP/1.1\r\nHost: 127")  # half a request
        except OSError:
            continue
        held.append(s)
    return held


def _held_open(port: int, cap: float) -> float:
    """Seconds the server keeps a connection open that sends half a request line."""
    s = socket.create_connection(("127.0.0.1", port), timeout=cap)
    start = time.monotonic()
    s.send(b"GET / HT")
    try:
        while s.recv(1024):
            pass
    except (TimeoutError, OSError):
        pass
    s.close()
    return round(min(cap, time.monotonic() - start), 1)


def _page_answers(port: int, tries: int = 5) -> int:
    ok = 0
    for _ in range(tries):
        with contextlib.suppress(Exception):
            if http_get(port, "/", timeout=3)[0] == 200:
                ok += 1
    return ok


def probe_idle(folder: Path, sockets: int = 300, limit: int = 256, hold: float = 30.0) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    ref_folder = folder / "referee"
    ref_folder.mkdir()
    referee, port = start_referee(ref_folder, limit_files=limit)
    try:
        figures[f"referee: seconds a half request line is held (cap {hold:g})"] = _held_open(port, hold)
        size = len(referee.text())
        held = _idle_sockets(port, sockets)
        time.sleep(3)
        figures[f"referee: page answers with {len(held)} idle sockets (of 5)"] = _page_answers(port)
        status = subprocess.run(
            [sys.executable, "-m", "controller.cli", "status", "--socket", str(ref_folder / "control.sock")],
            env=env(),
            cwd=ref_folder,
            capture_output=True,
            timeout=30,
        )
        figures["referee: status answered"] = int(status.returncode == 0)
        time.sleep(5)
        figures["referee: log bytes written meanwhile"] = len(referee.text()) - size
        for s in held:
            s.close()
    finally:
        referee.stop()
    club_folder = folder / "club"
    club_folder.mkdir()
    broker = Broker(club_folder).start()
    club, port = start_club(club_folder, broker, limit_files=limit)
    try:
        figures[f"club: seconds a half request line is held (cap {hold:g})"] = _held_open(port, hold)
        size = len(club.text())
        held = _idle_sockets(port, sockets)
        time.sleep(3)
        figures[f"club: page answers with {len(held)} idle sockets (of 5)"] = _page_answers(port)
        time.sleep(5)
        figures["club: log bytes written meanwhile"] = len(club.text()) - size
        for s in held:
            s.close()
    finally:
        club.stop()
        broker.stop()
    return figures


def probe_outage(folder: Path) -> dict[str, Any]:
    broker = Broker(folder).start()
    club, port = start_club(folder, broker)
    tables: list[subprocess.Popen] = []
    try:
        time.sleep(1)
        club.stop()  # the club away; its persistent session stays at the broker
        tables = [
            table_process(folder, broker, "t1", "colorpop-standard.yaml", "Ann,Bob,Cy", 40, every=0.25),
            table_process(folder, broker, "t2", "flipop-standard.yaml", "Dee,Eve", 40, every=0.25),
        ]
        wait_until(lambda: all("played" in (folder / f"t{i}.log").read_text() for i in (1, 2)), 90)
        time.sleep(1)
        broker.kill()  # SIGKILL with the club's messages queued
        broker.start()
        club, port = start_club(folder, broker)
        journals = {"t1": folder / "t1.sqlite", "t2": folder / "t2.sqlite"}
        want = {t: journal_points(p) for t, p in journals.items()}
        wait_until(lambda: all(club_points(folder, t) >= want[t] for t in want), 60, 0.5)
        lost = sum(len(want[t] - club_points(folder, t)) for t in want)
        expected = expected_standings(
            {"t1": (journals["t1"], ["Ann", "Bob", "Cy"]), "t2": (journals["t2"], ["Dee", "Eve"])}
        )
        wait_until(lambda: _standings_differ(port, expected) == 0, 20, 0.5)
        return {
            f"journal entries lost at the club (of {sum(len(w) for w in want.values())})": lost,
            f"players whose standings differ from the journals (of {len(expected)})": _standings_differ(port, expected),
        }
    finally:
        for t in tables:
            for i in (1, 2):
                (folder / f"t{i}.sqlite.stop").touch()
            with contextlib.suppress(subprocess.TimeoutExpired):
                t.wait(10)
            if t.poll() is None:
                t.terminate()
        club.stop()
        broker.stop()


def probe_replaced(folder: Path) -> dict[str, Any]:
    """A table's journal moved aside mid-evening (as the referee does with a damaged one): the fresh
    journal starts again at game 1; its games must count beside the old journal's."""
    broker = Broker(folder).start()
    club, port = start_club(folder, broker)
    table = None
    names = ["Ann", "Bob", "Cy"]
    journal = folder / "t1.sqlite"
    try:
        table = table_process(folder, broker, "t1", "colorpop-standard.yaml", names, 28 + 5, every=0.05)
        wait_until(lambda: "played" in (folder / "t1.log").read_text(), 120, 0.2)
        wait_until(lambda: club_points(folder, "t1") >= journal_points(journal), 30, 0.2)
        (folder / "t1.sqlite.stop").touch()
        table.wait(30)
        (folder / "t1.sqlite.stop").unlink()
        old = expected_standings({"t1": (journal, names)})
        stored_before = _stored_verdicts(port)
        for suffix in ("", "-wal"):  # moved aside whole, as journal.quarantine does; the next start is fresh
            if Path(f"{journal}{suffix}").exists():
                os.replace(f"{journal}{suffix}", f"{journal}.damaged-probe{suffix}")
        Path(f"{journal}-shm").unlink(missing_ok=True)
        table = table_process(folder, broker, "t1", "colorpop-standard.yaml", names, 28, every=0.05)
        wait_until(lambda: (folder / "t1.log").read_text().count("played") >= 2, 120, 0.2)
        new = expected_standings({"t1": (journal, names)})
        fresh = len(journal_points(journal))
        wait_until(lambda: _stored_verdicts(port) - stored_before >= fresh, 20, 0.5)
        not_stored = fresh - (_stored_verdicts(port) - stored_before)
        both = {n: _sum3(old[n], new.get(n, (0, 0, 0))) for n in old}
        wait_until(lambda: _standings_differ(port, both) == 0, 20, 0.5)
        got = standings(port)
        new_games = new["Ann"][0]
        counted = got.get("Ann", {}).get("played", 0) - old["Ann"][0]
        return {
            f"finished games of the fresh journal missing from the standings (of {new_games})": new_games - counted,
            f"players whose standings differ from both journals together (of {len(both)})": _standings_differ(
                port, both
            ),
            f"verdicts of the fresh journal the club did not store (of {fresh})": not_stored,
        }
    finally:
        (folder / "t1.sqlite.stop").touch()
        if table is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                table.wait(10)
            if table.poll() is None:
                table.terminate()
        club.stop()
        broker.stop()


def _stored_verdicts(port: int) -> int:
    """Verdicts the club has stored since it started (repeats and disputes not counted)."""
    status, body = http_get(port, "/api/stats")
    return int(json.loads(body)["verdicts"]) if status == 200 else 0


def _standings_differ(port: int, expected: dict[str, tuple[int, int, int]]) -> int:
    got = standings(port)
    differ = 0
    for name, (played, wins, others) in expected.items():
        s = got.get(name)
        if s is None or (s["played"], s["wins"], s["draws"] + s["losses"]) != (played, wins, others):
            differ += 1
    return differ


def probe_lockout(folder: Path, tries: int = 15) -> dict[str, Any]:
    referee, port = start_referee(folder)
    stop = threading.Event()
    try:

        def guess() -> None:
            n = 0
            while not stop.is_set():
                with contextlib.suppress(Exception):
                    control(port, "/api/lights-test", {"pattern": "none"}, pin=f"{n % 1000000:06d}", source="127.0.0.2")
                n += 1
                time.sleep(0.1)

        thread = threading.Thread(target=guess, daemon=True)
        thread.start()
        time.sleep(2)
        refused = 0
        for _ in range(tries):
            status, _ = control(port, "/api/lights-test", {"pattern": "no-such-pattern"}, source="127.0.0.1")
            refused += status in (403, 429)
            time.sleep(0.5)
        stop.set()
        thread.join(5)
        return {f"owner's right PIN refused (of {tries})": refused}
    finally:
        referee.stop()


def probe_rebinding(folder: Path) -> dict[str, Any]:
    referee, port = start_referee(folder)
    try:
        foreign = {"Host": f"rebind.example:{port}"}
        time.sleep(2)
        answered = 0
        paths = ["/", "/api/state", "/api/games", "/api/record", "/camera.jpg", "/static/app.js"]
        for path in paths:
            with contextlib.suppress(Exception):
                answered += http_get(port, path, headers=foreign)[0] == 200
        origin = {**foreign, "Origin": f"http://rebind.example:{port}"}
        status, _ = control(port, "/api/lights-test", {"pattern": "no-such-pattern"}, headers=origin)
        control_passed = int(status == 400)  # past the origin and PIN checks, refused only for the pattern
        return {
            f"answers to a foreign Host (of {len(paths)})": answered,
            "control passed with a foreign Host and Origin": control_passed,
            "/ws opened with a foreign Origin": int(_ws_opens(port, "http://rebind.example")),
        }
    finally:
        referee.stop()


def _ws_opens(port: int, origin: str) -> bool:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    with s:
        s.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n"
            ).encode()
        )
        return s.recv(200).startswith(b"HTTP/1.1 101")


def probe_two_referees(folder: Path) -> dict[str, Any]:
    first, _ = start_referee(folder)
    second_folder = folder / "second"
    second_folder.mkdir()
    try:
        config = referee_config(
            second_folder,
            free_port(),
            journal=str(folder / "journal.sqlite"),
            control_socket=str(second_folder / "control.sock"),
        )
        second = Proc(["run", "--config", str(config)], second_folder, "referee").start()
        time.sleep(8)
        running = int(second.alive())
        said = [line for line in second.text().splitlines() if "journal" in line.lower()][-1:]
        second.stop()
        return {"second referee still running on the same journal": running, "it said": said[0] if said else ""}
    finally:
        first.stop()


def probe_csv(folder: Path) -> dict[str, Any]:
    broker = Broker(folder).start()
    club, port = start_club(folder, broker)
    tables = []
    try:
        formulas = ['=HYPERLINK("http://x.example","y")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "=1+1"]
        tables = [
            table_process(folder, broker, "t1", "colorpop-standard.yaml", formulas[:3], 60),
            table_process(folder, broker, "t2", "flipop-standard.yaml", formulas[3:], 60),
        ]
        wait_until(lambda: len(standings(port)) == 5, 120, 0.2)
        status, body = http_get(port, "/standings.csv")
        import csv
        import io

        cells = [cell for row in csv.reader(io.StringIO(body.decode())) for cell in row]
        formula_cells = sum(1 for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r"))
        return {
            "players in the standings": len(standings(port)),
            "formula cells in /standings.csv (of 5 names)": formula_cells,
        }
    finally:
        for t in tables:
            t.terminate()
            t.wait(10)
        club.stop()
        broker.stop()


MALFORMED_BODIES: list[tuple[str, bytes]] = [
    ("/api/new-game", b"[" * 100000 + b"]" * 100000),
    ("/api/new-game", b'{"a":' * 5000 + b"1" + b"}" * 5000),
    ("/api/new-game", b'{"secrets": [1, 2, 3]}'),
    ("/api/new-game", b'{"secrets": [[1], [2], [3]]}'),
    ("/api/new-game", b'{"secrets": [{}, {}, {}]}'),
    ("/api/new-game", b'{"targets": {}}'),
    ("/api/new-game", b'{"targets": [1]}'),
    ("/api/new-game", b'{"seats": [1, 2, 3]}'),
    ("/api/new-game", b'{"players": 1e400}'),
    ("/api/new-game", b'{"players": 99999999999999999999999}'),
    ("/api/new-game", b'{"first": "x"}'),
    ("/api/new-game", b'{"variant": []}'),
    ("/api/new-game", b'{"game": {}}'),
    ("/api/new-game", b'{"game": []}'),
    ("/api/new-game", b'"\xff"'),
    ("/api/new-game", b"NaN"),
    ("/api/reveal", b'{"seat": 1e400, "colours": ["G"]}'),
    ("/api/reveal", b'{"seat": 0, "colours": [[]]}'),
    ("/api/reveal", b'{"seat": 0, "colours": {"a": 1}}'),
    ("/api/lights-test", b'{"pattern": []}'),
    ("/api/lights-test", b'{"pattern": {}}'),
    ("/api/corners", b'{"corners": [[1e400, 0], [0, 0], [0, 0], [0, 0]]}'),
    ("/api/corners", b'{"corners": {}}'),
    ("/api/corners", b'{"corners": [["a", "b"]]}'),
    ("/api/calibration/start", b'{"game": []}'),
    ("/api/calibration/start", b'{"game": {}}'),
    ("/api/calibration/capture", b'{"step": "x"}'),
    ("/api/calibration/capture", b'{"step": 1e400}'),
    ("/api/calibration/save", b'{"name": []}'),
    ("/api/calibration/save", b'{"name": "../x"}'),
    ("/api/holes/capture", b'{"step": []}'),
    ("/api/holes/save", b'{"name": {}}'),
]
MALFORMED_PATHS = [
    "/api/games/" + "9" * 20,
    "/api/games/%C2%B2",
    "/api/calibration/picture/%C2%B2",
    "/api/calibration/picture/" + "9" * 30,
    "/api/record?game=" + "9" * 20,
    "/api/record?game=%C2%B2",
    "/api/calibration/steps?game=%00",
    "/api/calibration/steps?game=" + "x" * 5000,
    "/camera.jpg?x=" + "%" * 10,
]


def probe_malformed(folder: Path, entries: int = 34000) -> dict[str, Any]:
    referee, port = start_referee(folder)
    try:
        errors = 0
        sent = 0
        for path, body in MALFORMED_BODIES:
            with contextlib.suppress(Exception):
                status, _ = control(port, path, body, timeout=20)
                sent += 1
                errors += status >= 500
        for path in MALFORMED_PATHS:
            with contextlib.suppress(Exception):
                status, _ = http_get(port, path, timeout=20)
                sent += 1
                errors += status >= 500
        status, body = control(port, "/api/new-game", {})
        players = json.loads(http_get(port, "/api/state")[1]).get("players")
    finally:
        referee.stop()
    tracebacks = 0
    for key, value in (("secrets", [1, 2, 3]), ("targets", {}), ("secrets", [{}, {}, {}]), ("targets", [[1]])):
        data = load_yaml(EXAMPLES / "colorpop-standard.yaml", "the game record")
        data[key] = value
        record = folder / "record.yaml"
        record.write_text(yaml.safe_dump(data))
        out = subprocess.run(
            [sys.executable, "-m", "controller.cli", "replay", str(record)],
            env=env(),
            cwd=folder,  # `python -m` puts the working folder first: not this checkout's
            capture_output=True,
            timeout=60,
        )
        tracebacks += b"Traceback" in out.stderr
    return {
        f"500 answers (of {sent} malformed bodies and paths)": errors,
        "referee replay tracebacks (of 4 malformed records)": tracebacks,
        "players after a new game with {} (configured 3)": players,
        f"/api/games ms at {entries} entries": _games_listing_ms(folder / "big", entries),
    }


def _games_listing_ms(folder: Path, entries: int) -> float:
    """Time /api/games takes on a journal of `entries` entries (a recorded game copied many times)."""
    folder.mkdir()
    referee, port = start_referee(folder)
    referee.stop()
    db = sqlite3.connect(folder / "journal.sqlite")
    with db:
        setup = db.execute("SELECT setup FROM games LIMIT 1").fetchone()[0]
        per_game = 60
        games = entries // per_game
        snapshot = (EXAMPLES / "snapshots" / "colorpop.txt").read_text()
        verdict = json.dumps({"index": 1, "verdict": "unchanged"})
        for _g in range(games):
            cur = db.execute(
                "INSERT INTO games (setup, started_at, closed_at, closed_why) VALUES (?, ?, ?, ?)",
                (setup, time.time(), time.time(), "new-game"),
            )
            db.executemany(
                "INSERT INTO entries (game_id, seq, kind, payload, verdict, at) VALUES (?, ?, 'snapshot', ?, ?, ?)",
                [(cur.lastrowid, s, snapshot, verdict, time.time()) for s in range(per_game)],
            )
    db.close()
    referee, port = start_referee(folder)
    try:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            http_get(port, "/api/games", timeout=60)
            times.append(time.perf_counter() - start)
        return round(sorted(times)[2] * 1000, 1)
    finally:
        referee.stop()


def probe_pins(folder: Path) -> dict[str, Any]:
    from controller.service.config import config_from_mapping

    accepted = 0
    for pin in ("0000", "1234", "111111", "123456", "987654", "12345"):
        data = load_yaml(referee_config(folder, 8080), "the config file")
        data["web"]["pin"] = pin
        try:
            config_from_mapping(data, "probe", folder)
            accepted += 1
        except Exception:
            pass
    broker = Broker(folder).start()
    club, port = start_club(folder, broker)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/")
        csp = conn.getresponse().getheader("Content-Security-Policy")
        conn.close()
    finally:
        club.stop()
        broker.stop()
    return {"weak configured PINs accepted (of 6)": accepted, "club page without a CSP": int(not csp)}


PROBES = {
    "forged": probe_forged,
    "takeover": probe_takeover,
    "idle": probe_idle,
    "outage": probe_outage,
    "replaced": probe_replaced,
    "lockout": probe_lockout,
    "rebinding": probe_rebinding,
    "two-referees": probe_two_referees,
    "csv": probe_csv,
    "malformed": probe_malformed,
    "pins": probe_pins,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["table"]:
        return run_table(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated probe names: " + ", ".join(PROBES))
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(PROBES)
    print(f"checkout under test: {ROOT}")
    random.seed(0)
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"probe-{name}-") as tmp:
            start = time.monotonic()
            try:
                figures = PROBES[name](Path(tmp))
            except Exception as exc:  # one probe's trouble is its figure; the others still run
                figures = {"probe failed": f"{type(exc).__name__}: {exc}"}
            for key, value in figures.items():
                print(f"{name:13s} {key}: {value}", flush=True)
            print(f"{name:13s} ({time.monotonic() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
