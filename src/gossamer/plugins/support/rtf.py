r"""A small RTF reader: text, document info and hyperlink fields, under a group-depth limit.

Reads RTF 1.x as written by word processors (the Microsoft RTF 1.9.1 specification's
syntax): control words ``\word`` with an optional numeric parameter, control symbols,
``\'hh`` bytes in the document's code page (``\ansicpgN``, ``\mac``, ``\pc``, ``\pca``),
``\uN`` Unicode characters followed by ``\ucN`` fallback characters (skipped), groups
``{…}`` and ``\bin N`` binary runs (skipped).

* Destinations that are not text (font, colour, style and list tables, pictures,
  objects, themes, any ``\*`` destination not known here …) are skipped.
* ``\info`` gives ``title``, ``author``, ``subject``, ``keywords``, ``doccomm`` and
  ``company``; nothing else of it is text.
* A ``\field`` whose instruction (``\fldinst``) is ``HYPERLINK "url"`` becomes a link
  whose anchor is the field's result (``\fldrslt``) text, which is also text.
* ``\par``, ``\line``, ``\row``, ``\sect``, ``\page`` end lines; ``\tab`` and ``\cell`` are tabs.
* Groups nested deeper than ``max_depth`` → ``ValueError("RTF groups too deeply nested")``.
  A document cut short (groups left open) keeps the text read so far.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field, replace

_TOKEN = re.compile(rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|([^\\{}\r\n]+)|[\r\n]+",
                    re.S)
_SKIPPED = frozenset((
    "fonttbl", "colortbl", "stylesheet", "listtable", "listoverridetable", "revtbl", "rsidtbl", "generator",
    "xmlnstbl", "themedata", "colorschememapping", "datastore", "latentstyles", "pgdsctbl", "pict", "object",
    "objdata", "filetbl", "shppict", "nonshppict", "header", "headerl", "headerr", "headerf", "footer",
    "footerl", "footerr", "footerf", "bkmkstart", "bkmkend", "xe", "tc", "private", "userprops", "mmathPr",
))
_INFO_FIELDS = {"title": "title", "author": "author", "subject": "subject", "keywords": "keywords",
                "doccomm": "comment", "company": "company"}
_BREAKS = {"par": "\n", "line": "\n", "row": "\n", "sect": "\n", "page": "\n", "tab": "\t", "cell": "\t",
           "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022", "lquote": "\u2018", "rquote": "\u2019",
           "ldblquote": "\u201c", "rdblquote": "\u201d", "emspace": " ", "enspace": " ", "qmspace": " "}
_SYMBOLS = {b"~": "\u00a0", b"_": "\u2011", b"\\": "\\", b"{": "{", b"}": "}", b"\n": "\n", b"\r": "\n"}
_HYPERLINK = re.compile(r'HYPERLINK\s+(?:\\[a-z]\s+)*"([^"]+)"|HYPERLINK\s+([^\s"\\]+)', re.I)


@dataclass
class _Field:
    instruction: list[str] = field(default_factory=list)
    result_start: int = -1


@dataclass
class _Group:
    dest: str = "text"
    """``text``, ``skip``, ``info``, ``fldinst`` or ``meta:<name>``."""
    uc: int = 1
    field: _Field | None = None


@dataclass
class RtfDocument:
    """What :func:`read_rtf` found: text, info properties and (url, anchor) links."""

    text: str
    info: dict[str, str]
    links: list[tuple[str, str]]


class _Reader:
    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.out: list[str] = []
        self.info: dict[str, list[str]] = {}
        self.links: list[tuple[str, str]] = []
        self.stack: list[_Group] = []
        self.group = _Group()
        self.codec = "cp1252"
        self.pending = bytearray()
        self.skip_chars = 0
        self.star = False

    def emit(self, text: str) -> None:
        dest = self.group.dest
        if dest == "text":
            self.out.append(text)
        elif dest == "fldinst" and self.group.field is not None:
            self.group.field.instruction.append(text)
        elif dest.startswith("meta:"):
            self.info.setdefault(dest[5:], []).append(text)

    def flush(self) -> None:
        if self.pending:
            self.emit(self.pending.decode(self.codec, "replace"))
            self.pending.clear()

    def open_group(self) -> None:
        if len(self.stack) >= self.max_depth:
            raise ValueError(f"RTF groups too deeply nested (over {self.max_depth} levels)")
        self.stack.append(self.group)
        self.group = replace(self.group)
        self.star = False

    def close_group(self) -> None:
        closing = self.group
        self.group = self.stack.pop() if self.stack else _Group(dest="skip")
        if closing.field is not None and closing.field is not self.group.field:
            self.end_field(closing.field)

    def end_field(self, fld: _Field) -> None:
        match = _HYPERLINK.search("".join(fld.instruction))
        if match and fld.result_start >= 0:
            anchor = " ".join("".join(self.out[fld.result_start:]).split())
            self.links.append((match.group(1) or match.group(2), anchor))

    def word(self, name: str, param: int | None) -> None:
        group = self.group
        star, self.star = self.star, False
        if name == "u" and param is not None:
            self.emit(chr(param + 65536 if param < 0 else param) if -65536 < param < 65536 else "\ufffd")
            self.skip_chars = group.uc
        elif name == "uc" and param is not None:
            group.uc = max(0, param)
        elif name in _BREAKS:
            self.emit(_BREAKS[name])
        elif name == "ansicpg" and param is not None:
            self.codec = _codec(f"cp{param}")
        elif name in ("mac", "pc", "pca"):
            self.codec = {"mac": "mac_roman", "pc": "cp437", "pca": "cp850"}[name]
        elif name == "field":
            group.field = _Field()
        elif name == "fldinst":
            group.dest = "fldinst"
        elif name == "fldrslt":
            group.dest = "text" if group.dest != "skip" else "skip"
            if group.field is not None:
                group.field.result_start = len(self.out)
        elif name == "info":
            group.dest = "info"
        elif group.dest == "info" and name in _INFO_FIELDS:
            group.dest = "meta:" + _INFO_FIELDS[name]
        elif name in _SKIPPED or star:
            group.dest = "skip"

    def text(self) -> str:
        return "".join(self.out).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _codec(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "cp1252"


def read_rtf(data: bytes, max_depth: int) -> RtfDocument:
    """Read an RTF document (see the module docstring); ``ValueError`` when it is not RTF or too deep."""
    if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{\\rtf"):
        raise ValueError("not an RTF document (no {\\rtf header)")
    reader = _Reader(max_depth)
    pos, end, match_at = 0, len(data), _TOKEN.match
    while pos < end:
        m = match_at(data, pos)
        if m is None:
            pos += 1
            continue
        pos = m.end()
        word, param, hexbyte, symbol, brace, text = m.groups()
        if hexbyte is not None:
            if reader.skip_chars:
                reader.skip_chars -= 1
            else:
                reader.pending.append(int(hexbyte, 16))
            continue
        reader.flush()
        if text is not None:
            if reader.skip_chars:
                cut = min(reader.skip_chars, len(text))
                reader.skip_chars -= cut
                text = text[cut:]
            if text:
                reader.emit(text.decode(reader.codec, "replace"))
        elif brace is not None:
            reader.skip_chars = 0
            if brace == b"{":
                reader.open_group()
            else:
                reader.close_group()
        elif word is not None:
            name = word.decode("ascii")
            number = int(param) if param is not None else None
            if name == "bin" and number:
                pos += max(0, number)
                continue
            reader.word(name, number)
        elif symbol == b"*":
            reader.star = True
        elif symbol in _SYMBOLS:
            reader.emit(_SYMBOLS[symbol])
    reader.flush()
    info = {key: " ".join("".join(parts).split()) for key, parts in reader.info.items()}
    return RtfDocument(reader.text(), {k: v for k, v in info.items() if v}, reader.links)
