"""ZIP packages (OOXML, OpenDocument) opened safely: member count, unpacked size, encryption, damage.

:class:`SafeZip` wraps :class:`zipfile.ZipFile` over bytes in memory.  Its contract:

* not a ZIP at all → ``ValueError("… not a zip file")``; an OLE2 compound file (how Office
  stores a password-protected OOXML document, and the legacy ``.doc``/``.xls`` formats) →
  ``ValueError("encrypted or legacy Office document …")``;
* more than ``limits.max_members`` members → refused before anything is unpacked;
* the members' declared unpacked sizes are summed when the package is opened, and the bytes
  actually unpacked are counted while reading (a header may lie): past ``limits.max_bytes``
  in either case → ``ValueError("zip bomb: …")``, after unpacking at most that many bytes;
* an encrypted member → ``ValueError("… encrypted")``; a truncated or corrupt member (bad CRC,
  broken deflate stream, missing data) → ``ValueError("… truncated or corrupt …")``.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass

from gossamer.core import Settings

OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CHUNK = 1 << 16


@dataclass(frozen=True)
class ZipLimits:
    """Bounds on one package: members and bytes unpacked (declared and actual)."""

    max_members: int = 10_000
    max_bytes: int = 104_857_600


class SafeZip:
    """A ZIP package in memory, read under :class:`ZipLimits` (see the module docstring)."""

    def __init__(self, data: bytes, limits: ZipLimits, kind: str = "document") -> None:
        self.kind, self.limits = kind, limits
        if data.startswith(OLE2_MAGIC):
            raise ValueError(f"encrypted or legacy Office document (OLE2 container, not a {kind} package)")
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
            raise ValueError(f"{kind}: not a zip file or truncated ({exc})") from None
        if len(infos) > limits.max_members:
            raise ValueError(f"{kind}: zip has {len(infos)} members (limit {limits.max_members})")
        declared = sum(info.file_size for info in infos)
        if declared > limits.max_bytes:
            raise ValueError(f"zip bomb: {kind} declares {declared} unpacked bytes (limit {limits.max_bytes})")
        self.infos = {info.filename: info for info in infos}
        self.unpacked = 0

    def names(self) -> list[str]:
        """Member names in archive order."""
        return list(self.infos)

    def has(self, name: str) -> bool:
        """Whether the package has a member ``name``."""
        return name in self.infos

    def read(self, name: str) -> bytes:
        """The unpacked bytes of member ``name`` (``KeyError`` when missing), counted against the limit."""
        info = self.infos[name]
        if info.flag_bits & 0x1:
            raise ValueError(f"{self.kind}: {name} is encrypted")
        budget = self.limits.max_bytes - self.unpacked
        out = bytearray()
        try:
            with self.zip.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    out += chunk
                    if len(out) > budget:
                        raise ValueError(f"zip bomb: {self.kind} unpacks to over {self.limits.max_bytes} bytes")
        except (zipfile.BadZipFile, EOFError, zlib.error, OSError, NotImplementedError) as exc:
            raise ValueError(f"{self.kind}: {name} is truncated or corrupt ({exc})") from None
        self.unpacked += len(out)
        return bytes(out)

    def read_optional(self, name: str) -> bytes | None:
        """Like :meth:`read`, ``None`` when the member is missing."""
        return self.read(name) if name in self.infos else None


def zip_limits_from(settings: Settings) -> ZipLimits:
    """The package limits configured in ``settings`` (``parser.zip.max.members``, ``parser.zip.max.bytes``)."""
    get_int = settings.get_int
    return ZipLimits(get_int("parser.zip.max.members"), get_int("parser.zip.max.bytes"))
