"""SSRF guard: URLs come from untrusted logs and search results.

By default a URL may only reach public addresses over http(s). The host is resolved and
*every* address it resolves to is checked (an attacker's DNS name can point at 127.0.0.1),
and the fetcher calls this again on every redirect hop. ``allow_private`` opts in to
loopback/private targets — the tests need it; ``allow_hosts`` exempts single ``host:port``
services (the local web).

Known limit: the check and the connection resolve the name separately, so a DNS server
that answers differently within milliseconds (rebinding) could slip through; pinning the
connection to the checked address would close that and is left for later.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

import httpx

#: Names that reach cloud metadata services whatever they resolve to.
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "metadata.azure.internal",
                            "instance-data", "instance-data.ec2.internal"})


class BlockedURL(ValueError):
    """The URL may not be fetched; ``reason`` is a short machine-readable key."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def forbidden_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why ``ip`` is not a public address, or None if it is."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is loopback too
    for attr in ("is_loopback", "is_private", "is_link_local", "is_multicast", "is_reserved",
                 "is_unspecified"):
        if getattr(ip, attr):
            return attr.removeprefix("is_")
    if not ip.is_global:
        return "not_global"  # shared address space (100.64/10) and the like
    return None


def host_port(host: str, port: int) -> str:
    """The canonical ``host:port`` key ``allow_hosts`` holds (IPv6 in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_allowed(text: str) -> str:
    """``--allow-host`` input -> its canonical ``host:port``; ValueError unless it has both.

    A port is required: exempting a host would exempt every service on it (a local web on
    :8765 must not open the Neo4j on :7474 of the same address)."""
    usage = (f"--allow-host {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8765 (only that "
             "port is exempt)")
    try:
        host, port = check_scheme_and_host(f"http://{text.strip()}/")
        given = urlsplit(f"//{text.strip()}")
        explicit = given.port  # httpx drops a default port; the user must still name one
    except BlockedURL as exc:
        raise ValueError(f"{usage}: {exc.detail}") from exc
    except ValueError as exc:
        raise ValueError(f"{usage}: {exc}") from exc
    if explicit is None or given.path or given.username or given.query:
        raise ValueError(usage)
    return host_port(host, port)


def check_scheme_and_host(url: str) -> tuple[str, int]:
    """(host, port) exactly as the HTTP client will connect to them.

    Any URL the client cannot parse or request is ``invalid_url``: httpx refuses octal and
    zero-padded IPv4 (``0177.0.0.1``, ``127.000.000.001``), full-width digits, control
    characters and bad IDNA labels, and a port outside 1-65535 would fail at connect time.
    The host checked is the one httpx connects to (its IDNA-encoded ``raw_host``), so the
    guard and the client cannot read a URL differently."""
    try:
        scheme = urlsplit(url).scheme.lower()
    except (ValueError, TypeError) as exc:
        raise BlockedURL("invalid_url", f"{exc} in {url!r}"[:300]) from exc
    if scheme not in ("http", "https"):
        raise BlockedURL("blocked_scheme", f"scheme {scheme or '(none)'!r} in {url!r}"[:300])
    try:
        parsed = httpx.URL(url)
        host = parsed.raw_host.decode("ascii").rstrip(".").lower()
    except Exception as exc:  # noqa: BLE001 - InvalidURL, IDNAError (a UnicodeError), ...
        raise BlockedURL("invalid_url", f"{type(exc).__name__}: {exc}"[:300]) from exc
    if not host:
        raise BlockedURL("invalid_url", f"no host in {url!r}"[:300])
    port = parsed.port if parsed.port is not None else (443 if scheme == "https" else 80)
    if not 0 < port < 65536:
        raise BlockedURL("invalid_url", f"port {port} out of range 1-65535 in {url!r}"[:300])
    return host, port


async def check_url(url: str, *, allow_private: bool = False,
                    allow_hosts: frozenset[str] = frozenset()) -> None:
    """Raise ``BlockedURL`` unless ``url`` may be fetched.

    ``allow_hosts`` exempts exact ``host:port`` pairs (the local web, an intranet mirror)
    without opening the door to every private address or to other ports of the same host:
    a redirect from them is checked like any other URL.
    """
    host, port = check_scheme_and_host(url)
    if allow_private or host_port(host, port) in allow_hosts:
        return
    if host in METADATA_HOSTS:
        raise BlockedURL("blocked_address", f"{host} is a cloud metadata endpoint")
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
        addresses = [literal]
    except ValueError:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise BlockedURL("dns_error", f"cannot resolve {host}: {exc}") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    for ip in addresses:
        why = forbidden_address(ip)
        if why:
            raise BlockedURL("blocked_address", f"{host} resolves to {ip} ({why})")
