"""Rebuild the installed selectolax (lexbor, parse-html's HTML parser) from its source with LTO and PGO.

``python scripts/build_selectolax.py [--force]`` with the virtual environment's interpreter; run by
``scripts/_venv.sh`` after the install.  PyPI's selectolax wheels compile lexbor's ~200 C files one by one
at ``-O3``: every call between them (the tokenizer's states, the memory pools, the tag and attribute
tables) stays a call.  This builds the same version's sdist twice — once instrumented, run over a
synthetic corpus of documentation-like HTML (:func:`training_pages`), then with link-time and
profile-guided optimization — and installs the result in place of the wheel.  On 3,000 doc-web pages
lexbor's parse took 15–17 % less CPU and parse-html's whole parse 11 % less (``bench/README.md``,
session 41).  No ``-march=native``: the build runs on any x86-64 or ARM machine the venv is copied to.

Contract: exit 0 always (a missing compiler, network or sdist leaves PyPI's wheel, with a note on
stderr); a rebuilt module must parse and walk a page in a fresh interpreter before it stays installed,
else the wheel is reinstalled.  ``<venv>/.selectolax-optimized-<version>`` marks a done build, so a
re-run is a no-op until selectolax's version changes.  ``GOSSAMER_SELECTOLAX_WHEEL=1`` skips it all.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

_OPT = "-O3 -flto=auto -fno-semantic-interposition"
_WORDS = ("parser", "module", "returns", "the", "value", "of", "function", "list", "index", "string", "table",
          "query", "node", "path", "default", "option", "server", "client", "request", "error", "byte", "type")
_CHECK = ("import selectolax.lexbor as l; t = l.LexborHTMLParser(b'<p>a <a href=\"/x\">b</a></p>'); "
          "assert t.css_first('a').attributes['href'] == '/x' and t.body.text() == 'a b'")


def _sentence(rnd: random.Random) -> str:
    words = [rnd.choice(_WORDS) for _ in range(rnd.randint(4, 14))]
    if rnd.random() < 0.3:
        words[rnd.randrange(len(words))] = f"<code>{rnd.choice(_WORDS)}()</code>"
    if rnd.random() < 0.2:
        words.append("&amp; &lt;x&gt; &nbsp;&mdash;")
    return " ".join(words)


def training_pages(count: int = 300, seed: int = 41) -> list[bytes]:
    """Documentation-like pages: head, navigation lists of links, sections, code, tables, loose markup."""
    rnd = random.Random(seed)
    pages = []
    for number in range(count):
        nav = "".join(f'<li class="toctree-l{rnd.randint(1, 3)}"><a class="reference internal" '
                      f'href="../{rnd.choice(_WORDS)}/{k}.html#{rnd.choice(_WORDS)}">{_sentence(rnd)[:30]}</a></li>'
                      for k in range(rnd.randint(20, 300)))
        body = []
        for section in range(rnd.randint(3, 20)):
            body.append(f'<div class="section" id="s{section}"><h2>{_sentence(rnd)}<a class=headerlink '
                        f"href='#s{section}' title=\"Permalink\">&para;</a></h2>")
            body += [f"<p>{_sentence(rnd)} <a href=\"https://h{rnd.randint(1, 9)}.example/{k}\">{_sentence(rnd)}"
                     f"</a> <em>{_sentence(rnd)}</em>" + ("</p>" if rnd.random() < 0.8 else "")
                     for k in range(rnd.randint(1, 8))]
            if rnd.random() < 0.5:
                body.append("<pre><span class=k>def</span> f(x):\n    return x &lt; 2 &amp;&amp; y\n</pre>")
            if rnd.random() < 0.3:
                rows = "".join(f"<tr><td>{_sentence(rnd)}<td><a href=#r{k}>{k}</a>" for k in range(10))
                body.append(f"<table border=1><thead><tr><th>a<th>b</thead><tbody>{rows}</tbody></table>")
            body.append("<!-- end of section --></div>")
        page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Page {number}</title>'
                f'<link rel="stylesheet" href="_static/basic.css"><script>var x = "<p>" + 1;</script>'
                f'<style>p {{ margin: 0 }}</style></head><body><div class="nav"><ul>{nav}</ul></div>'
                f'<div class="body" role="main">{"".join(body)}</div><img src="a.png" alt="x"></body></html>')
        pages.append(page.encode("utf-8"))
    return pages


def _train(wheel_dir: Path, work: Path) -> None:
    """Parse and walk the training pages with the instrumented build (its counters land in the profile dir)."""
    unpacked = work / "instrumented"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(unpacked),
                    *map(str, wheel_dir.glob("*.whl"))], check=True)
    corpus = work / "corpus"
    corpus.mkdir()
    for number, page in enumerate(training_pages()):
        (corpus / f"{number}.html").write_bytes(page)
    script = ("import sys, pathlib; sys.path.insert(0, sys.argv[1]); import selectolax.lexbor as l\n"
              "for p in sorted(pathlib.Path(sys.argv[2]).iterdir()):\n"
              "    t = l.LexborHTMLParser(p.read_bytes())\n"
              "    for a in t.css('a'): a.attributes.get('href'); a.text()\n"
              "    t.body.text(separator=' ')\n")
    subprocess.run([sys.executable, "-c", script, str(unpacked), str(corpus)], check=True)


def _wheel(source: Path, out: Path, cflags: str, ldflags: str) -> None:
    shutil.rmtree(source / "build", ignore_errors=True)  # every object compiled again with these flags
    env = {**os.environ, "CFLAGS": cflags, "LDFLAGS": ldflags, "BUILD_JOBS": "auto"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def build(release: str, work: Path) -> Path:
    """The LTO + PGO wheel of selectolax ``release`` built in ``work``."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
                    f"selectolax=={release}", "-d", str(work / "sdist")], check=True)
    archive = next((work / "sdist").glob("selectolax-*.tar.gz"))
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+ (and distributions' backports)
            tar.extractall(work / "src", filter="data")
        else:
            tar.extractall(work / "src")  # noqa: S202 - PyPI's sdist of a pinned dependency
    source = next((work / "src").iterdir())
    profile = work / "profile"
    _wheel(source, work / "w1", f"{_OPT} -fprofile-generate -fprofile-update=single -fprofile-dir={profile}",
           "-O3 -flto=auto -fprofile-generate")
    _train(work / "w1", work)
    _wheel(source, work / "w2", f"{_OPT} -fprofile-use -fprofile-partial-training -Wno-missing-profile "
           f"-fprofile-dir={profile}", "-O3 -flto=auto -fprofile-use")
    return next((work / "w2").glob("*.whl"))


def main(argv: list[str] | None = None) -> int:
    """Build and install (see the module docstring); always 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", action="store_true", help="build again even when the marker says it is done")
    args = ap.parse_args(argv)
    if os.environ.get("GOSSAMER_SELECTOLAX_WHEEL") == "1":
        return 0
    try:
        release = version("selectolax")
    except PackageNotFoundError:
        return 0
    marker = Path(sys.prefix) / f".selectolax-optimized-{release}"
    if marker.exists() and not args.force:
        return 0
    print(f"== building selectolax {release} with LTO and PGO (once; GOSSAMER_SELECTOLAX_WHEEL=1 skips)")
    installed = False
    with tempfile.TemporaryDirectory(prefix="gossamer-selectolax-") as tmp:
        try:
            wheel = build(release, Path(tmp))
            installed = True
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps",
                            str(wheel)], check=True)
            subprocess.run([sys.executable, "-c", _CHECK], check=True)
            outcome = "LTO + PGO build installed"
        except (subprocess.CalledProcessError, OSError, StopIteration, tarfile.TarError) as exc:
            outcome = f"kept PyPI's wheel ({type(exc).__name__}: {exc}); --force tries again"
            print(f"note: selectolax {release}: {outcome}", file=sys.stderr)
            if installed:
                subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--force-reinstall",
                                "--no-deps", f"selectolax=={release}"], check=False)
    marker.write_text(f"selectolax {release}: {outcome}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
