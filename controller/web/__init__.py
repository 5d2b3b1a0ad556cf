"""The live page served by the referee: what the camera sees, what the referee believes, how to put it right.

`WebApp` holds the routes and JSON API (docs/page.md); `WebServer` serves it
from a thread of its own while `referee run` runs (config `web:`). Why aiohttp: see `server.py`.
"""

from controller.web.server import WebApp, WebServer

__all__ = ["WebApp", "WebServer"]
