"""What every route module of the live page shares: refusals as sentences and the PIN guard.

Why here: each route module (`server.py`'s game and journal routes, `aim_api.py`, `holes_api.py`,
`setup_api.py`) exposes one route table and knows nothing of the others; they all refuse a bad
request the same way (`BadRequest`, answered by `answer_refusals` as `{"ok": false, "error": ...}`
with its status) and guard their controls with the one decorator `controls`.

A control (anything that changes the game or the copy's setup) needs the PIN in the `X-Referee-PIN`
header (401 without it, 403 when wrong; `controller.guard.PinThrottle` slows down an address that
sends wrong ones: 429), a JSON object as its body, and, when the browser says where the request
comes from (`Sec-Fetch-Site`), this very page (the network guard, `controller.guard`, has already
refused a foreign Host or Origin). A custom header and a JSON body cannot be sent cross-site
without a CORS preflight, which is never answered, and no cookie is used, so another site cannot
act for a visitor.
"""

from __future__ import annotations

import functools
import hmac
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiohttp import web

from controller.guard import PinThrottle, client_key, language_of, weak_pin
from controller.language import _, said

PIN_HEADER = "X-Referee-PIN"
NO_STORE = {"Cache-Control": "no-store"}


def random_pin() -> str:
    """Six random digits, never one a guesser tries first (`guard.weak_pin`)."""
    while True:
        pin = f"{secrets.randbelow(10**6):06d}"
        if weak_pin(pin) is None:
            return pin


class BadRequest(Exception):
    """A request the page or a client got wrong: answered with `status` and the sentence (a catalogue
    `Text` is said in the language the request asks for)."""

    def __init__(self, status: int, message: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@web.middleware
async def answer_refusals(request: web.Request, handler: Any) -> web.StreamResponse:
    """A `BadRequest` as its status and sentence, in the request's language (the network guard around it
    adds the security headers)."""
    try:
        return await handler(request)
    except BadRequest as exc:
        return web.json_response({"ok": False, "error": said(exc.message, language_of(request))}, status=exc.status)


class PinGuard:
    """The referee's PIN, and the wrong tries of each address (`controller.guard.PinThrottle`)."""

    def __init__(self, pin: str | None = None) -> None:
        self.pin = pin or random_pin()
        self.throttle = PinThrottle()

    async def check(self, request: web.Request) -> dict[str, Any]:
        """Where the request comes from, its PIN and its JSON body, checked; returns the body."""
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            raise BadRequest(403, _("requests from another site are refused; use the referee's own page"))
        client = client_key(request.transport.get_extra_info("peername") if request.transport else None)
        wait = self.throttle.wait(client)
        if wait > 0:
            raise BadRequest(
                429,
                _(
                    "too many wrong PINs from your address: wait {seconds} s, then try the right one",
                    seconds=math.ceil(wait),
                ),
            )
        pin = request.headers.get(PIN_HEADER)
        if not pin:
            raise BadRequest(
                401, _("this needs the referee's PIN (header {header}); it is printed in the log", header=PIN_HEADER)
            )
        if not hmac.compare_digest(pin.encode("utf-8", "replace"), self.pin.encode()):
            self.throttle.wrong(client)
            raise BadRequest(403, _("wrong PIN: the PIN is printed in the referee's log at start"))
        self.throttle.right(client)
        if request.content_type != "application/json":
            raise BadRequest(400, _("send the request as JSON (Content-Type: application/json)"))
        try:
            body = await request.json()
        except (ValueError, RecursionError):
            raise BadRequest(400, _("the request body is not valid JSON (or is nested too deeply)")) from None
        if not isinstance(body, dict):
            raise BadRequest(400, _("the request body should be a JSON object of 'name: value' settings"))
        return body


#: The application's PIN guard, which `controls` asks.
PIN_GUARD = web.AppKey("pin_guard", PinGuard)

Owner = TypeVar("Owner")
Control = Callable[[Owner, web.Request, dict[str, Any]], Awaitable[web.StreamResponse]]


def controls(handler: Control[Owner]) -> Callable[[Owner, web.Request], Awaitable[web.StreamResponse]]:
    """A route's handler that changes something: it runs only after the application's PIN guard has
    checked the request, and is handed the request's JSON body."""

    @functools.wraps(handler)
    async def guarded(owner: Owner, request: web.Request) -> web.StreamResponse:
        body = await request.app[PIN_GUARD].check(request)
        return await handler(owner, request, body)

    return guarded
