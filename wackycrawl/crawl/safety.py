"""Which addresses a crawler must not fetch: private, loopback, link-local, multicast,
reserved, unspecified (IANA special-purpose registries, RFC 6890; Python's ``ipaddress``).

A page can link to ``http://10.0.0.1/admin``, ``http://localhost/`` or a name whose DNS answer
is ``127.0.0.1`` (server-side request forgery, DNS rebinding); a crawl never fetches those
unless told to. :func:`literal_ip` also reads the legacy IPv4 forms a resolver accepts
(``2130706433``, ``0x7f.1``, ``0177.0.0.1``), which ``ipaddress`` alone would take for names.
"""

from __future__ import annotations

import ipaddress
import re
import socket

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_LEGACY_V4 = re.compile(r"(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]+|[0-9]+)){0,3}", re.IGNORECASE)


def literal_ip(host: str) -> IPAddress | None:
    """The address ``host`` spells (``[::1]`` and ``::1``, dotted, decimal, hex or octal IPv4),
    or None for a name. IPv4-mapped IPv6 (``::ffff:127.0.0.1``) is returned as its IPv4."""
    host = host.strip("[]").rstrip(".")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        if not _LEGACY_V4.fullmatch(host):
            return None
        try:
            ip = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_class(ip: IPAddress | str) -> str | None:
    """Why ``ip`` must not be fetched ("loopback", "private", "link_local", "multicast",
    "reserved", "unspecified"), or None for a global unicast address. Raises ValueError on a
    string that is no address."""
    if isinstance(ip, str):
        ip = ipaddress.ip_address(ip)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for name in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(ip, f"is_{name}"):
            return name
    if not ip.is_global:
        return "private"
    return None
