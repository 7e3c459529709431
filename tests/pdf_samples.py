"""PDF files for the parser tests, written here byte by byte (and encrypted with pypdf's writer)."""

from __future__ import annotations

import io


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], links: list[tuple[int, str, tuple[int, int, int, int]]] = (),
             info: dict[str, str] | None = None) -> bytes:
    """A valid PDF: ``pages`` of text lines (12 pt Helvetica from the top, 20 pt apart).

    ``links``: ``(page index, URI, rect)`` link annotations; ``info``: the document
    information dictionary (``Title``, ``Author`` …).  Line ``k`` of a page has its
    baseline at y = 720 - 20 k, starting at x = 72.
    """
    objects: list[bytes] = []
    page_ids = [3 + 2 * i for i in range(len(pages))]
    font_id = 3 + 2 * len(pages)
    annot_ids = list(range(font_id + 1, font_id + 1 + len(links)))
    info_id = font_id + 1 + len(links)
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    for index, lines in enumerate(pages):
        annots = " ".join(f"{annot_ids[k]} 0 R" for k, link in enumerate(links) if link[0] == index)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_ids[index] + 1} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> /Annots [{annots}] >>".encode())
        stream = "".join(f"BT /F1 12 Tf 72 {720 - 20 * k} Td ({_escape(line)}) Tj ET\n"
                         for k, line in enumerate(lines)).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for _, uri, (x0, y0, x1, y1) in links:
        objects.append(f"<< /Type /Annot /Subtype /Link /Rect [{x0} {y0} {x1} {y1}] /Border [0 0 0] "
                       f"/A << /S /URI /URI ({_escape(uri)}) >> >>".encode())
    objects.append(("<< " + " ".join(f"/{k} ({_escape(v)})" for k, v in (info or {}).items()) + " >>").encode())
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, info_id, xref))
    return out.getvalue()


def encrypt(data: bytes, user_password: str, owner_password: str = "owner") -> bytes:
    """``data`` encrypted (RC4 128-bit, which pypdf writes without extra packages)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password, owner_password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


SAMPLE = make_pdf(
    [["Gossamer manual", "Crawling the loopback web", "See the project page"], ["Second page about parsing"]],
    links=[(0, "http://docs.web.test/project.html", (70, 675, 300, 695)), (1, "/relative/page.html", (0, 0, 10, 10))],
    info={"Title": "The Gossamer Manual", "Author": "Ada Lovelace", "Subject": "crawling",
          "Keywords": "crawler, search", "CreationDate": "D:20240131120000+01'00'"},
)
"""Two pages, a title, an author, two URI links (the first over the line 'See the project page')."""
