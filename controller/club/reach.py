"""Why a broker cannot be reached, in words: the name unknown, or nothing answering at the port.

paho tells only that a connection failed (`on_connect_fail`); a person needs to know which of the
two it is to know what to fix (a typo in `mqtt: host:` or a broker not running / a wrong port).
"""

from __future__ import annotations

import socket


def why_unreachable(host: str, port: int, timeout: float = 2.0) -> str:
    """A sentence saying why `host:port` cannot be reached (checked now, in this thread)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return f"the name {host} is not known on this network (a typo in the host name?)"
    except OSError as exc:
        return f"the name {host} cannot be looked up ({exc.strerror or exc})"
    for family, kind, proto, _, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.settimeout(timeout)
                probe.connect(address)
            return f"{host} answers on port {port} but the connection failed (is it an MQTT broker?)"
        except ConnectionRefusedError:
            return f"nothing answers on port {port} of {host} (is the broker running there, and is the port right?)"
        except OSError:
            continue
    return f"{host} does not answer on port {port} (switched off, or a firewall in the way?)"
