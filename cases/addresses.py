"""Which page an address names: two spellings of one page have one key.

The key (`address_key`) is the host in lowercase without `www.` and without a default
port, the path without trailing slashes, and the query without tracking parameters
(`utm_*`, `fbclid`, `gclid`), its parameters sorted; the scheme and the fragment are left
out (http and https, or two anchors, are one page). A suggestion's triage compares readers'
addresses by it (cases.contributions.suggestion_matches), and duplicate cases are found by
their sources' keys (cases.editorial.duplicates).
"""

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit

from cases.rules import MAX_URL_LENGTH

TRACKING_PARAMETERS = re.compile(r"^(utm_.*|fbclid|gclid)$", re.IGNORECASE)
DEFAULT_PORTS = {"http": 80, "https": 443}
PAGE_ENDING = re.compile(r"\.(html?|php|aspx?)$")


@dataclass(frozen=True)
class Address:
    host: str
    path: str
    query: str

    @property
    def key(self):
        return f"{self.host}{self.path}" + (f"?{self.query}" if self.query else "")

    @property
    def last_segment(self):
        segment = self.path.rsplit("/", 1)[-1].lower()
        return PAGE_ENDING.sub("", segment)


def parse_address(url):
    """The parts of an address that say which page it is; None for no http(s) address."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port that is no number, a broken IPv6 host
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if scheme not in DEFAULT_PORTS or not host:
        return None
    host = host.removeprefix("www.")
    if port is not None and port != DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    query = sorted(
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not TRACKING_PARAMETERS.match(name)
    )
    return Address(host=host, path=parts.path.rstrip("/"), query=urlencode(query))


def address_key(url):
    """The address's key (see the module); the address itself, stripped, if it is none.
    Cut to the longest address stored: re-encoding a query can lengthen it."""
    address = parse_address(url)
    return (address.key if address else url.strip())[:MAX_URL_LENGTH]
