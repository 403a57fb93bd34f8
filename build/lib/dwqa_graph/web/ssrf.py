"""SSRF guard: URLs come from untrusted logs and search results.

By default a URL may only reach public addresses over http(s). The host is resolved and
*every* address it resolves to is checked (an attacker's DNS name can point at 127.0.0.1),
and the fetcher calls this again on every redirect hop. ``allow_private`` opts in to
loopback/private targets — the local web and the tests need it.

Known limit: the check and the connection resolve the name separately, so a DNS server
that answers differently within milliseconds (rebinding) could slip through; pinning the
connection to the checked address would close that and is left for later.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

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


def check_scheme_and_host(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise BlockedURL("blocked_scheme", f"scheme {parts.scheme or '(none)'!r} in {url!r}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise BlockedURL("invalid_url", f"no host in {url!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise BlockedURL("invalid_url", f"{exc} in {url!r}") from exc
    return host, port


async def check_url(url: str, *, allow_private: bool = False,
                    allow_hosts: frozenset[str] = frozenset()) -> None:
    """Raise ``BlockedURL`` unless ``url`` may be fetched.

    ``allow_hosts`` exempts named hosts (an intranet mirror, say) without opening the
    door to every private address: a redirect from them is checked like any other URL.
    """
    host, port = check_scheme_and_host(url)
    if allow_private or host in allow_hosts:
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
