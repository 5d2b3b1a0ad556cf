"""`referee run [--config FILE]`: the referee service itself.

On a Pi it drives the real camera, slide switches and GPIO pins named in config.yaml; with the
simulated devices selected (the default config) it runs anywhere, and a simulated player moves
pieces in front of the simulated camera so there is something to referee. Stop it with Ctrl-C
or SIGTERM (systemd); the game in progress is resumed from the journal at the next start.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import threading

from controller.assembly import assemble
from controller.commands.stopping import StopOnSignals
from controller.service.config import ServiceConfig, load_config
from controller.service.control import check_socket_path
from controller.service.notify import Notifier


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "run",
        help="run the referee service (camera and switches in, verdicts on lights and buzzer out)",
        description="Run the referee service with the devices named in the config file.",
    )
    parser.add_argument("--config", default="config.yaml", help="config file (default: config.yaml)")
    return parser


def setup_logging(config: ServiceConfig) -> None:
    """One readable line per event, to stderr (the journal of systemd) or to the configured file."""
    handler: logging.Handler
    if config.log_file is not None:
        config.log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(config.log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(config.log_level.upper())


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    setup_logging(config)
    log = logging.getLogger("referee")
    devices = None
    if config.camera.get("source") == "renderer" or config.switches.source == "simulated":
        # the simulated rig (the shipped config): this command hands it to the service (imported here:
        # a real rig never loads the simulation)
        from simulation.devices import SimulatedDevices
        from simulation.world import SimWorld, starting_board

        board = starting_board(config.setup, random.Random(config.simulation.seed))
        devices = SimulatedDevices(lambda pico: SimWorld(config.setup, board, pico=pico))
    stop = threading.Event()
    with StopOnSignals(stop) as signals:
        check_socket_path(config.control_socket)  # a referee already running: stop before its journal is opened
        service = assemble(config, devices=devices, log=log)
        try:
            log.info(
                "[%s] refereeing; control socket %s; settle time %.2f s, patience %.1f s",
                config.setup.game,
                config.control_socket,
                config.settle_time,
                config.patience,
            )
            if service.world is not None:
                # the simulated rig's people (imported here: a real rig never loads the simulation)
                from simulation.setup_person import TableHands
                from simulation.world import play_in_background

                # the page's calibration: a simulated person sets each board, the players wait meanwhile
                hands = TableHands(service.world, seed=config.simulation.seed)
                if service.web is not None:
                    service.web.web_app.table_hands = hands
                if config.simulation.player:
                    sim = config.simulation
                    play_in_background(service, stop, sim.seed, sim.move_every, paused=hands.paused)
            service.run(stop, Notifier())
        finally:
            stop.set()  # the simulated players' thread ends too
            service.close()
            log.info("[%s] stopped; the game is kept in the journal %s", config.setup.game, config.journal)
    return signals.exit_code
