"""The DuckDB peer baseline for inject: dedupe the seed URLs and write them as sorted Parquet.

It is run as ``python -c SCRIPT <seeds> <out_dir> <temp_dir> <memory_limit> <threads>`` in a
subprocess so that it is measured exactly like the Gossamer commands. The script reads the seed
file as one VARCHAR column (delimiter ``\\x01``, which never occurs; no quoting or escaping), takes
the text before the first tab as the URL, keeps URLs starting with ``http://`` or ``https://`` that
contain no space, and writes the DISTINCT URLs ordered by url to ``<out_dir>/part-00000.parquet``
(zstd), with ``memory_limit='1GB'`` and ``threads=2``. It prints ``ROWS\\t<n>`` (rows written).
"""

from __future__ import annotations

import re
from pathlib import Path

MEMORY_LIMIT: str = "1GB"
THREADS: int = 2

CONNECT: str = r"""
os.makedirs(out_dir, exist_ok=True)
def lit(s):
    return "'" + s.replace("'", "''") + "'"
con = duckdb.connect()
con.execute(f"SET memory_limit={lit(memory_limit)}")
con.execute(f"SET threads={int(threads)}")
con.execute(f"SET temp_directory={lit(temp_dir)}")
"""
"""Script lines shared by the DuckDB baselines: once ``out_dir``, ``temp_dir``, ``memory_limit`` and
``threads`` are read from argv, create ``out_dir``, define ``lit`` (SQL string literal) and open
``con`` with those limits."""

SCRIPT: str = r"""
import os, sys, duckdb
seeds, out_dir, temp_dir, memory_limit, threads = sys.argv[1:6]
""" + CONNECT + r"""
rows = con.execute(f'''
COPY (
  SELECT DISTINCT url FROM (
    SELECT split_part(line, chr(9), 1) AS url
    FROM read_csv({lit(seeds)}, columns={{'line': 'VARCHAR'}}, delim='\x01', header=false,
                  quote='', escape='', auto_detect=false)
  )
  WHERE (starts_with(url, 'http://') OR starts_with(url, 'https://')) AND NOT contains(url, ' ')
  ORDER BY url
) TO {lit(os.path.join(out_dir, "part-00000.parquet"))} (FORMAT parquet, COMPRESSION zstd)
''').fetchone()[0]
print(f"ROWS\t{rows}")
"""


def duckdb_argv(python: str, seeds: Path, out_dir: Path, temp_dir: Path) -> list[str]:
    """The command line running the baseline with interpreter ``python`` (which has duckdb)."""
    return [python, "-c", SCRIPT, str(seeds), str(out_dir), str(temp_dir), MEMORY_LIMIT, str(THREADS)]


def rows_written(stdout: str) -> int | None:
    """The row count the baseline script printed, or None if missing."""
    match = re.search(r"^ROWS\t(\d+)$", stdout, re.MULTILINE)
    return int(match.group(1)) if match else None
