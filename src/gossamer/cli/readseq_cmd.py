"""``gossamer readseq``: Hadoop SequenceFiles, MapFiles and ArrayFiles as JSON lines (like ``hadoop fs -text``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Annotated, Any

import typer

from gossamer.cli.common import EXIT_NOTHING, fail, place_argument, settings_for
from gossamer.store import Place
from gossamer.store.hadoop import HadoopFormatError, MapFileReader, SequenceFileReader, data_files, map_files


def _line(key: Any, value: Any, reader: SequenceFileReader) -> str:
    record = {"key": reader.key_codec.to_json(key), "value": reader.value_codec.to_json(value)}
    return json.dumps(record, ensure_ascii=False)


def _records(place: Place, lenient: bool) -> Iterator[tuple[str, SequenceFileReader]]:
    for file in data_files(place):
        with SequenceFileReader(file, lenient=lenient) as reader:
            for key, value in reader:
                yield _line(key, value, reader), reader
            if reader.skipped_records or reader.problems:
                for problem in reader.problems:
                    typer.echo(f"skipped: {problem}", err=True)
                typer.echo(f"{file.display()}: {reader.skipped_records} record(s) skipped", err=True)


def _lookup(place: Place, text: str) -> Iterator[str]:
    """The records with key ``text`` (converted to the files' key type) in every MapFile of ``place``."""
    for directory in map_files(place):
        with MapFileReader(directory) as reader:
            key = _key_of(text, reader.key_codec.java_class)
            missing = object()
            value = reader.get(key, missing)
            if value is not missing:
                yield json.dumps({"key": reader.key_codec.to_json(key),
                                  "value": reader.value_codec.to_json(value)}, ensure_ascii=False)


def _key_of(text: str, java_class: str) -> Any:
    """The command line's key as a value of the files' key class (numbers for the integer Writables)."""
    if java_class.rsplit(".", 1)[-1] in ("LongWritable", "IntWritable", "VIntWritable", "VLongWritable", "long"):
        try:
            return int(text)
        except ValueError:
            fail(f"-key {text!r}: the keys of this file are numbers ({java_class})")
    return text


def readseq_command(
    path: Annotated[str, typer.Argument(help="a SequenceFile, a MapFile/ArrayFile directory or a directory of "
                                             "parts (local path or URI)")],
    key: Annotated[str | None, typer.Option("-key", "--key", help="look this key up (MapFiles only)")] = None,
    count: Annotated[int | None, typer.Option("-n", "--count", help="print at most this many records")] = None,
    lenient: Annotated[bool, typer.Option("--lenient", help="skip damaged records (resync at the next "
                                                            "sync marker) instead of stopping")] = False,
) -> None:
    """Print each record as one JSON object ``{"key": …, "value": …}``, like ``hadoop fs -text``.

    Text is a string, the number Writables are numbers, BooleanWritable true/false, NullWritable
    null, BytesWritable {"base64": …}, MapWritable an object, Nutch records objects of their
    fields. A file it cannot read is one error line naming the file and byte offset (exit 2).

    Examples:

      gossamer readseq nutch/crawl/crawldb/current/part-r-00000 -n 5

      gossamer readseq nutch/crawl/crawldb/current -key https://example.org/

      gossamer readseq s3://bucket/nutch/segments/20240101000000/crawl_generate/part-r-00000
    """
    if count is not None and count < 0:
        fail("-n must be 0 or more")
    place = place_argument(path, settings_for(None))
    printed = 0
    try:
        lines = _lookup(place, key) if key is not None else (line for line, _ in _records(place, lenient))
        for line in lines:
            if count is not None and printed >= count:
                break
            sys.stdout.write(line + "\n")
            printed += 1
    except HadoopFormatError as exc:
        sys.stdout.flush()
        fail(str(exc))
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    if key is not None and not printed:
        fail(f"{key}: not found in {path}", EXIT_NOTHING)
