"""Streaming generator of a synthetic, deterministic seed file for inject benchmarks.

Contract of :func:`write_seeds` (same ``seed`` and sizes give a byte-identical file):

* Exactly ``urls`` distinct good URLs, each already normalized and accepted by Nutch's default
  regex URL filter: ``http``/``https`` (about 70/30), lowercase host, no port, 1-4 lowercase path
  segments of words/digits/``-`` (the last one contains the URL's index, so URLs are unique by
  construction, optionally ending in ``.html`` or ``/``), no query, fragment, ``?*!@=``, dot
  segments, repeated segments or image/js/css suffix; shorter than 200 characters.
* Hosts are drawn from ``hosts`` host names with a Zipf-like skew; the first ``min(urls, hosts)``
  URLs visit every host once, so ``min(urls, hosts)`` distinct hosts occur.
* About 1% of good lines carry valid metadata (``\\tnutch.score=2.5`` etc.), about 2% of lines are
  exact duplicates of earlier good lines, about 0.1% are bad lines (never equal to a good URL),
  and a few ``#`` comment and blank lines are interspersed.
* Memory use is independent of ``urls`` (tables scale with ``hosts`` only).

:func:`new_urls` makes further URLs on the same hosts that are not in such a seed file (outlink
targets of the ``updatedb`` benchmark).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc

WORDS: tuple[str, ...] = tuple(
    """about account action archive article author banana berlin blog board book border bridge
    budget cable camera canyon carbon career castle center chapter circle city classic climate cloud
    coffee column comment common company contact cookie corner cotton county course craft credit
    culture custom daily dance data debate delta design detail device diary digital dinner doctor
    domain dragon dream editor energy engine event expert family farm fashion feature festival
    field film finance flower focus forest forum fresh friend future galaxy garden gateway global
    golden green guide harbor health history hobby holiday home hotel house image index island
    journal jungle kernel kitchen label lake language laser league legal letter library light
    linux local lunar magic market media member memory metro mobile modern money motion mountain
    movie museum music nature network news north notes ocean office online opera orbit order
    osprey paper params people photo planet player pocket policy portal press price product
    profile project public puzzle quality quartz radio random reader recipe record region report
    review river robot rocket royal rural safety salad school science search season second sector
    secure server service shadow shop silver simple social solar sound source space sport spring
    square stadium station steel stone story street studio summer summit sunset support system
    table talent team tech theater theory ticket timber today topic tower track trade travel
    trend tribune union update urban valley vector video village vision visual voice water
    weather west wiki window winter wonder world writer yellow young zebra zone""".split()
)
TLDS: tuple[str, ...] = ("com", "org", "net", "de", "io", "co.uk", "fr", "jp")
TLD_WEIGHTS: tuple[int, ...] = (40, 14, 10, 10, 8, 7, 6, 5)
BAD_LINES: tuple[str, ...] = (
    "not a url",
    "htp://bad.example/",
    "mailto:someone@example.com",
    "http://",
    "http://host.example/ok\tnutch.score=abc",
    "http://host.example/ok\tnutch.fetchInterval=x",
)
METADATA: tuple[str, ...] = (
    "\tnutch.score=2.5",
    "\tnutch.fetchInterval=86400",
    "\tcategory=news",
    "\tnutch.score=0.5\tcategory=sports",
)
SUFFIXES: tuple[str, ...] = ("", ".html", "/", ".html")  # indexed by 2 random bits
BATCH: int = 20_000
TABLE_BITS: int = 20  # host lookup table of 2**20 entries
PATH_BITS: int = 12  # 4096 distinct path prefixes
COMMENT_EVERY: int = 1_000_000


@dataclass
class SeedStats:
    """Counts of what :func:`write_seeds` wrote; ``lines`` = all lines incl. comments/blanks."""

    lines: int = 0
    good_urls: int = 0
    duplicates: int = 0
    bad_lines: int = 0
    comments: int = 0
    blank_lines: int = 0
    metadata_lines: int = 0
    hosts_used: int = 0
    bytes: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict including ``lines_per_s``."""
        out = asdict(self)
        out["seconds"] = round(self.seconds, 3)
        out["lines_per_s"] = round(self.lines / self.seconds) if self.seconds > 0 else None
        return out


def _host_prefixes(rng: random.Random, hosts: int) -> list[str]:
    """``scheme://host/`` for every host: index ``2*h`` is http, ``2*h + 1`` is https."""
    out: list[str] = []
    for k in range(hosts):
        word = rng.choice(WORDS)
        tld = rng.choices(TLDS, TLD_WEIGHTS)[0]
        form = rng.random()
        sub = "www." if form < 0.5 else ("docs." if form < 0.65 else "")
        name = f"{sub}{word}{k}.{tld}"
        out += (f"http://{name}/", f"https://{name}/")
    return out


def _host_table(hosts: int, exponent: float) -> list[int]:
    """2**TABLE_BITS host indices in proportion to a Zipf(``exponent``) weight per host."""
    size = 1 << TABLE_BITS
    weights = [1.0 / (h + 1) ** exponent for h in range(hosts)]
    scale = size / sum(weights)
    table: list[int] = []
    cum = 0.0
    for h, w in enumerate(weights):
        cum += w * scale
        table.extend([h] * (round(cum) - len(table)))
    table.extend([0] * (size - len(table)))
    return table


def _path_prefixes(rng: random.Random) -> list[str]:
    """Distinct-segment path prefixes of 0-3 segments, each ending in ``/`` (or empty)."""
    out: list[str] = []
    for _ in range(1 << PATH_BITS):
        n = rng.choices((0, 1, 2, 3), (15, 35, 35, 15))[0]
        segs: list[str] = []
        while len(segs) < n:
            r = rng.random()
            if r < 0.1:
                seg = str(rng.randrange(1995, 2026))
            elif r < 0.3:
                seg = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}"
            else:
                seg = rng.choice(WORDS)
            if seg not in segs:
                segs.append(seg)
        out.append("".join(s + "/" for s in segs))
    return out


def _count(rng: random.Random, n: int, rate: float) -> int:
    """Stochastically rounded ``n * rate``."""
    return int(n * rate + rng.random())


class _Batcher:
    """Builds one batch of good lines (each ending in a newline) as a pyarrow string array.

    Python's ``random`` supplies every random choice (stable across versions); pyarrow only
    assembles the strings, which keeps the generator well above a million lines per second.
    """

    def __init__(self, rng: random.Random, hosts: int, exponent: float) -> None:
        self.rng, self.hosts = rng, hosts
        self.prefixes = pa.array(_host_prefixes(rng, hosts))
        self.table = pa.array(_host_table(hosts, exponent), pa.int64())
        self.paths = pa.array(_path_prefixes(rng))
        self.words = pa.array([WORDS[i % len(WORDS)] for i in range(256)])
        self.suffixes = pa.array(SUFFIXES)
        self.metadata = pa.array(("",) + METADATA)
        self.steps = pa.array(range(BATCH), pa.int64())

    def _bits(self, r: pa.Array, shift: int, width: int) -> pa.Array:
        return pc.bit_wise_and(pc.shift_right(r, shift), (1 << width) - 1)

    def _url_parts(self, lo: int, hi: int) -> list[pa.Array | str]:
        """The pieces whose concatenation is the URL of each index ``lo..hi-1`` (draws ``8 * n`` bytes)."""
        n = hi - lo
        r = pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(self.rng.randbytes(8 * n))])
        idx = pc.add(self.steps.slice(0, n), lo)
        # Low bits of r: 0-19 host, 20-29 https (< 307/1024), 30-41 path prefix, 42-49 word, 50-51 suffix.
        host = self.table.take(self._bits(r, 0, TABLE_BITS))
        if lo < self.hosts:
            host = pc.if_else(pc.less(idx, self.hosts), idx, host)
        https = pc.cast(pc.less(self._bits(r, 20, 10), 307), pa.int64())
        return [
            self.prefixes.take(pc.add(pc.multiply(host, 2), https)),
            self.paths.take(self._bits(r, 30, PATH_BITS)),
            self.words.take(self._bits(r, 42, 8)),
            "-",
            pc.cast(idx, pa.string()),
            self.suffixes.take(self._bits(r, 50, 2)),
        ]

    def urls(self, lo: int, hi: int) -> pa.StringArray:
        """The bare URLs of indices ``lo..hi-1`` (no metadata, no newline)."""
        return pc.binary_join_element_wise(*self._url_parts(lo, hi), "")

    def build(self, lo: int, hi: int, meta_rate: float) -> tuple[pa.StringArray, int]:
        """Lines for URL indices ``lo..hi-1`` and how many of them carry metadata."""
        n, rng = hi - lo, self.rng
        parts = self._url_parts(lo, hi)
        meta = [0] * n
        chosen = rng.sample(range(n), _count(rng, n, meta_rate))
        for j in chosen:
            meta[j] = rng.randrange(1, len(self.metadata))
        lines = pc.binary_join_element_wise(
            *parts,
            self.metadata.take(pa.array(meta, pa.int64())),
            "\n",
            "",
        )
        return lines, len(chosen)


def _write_interleaved(fh: BinaryIO, lines: pa.StringArray, extra: list[str], rng: random.Random) -> int:
    """Write ``lines`` with the ``extra`` lines (newline-terminated) at random places; return bytes."""
    offsets = memoryview(lines.buffers()[1]).cast("i")[lines.offset : lines.offset + len(lines) + 1]
    data = memoryview(lines.buffers()[2])
    written, prev = 0, 0
    for pos, line in sorted(((rng.randrange(len(lines) + 1), x) for x in extra), key=lambda t: t[0]):
        written += fh.write(data[offsets[prev] : offsets[pos]]) + fh.write(line.encode("ascii"))
        prev = pos
    return written + fh.write(data[offsets[prev] : offsets[len(lines)]])


def write_seeds(
    path: Path,
    urls: int,
    hosts: int,
    *,
    seed: int = 42,
    exponent: float = 1.0,
    dup_rate: float = 0.02,
    bad_rate: float = 0.001,
    meta_rate: float = 0.01,
) -> SeedStats:
    """Write the synthetic seed file to ``path`` (see the module docstring) and return its counts."""
    if urls < 0 or hosts < 1:
        raise ValueError("need urls >= 0 and hosts >= 1")
    start = time.perf_counter()
    rng = random.Random(seed)
    batcher = _Batcher(rng, hosts, exponent)
    stats = SeedStats(hosts_used=min(urls, hosts))
    prev: pa.StringArray | None = None
    specials = [f"# Gossamer synthetic seeds: seed={seed} urls={urls} hosts={hosts}\n", "\n"]
    with open(path, "wb") as fh:
        for lo in range(0, max(urls, 1), BATCH):
            hi = min(lo + BATCH, urls)
            good, with_meta = batcher.build(lo, hi, meta_rate)
            pool = prev if prev is not None else good
            dups = [pool[rng.randrange(len(pool))].as_py() for _ in range(_count(rng, len(good), dup_rate))]
            bads = [rng.choice(BAD_LINES) + "\n" for _ in range(_count(rng, len(good), bad_rate))]
            for line in specials:
                stats.bytes += fh.write(line.encode("ascii"))
            stats.comments += sum(1 for x in specials if x != "\n")
            stats.blank_lines += sum(1 for x in specials if x == "\n")
            stats.bytes += _write_interleaved(fh, good, dups + bads, rng)
            stats.lines += len(specials) + len(good) + len(dups) + len(bads)
            stats.good_urls += len(good)
            stats.metadata_lines += with_meta
            stats.duplicates += len(dups)
            stats.bad_lines += len(bads)
            prev = good if len(good) else prev
            crossed = hi // COMMENT_EVERY != lo // COMMENT_EVERY
            specials = [f"# block {hi // COMMENT_EVERY}\n", "\n"] if crossed and hi < urls else []
    stats.seconds = time.perf_counter() - start
    return stats


def new_urls(start: int, count: int, hosts: int, *, seed: int = 42, exponent: float = 1.0,
             draw_seed: int | None = None) -> pa.StringArray:
    """``count`` more distinct URLs (indices ``start..start+count-1``) in the style of :func:`write_seeds`.

    With ``start`` >= the ``urls`` of a seed file written with the same ``seed`` and ``hosts``, none of
    them equals a good URL of that file (each URL carries its index), yet they lie on the same host
    names with the same Zipf skew: what a crawl discovers as outlinks.  ``draw_seed`` (default
    ``seed + 1``) seeds the random choices; same arguments give the same URLs.
    """
    rng = random.Random(seed)
    batcher = _Batcher(rng, hosts, exponent)  # same host names and path prefixes as write_seeds
    rng.seed(seed + 1 if draw_seed is None else draw_seed)
    chunks = [batcher.urls(lo, min(lo + BATCH, start + count)) for lo in range(start, start + count, BATCH)]
    return pa.concat_arrays(chunks) if chunks else pa.array([], pa.string())


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.synthetic PATH URLS HOSTS [--seed S]``: write seeds, print stats as JSON."""
    p = argparse.ArgumentParser(prog="python -m bench.synthetic", description=__doc__.splitlines()[0])
    p.add_argument("path", type=Path)
    p.add_argument("urls", type=int)
    p.add_argument("hosts", type=int)
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args(argv)
    print(json.dumps(write_seeds(args.path, args.urls, args.hosts, seed=args.seed).to_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
