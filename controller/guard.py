"""What guards the two web servers (the table's live page, the club's page) from the network.

Why one module: both serve phones on a club's Wi-Fi, where anyone may connect, guess, or park idle
sockets, and both must keep answering their owner. So the same guard stands in front of both:

* `ConnectionLimits` and `serve`: every connection is admitted by client address before aiohttp
  sees it, at most `per_client` at once from one address and `total` in all; when the total is
  reached, the oldest connection that never sent a complete request head makes room (an idle
  socket costs its owner nothing to open, so it is the one to drop); the total stays well under
  the process's open-file limit, so the journal, the camera and the control socket always have
  file descriptors left. A connection that has not sent a whole request head within
  `IDLE_TIMEOUT` seconds of opening is closed (however slowly its bytes trickle in), and so is a
  kept-alive one with nothing more to ask for that long (aiohttp's keep-alive timeout).
* `quiet_loop_errors`: the event loop's own complaints (the accept loop out of file descriptors)
  are logged once per `LOG_INTERVAL` with a count, not once per try.
* `HostAllowList` and `guard_middleware`: a request whose `Host` is not one of this machine's names
  or the address the client reached is refused (DNS rebinding: a page on another site cannot
  borrow our address under its own name), and so is an `Origin` not on the list (WebSockets too).
* `PinThrottle`: wrong PINs slow down the address that sends them, and only that address, more at
  each round; the owner at another address is never locked out by someone else's guesses.
* `weak_pin`: a PIN a guesser would try first (too short, one digit repeated, digits in sequence,
  a short pattern repeated) is refused with a sentence.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import logging
import resource
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from controller.language import DEFAULT, Text, _, choose, negotiate, said

log = logging.getLogger("referee.web")

#: The table's language (config.yaml's `language:`, the club's `--language`): what a request is
#: answered in when it asks for none of the referee's languages.
TABLE_LANGUAGE = web.AppKey("table_language", str)


def language_of(request: web.Request, table: str | None = None) -> str:
    """The language a request is answered in: its `lang=` (the page's switch), else the browser's
    `Accept-Language`, else the table's."""
    if table is None:
        table = request.app.get(TABLE_LANGUAGE, DEFAULT)
    return choose(request.query.get("lang")) or negotiate(request.headers.get("Accept-Language"), table)


#: Seconds a connection may stay without sending a whole request head (also between two requests).
IDLE_TIMEOUT = 15.0
#: Seconds a client has to send a request's body once its head is in.
BODY_TIMEOUT = 10.0
#: Connections served at once from one client address (a browser opens about six, plus the live socket).
PER_CLIENT = 16
#: Connections served at once in all, at most (and at most half the file descriptors left over).
TOTAL = 256
#: File descriptors kept for everything else a referee opens (journal, camera, control socket, threads).
RESERVED_FILES = 64
#: The event loop's complaints of one kind are logged at most once per this many seconds.
LOG_INTERVAL = 60.0
#: Wrong PINs an address may send before it must wait, and the first wait (doubled at each further round).
FREE_TRIES = 5
FIRST_WAIT = 60.0
LONGEST_WAIT = 3600.0
#: Addresses remembered for the PIN throttle, at most (the quietest are forgotten first).
REMEMBERED = 4096
#: The shortest PIN accepted in config.yaml.
MIN_PIN_DIGITS = 6


# --- how many connections ---------------------------------------------------------------------------
def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit; returns the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def client_key(peer: Any) -> str:
    """The client an address belongs to: an IPv4 address, an IPv6 /64 (one machine's usual share)."""
    if isinstance(peer, (tuple, list)) and peer:
        try:
            address = ipaddress.ip_address(str(peer[0]).split("%")[0])
        except ValueError:
            return str(peer[0])
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return str(address.ipv4_mapped)
            return str(ipaddress.ip_network(f"{address}/64", strict=False))
        return str(address)
    return "local"  # a Unix socket, or a transport that does not say


class ConnectionLimits:
    """Which connections are served: `per_client` per address, `total` in all (lowered to fit the
    open-file limit); the oldest connection that never sent a whole request head makes room."""

    def __init__(self, per_client: int = PER_CLIENT, total: int = TOTAL, name: str = "the page") -> None:
        soft = raise_open_file_limit()
        self.per_client = max(1, per_client)
        self.total = max(self.per_client, min(total, (soft - RESERVED_FILES) // 2))
        self.name = name
        self.by_client: collections.Counter[str] = collections.Counter()
        #: Admitted connections in the order they came (a dict keeps insertion order).
        self.open: dict[_Admission, None] = {}
        self.refused = 0
        self.evicted = 0
        self._said = float("-inf")

    def admit(self, gate: _Admission) -> Text | None:
        """None when `gate` may be served, else why not (a sentence for the refused client)."""
        if self.by_client[gate.client] >= self.per_client:
            self._refused(f"{gate.client} already has {self.per_client} connections open")
            return _("too many connections from your address ({n} at once); close some pages", n=self.per_client)
        if len(self.open) >= self.total:
            idle = next((g for g in self.open if not g.asked), None)
            if idle is None:
                self._refused(f"{self.total} connections are open")
                return _("the referee is serving as many connections as it can; try again in a moment")
            self.evicted += 1
            self._say(f"closed {self.evicted} connection(s) that sent no request, to make room")
            idle.drop()
        self.by_client[gate.client] += 1
        self.open[gate] = None
        return None

    def release(self, gate: _Admission) -> None:
        if self.open.pop(gate, 0) is None:
            self.by_client[gate.client] -= 1
            if self.by_client[gate.client] <= 0:
                del self.by_client[gate.client]

    def _refused(self, why: str) -> None:
        self.refused += 1
        self._say(f"refused connections ({why}; {self.refused} refused so far)")

    def _say(self, what: str) -> None:
        now = time.monotonic()
        if now - self._said >= LOG_INTERVAL:  # once per interval, however many come
            self._said = now
            log.warning("%s %s", self.name, what)


class _Admission(asyncio.Protocol):
    """Stands before aiohttp's protocol for one connection: admits it or answers 503 and closes."""

    def __init__(
        self, limits: ConnectionLimits, factory: Callable[[], asyncio.Protocol], header_timeout: float
    ) -> None:
        self.limits = limits
        self.factory = factory
        self.header_timeout = header_timeout
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.client = "local"
        #: A whole request head was received (the connection is in use, not parked).
        self.asked = False
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.client = client_key(transport.get_extra_info("peername"))
        why = self.limits.admit(self)
        if why is not None:
            body = (why + "\n").encode()
            head = (
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n"
            )
            transport.write(head.encode() + body)  # type: ignore[attr-defined]
            transport.close()
            return
        self.inner = self.factory()
        self.inner.connection_made(transport)
        asyncio.get_running_loop().call_later(self.header_timeout, self._no_request_yet)

    def _no_request_yet(self) -> None:
        """The header timeout: a connection that has not sent one whole request head is closed,
        however slowly its bytes trickle in."""
        if not self.asked and self.transport is not None and not self.transport.is_closing():
            self.transport.abort()

    def drop(self) -> None:
        """Close a parked connection to make room for a new one."""
        self.limits.release(self)
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if not self.asked:
            seen = self._tail + data
            if b"\r\n\r\n" in seen or b"\n\n" in seen:
                self.asked = True
                self._tail = b""
            else:
                self._tail = seen[-3:]
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.limits.release(self)
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


async def serve(
    runner: web.AppRunner,
    host: str,
    port: int,
    limits: ConnectionLimits,
    ssl_context: Any = None,
    header_timeout: float | None = None,
) -> asyncio.Server:
    """Listen on host:port for `runner` (set up already), every connection admitted by `limits` and
    closed when no whole request head came within `header_timeout` (default `IDLE_TIMEOUT`).

    Close the returned server before `runner.cleanup()`.
    """
    factory = runner.server
    assert factory is not None, "set the runner up first"
    timeout = IDLE_TIMEOUT if header_timeout is None else header_timeout
    return await asyncio.get_running_loop().create_server(
        lambda: _Admission(limits, factory, timeout),
        host,
        port,
        ssl=ssl_context,
        ssl_handshake_timeout=timeout if ssl_context is not None else None,
        reuse_address=True,
    )


def runner_for(app: web.Application, idle_timeout: float | None = None) -> web.AppRunner:
    """An aiohttp runner whose keep-alive timeout (between two requests) is the idle timeout; the
    first request head's own timeout is `_Admission`'s."""
    idle = IDLE_TIMEOUT if idle_timeout is None else idle_timeout
    return web.AppRunner(app, access_log=None, keepalive_timeout=idle, shutdown_timeout=1.0)


def quiet_loop_errors(loop: asyncio.AbstractEventLoop, logger: logging.Logger, interval: float = LOG_INTERVAL) -> None:
    """The loop's own error reports (an accept out of file descriptors, ...) at most once per
    `interval` for each kind, saying how many were left out, instead of a traceback per try."""
    last: dict[str, tuple[float, int]] = {}

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message") or "error in the event loop")
        exc = context.get("exception")
        kind = f"{message}: {type(exc).__name__}" if exc is not None else message
        now = time.monotonic()
        said, left_out = last.get(kind, (-interval, 0))
        if now - said < interval:
            last[kind] = (said, left_out + 1)
            return
        last[kind] = (now, 0)
        if len(last) > 256:  # a bounded memory of kinds
            last.pop(next(iter(last)))
        more = f" ({left_out} more like it in the last {interval:g} s)" if left_out else ""
        logger.warning("%s%s%s", message, f" ({exc})" if exc is not None else "", more)

    loop.set_exception_handler(handler)


# --- which names --------------------------------------------------------------------------------------
def host_of(text: str | None) -> str | None:
    """The host of a `Host` header or an `Origin`'s authority (`name:port`, `[v6]:port`), lower case."""
    if not text:
        return None
    try:
        host = urlsplit("//" + text).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def machine_names() -> set[str]:
    """This machine's own names: localhost, its host name, `<host>.local` (mDNS) and its full name."""
    names = {"localhost"}
    host = socket.gethostname().lower()
    if host:
        names |= {host, f"{host.split('.')[0]}.local"}
    with contextlib.suppress(OSError):
        names.add(socket.getfqdn().lower())
    return {n.rstrip(".") for n in names if n}


class HostAllowList:
    """The names a request may use for us: this machine's names, the names and addresses given
    (config.yaml's `web.hosts`, `referee club --host`), a loopback address, and the very address
    the client connected to (what a phone typing the table's address sends)."""

    def __init__(self, extra: Iterable[str] = (), machine: bool = True) -> None:
        self.names: set[str] = machine_names() if machine else {"localhost"}
        self.addresses: set[Any] = set()
        for item in extra:
            address = _address(item.strip("[]"))
            if address is not None:
                self.addresses.add(address)
            else:
                self.names.add(item.rstrip(".").lower())

    def allows(self, host: str | None, local_address: str | None = None) -> bool:
        if not host:
            return False
        host = host.rstrip(".").lower()
        address = _address(host)
        if address is None:
            return host in self.names
        if address.is_loopback or address in self.addresses:
            return True
        return local_address is not None and _address(local_address) == address

    def describe(self) -> str:
        return ", ".join(sorted(self.names) + sorted(str(a) for a in self.addresses))


def local_address(request: web.Request) -> str | None:
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return str(sockname[0]) if isinstance(sockname, (tuple, list)) and sockname else None


def origin_allowed(request: web.Request, hosts: HostAllowList) -> bool:
    """No `Origin` (not a browser's cross-site request), or an Origin of this very page."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    host = request.headers.get("Host", "")
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
        return False
    return hosts.allows(host_of(parts.netloc), local_address(request))


def guard_middleware(hosts: HostAllowList, headers: dict[str, str] | None = None) -> Any:
    """Every request: its `Host` on the list (else 421), its `Origin` this page (else 403, the live
    socket too), its body within `BODY_TIMEOUT`; the security `headers` on every answer, and a
    sentence, never a traceback, for anything unexpected."""

    @web.middleware
    async def guard(request: web.Request, handler) -> web.StreamResponse:
        try:
            response = await _guarded(request, handler, hosts)
        except web.HTTPException as exc:  # aiohttp's own answers (404, 405, ...): raised on, with the headers
            if headers:
                exc.headers.update(headers)
            raise
        if headers and not response.prepared:
            response.headers.update(headers)
        return response

    return guard


async def _guarded(request: web.Request, handler, hosts: HostAllowList) -> web.StreamResponse:
    host = request.headers.get("Host")  # the header itself, as the browser sent it
    if host is not None and not hosts.allows(host_of(host), local_address(request)):
        return _refusal(
            request,
            421,
            _(
                "this server answers only to its own names and addresses ({hosts}); to reach it under "
                "another name, add that name to its allowed hosts",
                hosts=hosts.describe(),
            ),
        )
    if not origin_allowed(request, hosts):
        return _refusal(request, 403, _("requests from another site are refused; use the referee's own page"))
    if request.body_exists:
        try:
            await asyncio.wait_for(request.read(), BODY_TIMEOUT)
        except asyncio.TimeoutError:
            return _refusal(
                request, 408, _("the request's body did not arrive within {seconds} s", seconds=BODY_TIMEOUT)
            )
        except web.HTTPRequestEntityTooLarge:
            return _refusal(request, 413, _("the request is too large"))
    try:
        return await handler(request)
    except (web.HTTPException, asyncio.CancelledError, ConnectionError):
        raise
    except RecursionError:
        return _refusal(request, 400, _("the request is nested too deeply to be read"))
    except Exception:
        log.exception("the page could not answer %s %s", request.method, request.path[:100])
        return _refusal(request, 500, _("the referee could not answer this request; its log says why"))


def _refusal(request: web.Request, status: int, sentence: Any) -> web.Response:
    """A refusal's sentence, in the language the request asks for."""
    return web.json_response({"ok": False, "error": said(sentence, language_of(request))}, status=status)


# --- the PIN ------------------------------------------------------------------------------------------
@dataclass
class _Tries:
    wrong: int = 0
    rounds: int = 0
    until: float = 0.0
    last: float = 0.0


class PinThrottle:
    """Wrong PINs per client address: `FREE_TRIES` free, then a wait that doubles at each round
    (`FIRST_WAIT` up to `LONGEST_WAIT`). Only the address that guessed waits; a right PIN clears it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._tries: collections.OrderedDict[str, _Tries] = collections.OrderedDict()

    def wait(self, client: str) -> float:
        """Seconds `client` must still wait before its PIN is looked at (0: look now)."""
        tries = self._tries.get(client)
        if tries is None:
            return 0.0
        return max(0.0, tries.until - self.clock())

    def wrong(self, client: str) -> None:
        now = self.clock()
        tries = self._tries.pop(client, None) or _Tries()
        if now - tries.last > LONGEST_WAIT * 2:  # quiet for long: start afresh
            tries = _Tries()
        tries.wrong += 1
        tries.last = now
        if tries.wrong >= FREE_TRIES:
            tries.until = now + min(LONGEST_WAIT, FIRST_WAIT * 2**tries.rounds)
            tries.rounds += 1
            tries.wrong = FREE_TRIES - 1  # after a wait, each wrong PIN starts the next, longer one
        self._tries[client] = tries
        while len(self._tries) > REMEMBERED:
            self._tries.popitem(last=False)

    def right(self, client: str) -> None:
        self._tries.pop(client, None)


def weak_pin(pin: str) -> Text | None:
    """Why `pin` is too easy to guess, or None."""
    if len(pin) < MIN_PIN_DIGITS:
        return _("it has fewer than {n} digits", n=MIN_PIN_DIGITS)
    if len(set(pin)) == 1:
        return _("it is one digit repeated")
    steps = {(int(b) - int(a)) % 10 for a, b in zip(pin, pin[1:])}
    if steps in ({1}, {9}):
        return _("its digits are in sequence")
    for size in range(2, len(pin) // 2 + 1):
        if len(pin) % size == 0 and pin == pin[:size] * (len(pin) // size):
            return _("it is a short pattern repeated")
    return None
