"""The web pages in a real browser: Debian's chromium driven by Playwright over a real crawl.

A small loopback site is crawled and indexed once (``gossamer crawl --index``),
the web app is served on 127.0.0.1, and every page is opened in one headless
chromium: the page must work (ids and classes of the page contract), log no
error, fail no request and request nothing from another origin.  Each page is
screenshotted on every run to ``tests/artifacts/screenshots/`` (or ``$GOSSAMER_SCREENSHOTS``).

chromium missing → the tests fail with the reason; ``GOSSAMER_SKIP_BROWSER=1``
skips them explicitly (machines without apt).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest

from tests.browser_support import (
    CHROMIUM_ARGS,
    SCREENSHOTS,
    VIEWPORT,
    Watcher,
    chromium_path,
    skip_requested,
)
from tests.conftest import run_main, write_lines
from tests.fetch_server import Site, ThreadedSite
from tests.web_server import serve_app

if skip_requested():
    pytest.skip("GOSSAMER_SKIP_BROWSER=1: browser tests skipped on request", allow_module_level=True)

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError as exc:  # pragma: no cover - a broken dev install must not pass silently
    raise ImportError(f"playwright is not installed ({exc}): run scripts/test, which installs .[dev]") from exc

SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.01",
            "-D", "linkdb.ignore.internal.links=false")  # one host: keep its anchors
HTML = {"Content-Type": "text/html; charset=utf-8"}

PAGES = {  # path → (title, body words, [(link, anchor text)])
    "/green.html": ("Green tea", "Green tea is steamed or pan fired soon after picking, which keeps its leaves "
                    "green and its taste grassy. Brew it cool, around seventy degrees.",
                    [("/oolong.html", "half way to oolong"), ("/brewing.html", "brewing temperatures")]),
    "/oolong.html": ("Oolong tea", "Oolong is partly oxidised tea from Fujian and Taiwan, rolled into balls or "
                     "twisted strips; a good oolong gives many infusions.",
                     [("/green.html", "green tea"), ("/black.html", "fully oxidised black tea")]),
    "/black.html": ("Black tea", "Black tea is fully oxidised: Assam, Darjeeling and Keemun are black teas. "
                    "Brew it with boiling water for three to five minutes.",
                    [("/brewing.html", "how long to brew"), ("/history.html", "the tea trade")]),
    "/herbal.html": ("Herbal infusions", "Chamomile, peppermint and rooibos are not tea at all but infusions "
                     "of other plants; they carry no caffeine.", [("/teaware.html", "a glass teapot")]),
    "/brewing.html": ("Brewing guide", "Water temperature and steeping time decide a cup of tea: cool water "
                      "for green tea, hot water for black tea and oolong.",
                      [("/teaware.html", "the right teapot"), ("/green.html", "delicate green tea")]),
    "/teaware.html": ("Teaware", "A clay teapot, a gaiwan or a glass pot: teaware shapes how the tea leaves "
                      "open and how hot the brew stays.", [("/history.html", "history of teaware")]),
    "/history.html": ("A short history of tea", "Tea came from Yunnan, travelled the tea horse road and later "
                      "the clipper ships of the tea trade to Europe.",
                      [("/archive/clippers.html", "the tea clippers")]),
    "/archive/clippers.html": ("Tea clippers", "The tea clippers raced from Foochow to London each year with "
                               "the first tea of the season.", [("/history.html", "back to the history")]),
}


def _page(title: str, body: str, links: list[tuple[str, str]], head: str = "") -> bytes:
    anchors = " ".join(f"<a href='{href}'>{text}</a>" for href, text in links)
    return (f"<html lang='en'><head><title>{title}</title>{head}</head><body><h1>{title}</h1>"
            f"<p>{body}</p><p>{anchors}</p></body></html>").encode()


def _site(site: Site) -> None:
    site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
    hub = [(path, title.lower()) for path, (title, _, _) in PAGES.items() if not path.startswith("/archive/")]
    # The hub links to (almost) every page and carries outside resources, as real pages do: the cached copy
    # must not load them (neither from the crawled site nor, resolved wrongly, from the search server).
    site.route("/", body=_page("Welcome to the tea garden",
                               "Everything about tea: green tea, oolong, black tea and herbal infusions, "
                               "how to brew them and what to brew them in.", hub,
                               head="<link rel='stylesheet' href='/site.css'>")
               .replace(b"<h1>", b"<img src='/logo.png' alt='tea garden logo'><h1>"), headers=HTML)
    site.route("/site.css", body=b"h1 { color: darkgreen }", headers={"Content-Type": "text/css"})
    site.route("/logo.png", body=b"\x89PNG\r\n\x1a\n", headers={"Content-Type": "image/png"})
    for path, (title, body, links) in PAGES.items():
        site.route(path, body=_page(title, body, [*links, ("/", "home")]), headers=HTML)


@pytest.fixture(scope="module")
def crawl_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    crawl = root / "crawl"
    with ThreadedSite() as site:
        _site(site)
        seeds = write_lines(root / "seeds.txt", [site.url("/")])
        code = run_main("crawl", seeds, "-d", crawl, "-r", "3", "--index", *SETTINGS)
    assert code == 0, "gossamer crawl --index failed"
    return crawl


@pytest.fixture(scope="module")
def base_url(crawl_dir: Path) -> Iterator[str]:
    from gossamer.core.settings import load_settings
    from gossamer.web import create_app

    with serve_app(create_app(crawl_dir, load_settings(crawl_dir))) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium_path()
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except Exception as exc:  # noqa: BLE001 - say why, never skip
            pytest.fail(f"chromium ({executable}) did not start: {exc}", pytrace=False)
        yield launched
        launched.close()


class Session:
    """One page in a fresh browser context, watched from the first request on."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.watcher = Watcher(base_url)
        self.watcher.attach(page)

    def open(self, path: str) -> Page:
        self.page.goto(self.base_url + path)
        return self.page

    def click(self, selector: str) -> Page:
        with self.page.expect_navigation():
            self.page.click(selector)
        return self.page

    def check(self, what: str, shot: str | None = None) -> None:
        """A full-page screenshot to <SCREENSHOTS>/<shot>.png, then: no errors so far."""
        self.page.wait_for_load_state("load")
        if shot:  # taken before the checks: a broken page's picture helps find why
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(SCREENSHOTS / f"{shot}.png"), full_page=True)
        self.watcher.assert_clean(what)


@pytest.fixture
def session(browser: Browser, base_url: str) -> Iterator[Session]:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        yield Session(context.new_page(), base_url)
    finally:
        context.close()


def with_params(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    query.update(params)
    return urlunsplit(parts._replace(query=urlencode(query)))


def search_from_home(session: Session, query: str) -> Page:
    page = session.open("/")
    page.fill("#q", query)
    return session.click("#search-button")


def test_home_search_and_highlights(session: Session) -> None:
    page = session.open("/")
    assert page.locator("#q").is_visible() and page.locator("#search-button").is_visible()
    session.check("home", "search-home")
    page.fill("#q", "oolong")
    session.click("#search-button")
    hits = page.locator("ol#results > li.hit")
    assert hits.count() >= 2
    assert re.search(r"\d", page.locator("#result-count").inner_text())
    marks = [m.lower() for m in page.locator("ol#results > li.hit mark").all_inner_texts()]
    assert marks and all(m == "oolong" for m in marks), marks
    assert page.locator("#q").input_value() == "oolong"
    session.check("results", "search-results")


def test_paging(session: Session) -> None:
    page = search_from_home(session, "tea")
    page.goto(with_params(page.url, n="2", per_site="0"))  # one host: no per-site grouping, 2 hits a page
    seen: list[str] = []
    for number in range(1, 4):
        urls = page.locator("ol#results > li.hit .hit-url").all_inner_texts()
        assert len(urls) == 2, (number, urls)
        assert not set(urls) & set(seen), "a hit shown on two pages"
        seen += urls
        assert re.search(rf"\b{2 * number - 1}\b", page.locator("#result-count").inner_text())
        session.check(f"results page {number}", "search-results-page2" if number == 2 else None)
        session.click("nav#pagination a.next")
    assert page.locator("nav#pagination a.prev").count() == 1


def test_cached_page(session: Session) -> None:
    page = search_from_home(session, "welcome garden")
    first = page.locator("ol#results > li.hit").first
    assert "welcome" in first.locator(".hit-title").inner_text().lower()
    session.click("ol#results > li.hit >> nth=0 >> a.hit-cached")
    frame = page.locator("iframe#cached-frame")
    assert frame.count() == 1
    box = frame.bounding_box()  # the copy must be readable, not a default 300×150 frame
    assert box and box["width"] >= 600 and box["height"] >= 300, box
    assert "tea garden" in page.frame_locator("iframe#cached-frame").locator("h1").inner_text().lower()
    fetched = page.locator(".cached-banner time#cached-fetched").inner_text()
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d:\d\d UTC", fetched), fetched
    session.check("cached page", "cached")
    page.goto(with_params(page.url, view="text"))
    text = page.locator("pre#cached-text")
    assert "<title>Welcome to the tea garden</title>" in text.inner_text()
    session.check("cached page as text", "cached-text")


def test_anchors_and_explain(session: Session) -> None:
    page = search_from_home(session, "title:oolong")
    first = page.locator("ol#results > li.hit").first
    assert "Oolong tea" in first.locator(".hit-title").inner_text()
    session.click("ol#results > li.hit >> nth=0 >> a.hit-anchors")
    rows = page.locator("table#anchors tbody tr").all_inner_texts()
    assert any("half way to oolong" in row for row in rows), rows
    assert any("oolong tea" in row for row in rows), rows  # the hub's link
    session.check("anchors", "anchors")
    page.go_back()
    session.click("ol#results > li.hit >> nth=0 >> a.hit-explain")
    explanation = page.locator("#explanation")
    assert explanation.is_visible() and "oolong" in explanation.inner_text().lower()
    session.check("explain", "explain")


def test_dashboard(session: Session) -> None:
    page = session.open("/dashboard")
    for selector in ("#status-counts", "#hosts", "#rounds svg.chart", "#segments", "#index-size"):
        assert page.locator(selector).count() >= 1, f"{selector} missing"
        assert page.locator(selector).first.is_visible(), f"{selector} not visible"
    assert "127.0.0.1" in page.locator("#hosts").inner_text()
    assert "fetched" in page.locator("#status-counts").inner_text().lower()
    session.check("dashboard", "dashboard")


def test_malformed_query(session: Session) -> None:
    page = search_from_home(session, '"unterminated')
    assert session.watcher.documents[page.url] == 400
    message = page.locator(".error-message")
    assert message.is_visible() and message.inner_text().strip()
    assert page.locator("ol#results > li.hit").count() == 0
    session.check("malformed query", "search-error")


def test_not_found_page(session: Session) -> None:
    """An unknown address: the styled 404 page, whose search box and home link work."""
    page = session.open("/nonexistent")
    assert session.watcher.documents[page.url] == 404
    assert page.locator("header.top a.brand").is_visible() and page.locator("h1").inner_text() == "Not found"
    assert page.locator(".error-message").is_visible()
    session.check("not found page", "not-found")
    page.fill("#q", "oolong")
    session.click("#search-button")
    assert page.locator("ol#results > li.hit").count() >= 1
    page.go_back()
    session.click("a#home-link")
    assert page.url == session.base_url + "/" and page.locator("#search-form").is_visible()
