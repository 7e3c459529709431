"""Hadoop's own SequenceFile, MapFile and ArrayFile code, driven from Python through a py4j JVM.

The JVM runs the jars PySpark ships (Hadoop 3.x client, snappy-java, lz4-java, zstd-jni, janino) with no
SparkContext: plain ``py4j.GatewayServer`` on an ephemeral loopback port with an auth token, started once per
:class:`HadoopJvm`. Files go through Hadoop's ``RawLocalFileSystem`` so no ``.crc`` side files appear, and bzip2
uses Hadoop's pure-Java implementation; nothing needs ``libhadoop``.

Python values become Writables by class (see :meth:`HadoopJvm.to_writable`), and Writables read back become
the ``gossamer readseq`` JSON convention (see :meth:`HadoopJvm.to_json`): Text → str, the integer Writables →
int, Float/Double → float, BooleanWritable → bool, NullWritable → None, BytesWritable → ``{"base64": …}``,
MD5Hash → ``{"md5": hex}``, MapWritable → object (keys as strings), ArrayWritable → list. A FloatWritable becomes
the exact double value of its float32 (0.1f → 0.10000000149011612), as a reader widening the 4 bytes gives.

Module-level functions (:func:`write_sequence_file`, :func:`read_sequence_file`, …) use one shared JVM started
on first use; :func:`unavailable_reason` says why none can start (no ``java``, no PySpark) without starting one.
"""

from __future__ import annotations

import atexit
import base64
import os
import shutil
import struct
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HADOOP_IO = "org.apache.hadoop.io."
CODEC_PACKAGE = "org.apache.hadoop.io.compress."
CODECS = ("DefaultCodec", "GzipCodec", "BZip2Codec", "SnappyCodec", "Lz4Codec", "ZStandardCodec")
"""Every codec name the writers accept (short names of classes in ``org.apache.hadoop.io.compress``)."""
COMPRESSIONS = ("NONE", "RECORD", "BLOCK")
WRITABLES = ("Text", "IntWritable", "LongWritable", "FloatWritable", "DoubleWritable", "BooleanWritable",
             "VIntWritable", "VLongWritable", "BytesWritable", "NullWritable", "MD5Hash", "MapWritable",
             "ArrayWritable", "UTF8")
"""Writable classes (short names, all in ``org.apache.hadoop.io``) that Python values convert to and from."""

Typed = tuple[str, Any]
"""A value with an explicit Writable class: ``("VIntWritable", 5)``; allowed wherever a value is."""


def full_class_name(name: str) -> str:
    """``Text`` → ``org.apache.hadoop.io.Text``; names with a dot are returned unchanged."""
    return name if "." in name else HADOOP_IO + name


def short_class_name(name: str) -> str:
    """``org.apache.hadoop.io.Text`` → ``Text``; other packages keep their full name."""
    return name[len(HADOOP_IO):] if name.startswith(HADOOP_IO) and "." not in name[len(HADOOP_IO):] else name


def spark_jars_dir() -> Path | None:
    """The ``jars`` directory of the installed PySpark, or None when PySpark is not importable."""
    try:
        import pyspark
    except ImportError:
        return None
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    return jars if jars.is_dir() else None


def java_executable() -> str | None:
    """``$JAVA_HOME/bin/java`` when set and present, else ``java`` on PATH, else None."""
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", "java").is_file():
        return str(Path(home, "bin", "java"))
    return shutil.which("java")


def unavailable_reason() -> str | None:
    """Why no Hadoop JVM can start here (a one-line reason), or None when the prerequisites are present."""
    if java_executable() is None:
        return "no Java runtime (java not on PATH and no JAVA_HOME)"
    jars = spark_jars_dir()
    if jars is None:
        return "PySpark is not installed (its jars carry Hadoop's client classes)"
    if not list(jars.glob("hadoop-client-api-*.jar")):
        return f"no hadoop-client-api jar in {jars}"
    try:
        import py4j  # noqa: F401
    except ImportError:
        return "py4j is not installed"
    return None


@dataclass(frozen=True)
class SequenceFileContents:
    """What Hadoop's ``SequenceFile.Reader`` reports about one file.

    ``header``: version, class names, compression, codec, metadata, sync marker (see
    :meth:`HadoopJvm.sequence_file_header`). ``records``: (key JSON, value JSON) in file order.
    ``sync_before``: indices of the records that a sync marker (or, in BLOCK files, a block start) preceded,
    as ``Reader.syncSeen()`` reports them.
    """

    header: dict[str, Any]
    records: list[tuple[Any, Any]]
    sync_before: list[int]


class HadoopJvm:
    """One JVM with Hadoop's classes on the class path, reached through py4j on loopback.

    Contract: the JVM binds only 127.0.0.1 (py4j's default address) with an auth token; it dies with this
    process (``die_on_exit``) or on :meth:`close`. Every path argument is a local filesystem path.
    ``log_path``: where the JVM's stdout/stderr go (default: discarded).
    """

    def __init__(self, log_path: str | Path | None = None, heap: str = "1g") -> None:
        reason = unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

        jars = spark_jars_dir()
        assert jars is not None
        py4j_jar = sorted(jars.glob("py4j-*.jar"))
        self._tmp = tempfile.mkdtemp(prefix="gossamer-hadoop-jvm-")
        self._log = open(log_path, "a") if log_path else open(os.devnull, "w")  # noqa: SIM115
        java_opts = [f"-Xmx{heap}", f"-Djava.io.tmpdir={self._tmp}", "-Djava.net.preferIPv4Stack=true",
                     f"-Dorg.xerial.snappy.tempdir={self._tmp}", "-Dlog4j2.level=WARN"]
        port, token, self._proc = launch_gateway(
            port=0, jarpath=str(py4j_jar[0]) if py4j_jar else "", classpath=f"{jars}/*", javaopts=java_opts,
            die_on_exit=True, redirect_stdout=self._log, redirect_stderr=self._log, java_path=java_executable(),
            enable_auth=True, return_proc=True, cwd=self._tmp)
        self.gateway = JavaGateway(gateway_parameters=GatewayParameters(
            address="127.0.0.1", port=port, auth_token=token, auto_convert=True))
        self.jvm = self.gateway.jvm
        self.conf = self.new_conf()
        self._lock = threading.RLock()

    # --- life cycle -------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the JVM (idempotent) and remove its temporary directory."""
        gateway = getattr(self, "gateway", None)
        if gateway is not None:
            try:
                gateway.shutdown()
            except Exception:  # noqa: BLE001 - the JVM may be gone already
                pass
            self.gateway = None  # type: ignore[assignment]
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if getattr(self, "_log", None) is not None:
            self._log.close()
        shutil.rmtree(getattr(self, "_tmp", ""), ignore_errors=True)

    def __enter__(self) -> HadoopJvm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- configuration and classes ----------------------------------------------------------------------------

    def new_conf(self, overrides: Mapping[str, str | int] | None = None) -> Any:
        """A Hadoop ``Configuration``: raw local filesystem (no checksums), pure-Java bzip2, plus ``overrides``."""
        conf = self.jvm.org.apache.hadoop.conf.Configuration()
        conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")
        conf.setBoolean("fs.file.impl.disable.cache", True)
        conf.set("io.compression.codec.bzip2.library", "java-builtin")
        for key, value in (overrides or {}).items():
            conf.set(key, str(value))
        return conf

    def java_class(self, name: str) -> Any:
        """The ``java.lang.Class`` of a Writable or codec given by short or full name."""
        return self.conf.getClassByName(full_class_name(name) if name in WRITABLES else name)

    def path(self, path: str | Path) -> Any:
        """A Hadoop ``Path`` for a local path (absolute, ``file:`` scheme)."""
        return self.jvm.org.apache.hadoop.fs.Path(Path(path).resolve().as_uri())

    def raw_local_fs(self, conf: Any = None) -> Any:
        """Hadoop's ``RawLocalFileSystem`` (writes no ``.crc`` files)."""
        uri = self.jvm.java.net.URI("file:///")
        return self.jvm.org.apache.hadoop.fs.FileSystem.get(uri, conf or self.conf)  # fs.file.impl is the raw one

    def codec(self, name: str, conf: Any = None) -> Any:
        """A configured ``CompressionCodec`` instance for a short codec name (one of :data:`CODECS`)."""
        if name not in CODECS:
            raise ValueError(f"unknown codec {name!r}; expected one of {CODECS}")
        conf = conf or self.conf
        cls = conf.getClassByName(CODEC_PACKAGE + name)
        return self.jvm.org.apache.hadoop.util.ReflectionUtils.newInstance(cls, conf)

    def _array(self, java_type: Any, items: list[Any]) -> Any:
        array = self.gateway.new_array(java_type, len(items))
        for index, item in enumerate(items):
            array[index] = item
        return array

    # --- Python ⇄ Writable ------------------------------------------------------------------------------------

    def to_writable(self, class_name: str, value: Any, element_class: str = "Text") -> Any:
        """A new Writable of ``class_name`` (short or full) holding the Python ``value``.

        Text and the old UTF8 ← str; Int/Long/VInt/VLongWritable ← int; Float/DoubleWritable ← float;
        BooleanWritable ← bool; BytesWritable ← bytes; NullWritable ← None; MD5Hash ← bytes (16-byte digest)
        or 32-char hex str; ArrayWritable ← list of values of ``element_class`` (Text by default; Hadoop's own
        ``ArrayWritable(String[])`` constructor would write UTF8 elements, so it is not used); MapWritable ←
        dict whose keys are str (Text) or :data:`Typed` tuples and whose values are :data:`Typed` tuples or
        natural values (str → Text, bool → BooleanWritable, int → LongWritable, float → DoubleWritable,
        bytes → BytesWritable, None → NullWritable, list → ArrayWritable, dict → MapWritable). Hadoop cannot
        read an ArrayWritable inside a MapWritable back (it has no no-argument constructor).
        """
        io = self.jvm.org.apache.hadoop.io
        name = short_class_name(class_name)
        if name == "Text":
            return io.Text(value)
        if name == "UTF8":
            return io.UTF8(value)
        if name in ("IntWritable", "VIntWritable"):
            writable = getattr(io, name)()
            writable.set(self.jvm.java.lang.Integer.valueOf(int(value)))
            return writable
        if name in ("LongWritable", "VLongWritable"):
            writable = getattr(io, name)()
            writable.set(self.jvm.java.lang.Long.parseLong(str(int(value))))
            return writable
        if name == "FloatWritable":
            return io.FloatWritable(self.jvm.java.lang.Float.parseFloat(repr(float(value))))
        if name == "DoubleWritable":
            return io.DoubleWritable(float(value))
        if name == "BooleanWritable":
            return io.BooleanWritable(bool(value))
        if name == "BytesWritable":
            return io.BytesWritable(bytearray(value))
        if name == "NullWritable":
            return io.NullWritable.get()
        if name == "MD5Hash":
            return io.MD5Hash(value) if isinstance(value, str) else io.MD5Hash(bytearray(value))
        if name == "ArrayWritable":
            items = [self.to_writable(element_class, item) for item in value]
            return io.ArrayWritable(self.java_class(element_class), self._array(io.Writable, items))
        if name == "MapWritable":
            writable = io.MapWritable()
            for key, item in value.items():
                writable.put(self._natural_writable(key), self._natural_writable(item))
            return writable
        raise ValueError(f"cannot convert a Python value to {class_name}")

    def _natural_writable(self, value: Any) -> Any:
        if isinstance(value, tuple):
            return self.to_writable(value[0], value[1])
        for kind, name in ((bool, "BooleanWritable"), (str, "Text"), (int, "LongWritable"),
                           (float, "DoubleWritable"), (bytes, "BytesWritable"), (list, "ArrayWritable"),
                           (dict, "MapWritable"), (type(None), "NullWritable")):
            if isinstance(value, kind):
                return self.to_writable(name, value)
        raise ValueError(f"no natural Writable for {type(value).__name__}")

    def to_json(self, writable: Any) -> Any:
        """The readseq JSON value of a Writable (see the module docstring); unknown classes raise ValueError."""
        name = short_class_name(writable.getClass().getName())
        if name in ("Text", "UTF8"):
            return writable.toString()
        if name == "FloatWritable":  # py4j prints the float32 shortly ("0.1"); JSON holds its exact value
            return struct.unpack(">f", struct.pack(">f", writable.get()))[0]
        if name in ("IntWritable", "LongWritable", "VIntWritable", "VLongWritable", "DoubleWritable",
                    "BooleanWritable"):
            return writable.get()
        if name == "NullWritable":
            return None
        if name == "BytesWritable":
            return {"base64": base64.b64encode(bytes(writable.copyBytes())).decode("ascii")}
        if name == "MD5Hash":
            return {"md5": writable.toString()}
        if name == "ArrayWritable":
            return [self.to_json(item) for item in writable.get()]
        if name == "MapWritable":
            result = {}
            for entry in writable.entrySet():
                key = self.to_json(entry.getKey())
                result[key if isinstance(key, str) else _json_key(key)] = self.to_json(entry.getValue())
            return result
        raise ValueError(f"no JSON convention for {writable.getClass().getName()}")

    def typed_json(self, writable: Any) -> Any:
        """Like :meth:`to_json` but keeping classes: ``{"class": short name, "value": …}``.

        MapWritable's value is a list of ``[typed key, typed value]`` pairs in the order Hadoop's MapWritable
        iterates them after reading (its HashMap order); ArrayWritable's is a list of typed elements.
        """
        name = short_class_name(writable.getClass().getName())
        if name == "MapWritable":
            value: Any = [[self.typed_json(e.getKey()), self.typed_json(e.getValue())] for e in writable.entrySet()]
        elif name == "ArrayWritable":
            value = [self.typed_json(item) for item in writable.get()]
        else:
            value = self.to_json(writable)
        return {"class": name, "value": value}

    def new_instance(self, class_name: str, element_class: str = "Text") -> Any:
        """An empty Writable to read into; ArrayWritable (which has no no-argument constructor) gets
        ``element_class`` elements."""
        if short_class_name(class_name) == "ArrayWritable":
            return self.jvm.org.apache.hadoop.io.ArrayWritable(self.java_class(element_class))
        cls = self.conf.getClassByName(class_name)
        return self.jvm.org.apache.hadoop.util.ReflectionUtils.newInstance(cls, self.conf)

    # --- writers ----------------------------------------------------------------------------------------------

    def _writer_options(self, key_class: str, value_class: str, compression: str, codec: str | None,
                        metadata: Mapping[str, str] | None, sync_interval: int | None, conf: Any) -> list[Any]:
        sf = self.jvm.org.apache.hadoop.io.SequenceFile
        if compression not in COMPRESSIONS:
            raise ValueError(f"compression must be one of {COMPRESSIONS}, not {compression!r}")
        if compression == "NONE" and codec is not None:
            raise ValueError("a codec needs RECORD or BLOCK compression")
        kind = getattr(sf.CompressionType, compression)
        options = [sf.Writer.keyClass(self.java_class(key_class)), sf.Writer.valueClass(self.java_class(value_class))]
        if codec is None:
            options.append(sf.Writer.compression(kind))
        else:
            options.append(sf.Writer.compression(kind, self.codec(codec, conf)))
        if metadata is not None:
            meta = sf.Metadata()
            for key, value in metadata.items():
                meta.set(self.jvm.org.apache.hadoop.io.Text(key), self.jvm.org.apache.hadoop.io.Text(value))
            options.append(sf.Writer.metadata(meta))
        if sync_interval is not None:
            options.append(sf.Writer.syncInterval(int(sync_interval)))
        return options

    def write_sequence_file(self, path: str | Path, key_class: str, value_class: str,
                            records: Iterable[tuple[Any, Any]], compression: str = "NONE",
                            codec: str | None = None, metadata: Mapping[str, str] | None = None,
                            sync_interval: int | None = None, conf: Mapping[str, str | int] | None = None,
                            element_class: str = "Text") -> None:
        """Write ``records`` (Python key, Python value) with ``SequenceFile.createWriter``.

        ``compression`` NONE/RECORD/BLOCK; ``codec`` a short name from :data:`CODECS` (None = DefaultCodec when
        compressed); ``metadata`` Text→Text pairs; ``sync_interval`` overrides Hadoop's 100 KiB;
        ``conf`` extra Hadoop settings (e.g. ``io.seqfile.compress.blocksize``); ``element_class`` the element
        class of ArrayWritable keys or values. Overwrites ``path``.
        """
        hconf = self.new_conf(conf)
        sf = self.jvm.org.apache.hadoop.io.SequenceFile
        options = [sf.Writer.file(self.path(path)),
                   *self._writer_options(key_class, value_class, compression, codec, metadata, sync_interval, hconf)]
        with self._lock:
            writer = sf.createWriter(hconf, self._array(sf.Writer.Option, options))
            try:
                for key, value in records:
                    writer.append(self.to_writable(key_class, key, element_class),
                                  self.to_writable(value_class, value, element_class))
            finally:
                writer.close()

    def write_map_file(self, dirpath: str | Path, key_class: str, value_class: str,
                       records: Iterable[tuple[Any, Any]], compression: str = "NONE", codec: str | None = None,
                       index_interval: int | None = None, conf: Mapping[str, str | int] | None = None,
                       element_class: str = "Text") -> None:
        """Write a MapFile directory (``data`` + ``index``) with ``MapFile.Writer``; keys must be sorted.

        ``index_interval`` sets ``io.map.index.interval`` (Hadoop's default 128). Other arguments as in
        :meth:`write_sequence_file`.
        """
        overrides = dict(conf or {})
        if index_interval is not None:
            overrides["io.map.index.interval"] = index_interval
        hconf = self.new_conf(overrides)
        mf = self.jvm.org.apache.hadoop.io.MapFile
        options = []
        for option in self._writer_options(key_class, value_class, compression, codec, None, None, hconf):
            options.append(option)
        # MapFile.Writer takes its own keyClass option (a WritableComparable class) and SequenceFile's others.
        options[0] = mf.Writer.keyClass(self.java_class(key_class))
        with self._lock:
            writer = mf.Writer(hconf, self.path(dirpath), self._array(self.jvm.org.apache.hadoop.io.SequenceFile
                                                                      .Writer.Option, options))
            try:
                for key, value in records:
                    writer.append(self.to_writable(key_class, key, element_class),
                                  self.to_writable(value_class, value, element_class))
            finally:
                writer.close()

    def write_array_file(self, dirpath: str | Path, value_class: str, values: Iterable[Any],
                         element_class: str = "Text") -> None:
        """Write an ArrayFile directory (a MapFile keyed by LongWritable 0, 1, …) with ``ArrayFile.Writer``."""
        with self._lock:
            writer = self.jvm.org.apache.hadoop.io.ArrayFile.Writer(
                self.conf, self.raw_local_fs(), str(Path(dirpath).resolve()), self.java_class(value_class))
            try:
                for value in values:
                    writer.append(self.to_writable(value_class, value, element_class))
            finally:
                writer.close()

    # --- readers ----------------------------------------------------------------------------------------------

    def _open_reader(self, path: str | Path) -> Any:
        sf = self.jvm.org.apache.hadoop.io.SequenceFile
        options = [sf.Reader.file(self.path(path))]
        return sf.Reader(self.conf, self._array(sf.Reader.Option, options))

    def _private_field(self, obj: Any, name: str) -> Any:
        field = self.jvm.org.apache.hadoop.io.SequenceFile.Reader._java_lang_class.getDeclaredField(name)
        field.setAccessible(True)
        return field.get(obj)

    def _header(self, reader: Any, path: str | Path) -> dict[str, Any]:
        codec = reader.getCompressionCodec()
        metadata = {}
        for entry in reader.getMetadata().getMetadata().entrySet():
            metadata[entry.getKey().toString()] = entry.getValue().toString()
        sync = bytes(self._private_field(reader, "sync"))
        return {
            "version": int(self._private_field(reader, "version")),
            "key_class": reader.getKeyClassName(),
            "value_class": reader.getValueClassName(),
            "compressed": bool(reader.isCompressed()),
            "block_compressed": bool(reader.isBlockCompressed()),
            "compression": reader.getCompressionType().toString(),
            "codec": codec.getClass().getName() if codec is not None else None,
            "metadata": metadata,
            "sync_hex": sync.hex(),
            "header_length": int(reader.getPosition()),
            "file_length": Path(path).stat().st_size,
        }

    def sequence_file_header(self, path: str | Path) -> dict[str, Any]:
        """Header facts as Hadoop's reader sees them: version byte, class names, compression flags and type,
        codec class name (or None), metadata (dict), sync marker (hex), header length and file length."""
        with self._lock:
            reader = self._open_reader(path)
            try:
                return self._header(reader, path)
            finally:
                reader.close()

    def describe_sequence_file(self, path: str | Path, element_class: str = "Text",
                               typed: bool = False) -> SequenceFileContents:
        """Header, every record (readseq JSON, or :meth:`typed_json` when ``typed``) and the sync-seen indices,
        read with ``SequenceFile.Reader.next(key, value)``; ArrayWritable elements are ``element_class``."""
        convert = self.typed_json if typed else self.to_json
        with self._lock:
            reader = self._open_reader(path)
            try:
                header = self._header(reader, path)
                key = self.new_instance(header["key_class"], element_class)
                value = self.new_instance(header["value_class"], element_class)
                records: list[tuple[Any, Any]] = []
                sync_before: list[int] = []
                while reader.next(key, value):
                    if reader.syncSeen():
                        sync_before.append(len(records))
                    records.append((convert(key), convert(value)))
                return SequenceFileContents(header, records, sync_before)
            finally:
                reader.close()

    def read_sequence_file(self, path: str | Path, element_class: str = "Text") -> list[tuple[Any, Any]]:
        """Every (key JSON, value JSON) of a SequenceFile, as Hadoop's ``SequenceFile.Reader`` reads them."""
        return self.describe_sequence_file(path, element_class).records

    def read_map_file_get(self, dirpath: str | Path, key: Any, key_class: str | None = None,
                          element_class: str = "Text") -> Any:
        """``MapFile.Reader.get(key)``: the value's JSON, or None when the key is absent.

        ``key`` is a Python value converted with the file's key class (or ``key_class``). A present
        NullWritable value is indistinguishable from absence here; use :meth:`map_file_lookup` for that.
        """
        found, value = self.map_file_lookup(dirpath, key, key_class, element_class)
        return value if found else None

    def map_file_lookup(self, dirpath: str | Path, key: Any, key_class: str | None = None,
                        element_class: str = "Text") -> tuple[bool, Any]:
        """``MapFile.Reader.get(key)`` as (found, value JSON or None)."""
        mf = self.jvm.org.apache.hadoop.io.MapFile
        with self._lock:
            reader = mf.Reader(self.path(dirpath), self.conf, self.gateway.new_array(
                self.jvm.org.apache.hadoop.io.SequenceFile.Reader.Option, 0))
            try:
                cls = key_class or reader.getKeyClass().getName()
                value = self.new_instance(reader.getValueClass().getName(), element_class)
                got = reader.get(self.to_writable(cls, key), value)
                return (True, self.to_json(value)) if got is not None else (False, None)
            finally:
                reader.close()

    def read_map_file(self, dirpath: str | Path, element_class: str = "Text") -> list[tuple[Any, Any]]:
        """Every (key JSON, value JSON) of a MapFile in order, read with ``MapFile.Reader.next``."""
        mf = self.jvm.org.apache.hadoop.io.MapFile
        with self._lock:
            reader = mf.Reader(self.path(dirpath), self.conf, self.gateway.new_array(
                self.jvm.org.apache.hadoop.io.SequenceFile.Reader.Option, 0))
            try:
                key = self.new_instance(reader.getKeyClass().getName(), element_class)
                value = self.new_instance(reader.getValueClass().getName(), element_class)
                records = []
                while reader.next(key, value):
                    records.append((self.to_json(key), self.to_json(value)))
                return records
            finally:
                reader.close()

    def read_array_file(self, dirpath: str | Path, element_class: str = "Text") -> list[Any]:
        """Every value JSON of an ArrayFile in order, read with ``ArrayFile.Reader.next``."""
        af = self.jvm.org.apache.hadoop.io.ArrayFile
        with self._lock:
            reader = af.Reader(self.raw_local_fs(), str(Path(dirpath).resolve()), self.conf)
            try:
                value = self.new_instance(reader.getValueClass().getName(), element_class)
                values = []
                while reader.next(value) is not None:
                    values.append(self.to_json(value))
                return values
            finally:
                reader.close()

    # --- codecs -----------------------------------------------------------------------------------------------

    def codec_problem(self, codec: str) -> str | None:
        """None when ``codec`` round-trips a small RECORD and a BLOCK file in this JVM, else why not (one line)."""
        records = [("a", "x" * 100), ("b", "")]
        for compression in ("RECORD", "BLOCK"):
            path = Path(self._tmp, f"probe-{codec}-{compression}.seq")
            try:
                self.write_sequence_file(path, "Text", "Text", records, compression, codec)
                if self.read_sequence_file(path) != records:
                    return f"{codec} {compression}: records read back differ"
            except Exception as exc:  # noqa: BLE001 - any JVM failure means "does not work here"
                return f"{codec} {compression}: {_first_line(exc)}"
            finally:
                path.unlink(missing_ok=True)
        return None

    def working_codecs(self) -> dict[str, str | None]:
        """Each of :data:`CODECS` → None if it works here, else the reason it does not."""
        return {codec: self.codec_problem(codec) for codec in CODECS}

    # --- Java compiled in the JVM (no javac needed) -----------------------------------------------------------

    def compile_java(self, source: str, class_name: str) -> Any:
        """Compile ``source`` with Janino (shipped with Spark) inside the JVM; a new instance of ``class_name``.

        The class must be public with a public no-argument constructor; py4j calls its public methods.
        Janino accepts Java without generics' type checking, lambdas or ``var``.
        """
        compiler = self.jvm.org.codehaus.janino.SimpleCompiler()
        compiler.setParentClassLoader(self.conf.getClassLoader())
        compiler.cook(source)
        cls = compiler.getClassLoader().loadClass(class_name)
        no_types = self.gateway.new_array(self.jvm.java.lang.Class, 0)
        no_args = self.gateway.new_array(self.jvm.java.lang.Object, 0)
        return cls.getDeclaredConstructor(no_types).newInstance(no_args)


def _json_key(key: Any) -> str:
    import json

    return json.dumps(key, sort_keys=True, ensure_ascii=False)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    for line in text.splitlines():
        line = line.strip().lstrip(": ")
        if line and not line.startswith("An error occurred while calling"):
            return line[:300]
    return type(exc).__name__


# --- one shared JVM -------------------------------------------------------------------------------------------

_shared: HadoopJvm | None = None
_shared_lock = threading.Lock()


def shared_jvm() -> HadoopJvm:
    """The process-wide :class:`HadoopJvm`, started on first call (raises RuntimeError when it cannot)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = HadoopJvm(log_path=os.environ.get("GOSSAMER_HADOOP_JVM_LOG"))
        return _shared


def stop_shared_jvm() -> None:
    """Stop the process-wide JVM if one was started."""
    global _shared
    with _shared_lock:
        if _shared is not None:
            _shared.close()
            _shared = None


atexit.register(stop_shared_jvm)  # its JVM and scratch directory go with the process


def write_sequence_file(path: str | Path, key_class: str, value_class: str, records: Iterable[tuple[Any, Any]],
                        compression: str = "NONE", codec: str | None = None,
                        metadata: Mapping[str, str] | None = None, **kwargs: Any) -> None:
    """:meth:`HadoopJvm.write_sequence_file` on the shared JVM."""
    shared_jvm().write_sequence_file(path, key_class, value_class, records, compression, codec, metadata, **kwargs)


def write_map_file(dirpath: str | Path, key_class: str, value_class: str, records: Iterable[tuple[Any, Any]],
                   compression: str = "NONE", codec: str | None = None, index_interval: int | None = None) -> None:
    """:meth:`HadoopJvm.write_map_file` on the shared JVM."""
    shared_jvm().write_map_file(dirpath, key_class, value_class, records, compression, codec, index_interval)


def write_array_file(dirpath: str | Path, value_class: str, values: Iterable[Any]) -> None:
    """:meth:`HadoopJvm.write_array_file` on the shared JVM."""
    shared_jvm().write_array_file(dirpath, value_class, values)


def read_sequence_file(path: str | Path) -> list[tuple[Any, Any]]:
    """:meth:`HadoopJvm.read_sequence_file` on the shared JVM."""
    return shared_jvm().read_sequence_file(path)


def sequence_file_header(path: str | Path) -> dict[str, Any]:
    """:meth:`HadoopJvm.sequence_file_header` on the shared JVM."""
    return shared_jvm().sequence_file_header(path)


def read_map_file_get(dirpath: str | Path, key: Any) -> Any:
    """:meth:`HadoopJvm.read_map_file_get` on the shared JVM."""
    return shared_jvm().read_map_file_get(dirpath, key)


def read_array_file(dirpath: str | Path) -> list[Any]:
    """:meth:`HadoopJvm.read_array_file` on the shared JVM."""
    return shared_jvm().read_array_file(dirpath)


# --- the facts a committed vector's JSON holds ----------------------------------------------------------------


def sequence_file_facts(jvm: HadoopJvm, path: str | Path, element_class: str = "Text",
                        typed: bool = False) -> dict[str, Any]:
    """Header, sync-seen indices and records (``[key, value]`` lists) of one SequenceFile, as Hadoop reads it;
    with ``typed`` also ``typed_records`` (:meth:`HadoopJvm.typed_json`)."""
    contents = jvm.describe_sequence_file(path, element_class)
    facts: dict[str, Any] = {"header": contents.header, "sync_before": contents.sync_before,
                             "records": [[key, value] for key, value in contents.records]}
    if typed:
        facts["typed_records"] = [[k, v] for k, v in jvm.describe_sequence_file(path, element_class, True).records]
    return facts


def vector_facts(jvm: HadoopJvm, path: str | Path, element_class: str = "Text", typed: bool = False,
                 lookups: Iterable[Any] = ()) -> dict[str, Any]:
    """Everything Hadoop's readers say about a vector: a SequenceFile's :func:`sequence_file_facts`, or for a
    MapFile/ArrayFile directory the facts of ``data`` and ``index`` plus ``lookups``: ``[key, found, value]``
    for each key, from ``MapFile.Reader.get``."""
    path = Path(path)
    if not path.is_dir():
        return {"kind": "SequenceFile", **sequence_file_facts(jvm, path, element_class, typed)}
    facts: dict[str, Any] = {
        "kind": "MapFile",
        "data": sequence_file_facts(jvm, path / "data", element_class, typed),
        "index": sequence_file_facts(jvm, path / "index", element_class),
        "lookups": [[key, *jvm.map_file_lookup(path, key, element_class=element_class)] for key in lookups],
    }
    if facts["data"]["header"]["key_class"] == HADOOP_IO + "LongWritable":
        facts["array_values"] = jvm.read_array_file(path, element_class)
    return facts
