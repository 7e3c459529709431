"""Outlinks of an HTML page, as Nutch's ``DOMContentUtils.getOutlinks`` finds them, made cheap.

Which elements give links (Nutch's defaults): ``a`` and ``area`` (``href``), ``frame``,
``iframe``, ``script``, ``img`` and ``source`` (``src``), ``link`` (``href``) and, with
``parser.html.form.use_action``, ``form`` (``action``, not for ``method="post"``).
Tags listed in ``parser.html.outlinks.ignore_tags`` are left out.  As in Nutch, a
link whose ``rel`` holds the word ``nofollow`` (any case) is dropped, and an ``a``
element with no content at all is ignored.  Unlike Nutch, a ``<link>`` whose ``rel``
names a page resource (stylesheet, icon, preload … see :data:`RESOURCE_RELS`) is not
an outlink.  The page's first ``<link rel="canonical">`` in the head is reported
separately.  The anchor of an ``a`` is its text
(white space collapsed; if empty, the ``alt`` of an image inside), cut to
``db.max.anchor.length`` characters; other elements have no anchor.

Targets are resolved against the page's base (its ``<base href>`` if any): only
``http``, ``https``, ``ftp`` and ``file`` URLs are kept (``mailto:``, ``javascript:``,
``tel:``, ``data:`` … are dropped), fragments are removed (``#top`` is the page
itself), ASCII tab and newline characters inside an ``href`` are removed as browsers
do, and a repeated ``href`` on one page is processed once.  Resolution is done
with string operations for the common shapes (absolute, ``//host``, ``/path``,
``?query``, ``name.html``, leading ``../``); the rare rest goes through
:func:`urllib.parse.urljoin`, memoized (``parser.outlink.cache.size`` entries).

The walk over the DOM runs in C when it can (:mod:`~gossamer.plugins.builtin.linkwalk_native`:
one pass, the links, anchors and ``<meta>`` attributes returned in bulk); the Python walk
below is the reference and the fallback, and both give the same output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

from gossamer.core import OutlinkList
from gossamer.plugins.builtin import linkwalk_native

LINK_ATTRIBUTES = {"a": "href", "area": "href", "frame": "src", "iframe": "src", "script": "src",
                   "link": "href", "img": "src", "source": "src"}
"""Nutch's link elements and the attribute that holds the target."""

RESOURCE_RELS = frozenset({"stylesheet", "icon", "shortcut", "apple-touch-icon", "mask-icon", "preload", "prefetch",
                           "modulepreload", "preconnect", "dns-prefetch", "prerender", "manifest", "pingback"})
"""``<link rel>`` values naming page resources, not documents: such links are not outlinks."""

SCHEMES = frozenset({"http", "https", "ftp", "file"})
"""Schemes an outlink may have; every other scheme is dropped at extraction."""

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_CONTROL = str.maketrans("", "", "\t\n\r")


class BaseContext:
    """The parts of a page's base URL that relative targets are resolved against."""

    __slots__ = ("_ups", "base", "directory", "origin", "path_url", "root", "scheme")

    def __init__(self, base: str) -> None:
        base = base.partition("#")[0]
        parts = urlsplit(base)
        self.base = base
        self.scheme = parts.scheme.lower()
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.root = len(self.origin) + 1
        path = parts.path or "/"
        self.path_url = self.origin + path
        self.directory = self.origin + path[: path.rfind("/") + 1]
        self._ups: list[str] = [self.directory]

    def up(self, levels: int) -> str:
        """The directory ``levels`` above the base's directory (never above the root)."""
        ups = self._ups
        while len(ups) <= levels:
            directory = ups[-1]
            if len(directory) > self.root:
                directory = directory[: directory.rfind("/", 0, len(directory) - 1) + 1]
            ups.append(directory)
        return ups[levels]


class LinkResolver:
    """Resolves ``href`` values against a :class:`BaseContext`; remembers the slow cases."""

    def __init__(self, cache_size: int) -> None:
        self.cache_size = max(0, cache_size)
        self._memo: dict[tuple[str, str], str | None] = {}

    def resolve(self, ctx: BaseContext, href: str) -> str | None:
        """Absolute target of ``href`` without fragment, or ``None`` (other scheme, malformed, same page)."""
        if "#" in href:
            href = href.partition("#")[0]
            if not href:
                return None
        if "\n" in href or "\t" in href or "\r" in href:
            href = href.translate(_CONTROL)
        if not href:
            return ctx.base
        first = href[0]
        if first == "/":
            if href.startswith("//"):
                return self._dotted(ctx.scheme + ":" + href)
            return self._dotted(ctx.origin + href)
        if first == "?":
            return ctx.path_url + href
        if href.startswith(("http://", "https://")):
            return self._dotted(href)
        if ":" in href:
            match = _SCHEME.match(href)
            if match is not None:
                if match.group(1).lower() not in SCHEMES:
                    return None
                return self._dotted(href)
        if "." in href and ("./" in href or href.endswith(".") or "/." in href):
            return self._relative_dots(ctx, href)
        return ctx.directory + href

    def _relative_dots(self, ctx: BaseContext, href: str) -> str | None:
        """Leading ``../`` and ``./`` segments by string operations; anything else through urljoin."""
        start = levels = 0
        while True:
            if href.startswith("../", start):
                start, levels = start + 3, levels + 1
            elif href.startswith("./", start):
                start += 2
            else:
                break
        rest = href[start:]
        if rest.startswith(".") or "/." in rest or (rest == "" and href.endswith(".")):
            return self._join(ctx.directory, href)
        return ctx.up(levels) + rest

    def _dotted(self, url: str) -> str | None:
        """``url`` as is, unless its path holds dot segments (then they are resolved)."""
        scheme_end = url.find("//")
        path_start = url.find("/", scheme_end + 2) if scheme_end >= 0 else -1
        if path_start < 0 or "/." not in url[path_start:]:
            return url
        return self._join(url[:path_start] + "/", url[path_start:])

    def _join(self, base: str, href: str) -> str | None:
        key = (base, href)
        memo = self._memo
        found = memo.get(key, "")
        if found != "":
            return found
        try:
            resolved: str | None = urljoin(base, href)
        except ValueError:
            resolved = None
        if len(memo) >= self.cache_size:
            memo.clear()
        memo[key] = resolved
        return resolved


def anchor_text(node: object, limit: int) -> str:
    """Collapsed text of a link element; the ``alt`` of an image inside when it has none."""
    text = " ".join(node.text(separator=" ").split())  # type: ignore[attr-defined]
    if not text:
        image = node.css_first("img[alt]")  # type: ignore[attr-defined]
        if image is not None:
            text = " ".join((image.attributes.get("alt") or "").split())
    return text[:limit].rstrip() if 0 <= limit < len(text) else text


class LinkExtractor:
    """Finds a page's outlinks (see the module docstring) in one pass over the DOM.

    ``native``: ``None`` (the default) walks in C unless :func:`linkwalk_native.status`
    gives a reason not to; ``False`` always walks in Python; ``True`` walks in C and
    raises :class:`RuntimeError` when it cannot (for tests).
    """

    def __init__(self, ignore_tags: Iterable[str], use_form_action: bool, anchor_limit: int,
                 node_metadata_name: str, cache_size: int, native: bool | None = None) -> None:
        ignored = {t.strip().lower() for t in ignore_tags if t.strip()}
        self.attributes = {tag: attr for tag, attr in LINK_ATTRIBUTES.items() if tag not in ignored}
        if use_form_action:
            self.attributes["form"] = "action"
        wanted = sorted(set(self.attributes.values()))
        self.selector = ", ".join(f"[{attr}]:not([rel~=nofollow i])" for attr in wanted)
        self.meta_selector = ", ".join(["meta", self.selector] if self.selector else ["meta"])
        self.anchor_limit = anchor_limit
        self.node_metadata_name = node_metadata_name
        self.resolver = LinkResolver(cache_size)
        self.walker = None
        if native or (native is None and linkwalk_native.status() is None):
            self.walker = linkwalk_native.make_walker(self.attributes, anchor_limit, RESOURCE_RELS)
            if self.walker is None and native:
                raise RuntimeError(f"the C link walk cannot run: {linkwalk_native.status()}")
        self.canonical_href = linkwalk_native.canonical_function() if self.walker is not None else None

    def extract(self, tree: object, base: str, metas: list[object] | None = None) -> tuple[OutlinkList, str | None]:
        """``(outlinks in document order, canonical URL or None)`` of a parsed page.

        ``metas``, when given, receives the attributes (``node.attributes``) of the page's ``<meta>``
        elements in document order, found by the same pass over the DOM (a CSS query walks the whole
        tree: ~0.1 ms on a doc page).  A ``<meta>`` that also carries a link attribute is listed once
        more per such attribute, as the CSS query of the Python path finds it.
        """
        canonical = self.canonical(tree, base)
        if self.walker is not None:
            return self._extract_native(tree, base, metas), canonical
        if metas is not None:
            selector = self.meta_selector
        elif self.attributes:
            selector = self.selector
        else:
            return OutlinkList(), canonical
        ctx = BaseContext(base)
        resolve = self.resolver.resolve
        attributes = self.attributes
        limit = self.anchor_limit
        seen: set[str] = set()
        targets: list[str] = []
        anchors: list[str] = []
        tags: list[str] = []
        for node in tree.css(selector):  # type: ignore[attr-defined]
            tag = node.tag
            attr = attributes.get(tag)
            if attr is None:
                if tag == "meta" and metas is not None:
                    metas.append(node.attributes)
                continue
            href = node.attrs.get(attr)
            if not href or href in seen:
                continue
            if tag == "link":
                rel = node.attrs.get("rel")
                if rel and not RESOURCE_RELS.isdisjoint(rel.lower().split()):
                    continue
            elif tag == "form" and (node.attrs.get("method") or "").strip().lower() == "post":
                continue
            # The target before the anchor text: an href that resolves to nothing (``#top``, ``mailto:``)
            # needs none, and marking it seen changes nothing (every copy of it resolves to nothing too).
            target = resolve(ctx, href.strip())
            if target is None:
                seen.add(href)
                continue
            anchor = ""
            if tag == "a":
                anchor = anchor_text(node, limit)
                if not anchor and node.child is None:  # text means content: the child is looked up only without
                    continue
            seen.add(href)
            targets.append(target)
            anchors.append(anchor)
            tags.append(tag)
        return self._outlinks(targets, anchors, tags), canonical

    def _extract_native(self, tree: object, base: str, metas: list[object] | None) -> OutlinkList:
        """The outlinks by the C walk (the same rules and output as :meth:`extract`'s Python loop)."""
        if metas is None and not self.attributes:
            return OutlinkList()
        root = tree.root  # type: ignore[attr-defined]
        if root is None:
            return OutlinkList()
        walker = self.walker
        assert walker is not None
        targets, anchors, tags = walker.walk(root.mem_id, self.resolver.resolve, BaseContext(base), metas)
        return self._outlinks(targets, anchors, tags)

    def _outlinks(self, targets: list[str], anchors: list[str], tags: list[str]) -> OutlinkList:
        meta_name = self.node_metadata_name
        metadata = [((meta_name, tag),) for tag in tags] if meta_name and tags else None
        return OutlinkList(targets, anchors, metadata)

    def canonical(self, tree: object, base: str) -> str | None:
        """Absolute target of the first ``<link rel="canonical">`` in the head, or ``None``."""
        head = tree.head  # type: ignore[attr-defined]
        if head is None:
            return None
        if self.canonical_href is not None:  # the same element, found by C
            href = self.canonical_href(head)
            if href is None:
                return None
        else:
            node = head.css_first("link[rel~=canonical i][href]")
            if node is None:
                return None
            href = node.attrs.get("href")
        return self.resolver.resolve(BaseContext(base), (href or "").strip())
