"""Which IP addresses a fetch may connect to: the SSRF guard's rule (``http.filter.ipaddress.*``).

Contract of :class:`AddressPolicy`:

* ``refusal(address)`` is ``None`` when a connection to ``address`` is allowed, otherwise a
  one-line reason naming the address, the kind of address and the setting that allows it.
* With ``http.filter.ipaddress.include`` empty (the default), every *special* address is
  refused: unspecified, loopback, private (RFC 1918, carrier-grade NAT 100.64/10, IPv6
  unique-local fc00::/7 and the old site-local fec0::/10), link-local, multicast, broadcast and
  reserved ranges, documentation and benchmarking ranges, and the cloud metadata services.
  Everything else (globally routable unicast) is allowed.
* With ``include`` set, an address is allowed only if it matches one of its entries (Nutch's
  rule: the list names what may be fetched; add ``public`` to keep the rest of the Internet).
* ``http.filter.ipaddress.exclude`` always wins: a matching address is refused.
* IPv6 forms that carry an IPv4 address (mapped ``::ffff:a.b.c.d``, compatible ``::a.b.c.d``,
  NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo) are judged by the IPv4 address as well:
  the address is special if either form is.

Entries of both lists are IP addresses, CIDR ranges or names: Nutch's ``localhost``,
``loopback`` and ``sitelocal``, and ``private``, ``linklocal``, ``uniquelocal``,
``multicast``, ``unspecified``, ``metadata`` and ``public`` (every address that is not
special).  :func:`check_address_entries` is the two properties' value check, so a bad entry
stops a command when its settings are read, before any job starts.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Protocol

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
INCLUDE_PROPERTY = "http.filter.ipaddress.include"
EXCLUDE_PROPERTY = "http.filter.ipaddress.exclude"


def _nets(*cidrs: str) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(c) for c in cidrs)


NAMED_RANGES: dict[str, tuple[IPNetwork, ...]] = {
    "loopback": _nets("127.0.0.0/8", "::1/128"),
    "sitelocal": _nets("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fec0::/10"),
    "private": _nets("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7", "fec0::/10"),
    "linklocal": _nets("169.254.0.0/16", "fe80::/10"),
    "uniquelocal": _nets("fc00::/7"),
    "multicast": _nets("224.0.0.0/4", "ff00::/8"),
    "unspecified": _nets("0.0.0.0/8", "::/128"),
    "metadata": _nets("169.254.169.254/32", "169.254.170.2/32", "100.100.100.200/32", "192.0.0.192/32",
                      "fd00:ec2::254/128"),
}
NAMED_RANGES["localhost"] = NAMED_RANGES["loopback"]
OTHER_SPECIAL = _nets(
    "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
    "240.0.0.0/4", "255.255.255.255/32", "100::/64", "2001::/23", "2001:db8::/32", "3fff::/20")
"""Special ranges without a name of their own: IETF assignments, documentation, benchmarking, reserved."""
SPECIAL_KINDS = ("unspecified", "loopback", "metadata", "linklocal", "private", "uniquelocal", "multicast")
PUBLIC = "public"
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in NAT64 or (int(address) >> 32 == 0 and int(address) > 1):  # NAT64 or IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def special_kind(address: IPAddress) -> str | None:
    """The kind of special address ``address`` is (``loopback``, ``private`` …), ``None`` if public."""
    for form in (address, embedded_ipv4(address)):
        if form is None:
            continue
        for kind in SPECIAL_KINDS:
            if any(form in net for net in NAMED_RANGES[kind] if net.version == form.version):
                return kind
        if any(form in net for net in OTHER_SPECIAL if net.version == form.version):
            return "reserved"
    return None


def parse_address_entries(entries: Iterable[str]) -> tuple[list[IPNetwork], bool]:
    """The networks ``entries`` name and whether ``public`` is among them; ValueError on a bad entry."""
    networks: list[IPNetwork] = []
    public = False
    for entry in (e.strip() for e in entries):
        name = entry.lower()
        if not entry:
            continue
        if name == PUBLIC:
            public = True
        elif name in NAMED_RANGES:
            networks.extend(NAMED_RANGES[name])
        else:
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                names = ", ".join(sorted([*NAMED_RANGES, PUBLIC]))
                raise ValueError(f"{entry!r} is not an IP address, a CIDR range or one of {names}") from None
    return networks, public


def check_address_entries(value: object) -> None:
    """The value check of ``http.filter.ipaddress.include/exclude`` (a list of entries)."""
    parse_address_entries(value if isinstance(value, list) else [str(value)])


class SettingsLike(Protocol):
    """What :meth:`AddressPolicy.from_settings` needs of the settings."""

    def get_list(self, name: str) -> list[str]: ...


class AddressMatcher:
    """A list of addresses, CIDR ranges and names (see the module docstring); matches an address."""

    def __init__(self, entries: Iterable[str], setting: str) -> None:
        self.entries = [e.strip() for e in entries if e.strip()]
        try:
            self.networks, self.public = parse_address_entries(self.entries)
        except ValueError as exc:
            raise ValueError(f"{setting}: {exc}") from None

    def __bool__(self) -> bool:
        return bool(self.entries)

    def matches(self, address: IPAddress) -> bool:
        """True if ``address`` (or the IPv4 address it carries) is in the list."""
        if self.public and special_kind(address) is None:
            return True
        forms = [f for f in (address, embedded_ipv4(address)) if f is not None]
        return any(form in net for form in forms for net in self.networks if net.version == form.version)


class AddressPolicy:
    """The SSRF guard's decision for one address (contract in the module docstring)."""

    def __init__(self, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> None:
        self.include = AddressMatcher(include, INCLUDE_PROPERTY)
        self.exclude = AddressMatcher(exclude, EXCLUDE_PROPERTY)

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> AddressPolicy:
        """The policy ``http.filter.ipaddress.include/exclude`` describe (checked when the settings were read)."""
        return cls(settings.get_list(INCLUDE_PROPERTY), settings.get_list(EXCLUDE_PROPERTY))

    def refusal(self, address: str | IPAddress) -> str | None:
        """``None`` if a connection to ``address`` is allowed, else why not (one line)."""
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
        except ValueError:
            return f"{address!r} is not an IP address"
        if self.exclude.matches(ip):
            return f"address {ip} is excluded by {EXCLUDE_PROPERTY}"
        if self.include:
            if self.include.matches(ip):
                return None
            return f"address {ip} is not in {INCLUDE_PROPERTY}"
        kind = special_kind(ip)
        if kind is None:
            return None
        example = kind if kind in NAMED_RANGES else ip
        return f"address {ip} is {kind}; allow it with {INCLUDE_PROPERTY} (e.g. {example},public)"
