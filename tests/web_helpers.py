"""What the web tests share: a test client around a `WebApp`, and a camera sensor holding one picture."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp.test_utils import TestClient, TestServer

from controller.web import WebApp


def with_client(app: WebApp, body) -> None:
    """Run `await body(client)` with an aiohttp test client serving `app`."""

    async def main() -> None:
        async with TestClient(TestServer(app.build())) as client:
            await body(client)

    asyncio.run(main())


@contextmanager
def ticking(rig) -> Iterator[None]:
    """Tick the stand-in rig's loop in the background, as `referee run` does, so commands the page
    submits are run."""
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            stop.wait(0.005)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


class PictureSensor:
    """A camera sensor that has just seen `frame` (nothing read from it yet); `reader`, when given,
    is the board reader the page's aim and overlay use."""

    def __init__(self, frame, reader=None) -> None:
        self.latest_frame = frame
        self.latest_reading = None
        self.reader = reader
