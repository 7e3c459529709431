"""parse-html's link walk in C (``_linkwalk``): loading, the checks it must pass, its configuration.

The C extension walks a selectolax (lexbor) DOM once and returns in bulk what
:meth:`~gossamer.plugins.builtin.parse_html_links.LinkExtractor.extract` needs — the
outlinks in document order with their anchors and tags, and the ``<meta>`` elements'
attributes — by exactly the rules of :mod:`~gossamer.plugins.builtin.parse_html_links`
(a test compares both paths over many pages and fuzzed HTML).  Targets are still
resolved by the Python :class:`~gossamer.plugins.builtin.parse_html_links.LinkResolver`,
called from C once per distinct ``href``.

It does not link lexbor itself: it opens selectolax's already loaded extension module
(``dlopen`` with ``RTLD_NOLOAD``) and looks up lexbor's exported functions there.  It
relies on one struct layout, lexbor's node (for a text node's data); before the first
walk that layout and the accessors are checked on a probe tree (:func:`status`).

The Python path is used instead when the extension was not built (no compiler at
install time: it is an optional extension), when a check fails, or when the
environment variable ``GOSSAMER_LINKWALK`` is ``python`` (read when the first parser
is built; tests select a path per extractor with its ``native`` argument).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from functools import cache
from typing import Any

ENV_VAR = "GOSSAMER_LINKWALK"
"""``python`` selects the Python link walk for every parser of the process."""

_PROBE_TEXT = "gossamer link walk probe \u00e9"
_PROBE_HTML = f'<p id="probe" class="walk">{_PROBE_TEXT}</p><b>next</b>'
_TAG_ID_LIMIT = 256
"""The C walk's per-tag tables cover lexbor's tag ids below this."""
_TAGS = ("a", "area", "frame", "iframe", "script", "link", "img", "source", "form", "meta", "style", "base",
         "title", "main", "article")


@cache
def _loaded() -> tuple[Any, dict[str, int]] | str:
    """``(module, tag ids)`` when the C walk can run in this process, else the reason it cannot."""
    try:
        module = importlib.import_module("gossamer.plugins.builtin._linkwalk")
    except ImportError as error:
        return f"the C extension is not built ({error})"
    try:
        from selectolax import lexbor
        from selectolax.lexbor import LexborHTMLParser
    except ImportError as error:  # pragma: no cover - selectolax is a dependency
        return f"selectolax is missing ({error})"
    reason = module.configure(lexbor.__file__)
    if reason is not None:
        return str(reason)
    tree = LexborHTMLParser(_PROBE_HTML)
    element = tree.css_first("p")
    text = element.first_child if element is not None else None
    if text is None:
        return "the probe document did not parse"
    reason = module.check_layout(element.mem_id, text.mem_id, _PROBE_TEXT.encode(), (b"id", b"class"))
    if reason is not None:
        return f"selectolax {getattr(__import__('selectolax'), '__version__', '?')}: {reason}"
    reason = _attribute_semantics(LexborHTMLParser)
    if reason is not None:
        return f"selectolax {getattr(__import__('selectolax'), '__version__', '?')}: {reason}"
    ids = {"-text": module.tag_id(text.mem_id)}
    for tag in _TAGS:
        node = lexbor.create_tag(tag)
        if node.tag != tag:
            return f"selectolax names a created {tag!r} {node.tag!r}"
        ids[tag] = module.tag_id(node.mem_id)
    if len(set(ids.values())) != len(ids):
        return "lexbor's tag ids are not distinct"
    if max(ids.values()) >= _TAG_ID_LIMIT:
        return f"lexbor's tag ids reach {max(ids.values())} (the C walk takes ids below {_TAG_ID_LIMIT})"
    return module, ids


def _attribute_semantics(parser: Any) -> str | None:
    """``None`` when selectolax reads attributes as the C walk does, else how it differs.

    The C walk matches an attribute by its qualified name (so ``xlink:href`` is not ``href``)
    and decodes invalid UTF-8 in a value as U+FFFD; the Python walk gets what selectolax's
    ``attrs.get`` gives, which other selectolax versions do differently.
    """
    try:
        svg = parser('<svg><a xlink:href="/x">t</a></svg>').css_first("a")
        invalid = parser(b'<a href="/\xff">t</a>').css_first("a")
        if svg is None or invalid is None:
            return "the attribute probes did not parse"
        if svg.attrs.get("href") is not None:
            return "attrs.get matches an attribute by its local name (xlink:href as href)"
        if invalid.attrs.get("href") != "/\ufffd":
            return "attrs.get does not decode invalid UTF-8 as U+FFFD"
    except Exception as error:  # noqa: BLE001 - any surprise means the walks could differ
        return f"the attribute probes failed ({error!r})"
    return None


def status() -> str | None:
    """``None`` when the C link walk is used by default, else the reason the Python path is."""
    if os.environ.get(ENV_VAR, "").strip().lower() == "python":
        return f"{ENV_VAR}=python"
    loaded = _loaded()
    return loaded if isinstance(loaded, str) else None


def available() -> bool:
    """Whether the C link walk can run in this process (the environment variable aside)."""
    return not isinstance(_loaded(), str)


def page_text_function() -> Callable[[Any], str] | None:
    """The page text in C, or ``None`` when the C walk cannot run (or ``GOSSAMER_LINKWALK=python``).

    The function takes a selectolax node (the document's root element) and returns the text of
    every text node under it but those inside ``<script>`` and ``<style>`` elements, in document
    order, joined by spaces and collapsed as ``" ".join(text.split())`` — what
    :func:`~gossamer.plugins.builtin.parse_html.page_text` returns, without changing the tree.
    """
    if status() is not None:
        return None
    module, ids = _loaded()  # type: ignore[misc]
    native, text, script, style = module.page_text, ids["-text"], ids["script"], ids["style"]

    def page_text(root: Any) -> str:
        return native(root.mem_id, text, script, style)

    return page_text


def nesting_cut_function() -> Callable[[bytes, int], int | None] | None:
    """parse-html's nesting guard in C, or ``None`` when the C walk cannot run (or ``GOSSAMER_LINKWALK=python``).

    The function is :func:`~gossamer.plugins.builtin.parse_html.nesting_cut` — the same
    arguments, the same offset or ``None`` — in one pass over the bytes, without the lower-case
    copy and the list of marks.
    """
    if status() is not None:
        return None
    module, _ = _loaded()  # type: ignore[misc]
    return getattr(module, "nesting_cut", None)  # None: an extension built before the guard was added


def head_function() -> Callable[[Any], tuple[str | None, str | None]] | None:
    """parse-html's two reads of the head in C, or ``None`` when the C walk cannot run (``GOSSAMER_LINKWALK=python``).

    The function takes the head element (a selectolax node) and returns ``(href, title)``: the
    ``href`` of the first ``<base>`` element that has one and the text of the first ``<title>``,
    white space collapsed (each ``None`` when there is no such element) — what the CSS queries
    ``base[href]`` and ``title`` find, without building lexbor's CSS machinery for the page.
    """
    if status() is not None:
        return None
    module, ids = _loaded()  # type: ignore[misc]
    native, text, base, title = module.head_parts, ids["-text"], ids["base"], ids["title"]

    def head_parts(head: Any) -> tuple[str | None, str | None]:
        return native(head.mem_id, base, title, text)

    return head_parts


def canonical_function() -> Callable[[Any], str | None] | None:
    """The head's canonical link in C, or ``None`` when the C walk cannot run (``GOSSAMER_LINKWALK=python``).

    The function takes the head element (a selectolax node) and returns the ``href`` of its first
    ``link[rel~=canonical i][href]`` (``""`` for an attribute without a value), or ``None``.
    """
    if status() is not None:
        return None
    module, ids = _loaded()  # type: ignore[misc]
    native, link = module.canonical_href, ids["link"]

    def canonical_href(head: Any) -> str | None:
        return native(head.mem_id, link)

    return canonical_href


def tag_table(tags: frozenset[str]) -> bytes | None:
    """A 256-byte table, 1 at lexbor's tag id of each of ``tags``; ``None`` when one has no fixed id below 256."""
    loaded = _loaded()
    if isinstance(loaded, str):
        return None
    module, _ = loaded
    from selectolax import lexbor

    table = bytearray(_TAG_ID_LIMIT)
    for tag in tags:
        node = lexbor.create_tag(tag)
        number = module.tag_id(node.mem_id)
        if node.tag != tag or number >= _TAG_ID_LIMIT:
            return None
        table[number] = 1
    return bytes(table)


FurnitureFallback = Callable[[str | None, str | None, str | None], bool]
"""``(role, class, id) -> furniture?`` for the names the C code does not read itself."""
OpeningWords = Callable[[Any, int, int], str | None]
"""``(tree, max_words, min_block_words) -> the opening's words or None`` (see :func:`opening_function`)."""
_REGION_UNSURE = -1


def opening_function(block_tags: frozenset[str], skip_tags: frozenset[str], max_nodes: int,
                     furniture: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]],
                     fallback: FurnitureFallback, css_region: Callable[[Any], Any]) -> OpeningWords | None:
    """parse-opening's region and prose walk in C; ``None`` when the C walk cannot run (``GOSSAMER_LINKWALK=python``).

    The function takes a parsed tree, ``max_words`` and ``min_block_words`` and returns the words
    :mod:`~gossamer.plugins.builtin.htmlfilter_opening` keeps (its main region's prose, else the body's),
    joined by single spaces (``None`` when the page has no region, or ``max_words`` ≤ 0).
    ``furniture`` is ``(roles, words, parts)`` (ASCII), read by the C code for names in ASCII; other
    names go to ``fallback(role, class, id)``.  ``css_region(tree)`` is the region by CSS, asked when
    only the document's quirks mode can tell (an ``id`` in another letter case).
    """
    if status() is not None:
        return None
    block, skip = tag_table(block_tags), tag_table(skip_tags)
    region_tags = tag_table(frozenset({"main", "article"}))
    if block is None or skip is None or region_tags is None or any(
            not name.isascii() for names in furniture for name in names):
        return None
    module, ids = _loaded()  # type: ignore[misc]
    main_id, article_id = ids["main"], ids["article"]
    walk, find, text = module.opening_words, module.opening_region, ids["-text"]
    roles, words, parts = (tuple(name.encode() for name in names) for names in furniture)

    def opening_words(tree: Any, max_words: int, min_block_words: int) -> str | None:
        root, body = tree.root, tree.body
        region = find(root.mem_id, main_id, article_id) if root is not None else 0
        if region == _REGION_UNSURE:
            node = css_region(tree)
            region = node.mem_id if node is not None else 0
        body_address = body.mem_id if body is not None else 0
        region = region or body_address
        if not region or max_words <= 0:
            return None
        found = walk(region, text, block, skip, max_words, min_block_words, max_nodes, roles, words, parts, fallback)
        if not found and body_address and region != body_address:  # the main region held no prose: the body
            found = walk(body_address, text, block, skip, max_words, min_block_words, max_nodes, roles, words, parts,
                         fallback)
        return found

    return opening_words


def make_walker(attributes: dict[str, str], anchor_limit: int, resource_rels: frozenset[str]) -> Any | None:
    """A C walker for an extractor's ``tag -> attribute`` map, or ``None`` when it cannot run.

    The walker's ``walk(root_address, resolve, ctx, metas)`` returns ``(targets, anchors,
    tags)`` and, when ``metas`` is a list, appends the ``<meta>`` elements' attribute dicts.
    """
    loaded = _loaded()
    if isinstance(loaded, str):
        return None
    module, ids = loaded
    if any(tag not in ids for tag in attributes):
        return None
    specs = tuple((ids[tag], tag, tag.encode(), attr.encode()) for tag, attr in attributes.items())
    wanted = tuple(attr.encode() for attr in sorted(set(attributes.values())))
    try:
        return module.Walker(specs, wanted, ids["-text"], ids["meta"], ids["img"], ids["a"], ids["link"],
                             ids["form"], anchor_limit, resource_rels)
    except (ValueError, RuntimeError):  # a configuration the C walk cannot take: the Python path runs
        return None
