"""The live page over HTTPS (config.yaml `web: {https: true}`): a certificate of the table's own, made
at the first start, so the PIN does not cross the club's Wi-Fi in clear.

Why self-signed: a table on a club's network has no public name a certificate authority would sign.
The referee makes one certificate for its names and addresses (`openssl`, which every Raspberry Pi
OS has; no Python package to add), keeps it beside its config, and prints its SHA-256 fingerprint at
every start: the browser warns once that it does not know who signed it; compare the fingerprint it
shows with the log's, then accept it for this address.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterable
from pathlib import Path

from controller.errors import RefereeError
from controller.guard import machine_names
from controller.language import _

#: Days the certificate the referee makes is valid (a table is set up once).
VALID_DAYS = 3650


def machine_addresses() -> set[str]:
    """This machine's addresses as far as its own name and its route out tell (no packet is sent)."""
    found = {"127.0.0.1", "::1"}
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]).split("%")[0])
    for family, probe in ((socket.AF_INET, "10.255.255.255"), (socket.AF_INET6, "fd00::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))  # a UDP "connection" only picks the route: nothing is sent
            found.add(s.getsockname()[0])
    return found


def subject_names(extra: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """(DNS names, IP addresses) the certificate is for: this machine's and the configured hosts."""
    names, addresses = set(machine_names()), machine_addresses()
    for item in extra:
        try:
            addresses.add(str(ipaddress.ip_address(item.strip("[]"))))
        except ValueError:
            names.add(item.lower())
    return sorted(names), sorted(addresses)


def make_certificate(cert: Path, key: Path, extra_hosts: Iterable[str] = ()) -> None:
    """A self-signed certificate (EC P-256) for this machine's names and addresses, with `openssl`."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RefereeError(
            _(
                "web.https needs a certificate and the referee makes it with openssl, which is not installed: "
                "sudo apt install openssl (or give web.certificate and web.key of your own)"
            )
        )
    names, addresses = subject_names(extra_hosts)
    alt = ",".join([f"DNS:{n}" for n in names] + [f"IP:{a}" for a in addresses])
    cert.parent.mkdir(parents=True, exist_ok=True)
    key.parent.mkdir(parents=True, exist_ok=True)
    command = [
        openssl,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        str(VALID_DAYS),
        "-subj",
        f"/CN={socket.gethostname()[:60] or 'referee'}/O=tabletop referee",
        "-addext",
        f"subjectAltName={alt}",
        "-keyout",
        str(key),
        "-out",
        str(cert),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RefereeError(_("could not make the page's certificate with openssl: {why}", why=str(exc))) from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
        raise RefereeError(
            _(
                "could not make the page's certificate in {folder}: openssl says {why}",
                folder=str(cert.parent),
                why=last,
            )
        )
    key.chmod(0o600)


def fingerprint(cert: Path) -> str:
    """The certificate's SHA-256 fingerprint as browsers show it (AB:CD:...)."""
    der = ssl.PEM_cert_to_DER_cert(cert.read_text("ascii"))
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def server_context(cert: Path, key: Path, extra_hosts: Iterable[str] = ()) -> tuple[ssl.SSLContext, bool]:
    """The TLS context of the page, making the certificate first when neither file exists;
    (context, whether it was made now)."""
    made = False
    if not cert.exists() and not key.exists():
        make_certificate(cert, key, extra_hosts)
        made = True
    for path, what in ((cert, "web.certificate"), (key, "web.key")):
        if not path.is_file():
            raise RefereeError(
                _(
                    "{key}: {path} does not exist (remove both files and the referee makes a new pair)",
                    key=what,
                    path=str(path),
                )
            )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(str(cert), str(key))
    except (ssl.SSLError, OSError) as exc:
        raise RefereeError(
            _(
                "the page's certificate {certificate} and key {key} cannot be used: {why}",
                certificate=str(cert),
                key=str(key),
                why=str(exc),
            )
        ) from None
    return context, made
