"""Hadoop's and Nutch's own file formats, byte for byte: Writables, SequenceFile, MapFile, ArrayFile.

* primitives (:mod:`.primitives`): Java big-endian numbers, Hadoop vints, ``Text``, the old
  ``UTF8``, ``writeUTF``, ``writeString`` — :class:`Cursor` reads, :class:`Output` writes;
* Writables (:mod:`.writable`, :mod:`.writables_basic`, :mod:`.writables_compound`): one
  :class:`WritableCodec` per Java class, found by class name in a :class:`WritableRegistry`
  (:data:`DEFAULT_REGISTRY`; register third-party classes there or in :func:`new_registry`);
* compression codecs by class name (:mod:`.compression`): zlib, gzip, bzip2, snappy, LZ4, zstd;
* SequenceFile (:mod:`.seqfile_header`, :mod:`.seqfile_writer`, :mod:`.seqfile_reader`,
  :mod:`.seqfile_blocks`): versions 1 (Nutch 0.x) to 6, NONE / RECORD / BLOCK compression,
  sync markers, splits, lenient reading, Arrow batches;
* Nutch's records (``nutch_*`` modules: CrawlDatum, Content, ParseData, ParseText, Inlinks,
  the 0.4/0.5 records; registered in :data:`DEFAULT_REGISTRY` on import; conversions to and from
  Gossamer's core records: ``to_core_*`` / ``from_core_*``; ``docs/nutch-records.md``);
* MapFile and ArrayFile (:mod:`.mapfile`); what a path holds (:mod:`.paths`: a file, a MapFile,
  a job's directory of parts).

Every bad input is a :class:`HadoopFormatError` naming file, byte offset and what was expected.
Layouts with hex examples: ``docs/nutch-formats.md``.
"""

from gossamer.store.hadoop.compression import (
    CompressionCodec,
    compression_codec,
    compression_codec_names,
    register_compression_codec,
)
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.mapfile import ArrayFileReader, ArrayFileWriter, MapFileReader, MapFileWriter
from gossamer.store.hadoop.nutch_convert import (
    from_core_content,
    from_core_datum,
    from_core_inlinks,
    from_core_outlink,
    from_core_parse_data,
    from_core_parse_text,
    to_core_content,
    to_core_datum,
    to_core_inlinks,
    to_core_outlink,
    to_core_parse_data,
    to_core_parse_text,
)
from gossamer.store.hadoop.nutch_crawldatum import NutchCrawlDatum
from gossamer.store.hadoop.nutch_crawldatum_arrow import CRAWL_DATUM_ARROW, crawl_datum_column, decode_metadata
from gossamer.store.hadoop.nutch_metadata_map import map_to_strings, strings_to_map
from gossamer.store.hadoop.nutch_registry import nutch_registry, register_nutch_codecs
from gossamer.store.hadoop.nutch_segment_records import NutchContent, NutchInlink, NutchOutlink, NutchParseData
from gossamer.store.hadoop.paths import data_files, is_map_file, map_files, part_names
from gossamer.store.hadoop.primitives import Cursor, Output, decode_vlong, encode_vlong
from gossamer.store.hadoop.registry import DEFAULT_REGISTRY, new_registry
from gossamer.store.hadoop.seqfile_blocks import Block
from gossamer.store.hadoop.seqfile_header import BLOCK, NONE, RECORD, SequenceFileHeader
from gossamer.store.hadoop.seqfile_reader import SequenceFileReader
from gossamer.store.hadoop.seqfile_writer import BLOCK_SIZE, SYNC_INTERVAL, SequenceFileWriter, new_sync_marker
from gossamer.store.hadoop.writable import Typed, WritableCodec, WritableRegistry
from gossamer.store.hadoop.writables_basic import (
    BOOLEAN,
    BYTES,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    MD5_HASH,
    NULL,
    TEXT,
    UTF8,
    VINT,
    VLONG,
)
from gossamer.store.hadoop.writables_compound import (
    MAP_CLASS_IDS,
    ArrayWritableCodec,
    MapWritableCodec,
    NutchMetadataCodec,
    PropertiesCodec,
    WritableMap,
    read_version,
    write_version,
)

__all__ = [
    "CRAWL_DATUM_ARROW",
    "crawl_datum_column",
    "decode_metadata",
    "map_to_strings",
    "strings_to_map",
    "from_core_content",
    "from_core_datum",
    "from_core_inlinks",
    "from_core_outlink",
    "from_core_parse_data",
    "from_core_parse_text",
    "to_core_content",
    "to_core_datum",
    "to_core_inlinks",
    "to_core_outlink",
    "to_core_parse_data",
    "to_core_parse_text",
    "NutchCrawlDatum",
    "nutch_registry",
    "register_nutch_codecs",
    "NutchContent",
    "NutchInlink",
    "NutchOutlink",
    "NutchParseData",
    "BLOCK",
    "BLOCK_SIZE",
    "BOOLEAN",
    "BYTES",
    "DEFAULT_REGISTRY",
    "DOUBLE",
    "FLOAT",
    "INT",
    "LONG",
    "MAP_CLASS_IDS",
    "MD5_HASH",
    "NONE",
    "NULL",
    "RECORD",
    "SYNC_INTERVAL",
    "TEXT",
    "UTF8",
    "VINT",
    "VLONG",
    "ArrayFileReader",
    "ArrayFileWriter",
    "ArrayWritableCodec",
    "Block",
    "CompressionCodec",
    "Cursor",
    "HadoopFormatError",
    "MapFileReader",
    "MapFileWriter",
    "MapWritableCodec",
    "NutchMetadataCodec",
    "Output",
    "PropertiesCodec",
    "SequenceFileHeader",
    "SequenceFileReader",
    "SequenceFileWriter",
    "Typed",
    "WritableCodec",
    "WritableMap",
    "WritableRegistry",
    "compression_codec",
    "data_files",
    "is_map_file",
    "map_files",
    "part_names",
    "compression_codec_names",
    "decode_vlong",
    "encode_vlong",
    "new_registry",
    "new_sync_marker",
    "read_version",
    "register_compression_codec",
    "write_version",
]
