"""The club at scale: 50 simulated tables into one Mosquitto on this machine, and `referee club`.

    .venv/bin/python bench/club_bench.py [--tables 50] [--seconds 30] [--speed 10] [--board-every 2.0]

Each table is its own paho client replaying a game record from examples/ (the eight records in
turn, a new game each time a record ends) at `--speed` times game speed, where game speed is one
settled board every `--board-every` seconds (the pace of config.yaml's simulated player). A table
publishes exactly what `referee run` publishes for its record: the verdict (QoS 1), the retained
state after it, and the retained result when the game ends, built by the same payload functions
(`controller.club.payloads`) from verdicts judged once up front by `referee replay`'s code. The
rules are not judged again per table: what is measured is the broker and the club, not 50 rules
engines on a 2-core machine (the publisher itself is tested in tests/test_club_*.py).

The club runs as `referee club` in its own process, with one page open on `/events`.

Prints: messages per second the club applied, the time from a verdict's publication (its `sent`
field) to the club's live table update and from a result's publication to the standings update
(p50, p99, measured by the club on the same clock), and the club's CPU (process CPU time / wall
time, from /proc). Targets: p99 <= 200 ms and the club under 25% of a core at 50 tables.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402

from controller.club.payloads import encode, result_payload, state_payload, verdict_payload  # noqa: E402
from controller.commands.replay import judge_record  # noqa: E402
from controller.files import load_yaml  # noqa: E402
from controller.record import Action, load_record  # noqa: E402
from controller.service.events import Table  # noqa: E402
from controller.snapshot import format_snapshot  # noqa: E402

RECORDS = sorted((ROOT / "examples").glob("*.yaml"))
PLAYERS = [f"player-{n:02d}" for n in range(1, 81)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on port {port} after {timeout} s")


def game_script(path: Path) -> tuple[dict, list[dict]]:
    """A record's game as a table would publish it: per settled board, verdict, Table and result."""

    from controller.games.registry import engine_for
    from controller.referee import Referee
    from controller.service.config import GAME_KEYS

    data = load_yaml(path, "the game record")
    keys = {k: data[k] for k in GAME_KEYS if data.get(k) is not None}
    record = load_record(path)
    referee = Referee(engine_for(record.setup))
    steps = []
    verdicts = [v for v in judge_record(record) if "result" not in v]
    entries = [record.board, *record.observations]
    for index, (entry, wanted) in enumerate(zip(entries, verdicts)):
        verdict = referee.act(entry.name, index=index) if isinstance(entry, Action) else referee.observe(entry, index)
        assert verdict.to_json() == wanted
        result = referee.result().to_json() if referee.started else None
        steps.append(
            {
                "verdict": wanted,
                "table": {
                    "game": record.setup.game,
                    "started": referee.started,
                    "over": referee.over,
                    "to_move": referee.to_move(),
                    "winners": tuple(result["winners"]) if referee.over and result and result.get("winners") else None,
                },
                "snapshot": None if isinstance(entry, Action) else format_snapshot(entry),
                "scores": result["scores"] if result else None,
                "result": result if referee.over and (index == len(entries) - 1) else None,
            }
        )
    return keys, steps


def run_tables(first: int, count: int, port: int, every: float, seconds: float, counter, ready, go, done) -> None:
    """One worker process: `count` tables, each its own paho client, stepping every `every` seconds."""
    scripts = [game_script(p) for p in RECORDS]
    rng = random.Random(first)
    clients: list[mqtt.Client] = []
    tables: list[dict[str, Any]] = []
    for n in range(first, first + count):
        name = f"bench-{n:02d}"
        keys, steps = scripts[n % len(scripts)]
        players = len(keys.get("seats") or []) or int(keys.get("players", 2))
        names = rng.sample(PLAYERS, max(1, players))
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
        client.will_set(f"referee/{name}/online", encode(False), qos=1, retain=True)
        client.connect("127.0.0.1", port, keepalive=30)
        client.loop_start()
        client.publish(f"referee/{name}/online", encode(True), qos=1, retain=True)
        clients.append(client)
        journal = f"{rng.getrandbits(128):032x}"  # each table's journal id, as `referee run` sends it
        tables.append(
            {
                "name": name,
                "keys": keys,
                "steps": steps,
                "names": names,
                "journal": journal,
                "game_id": 1,
                "pos": 0,
                "client": client,
            }
        )
    sent = 0
    ready.release()
    go.wait()
    started = time.monotonic()
    period = every / count
    tick = 0
    while time.monotonic() - started < seconds:
        t = tables[tick % count]
        step = t["steps"][t["pos"]]
        now = time.time()
        client, name, seq = t["client"], t["name"], t["pos"]
        journal = t["journal"]
        verdict = verdict_payload(name, t["game_id"], seq, step["verdict"], now, journal)
        if seq == 0:  # as TablePublisher sends them: the first entry names the players,
            verdict |= {"players": len(t["names"]), "names": t["names"]}
        if step["result"] is not None:  # the entry that ends the game carries its result
            verdict["result"] = step["result"]
        client.publish(f"referee/{name}/verdict", encode(verdict), qos=1)
        if step["result"] is not None:
            client.publish(
                f"referee/{name}/result",
                encode(result_payload(name, t["game_id"], seq, t["keys"], t["names"], step["result"], now, journal)),
                qos=1,
                retain=True,
            )
            sent += 1
        table = Table(game_id=t["game_id"], **step["table"])
        client.publish(
            f"referee/{name}/state",
            encode(
                state_payload(name, t["keys"], t["names"], table, step["snapshot"], step["scores"], seq, now, journal)
            ),
            qos=1,
            retain=True,
        )
        sent += 2
        t["pos"] += 1
        if t["pos"] >= len(t["steps"]):
            t["pos"], t["game_id"] = 0, t["game_id"] + 1
        tick += 1
        delay = started + tick * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    with counter.get_lock():
        counter.value += sent
    done.release()
    time.sleep(2.0)
    for client in clients:
        client.publish(f"referee/{client._client_id.decode()}/online", encode(False), qos=1, retain=True)
        client.disconnect()
        client.loop_stop()


def run_real_tables(
    first: int, count: int, port: int, every: float, seconds: float, counter, ready, go, done, folder: str
) -> None:
    """`--real-tables`: each table is `referee run`'s own path (journal, loop, rules, `TablePublisher`)."""
    import logging

    from controller.club.config import MqttConfig
    from simulation.club_table import RecordTable

    logging.getLogger().setLevel(logging.WARNING)
    rng = random.Random(first)
    tables = []
    for n in range(first, first + count):
        record = RECORDS[n % len(RECORDS)]
        table = RecordTable(record, Path(folder) / f"bench-{n:02d}.sqlite")  # to learn its player count
        players = table.setup.players
        table.close()
        names = tuple(rng.sample(PLAYERS, players))
        config = MqttConfig(host="127.0.0.1", port=port, table=f"bench-{n:02d}", names=names)
        tables.append(RecordTable(record, Path(folder) / f"bench-{n:02d}.sqlite", config))
    ready.release()
    go.wait()
    started = time.monotonic()
    period, tick = every / count, 0
    while time.monotonic() - started < seconds:
        tables[tick % count].step()
        tick += 1
        delay = started + tick * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    with counter.get_lock():
        counter.value += tick
    done.release()
    time.sleep(2.0)
    for table in tables:
        table.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def get(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--speed", type=float, default=10.0, help="times game speed (default 10)")
    parser.add_argument("--board-every", type=float, default=2.0, help="game speed: seconds per settled board")
    parser.add_argument(
        "--real-tables",
        action="store_true",
        help="run referee run's own path per table (journal, loop, rules, publisher): CPU-heavy",
    )
    parser.add_argument("--no-page", action="store_true", help="no page open on the club's /events")
    parser.add_argument("--processes", type=int, default=2, help="processes the tables are spread over")
    args = parser.parse_args()
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.access(mosquitto, os.X_OK):
        print("club_bench: Mosquitto is not installed (apt-get install mosquitto)", file=sys.stderr)
        return 2
    every = args.board_every / args.speed
    with tempfile.TemporaryDirectory(prefix="club-bench-") as tmp:
        folder = Path(tmp)
        port, web = free_port(), free_port()
        (folder / "mosquitto.conf").write_text(
            f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\nlog_type error\n"
            f"user {os.environ.get('USER') or 'root'}\n"
        )
        broker = subprocess.Popen(
            [mosquitto, "-c", str(folder / "mosquitto.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        club = None
        club_log = open(folder / "club.log", "w")  # noqa: SIM115 (closed below, after the club)
        try:
            wait_port(port)
            club = subprocess.Popen(
                [
                    *os.environ.get("CLUB_BENCH_PYTHON", sys.executable).split(),
                    "-m",
                    "controller.cli",
                    "club",
                    "--broker",
                    f"127.0.0.1:{port}",
                    "--db",
                    str(folder / "club.sqlite"),
                    "--port",
                    str(web),
                    "--bind",
                    "127.0.0.1",
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=club_log,
            )
            wait_port(web)
            if not args.no_page:  # one page open, reading what the club pushes
                page = urllib.request.urlopen(f"http://127.0.0.1:{web}/events", timeout=60)
                threading.Thread(target=lambda: [None for _ in iter(lambda: page.read(4096), b"")], daemon=True).start()
            counter = multiprocessing.Value("l", 0)
            ready, go, done = multiprocessing.Semaphore(0), multiprocessing.Event(), multiprocessing.Semaphore(0)
            per = [
                args.tables // args.processes + (1 if i < args.tables % args.processes else 0)
                for i in range(args.processes)
            ]
            workers, first = [], 0
            for count in per:
                common = (first, count, port, every, args.seconds, counter, ready, go, done)
                if args.real_tables:
                    w = multiprocessing.Process(target=run_real_tables, args=(*common, str(folder)))
                else:
                    w = multiprocessing.Process(target=run_tables, args=common)
                first += count
                workers.append(w)
            for w in workers:
                w.start()
            for _ in workers:  # every table connected and its game judged up front
                ready.acquire()
            time.sleep(1.0)
            before = get(f"http://127.0.0.1:{web}/api/stats")["messages"]
            cpu0, wall0 = cpu_seconds(club.pid), time.monotonic()
            go.set()
            for _ in workers:
                done.acquire()
            time.sleep(0.5)  # the last messages reach the club
            cpu1, wall1 = cpu_seconds(club.pid), time.monotonic()
            stats = get(f"http://127.0.0.1:{web}/api/stats")
            standings = get(f"http://127.0.0.1:{web}/api/standings")["standings"]
            for w in workers:
                w.join()
        finally:
            if club is not None:
                club.send_signal(signal.SIGTERM)
                club.wait(10)
            broker.terminate()
            broker.wait(10)
            club_log.close()
    wall = wall1 - wall0
    applied = stats["messages"] - before
    print(
        f"{args.tables} tables, {args.seconds:.0f} s at {args.speed:g}x game speed "
        f"(one settled board every {every:.2f} s per table), {args.processes} table processes, "
        f"{'no page' if args.no_page else 'one page'} open, "
        f"{'real tables (journal, loop, rules, publisher)' if args.real_tables else 'replayed payloads'}"
    )
    what = "settled boards judged and published" if args.real_tables else "verdict/state/result messages published"
    print(
        f"{counter.value} {what}; the club applied {applied} "
        f"({applied / wall:.0f} messages/s), {stats['verdicts']} verdicts, {stats['results']} results, "
        f"{stats['duplicates']} duplicates, {stats['ignored']} ignored, {len(standings)} players in the standings"
    )
    v, s = stats["verdict_latency_ms"], stats["standings_latency_ms"]
    print(f"verdict published -> club's table updated: p50 {v['p50']} ms, p99 {v['p99']} ms (n={v['n']})")
    print(f"result published -> club's standings updated: p50 {s['p50']} ms, p99 {s['p99']} ms (n={s['n']})")
    c = stats["club_latency_ms"]
    print(f"  of which in the club (message received -> update): p50 {c['p50']} ms, p99 {c['p99']} ms")
    print(f"club CPU: {cpu1 - cpu0:.2f} s in {wall:.1f} s = {100 * (cpu1 - cpu0) / wall:.1f}% of one core")
    ok = (v["p99"] or 0) <= 200 and (s["p99"] or 0) <= 200 and (cpu1 - cpu0) / wall < 0.25
    print("targets (p99 <= 200 ms, club < 25% of a core):", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
