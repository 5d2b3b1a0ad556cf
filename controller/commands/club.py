"""`referee club --broker HOST:PORT`: the club's page of every table, live, and the standings.

Any machine on the club's network runs it; it only reads from the broker (`referee/#`) and serves
a read-only page. Stop it with Ctrl-C or SIGTERM; results stay in its SQLite file.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from pathlib import Path

from controller.club.config import DEFAULT_PREFIX, PREFIX
from controller.club.server import BrokerAddress, ClubServer
from controller.club.store import ClubStore, Points, load_roster
from controller.commands.stopping import StopOnSignals
from controller.errors import RefereeError
from controller.language import LANGUAGES, _, choose, literal


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "club",
        help="follow every table of a club through an MQTT broker: live page, results and standings",
        description=(
            "Subscribe to every table on the club's MQTT broker, keep results and standings in SQLite and "
            "serve a read-only page (live tables, standings, /standings.csv, /api/tables, /api/standings)."
        ),
    )
    parser.add_argument("--broker", default="localhost:1883", help="the broker, HOST:PORT (default localhost:1883)")
    parser.add_argument("--db", default="club.sqlite", help="the club's database (default club.sqlite)")
    parser.add_argument("--port", type=int, default=8090, help="the page's port (default 8090)")
    parser.add_argument("--bind", default="0.0.0.0", help="the page's address (default 0.0.0.0: every interface)")
    parser.add_argument(
        "--points", default="win=1,draw=0.5,loss=0", help="points per result (default win=1,draw=0.5,loss=0)"
    )
    parser.add_argument("--prefix", default=DEFAULT_PREFIX, help="the tables' topic prefix (default referee)")
    parser.add_argument("--username", help="the club's user name on the broker")
    parser.add_argument("--password-file", help="a file holding the club's broker password (never on the command line)")
    parser.add_argument("--ca-file", help="TLS: the CA certificate that signed the broker's")
    parser.add_argument(
        "--client-id",
        help="the club's MQTT client id (default: its --username, else referee-club; a broker set up as "
        "docs/mqtt.md says gives every client its user name as id anyway)",
    )
    parser.add_argument(
        "--roster",
        metavar="FILE",
        help="which players each table may field (YAML, one line per table: 'table-3: [Ann, Bob, Cy]'); "
        "results naming anyone else are refused",
    )
    parser.add_argument(
        "--language",
        default=None,
        help="the page's language for a browser that asks for none of the referee's (en or fr; default: the "
        "person's locale, LANG, else en; each page follows its browser's Accept-Language and its own language "
        "links)",
    )
    parser.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name or address people use to reach the page, besides this machine's own names and the address "
        "they connect to (repeatable); requests for any other name are refused",
    )
    return parser


def parse_broker(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, "1883"
    host = host.strip("[]")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise RefereeError(_("--broker: expected HOST:PORT, for example localhost:1883, got {value}", value=repr(text)))
    return host, int(port)


def broker_from(args: argparse.Namespace) -> BrokerAddress:
    host, port = parse_broker(args.broker)
    if not PREFIX.match(args.prefix):
        raise RefereeError(_("--prefix: expected topic levels such as 'referee', got {value}", value=repr(args.prefix)))
    files = {}
    for option in ("password_file", "ca_file"):
        value = getattr(args, option)
        if value is not None:
            path = Path(value).expanduser()
            if not path.is_file():
                raise RefereeError(
                    _(
                        "{option}: the file {path} does not exist",
                        option="--" + option.replace("_", "-"),
                        path=str(path),
                    )
                )
            files[option] = path
    if "password_file" in files and not args.username:
        raise RefereeError(_("--password-file needs --username"))
    return BrokerAddress(
        host=host, port=port, prefix=args.prefix, username=args.username, client_id=args.client_id, **files
    )


def run(args: argparse.Namespace) -> int:
    broker = broker_from(args)
    points = Points.parse(args.points)
    if not 0 <= args.port <= 65535:
        raise RefereeError(_("--port: expected 0 to 65535, got {value}", value=literal(str(args.port))))
    language = choose(args.language)
    if language is None:
        raise RefereeError(
            _(
                "--language: expected one of {languages}, got {value}",
                languages=", ".join(LANGUAGES),
                value=repr(args.language),
            )
        )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    log = logging.getLogger("referee.club")
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False
    stop = threading.Event()
    with StopOnSignals(stop) as signals:
        server = ClubServer(
            broker,
            ClubStore(args.db, points, log, roster=load_roster(args.roster) if args.roster else None),
            host=args.bind,
            port=args.port,
            log=log,
            hosts=tuple(args.host),
            language=language,
        ).start()
        log.info("the club's page is at %s (broker %s:%d, database %s)", server.url, broker.host, broker.port, args.db)
        try:
            while not stop.wait(1.0):
                pass
        finally:
            server.stop()
    return signals.exit_code
