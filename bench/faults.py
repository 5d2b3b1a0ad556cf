"""Fault bench: the simulated referee killed with SIGKILL at random moments, and its journal damaged,
deleted, filled and made read-only; nothing shown to the players may be lost or given twice.

Three parts:
1. **kill -9 of the fast simulated service** (`--kills`, default 100): a child process runs the
   stand-in rig (`StubRig`: the real loop, journal and referee, simulated camera and switches on a
   simulated clock) playing games with their troubles (illegal moves, half moves, glare, ...), and
   prints one line per verdict once the lights have shown it. The bench kills it with SIGKILL at a
   random moment (during start-up and replay too) and starts it again, which resumes from the
   journal (and the simulated board from the journal's position).
2. **kill -9 of `referee run`** (`--run-kills`, default 3): the real command with the shipped
   config.yaml (its pictures made 640x360 and the player's pause 0.5 s so a loaded machine gets
   verdicts in seconds), killed after 6-14 s and started again; its log lines are the verdicts shown.
3. **journal faults** on the stand-in rig, in this process: a garbled row, a file cut inside its
   last page, a 0-byte file, the journal deleted while running, a full disk (SQLite's
   `max_page_count`) and a read-only file (`PRAGMA query_only`, since root may write any file).

Counted: kills; resumes that matched (the restarted referee replayed the journal, every stored
verdict reproduced, and every verdict an earlier run showed is in it with the same words);
verdicts shown; verdicts lost (shown, but missing from the journal or different there); verdicts
duplicated (the same verdict shown twice, or the same board journalled twice in a row); journals
quarantined (moved aside as unreadable: expected for the three damaged files only).

Usage: python bench/faults.py [--kills 100] [--run-kills 3] [--seed 0] [--game colorpop]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import json
import logging
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.errors import RefereeError  # noqa: E402
from controller.files import load_yaml  # noqa: E402
from controller.service.journal import Journal  # noqa: E402
from controller.service.session import GameSession  # noqa: E402

GAMES = {
    "colorpop": {"game": "colorpop", "players": 3},
    "blockers": {"game": "blockers", "players": 3, "seats": ["R", "G", "B"]},
    "flipop": {"game": "flipop", "players": 2},
    "stay-alive": {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
}


# --------------------------------------------------------------------------- the child (part 1)
def child(journal: str, game: str, seed: int) -> None:
    """Run the stand-in rig until killed, printing what the players were shown."""
    from controller.service.events import VerdictGiven
    from simulation.world import SimTable, StubRig, resume_world

    rig = StubRig(GAMES[game], journal, seed=seed, troubles=True, max_moves=60)
    session = rig.loop.session
    resume_world(rig.world, session)
    out = sys.stdout

    def shown(event) -> None:  # subscribed after the lights: the players have seen it
        if isinstance(event, VerdictGiven):
            out.write(json.dumps({"game": event.game_id, "seq": event.seq, "verdict": event.verdict.to_json()}) + "\n")
            out.flush()

    rig.loop.bus.subscribe(shown, inline=True, name="bench")
    out.write(
        json.dumps(
            {
                "opened": rig.opened.how,
                "game": session.game_id,
                "next": len(session.verdicts),
                "moved_aside": rig.opened.moved_aside,
            }
        )
        + "\n"
    )
    out.flush()
    table = SimTable(rig.world, rig.setup, lambda: rig.loop.session, seed=seed, troubles=True)
    for step in table.steps():
        if step is None:  # the game is over: the button is pressed for a new one
            rig.loop.submit("new-game")
            rig.driver.run_frames(2)
            continue
        rig.driver.do(step)


# --------------------------------------------------------------------------- bookkeeping
@dataclass
class Tally:
    kills: int = 0
    restarts: int = 0
    resumes_matched: int = 0
    shown: int = 0
    lost: int = 0
    duplicated: int = 0
    quarantined: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self, title: str, seconds: float) -> str:
        return (
            f"{title}: kills {self.kills}, resumes matched {self.resumes_matched}/{self.restarts}, "
            f"verdicts shown {self.shown}, lost {self.lost}, duplicated {self.duplicated}, "
            f"journals quarantined {self.quarantined} ({seconds:.0f} s)"
        )


def journal_verdicts(path: Path) -> dict[int, list[dict]]:
    """Every game's verdicts, each game replayed through a fresh referee (which checks them all)."""
    journal = Journal(path, read_only=True)
    try:
        return {game.id: GameSession.replay(journal, game.id).verdicts for game in journal.games()}
    finally:
        journal.close()


def journal_repeats(path: Path) -> int:
    """Boards journalled twice in a row: the referee never judges the same board twice."""
    journal = Journal(path, read_only=True)
    try:
        repeats = 0
        for game in journal.games():
            entries = journal.entries(game.id)
            repeats += sum(
                a.kind == b.kind == "snapshot" and a.payload == b.payload for a, b in zip(entries, entries[1:])
            )
        return repeats
    finally:
        journal.close()


def drain(stream, into: list[str]) -> threading.Thread:
    thread = threading.Thread(target=lambda: into.extend(iter(stream.readline, "")), daemon=True)
    thread.start()
    return thread


# --------------------------------------------------------------------------- part 1
def kill_stub(kills: int, game: str, seed: int, folder: Path) -> Tally:
    tally = Tally()
    rng = random.Random(seed)
    path = folder / "stub.sqlite"
    shown: dict[tuple[int, int], dict] = {}
    for run in range(kills + 1):
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(path), "--game", game, "--seed", str(seed * 1000 + run)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        lines: list[str] = []
        reader = drain(proc.stdout, lines)
        if run < kills:
            if rng.random() < 0.2:  # at start-up: while the journal is opened and replayed
                time.sleep(rng.uniform(0.0, 1.5))
            else:  # while playing
                deadline = time.monotonic() + 30
                while not lines and time.monotonic() < deadline and proc.poll() is None:
                    time.sleep(0.01)
                time.sleep(rng.uniform(0.0, 1.5))
            proc.send_signal(signal.SIGKILL)
            tally.kills += 1
        else:  # the last run: let it resume and play a little, then stop it the same way
            deadline = time.monotonic() + 30
            while not lines and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(1.0)
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        reader.join(5)
        records = [json.loads(line) for line in lines if line.strip()]
        opened = next((r for r in records if "opened" in r), None)
        if opened is not None and run > 0:
            tally.restarts += 1
            if opened["moved_aside"]:
                tally.quarantined += 1
                tally.notes.append(f"run {run}: {opened['moved_aside']}")
            # every verdict shown so far in this game must be among those the restart replayed
            before = [seq for (g, seq) in shown if g == opened["game"]]
            if not opened["moved_aside"] and (not before or max(before) < opened["next"]):
                tally.resumes_matched += 1
            else:
                tally.notes.append(f"run {run}: resumed game {opened['game']} at {opened['next']}, shown {before}")
        for record in records:
            if "verdict" not in record:
                continue
            key = (record["game"], record["seq"])
            if key in shown:
                tally.duplicated += 1
                tally.notes.append(f"run {run}: game {key[0]} entry {key[1]} shown again")
            shown[key] = record["verdict"]
    tally.shown = len(shown)
    stored = journal_verdicts(path)
    for (game_id, seq), verdict in shown.items():
        if seq is None or seq >= len(stored.get(game_id, [])) or stored[game_id][seq] != verdict:
            tally.lost += 1
            tally.notes.append(f"game {game_id} entry {seq} shown but not journalled as shown")
    tally.duplicated += journal_repeats(path)
    return tally


# --------------------------------------------------------------------------- part 2
VERDICT_LINE = re.compile(
    r"\] (seat \d+: (legal move|illegal move|move under way)|the reading is doubtful|board put back|"
    r"board back to|starting board (accepted|not valid)|action )"
)
RESUMED = re.compile(r"resumed game (\d+) from the journal after (\d+) verdicts")


def kill_run(kills: int, seed: int, folder: Path) -> Tally:
    import yaml

    tally = Tally()
    if kills <= 0:
        return tally
    rng = random.Random(seed)
    config = load_yaml(ROOT / "config.yaml", "the config file")
    config.update(journal=str(folder / "run.sqlite"), control_socket=str(folder / "run.sock"))
    config["camera"].update(width=640, height=360)
    config["simulation"].update(move_every=0.5, seed=seed)
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    referee = Path(sys.executable).with_name("referee")
    shown_before: tuple[int, int] | None = None  # (game, verdicts the journal must hold at least)
    first_after_resume: list[str] = []
    for run in range(kills + 1):
        proc = subprocess.Popen(
            [str(referee), "run", "--config", str(folder / "config.yaml")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=folder,
        )
        lines: list[str] = []
        reader = drain(proc.stderr, lines)
        time.sleep(rng.uniform(6.0, 14.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        reader.join(5)
        if run < kills:
            tally.kills += 1
        verdicts = [line for line in lines if VERDICT_LINE.search(line)]
        tally.shown += len(verdicts)
        if any("moved aside" in line for line in lines):
            tally.quarantined += 1
        resumed = next((RESUMED.search(line) for line in lines if RESUMED.search(line)), None)
        if run > 0:
            tally.restarts += 1
            if resumed is not None and shown_before is not None and int(resumed.group(1)) == shown_before[0]:
                if int(resumed.group(2)) >= shown_before[1]:
                    tally.resumes_matched += 1
                else:
                    tally.lost += shown_before[1] - int(resumed.group(2))
            if verdicts:
                first_after_resume.append(verdicts[0])
        if resumed is not None:
            shown_before = (int(resumed.group(1)), int(resumed.group(2)) + len(verdicts))
        elif any("started game" in line for line in lines):
            game = re.search(r"started game (\d+)", next(line for line in lines if "started game" in line))
            if game is None:
                raise AssertionError("the log names a started game without its number")
            shown_before = (int(game.group(1)), len(verdicts))
    tally.duplicated += journal_repeats(folder / "run.sqlite")
    journal_verdicts(folder / "run.sqlite")  # raises if any game does not replay as judged
    wrong = [line for line in first_after_resume if "illegal" in line]
    tally.notes.extend(f"after a restart: {line.strip()}" for line in wrong)
    tally.lost += len(wrong)  # an illegal verdict right after a restart means the board was not resumed
    return tally


# --------------------------------------------------------------------------- part 3
def journal_faults(game: str, seed: int, folder: Path) -> tuple[Tally, list[str]]:
    from simulation.world import StubRig

    keys = GAMES[game]
    tally = Tally()
    report: list[str] = []

    def rig_on(path: Path, run_seed: int) -> StubRig:
        return StubRig(keys, path, seed=run_seed, troubles=True, max_moves=40)

    def play(rig: StubRig, steps, moves: int):
        while rig.player.moves < moves:
            step = next(steps, None)
            if step is None:
                break
            rig.driver.do(step)
        return steps

    def shown_kept(rig: StubRig, path: Path) -> int:
        """Verdicts this rig showed that the journal does not hold as shown."""
        rig.driver.run_frames(6 * 30)  # the periodic retry
        stored = journal_verdicts(path).get(rig.loop.session.game_id, [])
        lost = sum(1 for i, v in enumerate(rig.loop.session.verdicts) if i >= len(stored) or stored[i] != v)
        tally.shown += len(rig.loop.session.verdicts)
        tally.duplicated += journal_repeats(path)
        return lost

    # damaged files: moved aside, a fresh journal, refereeing goes on
    def garble(path: Path) -> None:
        data = bytearray(path.read_bytes())
        at = data.rfind(b'"verdict": "')
        data[at + 3 : at + 9] = b"\x00\xff\x13zz\x01"
        path.write_bytes(bytes(data))

    def cut(path: Path) -> None:
        with open(path, "r+b") as file:
            file.truncate(path.stat().st_size - 1000)

    damage: dict[str, Callable[[Path], object]] = {
        "garbled row": garble,
        "cut inside its last page": cut,
        "0 bytes": lambda p: p.write_bytes(b""),
    }
    for n, (name, hurt) in enumerate(damage.items()):
        path = folder / f"damaged-{n}.sqlite"
        rig = rig_on(path, seed + n)
        play(rig, rig.player.steps(), 6)
        rig.loop.session.journal.close()
        hurt(path)
        again = rig_on(path, seed + n)
        quarantined = again.opened.moved_aside is not None
        tally.quarantined += quarantined
        play(again, again.player.steps(), 3)
        lost = shown_kept(again, path)
        tally.lost += lost
        report.append(
            f"  {name}: {'moved aside' if quarantined else 'NOT moved aside'}, refereeing went on, "
            f"{len(again.loop.session.verdicts)} verdicts in the fresh journal, {lost} lost"
        )

    # faults while running: nothing shown may be lost
    def delete(rig: StubRig, path: Path) -> None:
        for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            name.unlink(missing_ok=True)

    def disk_full(rig: StubRig, path: Path) -> None:
        db = rig.loop.session.journal.db
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")

    def disk_freed(rig: StubRig, path: Path) -> None:
        rig.loop.session.journal.db.execute("PRAGMA max_page_count = 1073741823")

    original_connect = Journal._connect

    def read_only(rig: StubRig, path: Path) -> None:
        def connect(self, **options):
            db = original_connect(self, **options)
            db.execute("PRAGMA query_only = 1")
            return db

        Journal._connect = connect  # type: ignore[method-assign,assignment]
        rig.loop.session.journal.db.execute("PRAGMA query_only = 1")

    def writable(rig: StubRig, path: Path) -> None:
        Journal._connect = original_connect  # type: ignore[method-assign]

    running: dict[str, tuple[Callable, Callable | None]] = {
        "deleted while running": (delete, None),
        "disk full": (disk_full, disk_freed),
        "read-only file": (read_only, writable),
    }
    for n, (name, (hurt, heal)) in enumerate(running.items()):
        path = folder / f"running-{n}.sqlite"
        rig = rig_on(path, seed + 10 + n)
        steps = play(rig, rig.player.steps(), 3)
        hurt(rig, path)
        steps = play(rig, steps, 20)
        faults = [f for f in rig.loop.faults if "journal" in f]
        waiting = rig.loop.session.journal.waiting
        if heal is not None:
            heal(rig, path)
        play(rig, steps, 26)
        lost = shown_kept(rig, path)
        tally.lost += lost
        report.append(
            f"  {name}: fault {faults[0]!r} while {waiting} writes waited; "
            if faults
            else f"  {name}: NO FAULT SHOWN; "
        )
        report[-1] += f"{len(rig.loop.session.verdicts)} verdicts, {lost} lost"
    return tally, report


# --------------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100, help="SIGKILLs of the fast simulated service")
    parser.add_argument("--run-kills", type=int, default=3, help="SIGKILLs of a real `referee run`")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", choices=sorted(GAMES), default="colorpop")
    parser.add_argument("--child", metavar="JOURNAL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.game, args.seed)
        return 0
    failed = False
    with tempfile.TemporaryDirectory(prefix="referee-faults-") as tmp:
        folder = Path(tmp)
        for title, work in (
            (f"kill -9, stand-in rig ({args.game})", lambda: kill_stub(args.kills, args.game, args.seed, folder)),
            ("kill -9, referee run (shipped config)", lambda: kill_run(args.run_kills, args.seed, folder)),
        ):
            started = time.monotonic()
            try:
                tally = work()
            except RefereeError as exc:
                print(f"{title}: the journal does not replay: {exc}")
                failed = True
                continue
            print(tally.line(title, time.monotonic() - started))
            for note in tally.notes[:10]:
                print(f"  {note}")
            failed |= bool(tally.lost or tally.duplicated or tally.quarantined or tally.notes)
        started = time.monotonic()
        logging.disable(logging.WARNING)  # the faults' own log lines: the report below says what happened
        tally, report = journal_faults(args.game, args.seed, folder)
        print(
            f"journal faults ({args.game}): verdicts shown {tally.shown}, lost {tally.lost}, duplicated "
            f"{tally.duplicated}, journals quarantined {tally.quarantined} of 3 damaged "
            f"({time.monotonic() - started:.0f} s)"
        )
        for line in report:
            print(line)
        failed |= bool(tally.lost or tally.duplicated or tally.quarantined != 3)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
