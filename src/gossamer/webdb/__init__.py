"""The WebDB of seed 003: pages unique by URL, links from content (MD5) to a URL, four sorted tables.

* :class:`Page`, :class:`Link` (:mod:`.records`);
* :class:`WebDB` (:mod:`.db`): ``WebDB.open(path)``, ``db.reader()`` (:class:`WebDBReader`) and
  ``db.writer()`` (:class:`WebDBWriter`, a context manager that applies its edits on exit);
* the merge stages that apply edits in the seed's order (:mod:`.stages`), edit logs and their
  block sort (:mod:`.edits`), the version directory (:mod:`.files`);
* :func:`build_webdb`: a WebDB from a crawl's crawldb and segments (:mod:`.build`).

See docs/webdb.md.
"""

from gossamer.webdb.build import BuildReport, build_webdb
from gossamer.webdb.db import WebDB, WebDBReader, WebDBWriter, WriteReport
from gossamer.webdb.records import MD5_BYTES, Link, Page

__all__ = [
    "MD5_BYTES",
    "BuildReport",
    "Link",
    "Page",
    "WebDB",
    "WebDBReader",
    "WebDBWriter",
    "WriteReport",
    "build_webdb",
]
