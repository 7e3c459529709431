"""Plugin ``parse-html``: HTML and XHTML with selectolax (lexbor), after Nutch's HtmlParser.

What a parse yields (``ParseResult``):

* ``text``: the document's visible text — every text node outside ``<script>`` and
  ``<style>`` (the title included, as in Nutch), white space collapsed to single
  spaces, one line;
* ``title``: the first ``<title>`` of the head, white space collapsed;
* ``outlinks``: see :mod:`~gossamer.plugins.builtin.parse_html_links` (absolute,
  document order, against ``<base href>``); none when the robots meta says ``nofollow``;
* parse metadata: the ``<meta>`` names (:mod:`~gossamer.plugins.builtin.parse_html_meta`;
  the ``metatag.*`` keys are the ``parse-metatags`` filter's), ``robots``, ``canonical``
  (``<link rel="canonical">``, absolute), ``caching.forbidden`` (the
  ``parser.caching.forbidden.policy``, for ``noarchive``/``no-cache`` pages),
  ``lang`` (the ``<html lang>`` attribute), ``OriginalCharEncoding`` /
  ``CharEncodingForConversion`` (the codec used, see
  :mod:`~gossamer.plugins.builtin.parse_charset`), and for a meta refresh
  :data:`REFRESH_URL` (absolute target) and :data:`REFRESH_SECONDS`.

A robots ``noindex`` empties text and title but keeps the page a success (Nutch).
Hostile input is bounded: at most ``parser.html.max.bytes`` bytes are parsed, and a
document whose block elements nest deeper than ``parser.html.max.depth`` is cut
where it gets that deep (lexbor's tree building is quadratic in the depth of such
nesting); either sets ``parse.truncated`` (``size`` / ``depth``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

from gossamer.core import (
    REFRESH_SECONDS,
    REFRESH_URL,
    Content,
    OutlinkList,
    ParseData,
    ParseStatusCode,
    ParseText,
    Settings,
)
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.builtin.linkwalk_native import head_function, nesting_cut_function, page_text_function
from gossamer.plugins.builtin.parse_charset import choose_charset
from gossamer.plugins.builtin.parse_html_links import LinkExtractor
from gossamer.plugins.builtin.parse_html_meta import MetaReader
from gossamer.plugins.registry import PluginInfo

HTML_LANG_KEY = "lang"
"""Parse-metadata key of the language the page declares in ``<html lang>``."""
TRUNCATED = "parse.truncated"
"""Parse metadata key: ``size`` or ``depth`` when only the start of the document was parsed."""
CHARSET_KEYS = ("OriginalCharEncoding", "CharEncodingForConversion")
"""Parse metadata keys holding the codec the document was decoded with (Nutch's names)."""

_BLOCK_TAG = re.compile(  # block elements whose start tag makes lexbor scan the open-element stack
    rb"<(/?)(?:d(?:iv|ir|l|ialog|etails)|a(?:rticle|side|ddress)|blockquote|center|f(?:ieldset|ig|ooter)"
    rb"|h(?:eader|group)|m(?:ain|enu)|nav|ol|s(?:ection|ummary)|ul)[\s/>]")
_STEP = {b"": 1, b"/": -1}
_INVISIBLE = ["script", "style"]


def nesting_cut(data: bytes, max_depth: int) -> int | None:
    """Offset where block elements first nest deeper than ``max_depth``, or ``None``.

    The depth is that of start and end tags of block elements (an end tag without
    a start tag counts for nothing).  A document with at most ``4 * max_depth`` ``<``
    is never cut: lexbor's cost on it is bounded.  It is computed with C-level
    iteration, and the offset is only searched for when the limit is exceeded; the
    C link walk's version (``linkwalk_native.nesting_cut_function``) gives the same.
    """
    if data.count(b"<") <= 4 * max_depth:
        return None
    lowered = data.lower()
    marks = _BLOCK_TAG.findall(lowered)
    if len(marks) <= max_depth:
        return None
    sums = list(accumulate(map(_STEP.__getitem__, marks), initial=0))
    if max(map(operator.sub, sums, accumulate(sums, min))) <= max_depth:
        return None
    depth = 0
    for match in _BLOCK_TAG.finditer(lowered):
        if match.group(1):
            depth = depth - 1 if depth else 0
        else:
            depth += 1
            if depth > max_depth:
                return match.start()
    return None


FEW_RUNS = 16
"""Runs of spaces up to which :func:`collapse` cuts a printable text itself."""


def collapse(text: str) -> str:
    """``text`` with every run of white space turned into one space, trimmed: ``" ".join(text.split())``.

    Exactly that, with a faster path for the usual page text: every character ``str.split`` takes for
    white space but the space itself is unprintable (a test checks all of Unicode), so in a printable
    text only runs of spaces are to collapse, and they are found with ``str.find`` instead of making a
    string of every word (a many-hosts page of ~2,000 words and a few runs: less than half the CPU).
    A text with more than :data:`FEW_RUNS` runs is split and joined after all (a string per word
    costs less than a step of the loop per run there).
    """
    if not text.isprintable():
        return " ".join(text.split())
    found = text.find("  ")
    if found < 0:
        return text.strip(" ")
    parts: list[str] = []
    start, size = 0, len(text)
    while found >= 0:
        if len(parts) >= FEW_RUNS:
            return " ".join(text.split())
        parts.append(text[start:found + 1])
        start = found + 2
        while start < size and text[start] == " ":
            start += 1
        found = text.find("  ", start)
    parts.append(text[start:])
    return "".join(parts).strip(" ")


def document_base(tree: LexborHTMLParser, url: str) -> str:
    """The URL relative links of ``tree`` resolve against: its ``<base href>`` (made absolute) or ``url``."""
    head = tree.head
    node = head.css_first("base[href]") if head is not None else None
    return base_url(node.attributes.get("href") if node is not None else None, url)


def base_url(href: str | None, url: str) -> str:
    """``href`` (a ``<base>`` element's, ``None``: none) made absolute against ``url``; ``url`` when empty or bad."""
    href = (href or "").strip()
    if href:
        try:
            return urljoin(url, href)
        except ValueError:
            pass
    return url


def page_text(tree: LexborHTMLParser, native: Callable[[Any], str] | None = None) -> str:
    """The visible text of ``tree`` (see the module docstring): its text outside ``<script>`` and ``<style>``.

    With ``native`` (:func:`~gossamer.plugins.builtin.linkwalk_native.page_text_function`: the same text,
    computed in C in one pass) the tree is left as it is; without, its ``<script>`` and ``<style>``
    elements are removed from it.
    """
    if native is not None:
        root = tree.root
        return native(root) if root is not None else ""
    tree.strip_tags(_INVISIBLE)
    root = tree.root
    # White-space-only text nodes add nothing once the white space is collapsed: not copied at all.
    return collapse(root.text(separator=" ", skip_empty=True)) if root is not None else ""


class HtmlParser(Parser):
    """HTML parser (see the module docstring); :meth:`parse_tree` also returns the DOM."""

    content_types = ("text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml")

    def __init__(self, settings: Settings) -> None:
        self.default_charset = settings.get_str("parser.character.encoding.default")
        self.detect = settings.get_int("encodingdetector.charset.min.confidence") >= 0
        self.max_bytes = settings.get_int("parser.html.max.bytes")
        self.max_depth = settings.get_int("parser.html.max.depth")
        self.caching_policy = settings.get_str("parser.caching.forbidden.policy")
        self.meta = MetaReader()
        self.native_text = page_text_function()
        self.native_head = head_function()
        self.nesting_cut = nesting_cut_function() or nesting_cut
        self.links = LinkExtractor(
            settings.get_list("parser.html.outlinks.ignore_tags"), settings.get_bool("parser.html.form.use_action"),
            settings.get_int("db.max.anchor.length"),
            settings.get_str("parser.html.outlinks.htmlnode_metadata_name").strip(),
            settings.get_int("parser.outlink.cache.size"))

    def parse(self, content: Content) -> ParseResult:
        """Parse one HTML document."""
        return self.parse_tree(content, keep_tree=False)[0]

    def _bounded(self, data: bytes, notes: dict[str, str]) -> bytes:
        if 0 <= self.max_bytes < len(data):
            data = data[: self.max_bytes]
            notes[TRUNCATED] = "size"
        if self.max_depth > 0:
            cut = self.nesting_cut(data, self.max_depth)
            if cut is not None:
                data = data[:cut]
                notes[TRUNCATED] = "depth"
        return data

    def parse_tree(self, content: Content, keep_tree: bool = True) -> tuple[ParseResult, Any]:
        """Parse; also return the selectolax tree (unmodified when ``keep_tree``) for HtmlParseFilters."""
        result, tree, noindex = self._parse(content)
        if not noindex:
            keep = keep_tree and self.native_text is None  # the Python path changes the tree it reads
            result.text = ParseText(page_text(tree.clone() if keep else tree, self.native_text))
        return result, tree

    def parse_tree_text_later(self, content: Content) -> tuple[ParseResult, Any, Callable[[ParseResult], None]]:
        """:meth:`parse_tree` for HtmlParseFilters that do not read the text: no copy of the DOM is made.

        Returns the result with an empty text, the unmodified tree, and a function that
        sets the text of a result (the one the filters return) from the tree itself,
        which it changes (``<script>`` and ``<style>`` are removed): call it once, after
        the last reader of the tree.  The text is the one :meth:`parse_tree` gives.
        """
        result, tree, noindex = self._parse(content)

        def set_text(final: ParseResult) -> None:
            if not noindex:
                final.text = ParseText(page_text(tree, self.native_text))

        return result, tree, set_text

    def _parse(self, content: Content) -> tuple[ParseResult, Any, bool]:
        """``(result without text, tree, noindex)``: everything but the text, the tree unmodified."""
        notes: dict[str, str] = {}
        data = self._bounded(content.content, notes)
        decoded = choose_charset(data, content.content_type, self.default_charset, self.detect, html=True)
        tree = LexborHTMLParser(decoded.document)
        page_url = content.url
        head = tree.head
        if self.native_head is not None and head is not None:
            href, title_text = self.native_head(head)  # one walk of the head, no CSS query
            base = base_url(href, content.base_url or page_url)
        else:
            title_text = None
            base = document_base(tree, content.base_url or page_url)
        elements: list[Any] = []
        outlinks, canonical = self.links.extract(tree, base, elements)  # one pass: the links and the <meta>s
        meta = self.meta.read_attributes(elements)
        if meta.nofollow:
            outlinks = OutlinkList()
        parse_meta = meta.tags
        parse_meta.update(notes)
        parse_meta[CHARSET_KEYS[0]] = parse_meta[CHARSET_KEYS[1]] = decoded.charset
        root = tree.root
        declared = (root.attributes.get("lang") or root.attributes.get("xml:lang") or "").strip() \
            if root is not None else ""
        if declared:
            parse_meta.setdefault(HTML_LANG_KEY, declared[:35])
        if canonical:
            parse_meta["canonical"] = canonical
        if meta.nocache:
            parse_meta["caching.forbidden"] = self.caching_policy
        message = ""
        if meta.refresh_seconds is not None:
            target = self._refresh_target(meta.refresh_target, base, page_url)
            if target:
                parse_meta[REFRESH_URL] = target
                parse_meta[REFRESH_SECONDS] = str(meta.refresh_seconds)
                message = f"meta refresh to {target} after {meta.refresh_seconds} s"
        if meta.noindex:
            title = ""
        else:
            title = title_text or "" if self.native_head is not None and head is not None else self._title(tree)
        data_out = ParseData(ParseStatusCode.SUCCESS, title, outlinks, {}, parse_meta, message)
        return ParseResult(data_out, ParseText(""), meta.elements), tree, meta.noindex

    @staticmethod
    def _refresh_target(target: str, base: str, page_url: str) -> str:
        if not target:
            return page_url
        try:
            return urljoin(base, target).partition("#")[0]
        except ValueError:
            return ""

    @staticmethod
    def _title(tree: LexborHTMLParser) -> str:
        head = tree.head
        node = head.css_first("title") if head is not None else None
        return collapse(node.text()) if node is not None else ""


PLUGIN = PluginInfo(
    id="parse-html",
    point="Parser",
    factory=HtmlParser,
    description="HTML/XHTML: text, title, outlinks, meta robots/refresh/tags (selectolax)",
    aliases=("org.apache.nutch.parse.html.HtmlParser", "HtmlParser"),
)
