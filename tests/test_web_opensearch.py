"""OpenSearch paging as a client following the 1.1 spec does it: every hit exactly once, in every format.

The client reads ``/opensearch.xml``, fills a URL template (``{searchTerms}``,
``{startIndex?}`` from the template's ``indexOffset``, ``{count?}``, any other
optional parameter empty) and pages either by ``startIndex + itemsPerPage`` or by
following the feeds' ``next`` links.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html import unescape
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from gossamer.web import create_app
from gossamer.web.context import MAX_START
from gossamer.web.paging import PageLinks, page_links
from tests.index_fixtures import Page, make_crawl
from tests.web_fixtures import fetch
from tests.web_server import serve_app

OS = "{http://a9.com/-/spec/opensearch/1.1/}"
ATOM = "{http://www.w3.org/2005/Atom}"
QUERY = "kettle"
FEEDS = ("application/rss+xml", "application/atom+xml")


def _pages() -> list[Page]:
    """22 pages on hosts of their own and 3 on one host (per-site grouping shows 2 of those), all with the word."""
    pages = [Page(f"http://h{i}.test/p", f"Page {i}", " ".join(["kettle"] * (1 + i % 7)) + f" word{i}")
             for i in range(22)]
    pages += [Page(f"http://many.test/p{i}", f"Many {i}", f"kettle boils {i}") for i in range(3)]
    pages.append(Page("http://other.test/", "Other", "no match here"))
    return pages


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    crawl_dir, settings = make_crawl(tmp_path_factory.mktemp("opensearch") / "crawl", _pages())
    with serve_app(create_app(crawl_dir, settings)) as base:
        yield base


def _description(base: str) -> dict[str, ET.Element]:
    root = ET.fromstring(fetch(base, "/opensearch.xml").body)
    return {u.get("type") or "": u for u in root.iter(f"{OS}Url")}


def _fill(url: ET.Element, start: int | None, count: int | None) -> str:
    """The template of ``url`` filled as the spec says (``None``: leave the optional parameter out)."""
    values = {"searchTerms": quote(QUERY), "startIndex": "" if start is None else str(start),
              "count": "" if count is None else str(count)}

    def one(match: re.Match[str]) -> str:
        name, optional = match.group(1), match.group(2)
        assert name in values or optional, f"required parameter {name} this client does not know"
        return values.get(name, "")

    template = url.get("template") or ""
    return re.sub(r"\{([\w:]+)(\?)?\}", one, template)


def _get(url: str) -> bytes:
    parts = urlsplit(url)
    answer = fetch(f"{parts.scheme}://{parts.netloc}", f"{parts.path}?{parts.query}")
    assert answer.status == 200, (url, answer.status, answer.text[:200])
    return answer.body


def _feed_page(media: str, body: bytes) -> tuple[int, int, int, list[str], dict[str, str]]:
    """(totalResults, startIndex, itemsPerPage, item URLs, links by rel) of an RSS or Atom page."""
    root = ET.fromstring(body)
    if media == "application/rss+xml":
        holder = root.find("channel")
        assert holder is not None
        items = [i.findtext("link") or "" for i in holder.iter("item")]
        links = {a.get("rel") or "": a.get("href") or "" for a in holder.findall(f"{ATOM}link")}
    else:
        holder = root
        entries = [e.find(f"{ATOM}link") for e in root.findall(f"{ATOM}entry")]
        items = [link.get("href") or "" for link in entries if link is not None]
        links = {a.get("rel") or "": a.get("href") or "" for a in root.findall(f"{ATOM}link")}
    numbers = [int(holder.findtext(f"{OS}{name}") or "-1") for name in ("totalResults", "startIndex", "itemsPerPage")]
    query = holder.find(f"{OS}Query")
    assert query is not None and query.get("role") == "request" and query.get("searchTerms") == QUERY
    assert query.get("startIndex") == str(numbers[1]) and query.get("count") == str(numbers[2])
    return numbers[0], numbers[1], numbers[2], items, links


def _all_hits(base: str) -> list[str]:
    """Every hit of the query at once, as the JSON API ranks them (the default per-site grouping)."""
    data = fetch(base, f"/api/search?q={QUERY}&n=100").json()
    assert data["total"] == 25
    return [h["url"] for h in data["hits"]]


def test_description_templates(server: str) -> None:
    urls = _description(server)
    assert set(urls) == {"text/html", *FEEDS, "application/json", "application/opensearchdescription+xml"}
    for media in ("text/html", *FEEDS, "application/json"):
        url = urls[media]
        assert url.get("indexOffset") == "0", media
        template = url.get("template") or ""
        assert template.startswith(server + "/") and "{searchTerms}" in template, media
        assert "{startIndex?}" in template and "{count?}" in template, media
    json_template = f"{server}/api/search?q={{searchTerms}}&start={{startIndex?}}&n={{count?}}"
    assert urls["application/json"].get("template") == json_template
    assert urls["application/opensearchdescription+xml"].get("rel") == "self"


@pytest.mark.parametrize("count", [5, 4, 7, None])
def test_paging_by_start_index_sees_every_hit_once(server: str, count: int | None) -> None:
    """startIndex from indexOffset, plus itemsPerPage each time, until totalResults: each format, no repeat, no gap."""
    expected = _all_hits(server)
    assert len(expected) == 24  # 22 + 2 of many.test
    urls = _description(server)
    for media in (*FEEDS, "application/json", "text/html"):
        offset = int(urls[media].get("indexOffset") or "1")
        start, seen, requests = offset, [], 0
        while True:
            body = _get(_fill(urls[media], start, count))
            requests += 1
            if media in FEEDS:
                total, first, per_page, items, _ = _feed_page(media, body)
                assert first == start and per_page == (count or 10), media
            elif media == "application/json":
                data = json.loads(body)
                total, first, items = data["total"], data["start"], [h["url"] for h in data["hits"]]
                per_page = count or 10
                assert first == start
            else:
                html = body.decode()
                found = re.search(r'id="result-count">Hits (\d+)–(\d+) of about (\d+)<', html)
                items = [unescape(u) for u in re.findall(r'<a class="hit-title" href="([^"]+)"', html)]
                per_page = count or 10
                total = int(found.group(3)) if found else 0
                assert not found or int(found.group(1)) == start + 1
                assert len(items) == (int(found.group(2)) - start if found else 0)
            seen += items
            start += per_page
            if not items or start - offset >= total:
                break
        assert seen == expected, (media, count)
        assert requests <= 25 // (count or 10) + 2


@pytest.mark.parametrize("media", FEEDS)
def test_following_next_links_sees_every_hit_once(server: str, media: str) -> None:
    expected = _all_hits(server)
    urls = _description(server)
    url: str | None = _fill(urls[media], None, 5)
    seen: list[str] = []
    starts = []
    while url:
        total, start, per_page, items, links = _feed_page(media, _get(url))
        assert total == 25 and per_page == 5
        assert links["self"] == url or parse_qs(urlsplit(links["self"]).query)["start"] == [str(start)]
        assert links["search"] == f"{server}/opensearch.xml"
        first = parse_qs(urlsplit(links["first"]).query)
        assert first["start"] == ["0"] and first["n"] == ["5"] and first["q"] == [QUERY]
        assert ("previous" in links) == (start > 0)
        if start > 0:
            assert parse_qs(urlsplit(links["previous"]).query)["start"] == [str(start - 5)]
        assert parse_qs(urlsplit(links["last"]).query)["start"] == ["20"]
        starts.append(start)
        seen += items
        url = links.get("next")
    assert seen == expected and starts == [0, 5, 10, 15, 20]


def test_grouping_off_and_past_the_last_rank(server: str) -> None:
    """per_site=0 carries into the links; a start past MAX_START is an empty page at that start, not a repeat."""
    body = _get(f"{server}/opensearch?q={QUERY}&format=atom&n=10&per_site=0&start=20")
    total, start, _, items, links = _feed_page("application/atom+xml", body)
    assert (total, start, len(items)) == (25, 20, 5) and "next" not in links
    assert parse_qs(urlsplit(links["previous"]).query)["per_site"] == ["0"]
    past = fetch(server, f"/api/search?q={QUERY}&start={MAX_START + 5}").json()
    assert past["hits"] == [] and past["start"] == MAX_START + 5 and past["total"] == 25
    rss = _feed_page("application/rss+xml", _get(f"{server}/opensearch?q={QUERY}&start={MAX_START + 5}"))
    assert rss[:2] == (25, MAX_START + 5) and rss[3] == []


def test_page_links_rules() -> None:
    assert page_links(0, 5, 23, 5) == PageLinks(0, None, 5, 20)
    assert page_links(20, 5, 23, 3) == PageLinks(0, 15, None, 20)
    assert page_links(3, 5, 23, 5) == PageLinks(0, 0, 8, 18)
    assert page_links(0, 10, 0, 0) == PageLinks(0, None, None, 0)
    assert page_links(0, 10, 10, 10) == PageLinks(0, None, None, 0)
    assert page_links(30, 5, 23, 0).last == 20  # past the end: back to the last page in the same steps
    assert page_links(0, 100, 50_000, 100).last == MAX_START
    assert page_links(MAX_START, 100, 50_000, 100).next is None
