"""Hadoop copying a SequenceFile record by record, in the JVM: the "Hadoop reads it and writes it again" step.

:func:`hadoop_copy` compiles (once per JVM, with Janino, no ``javac``) a small Java class that opens a file with
``SequenceFile.Reader`` and appends each record, read into Writables, to a new ``SequenceFile.Writer`` with
the same classes, compression, codec and metadata — so a round trip Gossamer → Hadoop → Gossamer goes through
Hadoop's own deserialization and serialization, not a byte copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.hadoop_jvm import HadoopJvm

CLASS_NAME = "GossamerSequenceFileCopy"
JAVA_SOURCE = """
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.ArrayWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.util.ReflectionUtils;

public class GossamerSequenceFileCopy {
    /** Copy every record of uri `from` to a new file `to` with the same header settings; the record count. */
    public long copy(Configuration conf, String from, String to, int syncInterval) throws Exception {
        SequenceFile.Reader reader = new SequenceFile.Reader(conf,
            new SequenceFile.Reader.Option[] { SequenceFile.Reader.file(new Path(from)) });
        Writable key = make(conf, reader.getKeyClass());
        Writable value = make(conf, reader.getValueClass());
        SequenceFile.Writer.Option compression = reader.getCompressionCodec() == null
            ? SequenceFile.Writer.compression(reader.getCompressionType())
            : SequenceFile.Writer.compression(reader.getCompressionType(), reader.getCompressionCodec());
        SequenceFile.Writer writer = SequenceFile.createWriter(conf, new SequenceFile.Writer.Option[] {
            SequenceFile.Writer.file(new Path(to)),
            SequenceFile.Writer.keyClass(reader.getKeyClass()),
            SequenceFile.Writer.valueClass(reader.getValueClass()),
            compression,
            SequenceFile.Writer.metadata(reader.getMetadata()),
            SequenceFile.Writer.syncInterval(syncInterval) });
        long records = 0;
        while (reader.next(key, value)) {
            writer.append(key, value);
            records++;
        }
        writer.close();
        reader.close();
        return records;
    }

    private Writable make(Configuration conf, Class cls) {
        if (cls == ArrayWritable.class) return new ArrayWritable(Text.class);
        return (Writable) ReflectionUtils.newInstance(cls, conf);
    }
}
"""


def _copier(jvm: HadoopJvm) -> Any:
    cached = getattr(jvm, "_sequence_file_copy", None)
    if cached is None:
        cached = jvm.compile_java(JAVA_SOURCE, CLASS_NAME)
        jvm._sequence_file_copy = cached  # type: ignore[attr-defined]
    return cached


def hadoop_copy(jvm: HadoopJvm, source: Path, target: Path, *, sync_interval: int = 100 * 1024,
                block_size: int | None = None) -> int:
    """Hadoop reads ``source`` and writes its records to ``target`` (ArrayWritable elements are Text); the count.

    ``block_size`` sets ``io.seqfile.compress.blocksize`` for the writer (Hadoop's default 1,000,000).
    """
    conf = jvm.new_conf({"io.seqfile.compress.blocksize": block_size} if block_size else None)
    return int(_copier(jvm).copy(conf, jvm.path(source).toString(), jvm.path(target).toString(), sync_interval))
