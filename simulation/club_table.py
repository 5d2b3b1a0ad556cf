"""A simulated club table: a game record from `examples/` replayed through the real referee loop.

Why: the club's tests and `bench/club_bench.py` need many tables that behave like `referee run`
(journal, loop events, publisher) without cameras or rendering. The board comes from the record,
the sensor and switches are the fast stand-ins of `simulation.world`, the clock is
simulated (each step ticks it past the settle time), so a step costs what judging costs.

`python -m simulation.club_table RECORD JOURNAL --host H --port P --table T --every S` plays
a record in real time, one settled board every S seconds, and starts the record again as a new
game at its end (the kill -9 test and the bench run it as a process).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from typing import Any

from controller.club.config import MqttConfig
from controller.club.publisher import TablePublisher
from controller.files import parse_yaml, read_text
from controller.games import registry
from controller.record import Action, parse_record
from controller.service.config import GAME_KEYS
from controller.service.loop import RefereeLoop, Settings
from controller.service.session import open_journal
from simulation.world import SimClock, SimWorld, SnapshotSensor, WorldSwitches

#: Simulated seconds per tick, and the settle time: a board is judged two ticks after it is set.
TICK, SETTLE = 0.05, 0.1
#: A record's actions, as the loop's commands (the control socket's words).
COMMANDS = {"end-by-agreement": "end", "new-game": "new-game"}


class RecordTable:
    """One table replaying a record; `step()` shows the next settled board (or takes the action)."""

    def __init__(
        self,
        record_path: str | Path,
        journal_path: str | Path,
        mqtt: MqttConfig | None = None,
        log: logging.Logger | None = None,
    ) -> None:
        text = read_text(record_path, "the game record")
        self.record = parse_record(text, str(record_path))
        data = parse_yaml(text, str(record_path))
        self.keys: dict[str, Any] = {k: data[k] for k in GAME_KEYS if data.get(k) is not None}
        self.setup = self.record.setup
        self.entries: list[Any] = [self.record.board, *self.record.observations]
        self.clock = SimClock()
        self.log = log or logging.getLogger("referee.simtable")
        # As `referee run` opens it: a damaged journal is moved aside and a fresh one started.
        opened = open_journal(journal_path, self.keys, self.setup)
        self.journal, session = opened.journal, opened.session
        #: Where a journal that could not be used was moved aside, in a sentence (None: it was fine).
        self.moved_aside = opened.moved_aside
        #: The record entry shown next: a resumed game goes on where its journal stopped.
        self.position = min(session.next_index, len(self.entries))
        self.world = SimWorld(self.setup, self._board_before(self.position))
        switches = WorldSwitches(self.world) if registry.get(self.setup.game).uses_switches else None
        self.loop = RefereeLoop(
            session,
            SnapshotSensor(self.world),
            None,
            switches=switches,
            settings=Settings(SETTLE, 3600.0),
            clock=self.clock,
            log=self.log,
        )
        self.publisher: TablePublisher | None = None
        if mqtt is not None:
            self.publisher = TablePublisher(mqtt, journal_path, self.keys, table=self.loop.table(), log=self.log)
            self.loop.bus.subscribe(self.publisher.on_event, name="mqtt")
            self.publisher.start()
        self._ticks(4)

    def _board_before(self, position: int) -> Any:
        for entry in reversed(self.entries[: max(1, position)]):
            if not isinstance(entry, Action):
                return entry
        return self.record.board

    def _ticks(self, n: int) -> None:
        for _ in range(n):
            self.clock.advance(TICK)
            self.loop.tick()

    @property
    def finished(self) -> bool:
        return self.position >= len(self.entries)

    def step(self) -> None:
        """The next entry of the record: a settled board, or an action; at the end, a new game."""
        if self.finished:
            self.world.set_board(self.record.board)
            self._command("new-game")
            self.position = 0
        entry = self.entries[self.position]
        if isinstance(entry, Action):
            self._command(COMMANDS[entry.name])
        else:
            self.world.set_board(entry)
            # held until the referee speaks: at once for a legal board, after the patience time
            # (and a picture read again then) for one that looks illegal
            ticks = 1 + round(max(SETTLE, self.loop.settings.patience) / TICK) + 2
            before = len(self.loop.verdicts)
            for _ in range(ticks):
                self._ticks(1)
                if len(self.loop.verdicts) > before:
                    break
        self.position += 1

    def _command(self, name: str) -> None:
        future = self.loop.submit(name)
        self._ticks(1)
        future.result(timeout=5)

    @property
    def last_point(self) -> tuple[int, int]:
        """(game_id, seq) of the game's last journal entry (a replayed session has one per stored verdict)."""
        session = self.loop.session
        return session.game_id, session.last_seq if session.last_seq is not None else len(session.verdicts) - 1

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.close()
        self.journal.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulation.club_table", description=__doc__)
    parser.add_argument("record")
    parser.add_argument("journal")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--table", required=True)
    parser.add_argument("--names", help="comma-separated player names, one per seat")
    parser.add_argument("--every", type=float, default=0.2, help="seconds between settled boards")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: never)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    names = tuple(args.names.split(",")) if args.names else ()
    mqtt = MqttConfig(host=args.host, port=args.port, table=args.table, keepalive=5, names=names)
    table = RecordTable(args.record, args.journal, mqtt)
    print(f"ready {table.last_point[0]} {table.last_point[1]}", flush=True)
    steps = 0
    try:
        while args.steps <= 0 or steps < args.steps:
            table.step()
            steps += 1
            print(f"step {table.last_point[0]} {table.last_point[1]}", flush=True)
            time.sleep(args.every)
    except KeyboardInterrupt:
        pass  # Ctrl-C ends the simulated table; the finally block closes it
    finally:
        table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
