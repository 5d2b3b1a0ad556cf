"""Why a broker cannot be reached, in words: the name unknown, or nothing answering at the port.

paho tells only that a connection failed (`on_connect_fail`); a person needs to know which of the
two it is to know what to fix (a typo in `mqtt: host:` or a broker not running / a wrong port).
"""

from __future__ import annotations

import socket

from controller.language import Text, _


def why_unreachable(host: str, port: int, timeout: float = 2.0) -> Text:
    """A sentence saying why `host:port` cannot be reached (checked now, in this thread)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return _("the name {host} is not known on this network (a typo in the host name?)", host=host)
    except OSError as exc:
        return _("the name {host} cannot be looked up ({why})", host=host, why=exc.strerror or str(exc))
    for family, kind, proto, _canonical, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.settimeout(timeout)
                probe.connect(address)
            return _(
                "{host} answers on port {port} but the connection failed (is it an MQTT broker?)",
                host=host,
                port=str(port),
            )
        except ConnectionRefusedError:
            return _(
                "nothing answers on port {port} of {host} (is the broker running there, and is the port right?)",
                host=host,
                port=str(port),
            )
        except OSError:
            continue
    return _(
        "{host} does not answer on port {port} (switched off, or a firewall in the way?)", host=host, port=str(port)
    )
