"""Setting profiles: named sets of settings for a kind of crawl (``-s WACKY_PROFILE=NAME``).

``local`` is for a server you own or run yourself (a test site, a mirror on your machine or
network): no politeness delay (DOWNLOAD_DELAY 0, no jitter), AutoThrottle off, four requests
in flight per host, the scope derived from the seeds' registered domains (links never lead
out to the web) and private, loopback and link-local addresses allowed. robots.txt is still
obeyed. Never use it on servers of others: it drops the WaCky crawl's politeness.

A profile's values take the place of the project defaults; a setting given on the command
line (``-s``) or in Scrapyd's ``setting=`` still wins. No Scrapy import.
"""

from __future__ import annotations

PROFILES: dict[str, dict[str, object]] = {
    "local": {
        "DOWNLOAD_DELAY": 0.0,
        "DOWNLOAD_DELAY_JITTER": 0.0,
        "AUTOTHROTTLE_ENABLED": False,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 4,
        "WACKY_SCOPE_FROM_SEEDS": "domain",
        "WACKY_ALLOW_PRIVATE_ADDRESSES": True,
    },
}


def profile(name: str) -> dict[str, object]:
    """The settings of profile ``name`` ("" = none: {}). Raises ValueError for an unknown
    name, listing the known ones."""
    name = (name or "").strip().lower()
    if not name:
        return {}
    if name not in PROFILES:
        raise ValueError(f"WACKY_PROFILE {name!r} is unknown; choose from "
                         f"{', '.join(sorted(PROFILES))} (or leave it empty)")
    return dict(PROFILES[name])
