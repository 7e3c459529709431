"""HTML text taken after the HtmlParseFilters, from the same DOM (issue 22): the same parse as before."""

from typing import Any

from gossamer.core import Content, Settings
from gossamer.crawl.parse.page import PageParser
from gossamer.plugins.api import HtmlParseFilter, ParseResult
from gossamer.plugins.builtin.parse_html import HtmlParser

PAGE = b"""<html lang="en"><head><title> A  page </title><meta name="description" content="d">
<style>p {color: red}</style><script>var x = "<p>not text</p>";</script></head>
<body><h1>Head <script>1</script>line</h1><p>Some <b>bold</b> text.</p>
<a href="/a">to a</a> <a href="b.html"><img alt="an image"></a><script type="application/ld+json">{}</script>
</body></html>"""


def content(body: bytes = PAGE) -> Content:
    return Content("http://h.test/p/", "http://h.test/p/", body, "text/html", [], {})


def test_text_later_gives_the_parse_of_parse_tree() -> None:
    parser = HtmlParser(Settings({}))
    expected, _ = parser.parse_tree(content(), keep_tree=True)
    result, tree, set_text = parser.parse_tree_text_later(content())
    assert result.text.text == ""
    assert len(tree.css("script")) == 3  # the filters see the whole DOM
    set_text(result)
    assert result == expected
    assert result.text.text == "A page Head line Some bold text. to a"


def test_noindex_page_keeps_an_empty_text() -> None:
    body = PAGE.replace(b"<head>", b'<head><meta name="robots" content="noindex">')
    parser = HtmlParser(Settings({}))
    result, _, set_text = parser.parse_tree_text_later(content(body))
    set_text(result)
    assert result.text.text == "" and result.data.title == ""


class _TextReader(HtmlParseFilter):
    seen: list[str] = []

    def filter(self, content: Content, result: ParseResult, tree: Any) -> ParseResult:
        self.seen.append(result.text.text)
        result.data.parse_metadata["scripts"] = str(len(tree.css("script")))
        return result


class _TreeReader(_TextReader):
    reads_text = False


def _page_parser(html_filter: HtmlParseFilter) -> PageParser:
    parser = PageParser(Settings({}))
    parser.html_filters = [html_filter]
    parser.filters_skip_text = not html_filter.reads_text
    return parser


def test_page_parser_gives_the_same_page_either_way() -> None:
    from gossamer.core import CrawlDatum, CrawlStatus

    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, 0)
    reader, tree_reader = _TextReader(), _TreeReader()
    _TextReader.seen = []
    with_text = _page_parser(reader).parse("http://h.test/p/", datum, content())
    later = _page_parser(tree_reader).parse("http://h.test/p/", datum, content())
    assert _TextReader.seen == ["A page Head line Some bold text. to a", ""]
    assert later.parse_text == with_text.parse_text
    assert later.parse_data.parse_metadata == with_text.parse_data.parse_metadata
    assert later.parse_data.parse_metadata["scripts"] == "3"
    assert later.parse_data.outlinks == with_text.parse_data.outlinks


def test_builtin_filters_do_not_read_the_text() -> None:
    parser = PageParser(Settings({}))
    assert parser.html_filters and parser.filters_skip_text
