"""The control socket under a crowd: how long `status` takes while other clients hold connections.

A loop stand-in answers each command on its own thread (as `RefereeLoop.submit` does, one
command per 1/30 s frame); `silent` clients connect and send nothing, `hostile` ones send
deeply nested JSON or random bytes. Prints the median and worst `status` round trip.

    python bench/control_bench.py [--silent N] [--hostile N] [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.service.control import ControlServer, request  # noqa: E402

FRAME = 1 / 30


class FrameLoop:
    """Runs queued commands once per frame, like the referee loop."""

    def __init__(self) -> None:
        self.commands: queue.SimpleQueue = queue.SimpleQueue()
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def submit(self, name: str, **args) -> Future:
        future: Future = Future()
        self.commands.put((name, future))
        return future

    def _run(self) -> None:
        while not self.stop.wait(FRAME):
            while not self.commands.empty():
                name, future = self.commands.get()
                if future.set_running_or_notify_cancel():
                    future.set_result({"ok": True, "command": name})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--silent", type=int, default=6, help="clients that connect and send nothing")
    parser.add_argument("--hostile", type=int, default=50, help="hostile requests sent alongside")
    parser.add_argument("--rounds", type=int, default=50, help="status requests timed")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    loop = FrameLoop()
    server = ControlServer(folder / "ctl.sock", loop.submit)
    server.start()
    silent = []
    for _ in range(args.silent):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(str(server.path))
        silent.append(conn)

    def hostile() -> None:
        for k in range(args.hostile):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(server.path))
                with contextlib.suppress(OSError):  # a too-long request is answered before it ends
                    conn.sendall(b"[" * 15_000 + b"\n" if k % 2 else os.urandom(2000))
                    conn.shutdown(socket.SHUT_WR)
                    conn.recv(4096)

    noise = threading.Thread(target=hostile)
    noise.start()
    times = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        request(server.path, "status")
        times.append((time.perf_counter() - start) * 1000)
    noise.join()
    server.close()
    loop.stop.set()
    print(
        f"status with {args.silent} silent clients connected and {args.hostile} hostile requests: "
        f"median {statistics.median(times):.1f} ms, worst {max(times):.1f} ms over {args.rounds} requests "
        f"(one loop frame is {FRAME * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()
