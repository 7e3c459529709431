"""The one error of the Hadoop formats: :class:`HadoopFormatError` (file, byte offset, what was expected).

Every reader in :mod:`gossamer.store.hadoop` reports bad input with this error and nothing
else: a truncated file, a wrong magic or version, an unknown Writable or compression class, a
corrupt record or sync marker.  ``str(error)`` is one line: ``FILE: byte OFFSET: MESSAGE``.
"""

from __future__ import annotations


class HadoopFormatError(ValueError):
    """Input that does not follow a Hadoop/Nutch layout.

    ``file`` names the input (a path, a URI or ``<bytes>``), ``offset`` is the absolute byte
    offset in that file where the reader was when it noticed (``None`` when it does not apply,
    e.g. when writing), ``reason`` says what was expected.
    """

    def __init__(self, reason: str, *, file: str | None = None, offset: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.offset = offset
        super().__init__(self._line())

    def _line(self) -> str:
        where = []
        if self.file is not None:
            where.append(self.file)
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        return ": ".join([*where, self.reason])
