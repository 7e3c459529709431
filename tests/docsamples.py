"""Documents of every format parse-ooxml, parse-odf, parse-rtf, parse-feed and parse-xml read, built here.

Each builder writes the minimal parts a real office suite writes (as ZIP members with XML
written by hand), so the tests and ``scripts/bench parsedocs`` need no sample files.  The
hostile builders make the files the parsers must refuse fast: zip bombs, deeply nested
XML, entity expansion ("billion laughs") and deeply nested RTF groups.
"""

from __future__ import annotations

import functools
import io
import zipfile
from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
ODT = "application/vnd.oasis.opendocument.text"
ODS = "application/vnd.oasis.opendocument.spreadsheet"
ODP = "application/vnd.oasis.opendocument.presentation"

_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_ODF = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
        'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xlink="http://www.w3.org/1999/xlink"')

Link = tuple[str, str]
"""(URL, anchor text)."""


def zip_of(parts: dict[str, bytes | str], stored: Sequence[str] = ()) -> bytes:
    """A ZIP of ``parts`` (deflated, except the names in ``stored``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data, zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED)
    return out.getvalue()


_EXTERNAL = ' TargetMode="External"'


def _rels(entries: Sequence[tuple[str, str, str, bool]]) -> str:
    body = "".join(f'<Relationship Id="{rid}" Type="{_DOC_REL}/{kind}" Target={quoteattr(target)}'
                   f'{_EXTERNAL if external else ""}/>' for rid, kind, target, external in entries)
    return f'<?xml version="1.0"?><Relationships xmlns="{_PKG_REL}">{body}</Relationships>'


def _core(title: str, creator: str = "Ada Lovelace") -> str:
    return ('<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
            'metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" '
            'xmlns:dcterms="http://purl.org/dc/terms/">'
            f"<dc:title>{escape(title)}</dc:title><dc:creator>{creator}</dc:creator>"
            "<cp:keywords>engines, notes</cp:keywords><dcterms:modified>2024-05-01T10:00:00Z</dcterms:modified>"
            "</cp:coreProperties>")


def _package(main: str, parts: dict[str, bytes | str], title: str) -> bytes:
    return zip_of({
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
                               '2006/content-types"/>',
        "_rels/.rels": _rels([("rId1", "officeDocument", main, False),
                              ("rId2", "metadata/core-properties", "docProps/core.xml", False)]),
        "docProps/core.xml": _core(title),
        **parts,
    })


def docx(paragraphs: Sequence[str], links: Sequence[Link] = (), title: str = "A Word document") -> bytes:
    """A DOCX: one ``w:p`` per paragraph, then one paragraph per external hyperlink."""
    body = "".join(f"<w:p><w:r><w:t>{escape(p)}</w:t></w:r></w:p>" for p in paragraphs)
    body += "".join(f'<w:p><w:hyperlink r:id="rIdL{i}"><w:r><w:t>{escape(anchor)}</w:t></w:r></w:hyperlink></w:p>'
                    for i, (_, anchor) in enumerate(links))
    document = (f'<?xml version="1.0"?><w:document xmlns:w="{_W}" xmlns:r="{_DOC_REL}">'
                f"<w:body>{body}</w:body></w:document>")
    rels = _rels([(f"rIdL{i}", "hyperlink", url, True) for i, (url, _) in enumerate(links)])
    return _package("word/document.xml", {"word/document.xml": document, "word/_rels/document.xml.rels": rels},
                    title)


def xlsx(rows: Sequence[Sequence[str]], links: Sequence[Link] = (), title: str = "A workbook",
         sheet: str = "Sheet1") -> bytes:
    """An XLSX with one sheet: cells as shared strings, one hyperlink per cell of the first column."""
    strings = sorted({cell for row in rows for cell in row})
    index = {s: i for i, s in enumerate(strings)}
    sst = (f'<?xml version="1.0"?><sst xmlns="{_S}">'
           + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")
    data = "".join(f'<row r="{r + 1}">' + "".join(f'<c r="{chr(65 + c)}{r + 1}" t="s"><v>{index[v]}</v></c>'
                                                  for c, v in enumerate(row)) + "</row>" for r, row in enumerate(rows))
    hyper = "".join(f'<hyperlink ref="A{i + 1}" r:id="rIdL{i}" display={quoteattr(anchor)}/>'
                    for i, (_, anchor) in enumerate(links))
    ws = (f'<?xml version="1.0"?><worksheet xmlns="{_S}" xmlns:r="{_DOC_REL}"><sheetData>{data}</sheetData>'
          f'{"<hyperlinks>" + hyper + "</hyperlinks>" if hyper else ""}</worksheet>')
    workbook = (f'<?xml version="1.0"?><workbook xmlns="{_S}" xmlns:r="{_DOC_REL}"><sheets>'
                f'<sheet name={quoteattr(sheet)} sheetId="1" r:id="rIdS1"/></sheets></workbook>')
    return _package("xl/workbook.xml", {
        "xl/workbook.xml": workbook,
        "xl/_rels/workbook.xml.rels": _rels([("rIdS1", "worksheet", "worksheets/sheet1.xml", False),
                                             ("rIdT", "sharedStrings", "sharedStrings.xml", False)]),
        "xl/sharedStrings.xml": sst,
        "xl/worksheets/sheet1.xml": ws,
        "xl/worksheets/_rels/sheet1.xml.rels": _rels([(f"rIdL{i}", "hyperlink", u, True)
                                                     for i, (u, _) in enumerate(links)]),
    }, title)


def pptx(slides: Sequence[str], links: Sequence[Link] = (), title: str = "A presentation") -> bytes:
    """A PPTX: one slide per text; the links go on the first slide as clickable runs."""
    parts: dict[str, bytes | str] = {}
    ids = ""
    for n, text in enumerate(slides, 1):
        runs = f"<a:p><a:r><a:t>{escape(text)}</a:t></a:r></a:p>"
        if n == 1:
            runs += "".join(f'<a:p><a:r><a:rPr><a:hlinkClick r:id="rIdL{i}"/></a:rPr><a:t>{escape(a)}</a:t></a:r></a:p>'
                            for i, (_, a) in enumerate(links))
        parts[f"ppt/slides/slide{n}.xml"] = (
            f'<?xml version="1.0"?><p:sld xmlns:p="{_P}" xmlns:a="{_A}" xmlns:r="{_DOC_REL}"><p:cSld><p:spTree>'
            f"<p:sp><p:txBody>{runs}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>")
        parts[f"ppt/slides/_rels/slide{n}.xml.rels"] = _rels(
            [(f"rIdL{i}", "hyperlink", u, True) for i, (u, _) in enumerate(links)] if n == 1 else [])
        ids += f'<p:sldId id="{255 + n}" r:id="rIdS{n}"/>'
    parts["ppt/presentation.xml"] = (f'<?xml version="1.0"?><p:presentation xmlns:p="{_P}" xmlns:r="{_DOC_REL}">'
                                     f"<p:sldIdLst>{ids}</p:sldIdLst></p:presentation>")
    parts["ppt/_rels/presentation.xml.rels"] = _rels([(f"rIdS{n}", "slide", f"slides/slide{n}.xml", False)
                                                      for n in range(1, len(slides) + 1)])
    return _package("ppt/presentation.xml", parts, title)


def odf(mimetype: str, paragraphs: Sequence[str], links: Sequence[Link] = (), title: str = "An OpenDocument",
        encrypted: bool = False) -> bytes:
    """An ODT/ODS/ODP (by ``mimetype``): paragraphs as ``text:p`` (in a table cell for spreadsheets)."""
    paras = "".join(f"<text:p>{escape(p)}</text:p>" for p in paragraphs)
    paras += "".join(f'<text:p><text:a xlink:href={quoteattr(u)}>{escape(a)}</text:a></text:p>' for u, a in links)
    if mimetype.endswith("spreadsheet"):
        body = f"<office:spreadsheet><table:table><table:table-row><table:table-cell>{paras}</table:table-cell>" \
               "</table:table-row></table:table></office:spreadsheet>"
    elif mimetype.endswith("presentation"):
        body = f"<office:presentation><draw:page><draw:frame><draw:text-box>{paras}</draw:text-box></draw:frame>" \
               "</draw:page></office:presentation>"
    else:
        body = f"<office:text>{paras}</office:text>"
    encryption = "<manifest:encryption-data/>" if encrypted else ""
    return zip_of({
        "mimetype": mimetype,
        "content.xml": f'<?xml version="1.0"?><office:document-content {_ODF}><office:body>{body}</office:body>'
                       "</office:document-content>",
        "meta.xml": f'<?xml version="1.0"?><office:document-meta {_ODF}><office:meta><dc:title>{escape(title)}'
                    "</dc:title><meta:keyword>alpha</meta:keyword><meta:keyword>beta</meta:keyword>"
                    "</office:meta></office:document-meta>",
        "META-INF/manifest.xml": '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:'
                                 f'opendocument:xmlns:manifest:1.0"><manifest:file-entry>{encryption}'
                                 "</manifest:file-entry></manifest:manifest>",
    }, stored=("mimetype",))


def rtf(paragraphs: Sequence[str], links: Sequence[Link] = (), title: str = "An RTF document") -> bytes:
    r"""An RTF document: a font table, an info group with the title, paragraphs, HYPERLINK fields."""
    body = "".join(f"{p}\\par\n" for p in paragraphs)
    body += "".join(f'{{\\field{{\\*\\fldinst HYPERLINK "{u}"}}{{\\fldrslt {a}}}}}\\par\n' for u, a in links)
    return (f"{{\\rtf1\\ansi\\ansicpg1252\\deff0{{\\fonttbl{{\\f0 Times New Roman;}}}}"
            f"{{\\info{{\\title {title}}}{{\\author Ada}}}}\n{body}}}").encode("latin-1")


def rss(items: Sequence[tuple[str, str, str]], title: str = "A feed") -> bytes:
    """An RSS 2.0 feed of (link, title, RFC 822 date) items."""
    body = "".join(f"<item><title>{escape(t)}</title><link>{escape(u)}</link><pubDate>{d}</pubDate>"
                   f"<description>About {escape(t)}</description></item>" for u, t, d in items)
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{escape(title)}</title>'
            f"<link>http://example.org/</link>{body}</channel></rss>").encode()


def atom(items: Sequence[tuple[str, str, str]], title: str = "An Atom feed") -> bytes:
    """An Atom feed of (link, title, ISO 8601 date) entries."""
    body = "".join(f'<entry><title>{escape(t)}</title><link rel="alternate" href={quoteattr(u)}/>'
                   f"<updated>{d}</updated><summary>Summary of {escape(t)}</summary></entry>" for u, t, d in items)
    return (f'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
            f"<title>{escape(title)}</title>{body}</feed>").encode()


# --- hostile files -------------------------------------------------------------------------------

@functools.cache
def zip_bomb_docx(unpacked: int = 1 << 30, honest: bool = True) -> bytes:
    """A DOCX whose document part unpacks to ``unpacked`` zero bytes (packed ~1000:1).

    ``honest=False`` rewrites the member's declared size to 1 KiB (zipfile then stops there and
    the CRC check fails).  Cached: building one takes a second.
    """
    if not honest:
        return _lie_about_sizes(zip_bomb_docx(unpacked), "word/document.xml", 1024)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_rels/.rels", _rels([("rId1", "officeDocument", "word/document.xml", False)]))
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(unpacked >> 20):
                member.write(block)
    return out.getvalue()


def _lie_about_sizes(data: bytes, name: str, size: int) -> bytes:
    """Rewrite the central-directory unpacked size of ``name`` (stored in 32 bits below 4 GiB)."""
    raw = bytearray(data)
    key = name.encode()
    cd = raw.find(b"PK\x01\x02")
    while raw[cd + 46:cd + 46 + len(key)] != key:
        cd = raw.find(b"PK\x01\x02", cd + 4)
    raw[cd + 24:cd + 28] = size.to_bytes(4, "little")
    return bytes(raw)


def nested_xml(depth: int = 1_000_000) -> bytes:
    """An XML document nesting ``depth`` elements (the "infinitely nested" attack)."""
    return b"<?xml version='1.0'?>" + b"<a>" * depth + b"</a>" * depth


def billion_laughs() -> bytes:
    """The classic entity-expansion document (10^9 "lol"s if expanded)."""
    ents = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10))
    return f'<?xml version="1.0"?><!DOCTYPE lolz [{ents}]><lolz>&lol9;</lolz>'.encode()


def nested_rtf(depth: int = 1_000_000) -> bytes:
    """RTF groups nested ``depth`` deep."""
    return b"{\\rtf1 " + b"{" * depth + b"x" + b"}" * depth + b"}"


def ooxml_with(part: str, data: bytes) -> bytes:
    """A DOCX-shaped package whose main part is ``data`` (to put hostile XML inside an office file)."""
    return _package(part, {part: data}, "hostile")
