"""Plugins ``parse-opening`` and ``index-opening``: the page's opening text, as its own field.

A page states its subject in its first sentences: the lead paragraph of an article, the summary
line of an API item, the synopsis of a command.  People who describe a page in their own words
use the words of that opening far more than the words of the navigation around it, so the index
keeps it apart (Wikipedia's search does the same with its ``opening_text`` field) and a bare query
word scores there with ``query.opening.boost``.

``parse-opening`` (HtmlParseFilter) writes parse metadata :data:`OPENING_KEY`:

1. the *main region*: the first ``<main>``, ``[role=main]``, ``#content``, ``#main-content`` or
   ``#main`` element, else the page's only ``<article>``, else ``<body>`` (also when the region
   holds no prose);
2. its *text blocks* in document order: ``<p>`` elements, and ``<div>``, ``<dd>``, ``<li>``,
   ``<td>`` and ``<blockquote>`` elements holding no block element themselves (so a block's text
   is taken once, at its innermost level) — never inside navigation, header, footer, aside,
   headings, ``<pre>``, forms, or an element whose ``role`` or ``class``/``id`` names a side bar,
   menu, breadcrumb, table of contents, header, footer or navigation (:data:`BOILERPLATE_PARTS`);
3. blocks of fewer than ``opening.min.block.words`` words (with a letter) are labels, not prose:
   skipped; headings are skipped too (the title's business);
4. words are taken until ``opening.max.words``; the page's ``<meta name="description">`` comes
   first when its text is not already among them.

A page with no such text has no key.  ``index-opening`` (IndexingFilter) puts the key into the
``opening`` text field; for a page no HTML parser read (PDF, office documents, feeds, plain text)
the first ``opening.max.words`` words of its text are its opening.  With ``opening.distinct.words``
(on) the field holds each word once, at its first occurrence (:func:`distinct_words`): a summary
page whose opening lists "the requested operation …" for ten items is no better a description of
those words than a page that says it once, and BM25's term frequency would rank it higher.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from gossamer.core import Content, Settings, robots_words
from gossamer.plugins.api import HtmlParseFilter, IndexField, IndexingFilter, IndexInput, ParseResult
from gossamer.plugins.builtin.index_more import mime_type, mime_types
from gossamer.plugins.builtin.linkwalk_native import OpeningWords, opening_function
from gossamer.plugins.builtin.parse_html import HtmlParser
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo

OPENING_KEY = "opening"
"""Parse-metadata key (and index field) of the page's opening text."""
MAIN_SELECTORS = ("main", "[role=main]", "#content", "#main-content", "#main")
BLOCK_TAGS = frozenset({"p", "div", "section", "article", "main", "dl", "dt", "dd", "ul", "ol", "li", "table",
                        "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "blockquote", "center", "details",
                        "summary", "hr", "br", "body", "address"})
"""Elements that end a run of prose: their content is a block of its own."""
SKIP_TAGS = frozenset({"nav", "header", "footer", "aside", "pre", "script", "style", "noscript", "form",
                       "button", "select", "template", "figure", "svg", "math", "iframe", "object", "menu",
                       "h1", "h2", "h3", "h4", "h5", "h6", "hgroup"})
"""Elements whose whole content is never prose of the opening (headings are the title's business)."""
BOILERPLATE_PARTS = ("nav", "menu", "sidebar", "breadcrumb", "toc", "footer", "header", "banner")
"""A ``class``/``id`` word (split at white space, ``-`` and ``_``) starting or ending with one of these
names page furniture (``leftnav``, ``navheader``, ``sphinxsidebar``, ``toctree``, ``breadcrumbs``)."""
BOILERPLATE_WORDS = frozenset({"related", "skip", "search", "searchbox", "share", "social", "cookie", "cookies"})
_NAME_SPLIT = re.compile(r"[\s_-]+")
BOILERPLATE_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu"})
_NON_WORD = re.compile(r"[^\w]+")
_LETTER_WORD = re.compile(r"(?<!\S)[^\W\d_]")
"""The start of a word that begins with a letter (prose words; ``1.0.0``, ``[−]``, ``·`` are not);
:func:`letter_words_reach` counts the same words without a regular expression."""
MAX_NODES = 2_000
"""Block elements visited at most per page: prose that has not begun by then is not an opening
(index and list pages); it also bounds the work on huge or hostile pages."""
MAIN_SELECTOR = ", ".join(MAIN_SELECTORS)
REGION_SELECTOR = MAIN_SELECTOR + ", article"


def _is_furniture(node: Any) -> bool:
    """Whether block element ``node`` is navigation, a side bar or other page furniture (by role, class, id)."""
    attrs = node.attrs
    return furniture_values(attrs.get("role"), attrs.get("class"), attrs.get("id"))


def furniture_values(role: str | None, classes: str | None, identifier: str | None) -> bool:
    """Whether an element with these ``role``, ``class`` and ``id`` attributes (``None``: absent) is furniture."""
    if role and role.lower() in BOILERPLATE_ROLES:
        return True
    names = f"{classes or ''} {identifier or ''}".strip()
    return bool(names) and _furniture_names(names)


def letter_words_reach(words: list[str], need: int) -> bool:
    """Whether at least ``need`` of ``words`` (white-space split, none empty) begin with a letter.

    The words :data:`_LETTER_WORD` finds in their joined text, counted only as far as ``need``: a
    first character that is alphanumeric but neither a decimal digit nor ``_`` is what ``[^\\W\\d_]``
    matches (a test checks every code point).
    """
    if need <= 0:
        return True
    for word in words:
        first = word[0]
        if first.isalnum() and not first.isdecimal() and first != "_":
            need -= 1
            if need == 0:
                return True
    return False


@lru_cache(maxsize=4096)
def _furniture_names(names: str) -> bool:
    """Whether any word of a ``class``/``id`` text names page furniture (a site repeats the same few)."""
    return any(_furniture(word) for word in _NAME_SPLIT.split(names.lower()))


@lru_cache(maxsize=4096)
def _furniture(word: str) -> bool:
    """Whether one class/id word names page furniture (see :data:`BOILERPLATE_PARTS`)."""
    return word in BOILERPLATE_WORDS or word.startswith(BOILERPLATE_PARTS) or word.endswith(BOILERPLATE_PARTS)


def main_region(tree: Any) -> Any:
    """The element holding the page's main content (see the module docstring), or ``None``.

    One pass finds the first element of :data:`MAIN_SELECTORS` or ``<article>`` in document order
    (the outermost when they nest): a page with neither, or whose first is a main element, needs no
    other; only a page whose first is an ``<article>`` is searched again (a main element after it,
    else how many ``<article>`` elements there are).
    """
    first = tree.css_first(REGION_SELECTOR)
    if first is None:
        return tree.body
    if first.css_matches(MAIN_SELECTOR):
        return first
    node = tree.css_first(MAIN_SELECTOR)
    if node is not None:
        return node
    articles = tree.css("article")
    return articles[0] if len(articles) == 1 else tree.body


class _Collector:
    """Walks a region in document order, cutting its text into prose runs at block boundaries."""

    def __init__(self, max_words: int, min_block_words: int) -> None:
        self.max_words = max_words
        self.min_block_words = min_block_words
        self.words: list[str] = []

    def flush(self, run: list[str]) -> None:
        """End a run of inline content: keep its words if it is prose (enough words with letters)."""
        block = " ".join(run).split()
        run.clear()
        if len(block) >= self.min_block_words and letter_words_reach(block, self.min_block_words):
            self.words.extend(block[: self.max_words - len(self.words)])

    def walk(self, region: Any) -> None:
        """Collect ``region``'s prose runs in document order until full (iterative: any depth).

        Inline elements join the current run with their whole text; a block element ends it and
        its content is walked (unless it is furniture); a skipped element (:data:`SKIP_TAGS`) ends
        it and is not read.  At most :data:`MAX_NODES` block elements are entered.
        """
        stack: list[tuple[Any, list[str]]] = [(region.iter(include_text=True), [])]
        budget = MAX_NODES
        while stack:
            children, run = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if run:
                    self.flush(run)
                    if len(self.words) >= self.max_words:
                        return
                continue
            tag = child.tag  # one read tells text nodes (lexbor's "-text") and elements apart
            if tag == "-text":
                run.append(child.text_content or "")
            elif tag in BLOCK_TAGS:
                if run:
                    self.flush(run)
                    if len(self.words) >= self.max_words:
                        return
                budget -= 1
                if budget <= 0:
                    return
                if not _is_furniture(child):
                    stack.append((child.iter(include_text=True), []))
            elif tag in SKIP_TAGS:
                if run:
                    self.flush(run)
            elif child.is_element_node:  # inline (comments are neither)
                run.append(child.text(separator=" "))


def prose_words(tree: Any, max_words: int, min_block_words: int) -> str | None:
    """The words of the page's opening before the description: its main region's prose runs, else its body's.

    ``None`` when the page has no region (no ``<body>``) or ``max_words`` ≤ 0.

    The Python walk (:class:`_Collector`), the reference of :func:`native_prose_words`.
    """
    region = main_region(tree)
    if region is None or max_words <= 0:
        return None
    collector = _Collector(max_words, min_block_words)
    collector.walk(region)
    body = tree.body
    if not collector.words and body is not None and region.mem_id != body.mem_id:
        collector.walk(body)  # the main region held no prose: the whole body
    return " ".join(collector.words)


def native_prose_words() -> OpeningWords | None:
    """:func:`prose_words` in C (one pass over the tree, the same words), or ``None`` where it cannot run."""
    return opening_function(BLOCK_TAGS, SKIP_TAGS, MAX_NODES,
                            (tuple(sorted(BOILERPLATE_ROLES)), tuple(sorted(BOILERPLATE_WORDS)), BOILERPLATE_PARTS),
                            furniture_values, main_region)


def opening_text(tree: Any, max_words: int, min_block_words: int, description: str = "",
                 words_of: OpeningWords = prose_words) -> str:
    """The page's opening text: at most ``max_words`` words of its first prose runs ("" if none).

    ``description`` (the page's meta description, as parse-html read it) comes first unless the
    prose already says it.  ``words_of`` is :func:`prose_words` or :func:`native_prose_words`'s function.
    """
    text = words_of(tree, max_words, min_block_words)
    if text is None:
        return ""
    description = " ".join(description.split())
    if description and not repeats(description, text):
        text = " ".join([*description.split()[:max_words], text]).strip()
    return text


def repeats(part: str, text: str) -> bool:
    """Whether ``text`` holds ``part`` once both are :func:`_plain`: ``_plain(part) in _plain(text)``.

    A literal substring is answered at once: :func:`_plain` maps each character on its own (lower case, then letters
    and digits kept, every run of the rest one space, the ends trimmed), so the plain form of a piece of ``text`` is a
    piece of ``text``'s plain form — except around a capital sigma, whose lower case depends on the next character
    (the final form ς), so a part holding one takes the full comparison.  A "no" is found without the plain form of
    the (longer) ``text`` when a word of the part's plain form is nowhere in ``text.lower()``: each such word lies
    within one word of ``text``'s plain form, and those are pieces of ``text.lower()``.
    """
    if part in text and "\u03a3" not in part:
        return True
    plain_part = _plain(part)
    lowered = text.lower()
    if any(word not in lowered for word in plain_part.split(" ") if word):
        return False
    return plain_part in _plain(text)


def _plain(text: str) -> str:
    """Lower-cased letters and digits only, single-spaced (to tell whether one text repeats another)."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())




class OpeningParseFilter(HtmlParseFilter):
    """The opening text → parse metadata ``opening`` (reads the DOM and the robots metadata, never the text)."""

    reads_text = False

    def __init__(self, settings: Settings) -> None:
        self.max_words = settings.get_int("opening.max.words")
        self.min_block_words = settings.get_int("opening.min.block.words")
        self.words_of = native_prose_words() or prose_words

    def filter(self, content: Content, result: ParseResult, tree: Any) -> ParseResult:
        meta = result.data.parse_metadata
        words = robots_words(meta.get("robots", ""))
        if "noindex" in words or "none" in words:  # nothing of the page is kept
            return result
        text = opening_text(tree, self.max_words, self.min_block_words, meta.get("description", ""), self.words_of)
        if text:
            result.data.parse_metadata[OPENING_KEY] = text
        return result


def first_words(text: str, count: int) -> list[str]:
    """``text.split()[:count]``, splitting only as much of ``text`` as that takes (a PDF's text runs to megabytes).

    A prefix split into more than ``count`` words holds the first ``count`` whole: the word after them
    starts inside the prefix, so none of them is cut at its end.
    """
    if count <= 0:
        return text.split()[:count] if count < 0 else []
    length = 16 * count
    while length < len(text):
        words = text[:length].split(None, count)
        if len(words) > count:
            return words[:count]
        length *= 4
    return text.split(None, count)[:count]


def distinct_words(text: str) -> str:
    """``text``'s white-space separated words, each at its first occurrence only, joined by single spaces.

    Words are compared case-folded and without surrounding punctuation.
    """
    seen: set[str] = set()
    kept = []
    for word in text.split():
        key = word.strip(_EDGE_PUNCTUATION).casefold() or word
        if key not in seen:
            seen.add(key)
            kept.append(word)
    return " ".join(kept)


_EDGE_PUNCTUATION = ".,;:!?\"'()[]{}<>«»“”‘’"


class OpeningIndexingFilter(IndexingFilter):
    """``opening``: the parse's opening text (the start of the text for pages that are not HTML)."""

    reads_inlink_sources = False

    fields = (IndexField("opening", "text", stored=False, description="the page's opening text"),)

    def __init__(self, settings: Settings) -> None:
        self.max_words = settings.get_int("opening.max.words")
        self.distinct = settings.get_bool("opening.distinct.words")

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        data = page.parse.data
        self._fill(doc, data.parse_metadata.get(OPENING_KEY), lambda: mime_type(data.content_metadata),
                   page.parse.text.text or "")
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        for i, (doc, opening) in enumerate(zip(docs, batch.parse.values(OPENING_KEY), strict=True)):
            if doc is not None:
                self._fill(doc, opening, lambda i=i: mime_types(batch)[i], batch.texts[i])

    def _fill(self, doc: dict[str, Any], opening: str | None, mime: Callable[[], str], text: str) -> None:
        """``opening`` (the parse's), else for a page that is not HTML (``mime()``) the start of ``text``."""
        if opening is None and mime() not in HtmlParser.content_types:
            opening = " ".join(first_words(text, self.max_words))
        if opening:
            doc["opening"] = distinct_words(opening) if self.distinct else opening


PARSE_PLUGIN = PluginInfo(
    id="parse-opening",
    point="HtmlParseFilter",
    factory=OpeningParseFilter,
    description="the page's opening text (first prose of the main content, meta description) into 'opening'",
)
INDEX_PLUGIN = PluginInfo(
    id="index-opening",
    point="IndexingFilter",
    factory=OpeningIndexingFilter,
    description="opening: the page's opening text, a searched field (query.opening.boost)",
)
