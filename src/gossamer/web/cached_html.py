"""A stored HTML page made quiet for display in the cached view's ``srcdoc`` frame.

:func:`inert_html` re-serializes the page without anything that would load or
run: ``script``, ``noscript`` wrappers, ``link``, ``base``, ``meta`` refresh,
frames, objects, embeds and media sources are dropped (their text kept where
it is content); ``src``/``srcset``/``poster``/``data``/``background``/``action``
/``formaction``/``ping`` and ``on*`` attributes are removed, and ``url(…)`` /
``@import`` inside styles are emptied.  Links keep their ``href`` when it is an
absolute ``http(s)`` URL, else lose it.

This is not the security boundary — the frame's ``sandbox=""`` and the page's
Content-Security-Policy are; it keeps the frame from requesting the stored
page's relative resources from this server (where they do not exist) and from
filling the console with blocked loads.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser
from urllib.parse import urljoin

DROP_WITH_CONTENT = frozenset({"script", "iframe", "frame", "frameset", "object", "embed", "applet", "template",
                               "audio", "video", "canvas", "svg", "math"})
DROP_TAG = frozenset({"link", "base", "noscript", "source", "track", "param", "picture", "img", "input", "portal"})
DROP_ATTRS = frozenset({"src", "srcset", "poster", "data", "background", "action", "formaction", "ping", "lowsrc",
                        "dynsrc", "longdesc", "manifest", "xmlns:xlink", "xlink:href", "integrity"})
VOID = frozenset({"area", "br", "col", "hr", "meta", "wbr", "img", "input", "link", "source", "track", "embed",
                  "param", "base"})
_CSS_URL = re.compile(r"url\s*\([^)]*\)|@import[^;]*;?", re.IGNORECASE)


class _Inert(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=False)
        self.base_url = base_url
        self.out: list[str] = []
        self.skipping: list[str] = []
        self.in_style = False

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> str:
        kept = []
        for name, value in attrs:
            if name in DROP_ATTRS or name.startswith("on"):
                continue
            if name == "href":
                target = urljoin(self.base_url, (value or "").strip()) if tag == "a" else ""
                if not target.lower().startswith(("http://", "https://")):
                    continue
                value = target
            if name == "style" and value:
                value = _CSS_URL.sub("", value)
            kept.append(f' {name}="{escape(value or "", quote=True)}"' if value is not None else f" {name}")
        return "".join(kept)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping:
            if tag == self.skipping[-1] and tag not in VOID:
                self.skipping.append(tag)
            return
        if tag in DROP_WITH_CONTENT:
            self.skipping.append(tag)
            return
        if tag in DROP_TAG or (tag == "meta" and any(n == "http-equiv" for n, _ in attrs)):
            return
        self.in_style = tag == "style"
        self.out.append(f"<{tag}{self._attrs(tag, attrs)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROP_WITH_CONTENT:
            return
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        if tag in DROP_TAG or tag in DROP_WITH_CONTENT or tag in VOID:
            return
        self.in_style = False
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(_CSS_URL.sub("", data) if self.in_style else escape(data, quote=False))

    def handle_entityref(self, name: str) -> None:
        if not self.skipping:
            self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        if not self.skipping:
            self.out.append(f"&#{name};")

    def handle_decl(self, decl: str) -> None:
        if decl.lower().startswith("doctype") and not self.skipping:
            self.out.append("<!DOCTYPE html>")


def inert_html(html: str, base_url: str) -> str:
    """``html`` without anything that loads or runs (see the module docstring); relative links made absolute."""
    parser = _Inert(base_url)
    parser.feed(html)
    parser.close()
    return "".join(parser.out)
