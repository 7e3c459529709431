"""parse-html's link walk and page text in C (``_linkwalk``) against the Python paths: the same output, on any input.

Both walks of :class:`LinkExtractor` run over the same parsed trees — hand-written edge
cases, the trap host's malformed page, pages of the local web's doc sites (when their
packages are installed), hostile input (deep nesting, huge attributes, invalid UTF-8,
thousands of links) and fuzzed HTML — and must give identical outlinks, anchors, tags,
canonical and ``<meta>`` attributes; :func:`page_text` gives the same text both ways.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from gossamer.core import Settings
from gossamer.plugins.builtin import linkwalk_native
from gossamer.plugins.builtin.htmlfilter_opening import MAX_NODES, native_prose_words, opening_text
from gossamer.plugins.builtin.parse_html import HtmlParser, document_base, nesting_cut, page_text
from gossamer.plugins.builtin.parse_html_links import LinkExtractor
from tests.test_fuzz import HTML_PARTS, URL_PARTS, junk
from tests.test_parse_html import MALFORMED

BASE = "http://trap.web.test:8080/dir/page.html"
CONFIGS = {
    "defaults": ((), False, 100, ""),
    "forms, tag names, short anchors": ((), True, 7, "nutch.htmlnode"),
    "ignored tags, no anchor limit": (("img", "script", "link"), False, -1, ""),
    "anchor limit 0": (("a",), True, 0, ""),
}
DOC_ROOTS = ["/usr/share/doc/python3.11/html", "/usr/share/doc/postgresql-doc-15/html",
             "/usr/share/doc/openjdk-17-jre-headless/api", "/usr/share/doc/rust-doc/html",
             "/usr/share/debian-reference", "/usr/share/doc/git-doc", "/usr/share/doc/python-django-doc/html",
             "/usr/share/doc/libboost1.81-doc", "/usr/share/doc/gcc-12-base/libstdc++",
             "/usr/share/doc/erlang-doc", "/usr/share/doc/cmake-data/html"]

EDGE_CASES = [
    # rel nofollow: HTML white space separates words (not \v, not U+00A0), any ASCII case
    "".join(f'<a rel="{rel}" href="n{i}.html">n{i}</a>' for i, rel in enumerate(
        ["NoFollow", "a\tnofollow", "a\x0cnofollow", "a\x0bnofollow", "a\u00a0nofollow", "nofollow2", "x nofollow y",
         "", "nofollow\r\n", "NOFOLLOW x", "noFollow\u0130"])),
    # <link rel> resources, canonical, base
    '<head><base href="/other/"><link rel="Stylesheet icon" href="s.css"><link rel="canonical" href="c.html">'
    '<link rel="alternate" href="alt.html"><link rel="\u0130CON" href="i.png"><link rel href="norel.html">'
    '<link rel="preload" href="p.js"><link href=""></head><body><a href="x.html">x</a>',
    # forms
    '<form action="get.cgi">a</form><form action="post.cgi" method=" POST ">b</form><form action="p2" method=post>'
    '<form action="p3" method="pOsT\u00a0"></form><form method="post">',
    # anchors: empty, comment child, white space only, image alt, unicode white space, long texts
    '<a href="e.html"></a><a href="e.html">second</a><a href="c.html"><!--c--></a><a href="w.html"> \n </a>'
    '<a href="img.html"><img alt="  hello \t world "></a><a href="noalt.html"><img src="i.png"></a>'
    '<a href="emptyalt.html"><span><img alt=""><img alt="later"></span></a>'
    '<a href="ws.html">\u2003a\u00a0b\u3000c\x1cd\x85e\u200bf </a>'
    '<a href="long.html">' + "word " * 40 + '</a><a href="edge.html">abcdefg hij</a>'
    '<a href="edge2.html">abcdef ghij</a>'
    '<a href="mixed.html">one<b>two</b><i> three </i>four<script>var s=1</script><style>x{}</style></a>',
    # targets that resolve to nothing, duplicates, odd shapes
    '<a href="#top">top</a><a href="#top">again</a><a href="mailto:x@y">m</a><a href="  http://h/a  ">s</a>'
    '<a href="\thttp://h/b\n">c</a><a href="../../up.html">u</a><a href="?q=1">q</a><a href="//host/p">p</a>'
    '<a href="http://h/a/./b/../c">d</a><a href="javascript:void(0)">j</a><a href="HTTP://X/Y">X</a><a href>no</a>'
    '<a href="">empty</a><a href="http://[::1">broken</a><a href="\u00e9t\u00e9.html">accent</a>'
    '<a href="./a/../b.html">dots</a><a href=".">dot</a><a href="..">dotdot</a><a href="s p a c e">sp</a>',
    # every link element, metas doubled by their link attributes
    '<head><meta name="a" content="1" href="m.html"><meta name="b" content="2" href="m2.html" src="s" action="x">'
    '<meta name="c" content="3" href="m3.html" rel="nofollow"><meta http-equiv="refresh" content="0; url=r.html">'
    '<script src="s.js"></script></head><body><map><area href="area.html"></map><iframe src="if.html"></iframe>'
    '<video><source src="v.mp4"></video><img src="i.png" href="imghref"><a src="asrc">no href</a>'
    '<object data="o"></object><embed src="emb"></body>',
    '<frameset><frame src="f1.html"><frame src="f2.html" rel="nofollow"></frameset>',
    # foreign content, prefixes, templates
    '<svg><a xlink:href="xl.html">xl</a><a href="svg.html">s<text>t</text></a></svg>'
    '<math><mi><a href="math.html">m</a></mi></math><foo:a href="pfx.html">p</foo:a>'
    '<template><a href="tpl.html">t</a></template><A HREF="UP.html">UP</A>',
    # no html content at all
    "", "plain text", "<!-- only a comment -->",
]


def extractors(config: tuple[tuple[str, ...], bool, int, str]) -> tuple[LinkExtractor, LinkExtractor]:
    ignore, forms, limit, meta_name = config
    return (LinkExtractor(ignore, forms, limit, meta_name, 1000, native=False),
            LinkExtractor(ignore, forms, limit, meta_name, 1000, native=True))


def outputs(extractor: LinkExtractor, tree: LexborHTMLParser, base: str, with_metas: bool) -> tuple:
    metas: list[dict[str, str | None]] | None = [] if with_metas else None
    outlinks, canonical = extractor.extract(tree, base, metas)
    return outlinks.to_urls, outlinks.anchors, outlinks.metadata, canonical, metas


NATIVE_TEXT = linkwalk_native.page_text_function()


NATIVE_OPENING = native_prose_words()
NATIVE_HEAD = linkwalk_native.head_function()
NATIVE_CANONICAL = linkwalk_native.canonical_function()
OPENING_LIMITS = [(80, 5), (3, 1), (100_000, 0), (7, 40)]


def assert_same_text(document: str | bytes) -> str:
    """The page text and parse-opening's words of ``document`` both ways (the C paths leave the tree unchanged).

    Returns the page text.
    """
    tree = LexborHTMLParser(document)
    before = tree.html
    native = page_text(tree, NATIVE_TEXT)
    for max_words, min_words in OPENING_LIMITS:
        expected = opening_text(tree, max_words, min_words)
        assert opening_text(tree, max_words, min_words, "", NATIVE_OPENING) == expected, (max_words, min_words)
    head = tree.head
    if head is not None:
        href, title = NATIVE_HEAD(head)
        base = head.css_first("base[href]")
        assert (href or "") == ((base.attributes.get("href") or "") if base is not None else "")  # None: no value
        assert (title is None) == (head.css_first("title") is None) and (title or "") == HtmlParser._title(tree)
        link = head.css_first("link[rel~=canonical i][href]")
        canonical = NATIVE_CANONICAL(head)
        assert (canonical is None) == (link is None)
        assert (canonical or "") == ((link.attrs.get("href") or "") if link is not None else "")
    assert tree.html == before
    assert native == page_text(LexborHTMLParser(document))
    return native


def assert_same(document: str | bytes, base: str = BASE, configs: dict | None = None) -> int:
    """Both walks over ``document`` under every configuration; returns the outlinks found with the defaults.

    The page text is compared too (:func:`assert_same_text`).
    """
    assert_same_text(document)
    tree = LexborHTMLParser(document)
    base = document_base(tree, base)
    found = 0
    for name, config in (configs or CONFIGS).items():
        python, native = extractors(config)
        for with_metas in (True, False):
            expected = outputs(python, tree, base, with_metas)
            assert outputs(native, tree, base, with_metas) == expected, (name, with_metas)
            if name == "defaults" and with_metas:
                found = len(expected[0])
    return found


def test_the_c_walk_is_built_and_used() -> None:
    assert linkwalk_native.status() is None, linkwalk_native.status()
    assert HtmlParser(Settings()).links.walker is not None
    assert NATIVE_TEXT is not None and HtmlParser(Settings()).native_text is not None
    assert NATIVE_OPENING is not None and NATIVE_HEAD is not None


def test_page_text_white_space_is_str_isspace() -> None:
    spaces = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    assert len(spaces) == 29  # the characters the C code matches on the UTF-8 bytes
    document = "<p>" + "".join(f"w{i}{c}{c}x{c}" for i, c in enumerate(spaces)) + "</p>"
    text = assert_same_text(document)
    assert text.split(" ")[:4] == ["w0", "x", "w1", "x"] and len(text.split(" ")) == 2 * len(spaces)
    near = "".join(f"<p>a{chr(c)}b</p>" for c in (0x84, 0x86, 0x9F, 0xA1, 0x167F, 0x1681, 0x1FFF, 0x200B, 0x2027,
                                                    0x202A, 0x202E, 0x2030, 0x205E, 0x2060, 0x2FFF, 0x3001, 0xFEFF))
    assert " " not in assert_same_text(f"<body>{near}</body>").replace("b a", "")


HEAD_CASES = [
    "<head><title> A  <b>title</b>\u00a0here </title><base href=' /b/ '><base href='/second/'><title>2</title></head>",
    "<head><base><base href><base target=x href='x/'></head><body><base href='/in-body/'><title>body</title></body>",
    "<title></title><base href='\xff'>", "<head><svg><title>svg</title></svg></head>", "<html><head></head></html>",
    "<head><title>one\ntwo\u2003three</title><title>x</title><BASE HREF='UP/'></head>",
    "<head><link rel=canonical><link rel='x\x0bcanonical' href=a><link rel='\u00a0canonical' href=b>"
    "<link rel='alternate CANONICAL\t' href=' c '><link rel=canonical href=d></head>",
    "<head><link rel=canonical href></head><body><link rel=canonical href=body></body>",
    "<head><link rel=canonicalx href=a><link rel='\fcanonical\r' href=b>",
]


OPENING_CASES = [
    # furniture by role, class and id: ASCII case, separators, prefixes and suffixes, non-ASCII names (Python)
    "<main><div role=NAVIGATION>one two three four five six</div><div class='x_leftNav y'>a b c d e f g</div>"
    "<div id='Toc-x'>h i j k l m n</div><div class='coo\u212aie'>kelvin k one two three four</div>"
    "<div class='cookie'>cookie words one two three four</div>"
    "<div class='\u00e9t\u00e9 side'>\u00e9t\u00e9 a b c d e f</div>"
    "<div role=''>empty role words one two three</div><div class>empty class one two three four</div>"
    "<div class='\tbread\x1ccrumbs\x0b'>bread crumbs one two three</div>"
    "<p>Real prose starts here with words.</p></main>",
    # blocks inside inline elements, skipped elements, text around blocks, letters and digits
    "<body>lead text <b>bold <div>inner block</div> tail</b> more<p>1 2 3 4 5 6 \u0661 \u00b2 _a \u00e9t\u00e9 "
    "\u0130x \U0001d400 \u2160 words</p><h2>Heading words one two three four</h2><pre>code code code code</pre>"
    "<nav>nav nav nav nav nav</nav><p>after <script>var x = 1 2 3</script> the script <style>p{}</style>end</p>"
    "<table><tr><td>cell one two three four five</td><td><div>nested cell one two three four</div></td></tr></table>"
    "<ul><li>item one two three four<ul><li>sub item one two three four</li></ul></li></ul></body>",
    # regions: main after article, several articles, role=main, #content, no prose in the region
    "<article>art one two three four five</article><div id=main-content>main content one two three four</div>",
    "<article>first article one two three four</article><article>second article one two three four</article>"
    "<p>body prose one two three four five</p>",
    "<div role=main><nav>only navigation here one two</nav></div><p>outside prose one two three four five</p>",
    "<div id=content>\u00a0\u2003 spaced\u3000out \x85 words one two three four</div>",
    # ids in another letter case (quirks mode decides), roles that are not exactly "main", regions in foreign content
    "<div id=CONTENT>upper case id one two three four five</div><p>body prose one two three four five</p>",
    "<!doctype html><div id=Main>upper case id one two three four five</div><p>body prose one two three four</p>",
    "<div role=MAIN>role upper one two three four</div><div role=' main'>spaced role one two three</div>"
    "<article>the only article one two three four</article>",
    "<svg><g id=content>svg region one two three four</g></svg><p>body prose one two three four five</p>",
    "<p>before one two three four five</p><main></main><p>after one two three four five</p>",
    "<article>a1 one two three four</article><div id=main-content><nav>menu one two three four</nav></div>",
    # white space only, comments, invalid UTF-8 in text
    "<p>  </p><p><!-- c --></p><p>\ufffd one two three four five</p>",
]


@pytest.mark.parametrize("document", HEAD_CASES + OPENING_CASES)
def test_head_and_opening_cases_give_the_same_output(document: str) -> None:
    """Head parts as the CSS queries find them, opening words as the Python walk keeps them (also after bad bytes)."""
    assert_same_text(document)
    assert_same_text(document.encode("utf-8") + b"<title>\xe2\x80</title>")
    assert_same_text(f"<html><body>{document}</body></html>".encode() + b"<p>\xff\xfe bad bytes a b c</p>")


def test_opening_stops_at_the_block_budget() -> None:
    blocks = "".join(f"<div>w{i}</div>" for i in range(MAX_NODES + 50)) + "<p>late prose one two three four five</p>"
    assert assert_same_text(blocks)
    assert opening_text(LexborHTMLParser(blocks), 80, 5, "", NATIVE_OPENING) == ""
    assert opening_text(LexborHTMLParser(blocks), 80, 1, "", NATIVE_OPENING).split()[:2] == ["w0", "w1"]


def test_page_text_leaves_out_script_and_style_only() -> None:
    document = ("<html><head><title> T </title><style>p{}</style><script>var a</script></head><body>one"
                "<script>x<b>in</b></script><noscript>ns</noscript><svg><script>svg s</script><style>svg st</style>"
                "<text>svg t</text></svg><math><mi>m</mi></math><template>tpl</template><p>two<!-- c -->three</p>"
                "<textarea> ta </textarea><STYLE>u</STYLE>four</body></html>")
    assert assert_same_text(document) == "T one ns svg t m two three ta four"
    assert assert_same_text("") == "" and assert_same_text("<script>only</script>") == ""


@pytest.mark.parametrize("case", range(len(EDGE_CASES)))
def test_edge_cases_give_the_same_output(case: int) -> None:
    assert_same(EDGE_CASES[case])
    assert_same(f"<html><head><title>t</title></head><body>{EDGE_CASES[case]}</body></html>")


def test_edge_cases_find_what_the_rules_say() -> None:
    python, native = extractors(CONFIGS["defaults"])
    tree = LexborHTMLParser(EDGE_CASES[0])
    urls = outputs(native, tree, BASE, False)[0]
    assert [u.rsplit("/", 1)[1] for u in urls] == ["n3.html", "n4.html", "n5.html", "n7.html", "n10.html"]
    tree = LexborHTMLParser(EDGE_CASES[3])
    to_urls, anchors, _, _, _ = outputs(native, tree, BASE, False)
    got = dict(zip([u.rsplit("/", 1)[1] for u in to_urls], anchors, strict=True))
    assert got["e.html"] == "second" and got["c.html"] == "" and got["w.html"] == ""
    assert got["img.html"] == "hello world" and got["ws.html"] == "a b c d e\u200bf"
    assert "noalt.html" in got and got["emptyalt.html"] == ""
    assert got["mixed.html"] == "one two three four var s=1 x{}"
    metas: list = []
    native.extract(LexborHTMLParser(EDGE_CASES[5]), BASE, metas)
    assert [m.get("name") for m in metas] == ["a", "a", "b", "b", "b", "c", None]  # b: href and src (no forms)


def test_the_trap_hosts_malformed_page_gives_the_same_output() -> None:
    assert assert_same(MALFORMED) > 10
    assert assert_same(MALFORMED.encode()) > 10


def test_hostile_input_never_crashes_and_gives_the_same_output() -> None:
    deep = "<span>" * 20000 + '<a href="deep.html">deep</a>' + "</span>" * 20000
    assert assert_same(deep) == 1
    nested_svg = "<svg>" + "".join(f'<a href="n{i}.html">t{i} ' for i in range(3000)) + "</svg>"
    assert assert_same(nested_svg, configs={"defaults": CONFIGS["defaults"]}) == 3000
    many = "".join(f'<a href="p{i % 7000}.html">link {i}</a><img src="i{i}.png">' for i in range(10000))
    assert assert_same(many, configs={"defaults": CONFIGS["defaults"]}) == 17000
    huge = f'<a href="{"a" * 3_000_000}.html" rel="{"x " * 100_000}">{"w " * 500_000}</a><img alt="{"b" * 100_000}">'
    assert assert_same(huge, configs={k: CONFIGS[k] for k in ("defaults", "ignored tags, no anchor limit")}) == 1
    invalid = (b'<a href="\xff\xfe.html">\xe2\x82 broken \xc3</a><a href="\xfe\xff.html">x\xed\xa0\x80y</a>'
               b'<a href="ok.html"><img alt="\xf0\x9f\x98 \xf4\x90\x80\x80"></a><meta name="\xff" content="\xc3">'
               b'<a href="z.html">\xe2\x80\x83sp\xc2\xa0ace\xc2</a>')
    assert assert_same(invalid) == 3  # both bad hrefs read as "\ufffd\ufffd.html": one link
    assert assert_same(b"\x00<a href='\x00'>\x00</a><a href=x\x00y>\x00z</a>") >= 1


def _doc_pages(limit_per_root: int) -> list[Path]:
    pages: list[Path] = []
    for root in DOC_ROOTS:
        if os.path.isdir(root):
            found = sorted(p for p in Path(root).rglob("*.htm*") if p.is_file())
            step = max(1, len(found) // limit_per_root)
            pages.extend(found[::step][:limit_per_root])
    return pages


def test_doc_sites_pages_give_the_same_output() -> None:
    pages = _doc_pages(25)
    if not pages:
        pytest.skip("the local web's doc packages are not installed")
    links = 0
    for path in pages:
        links += assert_same(path.read_bytes()[:4_000_000], f"http://doc.web.test/{path.name}",
                             configs={"defaults": CONFIGS["defaults"]})
    assert links > 0


LINK_PARTS = HTML_PARTS + [
    "<a href=", "<a rel='nofollow' href='", "<a rel=NoFollow href=", " rel='nofollow' ",
    "<link rel='stylesheet' href='",
    "<link rel=canonical href='", "<link href='", "<form action='", " method='post'", "<img alt='", "<img alt>",
    "<svg>", "</svg>", "<template>", "</template>", "<meta name='x' content='y' href='", "<iframe src=", "<source src=",
    "#", "?q", "mailto:x", "\t", "\u00a0", "\u2003", "\x0c", "\x0b", "a.html", "../b.html", "./c", "HTTP://H/x",
    "<!--x-->", "</a>", "<b>", "</b>", "\udcff", "\x85",
]


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(junk(LINK_PARTS).map(lambda s: s.encode("utf-8", "surrogatepass")),
                 st.binary(max_size=3000)))
@example(b"<a href=x>" * 500)
@example(b"<a href='a'>\xff</a><a href='a'>\xfe</a>")
def test_fuzzed_html_gives_the_same_output(document: bytes) -> None:
    assert_same(document)


def test_the_python_path_is_chosen_by_the_environment_or_a_failed_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(linkwalk_native.ENV_VAR, "python")
    assert linkwalk_native.status() == "GOSSAMER_LINKWALK=python"
    assert HtmlParser(Settings()).links.walker is None
    monkeypatch.delenv(linkwalk_native.ENV_VAR)
    monkeypatch.setattr(linkwalk_native, "_loaded", lambda: "the C extension is not built (test)")
    assert linkwalk_native.status() == "the C extension is not built (test)"
    python = LinkExtractor((), False, 100, "", 10)
    assert python.walker is None
    assert python.extract(LexborHTMLParser('<a href="x.html">x</a>'), BASE)[0].to_urls == ["http://trap.web.test:8080/dir/x.html"]
    with pytest.raises(RuntimeError, match="not built"):
        LinkExtractor((), False, 100, "", 10, native=True)


def test_the_checks_refuse_what_they_cannot_read() -> None:
    from gossamer.plugins.builtin import _linkwalk

    assert "not loaded" in _linkwalk.configure("/nonexistent/lexbor.so")
    tree = LexborHTMLParser('<p id="probe" class="walk">text</p><b>next</b>')
    element = tree.css_first("p")
    text = element.first_child
    assert _linkwalk.check_layout(element.mem_id, text.mem_id, b"text", (b"id", b"class")) is None
    assert _linkwalk.check_layout(element.mem_id, text.mem_id, b"other", (b"id", b"class")) == "text node data differs"
    assert _linkwalk.check_layout(element.mem_id, text.mem_id, b"text", (b"class",)) == "attribute list differs"
    assert _linkwalk.check_layout(text.mem_id, element.mem_id, b"text", ()) == "node types differ"
    assert linkwalk_native.make_walker({"a": "h" * 40}, 100, frozenset()) is None  # refused: the Python walk runs
    assert assert_same('<a href="/kept">still walked</a>') == 1  # a failed configure keeps the working functions


def test_selectolax_attribute_semantics_are_probed() -> None:
    assert linkwalk_native._attribute_semantics(LexborHTMLParser) is None

    class LocalNames:  # a selectolax that matched xlink:href as href would differ from the C walk
        def __init__(self, html: str | bytes) -> None:
            self.tree = LexborHTMLParser(html.replace("xlink:href", "href") if isinstance(html, str) else html)

        def css_first(self, query: str) -> object:
            return self.tree.css_first(query)

    assert "local name" in str(linkwalk_native._attribute_semantics(LocalNames))


@pytest.mark.parametrize("limit", [5, 100, 5000, -1])
def test_long_non_ascii_anchors_decode_in_chunks_as_whole(limit: int) -> None:
    """Anchor text past 4,096 bytes, with multi-byte characters and invalid bytes around every chunk's end."""
    pieces = [b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xff", b"\x80\x80\x80\x80\x80", b"\xe2\x82", b" ",
              b"\xf0\x9f\x98", b"a"]
    config = {"defaults": ((), False, limit, "")}
    for shift in range(0, 12):
        body = b"x" * shift + b"".join(pieces[(i * 7 + shift) % len(pieces)] for i in range(4000))
        assert assert_same(b"<a href=/a>" + body + b"</a><a href=/b><b>" + body[::-1] + b"</b></a>",
                           configs=config) == 2


BASES = ["http://h.test/", "http://h.test", "https://h.test:8443/a/b/c.html?q=1", "http://h.test/a/b/", "file:///tmp/x/y",
         "ftp://h.test/pub/", "http://h.test/a/b/c/d/e/f.html", "HTTP://H.TEST/A/./B/../C"]


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(junk(URL_PARTS + ["../", "./", ".", "/.", "#", "?", "a", "b/", "\t", "\n"], 10), max_size=40),
       st.sampled_from(BASES))
@example(["../", "../../", "./", ".", "..", "../.x", "../a/./b", "a/..", "../../../../../../x", "//h2/p/../q", "?q#f",
          "#", "", " ", "HtTp://x/./y", "x:y", "1x:y", "mailto:a", "a#b", "a\tb", "../#x", ".#x"], BASES[3])
def test_fuzzed_targets_resolve_the_same(hrefs: list[str], base: str) -> None:
    document = "".join(f'<a href="{html.escape(href)}">{i}</a>' for i, href in enumerate(hrefs))
    assert_same(document, base, configs={"defaults": CONFIGS["defaults"]})


NESTING_PARTS = ["<div>", "<DIV ", "</div>", "</Div\t", "<dl/", "<ol>", "</ol>", "<ul\n", "<fig>", "<figure>",
                 "<blockquote>", "<blockquotes>", "</section>", "<Summary\x0b", "<details\x0c", "<nav\r", "<main>",
                 "<dialog>", "<menu>", "</menu>", "<hgroup>", "<center>", "<address>", "<aside>", "<article>",
                 "<fieldset>", "<footer>", "<header>", "<dir>", "<span>", "<p>", "<", "/", ">", "<<div>", "</",
                 "<div", "x", " ", "\u00e9", "<\u00c9div>"]


def _both_cuts(document: bytes, max_depth: int) -> int | None:
    native = linkwalk_native.nesting_cut_function()
    assert native is not None
    expected = nesting_cut(document, max_depth)
    assert native(document, max_depth) == expected
    return expected


def test_the_nesting_guard_cuts_where_the_python_rule_does() -> None:
    assert _both_cuts(b"<div>" * 5, 1) == 5  # 5 marks > 4 x 1: the second start tag is too deep
    assert _both_cuts(b"<div>" * 4, 1) is None  # at most 4 x max_depth '<': never cut
    assert _both_cuts(b"<div></div>" * 10, 1) is None
    assert _both_cuts(b"</div>" * 10 + b"<DIV><Ul\t<nav/" + b"<p>" * 20, 2) == 69
    assert _both_cuts(b"<figure>" * 50 + b"<fig>" * 3, 2) == 50 * 8 + 10
    assert _both_cuts(b"<blockquotes>" * 50 + b"<div", 1) is None  # a name must end at a delimiter
    assert _both_cuts(b"<div>" * 20, 0) == 0
    deep = ("<div>" * 200_000 + "<p>bottom</p>").encode()
    assert _both_cuts(deep, 4096) == 4096 * 5


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.one_of(st.sampled_from(NESTING_PARTS), st.text(max_size=4)), max_size=400)
       .map(lambda parts: "".join(parts).encode("utf-8", "surrogatepass")),
       st.integers(min_value=0, max_value=12))
def test_fuzzed_nesting_gives_the_same_cut(document: bytes, max_depth: int) -> None:
    _both_cuts(document, max_depth)
