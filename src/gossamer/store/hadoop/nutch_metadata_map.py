"""Nutch's typed ``MapWritable`` metadata ↔ Gossamer's ``dict[str, str]``, without loss.

:func:`map_to_strings` turns a decoded ``MapWritable`` into text keys and values;
:func:`strings_to_map` turns them back into a :class:`WritableMap` that equals the original
and, where Gossamer did not change the dict, serializes to the same bytes.

Rules (``key``/``value`` below are the Writables of one entry):

* a ``Text`` key stays the key; any other key class is written in its text form (below);
* each value in its **text form**: ``Text``/``UTF8`` as is; Int/Long/VInt/VLong as decimal;
  Float as the shortest decimal that reads back to the same float32, Double as Python's
  ``repr``; Boolean ``true``/``false``; Null as ``""``; BytesWritable as base64; MD5Hash as
  hex; ``ProtocolStatus`` as Gossamer's ``_pst_`` text (``moved(12), lastModified=0: URL``)
  when that reads back exactly (no args or one arg), otherwise as JSON
  ``{"code":…,"lastModified":…,"args":[…]}``; any other class (nested MapWritable, a NaN
  with a payload, a third-party Writable) as base64 of its serialized bytes;
* where the Writable classes differ from the **defaults** — Text, except the keys Nutch types
  itself: ``_ngt_`` and ``_variableFetchDelay_`` LongWritable, ``_pst_`` ProtocolStatus,
  ``fixedInterval`` FloatWritable, ``_rs_``, ``_depth_`` and ``_maxdepth_`` IntWritable —
  the classes are recorded in one extra key, :data:`TYPES_KEY` (``_nutch_types_``), as JSON
  ``{"entries": {key: {"k": key class, "v": value class, "raw": true, "kraw": true}},
  "table": [custom class ids in order]}`` (each part only when needed; ``table`` only when
  the map's class table is not simply the order of first use).

So metadata Gossamer wrote itself (``_ngt_`` = ``"1700000000000"``, ``_pst_`` =
``ProtocolStatus.to_text()``) exports with Nutch's own classes and needs no extra key.  A
default-typed value Gossamer wrote that does not parse (``_ngt_`` = ``"soon"``) exports as
``Text``.  A metadata key equal to :data:`TYPES_KEY`, or two entries whose keys have the same
text form, cannot be mapped (:class:`HadoopFormatError`).
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
from typing import Any

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.nutch_status import PROTOCOL_STATUS_CLASS, PROTOCOL_STATUS_NAMES, NutchProtocolStatus
from gossamer.store.hadoop.writable import Typed, WritableRegistry
from gossamer.store.hadoop.writables_basic import HADOOP_IO
from gossamer.store.hadoop.writables_compound import MAP_CLASS_IDS, WritableMap, infer_class

TYPES_KEY = "_nutch_types_"
TEXT = HADOOP_IO + "Text"
_INTS = {HADOOP_IO + name for name in ("IntWritable", "LongWritable", "VIntWritable", "VLongWritable")}
FLOAT, DOUBLE = HADOOP_IO + "FloatWritable", HADOOP_IO + "DoubleWritable"
BOOLEAN, NULL = HADOOP_IO + "BooleanWritable", HADOOP_IO + "NullWritable"
BYTES, MD5 = HADOOP_IO + "BytesWritable", HADOOP_IO + "MD5Hash"
_STRINGS = {TEXT, HADOOP_IO + "UTF8"}

DEFAULT_CLASSES = {
    "_ngt_": HADOOP_IO + "LongWritable",
    "_variableFetchDelay_": HADOOP_IO + "LongWritable",
    "_pst_": PROTOCOL_STATUS_CLASS,
    "fixedInterval": FLOAT,
    "_rs_": HADOOP_IO + "IntWritable",
    "_depth_": HADOOP_IO + "IntWritable",
    "_maxdepth_": HADOOP_IO + "IntWritable",
}
"""Value classes of Nutch's own metadata keys (everything else defaults to ``Text``)."""

_PST_TEXT = re.compile(r"([a-z_]+)\((-?\d+)\), lastModified=(-?\d+)(?:: (.*))?", re.DOTALL)
_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")
_CANONICAL_NAN = {_F32.pack(float("nan")), _F64.pack(float("nan"))}


def protocol_status_text(status: NutchProtocolStatus) -> str:
    """Gossamer's ``_pst_`` text of ``status`` when it reads back exactly, else the JSON form."""
    name = PROTOCOL_STATUS_NAMES.get(status.code, "unknown")
    text = f"{name}({status.code}), lastModified={status.last_modified}"
    if status.args is None:
        return text
    if len(status.args) == 1 and status.args[0] is not None:
        return f"{text}: {status.args[0]}"
    return json.dumps({"code": status.code, "lastModified": status.last_modified, "args": status.args},
                      ensure_ascii=False)


def parse_protocol_status(text: str) -> NutchProtocolStatus:
    """Inverse of :func:`protocol_status_text` (also reads ``ProtocolStatus.to_text()`` of Gossamer)."""
    if text.startswith("{"):
        spec = json.loads(text)
        return NutchProtocolStatus(int(spec["code"]), int(spec["lastModified"]), spec["args"])
    match = _PST_TEXT.fullmatch(text)
    if match is None:
        raise ValueError(f"not a protocol status: {text!r}")
    arg = match.group(4)
    return NutchProtocolStatus(int(match.group(2)), int(match.group(3)), None if arg is None else [arg])


def load_json(text: str, key: str) -> Any:
    """The JSON object stored under a reserved metadata ``key``; :class:`HadoopFormatError` if it is not one."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HadoopFormatError(f"metadata {key!r}: JSON, found {text[:60]!r} ({exc.msg})") from None
    if not isinstance(value, dict):
        raise HadoopFormatError(f"metadata {key!r}: a JSON object, found {text[:60]!r}")
    return value


def _float32_text(value: float) -> str:
    packed = _F32.pack(value)
    for digits in range(1, 10):
        text = repr(float(f"{value:.{digits}g}"))
        if _F32.pack(float(text)) == packed:
            return text
    return repr(value)


def _text_form(java_class: str, value: Any) -> str | None:
    """The text form of a value of ``java_class``, or ``None`` when only the raw (base64) form is exact."""
    if java_class in _STRINGS:
        return value
    if java_class in _INTS:
        return str(value)
    if java_class in (FLOAT, DOUBLE):
        packed = (_F32 if java_class == FLOAT else _F64).pack(value)
        if math.isnan(value) and packed not in _CANONICAL_NAN:
            return None
        return _float32_text(value) if java_class == FLOAT else repr(value)
    if java_class == BOOLEAN:
        return "true" if value else "false"
    if java_class == NULL:
        return ""
    if java_class == BYTES:
        return base64.b64encode(value).decode("ascii")
    if java_class == MD5:
        return bytes(value).hex()
    if java_class == PROTOCOL_STATUS_CLASS:
        return protocol_status_text(value)
    return None


def _from_text(java_class: str, text: str) -> Any:
    """Inverse of :func:`_text_form`; ``ValueError`` when ``text`` is not a value of the class."""
    if java_class in _STRINGS:
        return text
    if java_class in _INTS:
        return int(text)
    if java_class == DOUBLE:
        return float(text)
    if java_class == FLOAT:
        try:
            return _F32.unpack(_F32.pack(float(text)))[0]
        except (OverflowError, struct.error):
            raise ValueError(f"not a float32: {text!r}") from None
    if java_class == BOOLEAN:
        if text not in ("true", "false"):
            raise ValueError(text)
        return text == "true"
    if java_class == NULL:
        if text:
            raise ValueError(text)
        return None
    if java_class == BYTES:
        return base64.b64decode(text, validate=True)
    if java_class == MD5:
        return bytes.fromhex(text)
    if java_class == PROTOCOL_STATUS_CLASS:
        return parse_protocol_status(text)
    raise ValueError(f"{java_class} has no text form")


def _encode(registry: WritableRegistry, java_class: str, value: Any) -> tuple[str, bool]:
    text = _text_form(java_class, value)
    if text is not None:
        return text, False
    return base64.b64encode(registry.get(java_class).serialize(value)).decode("ascii"), True


def _decode(registry: WritableRegistry, java_class: str, text: str, raw: bool) -> Any:
    if raw:
        return registry.get(java_class).deserialize(base64.b64decode(text, validate=True))
    return _from_text(java_class, text)


def map_to_strings(value: dict[Any, Any] | None, registry: WritableRegistry) -> dict[str, str]:
    """A decoded ``MapWritable`` (``None`` = absent) as Gossamer metadata (see the module docstring)."""
    if not value:
        return {}
    known = getattr(value, "classes", {})
    result: dict[str, str] = {}
    entries: dict[str, dict[str, Any]] = {}
    first_use: list[str] = []
    for key, item in value.items():
        key_class, value_class = known.get(key) or (infer_class(key), infer_class(item))
        key, item = (x.value if isinstance(x, Typed) else x for x in (key, item))
        for name in (key_class, value_class):
            if name not in MAP_CLASS_IDS.values() and name not in first_use:
                first_use.append(name)
        text_key, key_raw = _encode(registry, key_class, key)
        if text_key in result or text_key == TYPES_KEY:
            raise HadoopFormatError(f"metadata key {text_key!r} occurs twice or is reserved; it cannot be mapped")
        result[text_key], value_raw = _encode(registry, value_class, item)
        spec: dict[str, Any] = {}
        if key_class != TEXT:
            spec["k"] = key_class
        if value_class != (DEFAULT_CLASSES.get(text_key, TEXT) if key_class == TEXT else TEXT):
            spec["v"] = value_class
        if value_raw:
            spec["raw"] = True
        if key_raw:
            spec["kraw"] = True
        if spec:
            entries[text_key] = spec
    table = list(getattr(value, "custom", []))
    types: dict[str, Any] = {"entries": entries} if entries else {}
    if table and table != first_use:
        types["table"] = table
    if types:
        result[TYPES_KEY] = json.dumps(types, ensure_ascii=False, separators=(",", ":"))
    return result


def strings_to_map(metadata: dict[str, str], registry: WritableRegistry) -> WritableMap | None:
    """Gossamer metadata as a :class:`WritableMap` (``None`` when empty), inverse of :func:`map_to_strings`."""
    types = load_json(metadata[TYPES_KEY], TYPES_KEY) if TYPES_KEY in metadata else {}
    entries = types.get("entries", {})
    result = WritableMap()
    result.custom = list(types.get("table", []))
    for text_key, text in metadata.items():
        if text_key == TYPES_KEY:
            continue
        spec = entries.get(text_key, {})
        key_class = spec.get("k", TEXT)
        value_class = spec.get("v") or (DEFAULT_CLASSES.get(text_key, TEXT) if key_class == TEXT else TEXT)
        try:
            key = _decode(registry, key_class, text_key, spec.get("kraw", False))
            item = _decode(registry, value_class, text, spec.get("raw", False))
        except (ValueError, KeyError, TypeError) as exc:
            if "v" in spec or value_class == TEXT:
                raise HadoopFormatError(f"metadata {text_key!r}: a {value_class} value, found {text!r}") from exc
            key, item, value_class = text_key, text, TEXT
        result[key] = item
        result.classes[key] = (key_class, value_class)
    return result or None
