"""The client side of a search node: :class:`RemoteNode`, a search backend over HTTP.

A :class:`RemoteNode` speaks the protocol of :mod:`gossamer.search.node_server`
with JSON bodies over persistent HTTP/1.1 connections — one per calling thread
(the broker calls its backends from a thread pool), from the standard
library's :mod:`http.client` (response parsing), each request written at once
with ``TCP_NODELAY`` so it travels as one packet.

Failures: a connection error, a timeout (``timeout`` seconds per socket
operation) or a 5xx answer raises :class:`NodeUnavailable`; a query the node
rejects as bad syntax re-raises :class:`~gossamer.search.query_parse.QuerySyntaxError`
(so the broker reports a bad query, not a node failure); any other refusal —
409 "the index changed since the search", a malformed answer — raises
:class:`NodeError`.  Every message names the node's address.  A reused
connection the node has closed meanwhile is retried once on a fresh one (all
calls are read-only, so repeating one is harmless).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gossamer.search.backend import Candidate, HitDetails, SearchPage
from gossamer.search.query_parse import QuerySyntaxError
from gossamer.search.scoring import Stats

_STALE = (http.client.RemoteDisconnected, http.client.IncompleteRead, ConnectionResetError,
          ConnectionAbortedError, BrokenPipeError)
"""Errors of a kept-alive connection the node closed; worth one retry on a new connection."""


class NodeError(RuntimeError):
    """A search node answered, but not usefully (409 generation changed, a malformed answer …)."""


class NodeUnavailable(NodeError):
    """A search node cannot be reached, did not answer in time, or failed (5xx)."""


@dataclass
class RemoteCandidate(Candidate):
    """A candidate from a search node, carrying the index generation it was found in."""

    generation: str = ""


class _Connection:
    """One kept-alive HTTP/1.1 connection: a request goes out in a single write (``TCP_NODELAY``).

    Responses are parsed by :class:`http.client.HTTPResponse`; the connection
    opens on first use.
    """

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.sock: socket.socket | None = None
        self.host_header = (f"[{host}]" if ":" in host else host) + f":{port}"

    def exchange(self, method: str, path: str, body: bytes) -> tuple[int, bytes, bool]:
        """Send one request; (status, body, whether the server closes the connection after it)."""
        if self.sock is None:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host_header}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        self.sock.sendall(head.encode("ascii") + body)
        response = http.client.HTTPResponse(self.sock, method=method)
        try:
            response.begin()
            data = response.read()
        finally:
            response.close()
        return response.status, data, bool(response.will_close)

    def close(self) -> None:
        """Close the socket (the next exchange reconnects)."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def parse_address(address: str) -> tuple[str, int]:
    """``host:port``, ``[v6]:port`` or ``http://host:port`` → (host, port); ``ValueError`` otherwise."""
    text = address.strip()
    parts = urlsplit(text if "://" in text else f"http://{text}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "http" or not parts.hostname or port is None or parts.path not in ("", "/"):
        raise ValueError(f"bad search node address {address!r} (expected host:port)")
    return parts.hostname, port


class RemoteNode:
    """A search node at ``address`` (``host:port``) as a :class:`~gossamer.search.backend.SearchBackend`."""

    def __init__(self, address: str, timeout: float) -> None:
        self.address = address
        self.host, self.port = parse_address(address)
        self.timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: weakref.WeakSet[_Connection] = weakref.WeakSet()

    def __repr__(self) -> str:
        return f"RemoteNode({self.address!r})"

    def close(self) -> None:
        """Close every connection (of every thread); later calls open new ones."""
        with self._lock:
            connections = list(self._open)
        for connection in connections:
            connection.close()

    def _connection(self) -> tuple[_Connection, bool]:
        """The calling thread's connection, and whether it served a request before."""
        connection: _Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            return connection, True
        connection = _Connection(self.host, self.port, self.timeout)
        self._local.connection = connection
        with self._lock:
            self._open.add(connection)
        return connection, False

    def _drop(self) -> None:
        connection: _Connection | None = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            connection.close()
            with self._lock:
                self._open.discard(connection)

    def _exchange(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        for attempt in range(2):
            connection, reused = self._connection()
            try:
                status, data, closing = connection.exchange(method, path, body)
            except _STALE as exc:
                self._drop()
                if reused and attempt == 0:
                    continue
                raise NodeUnavailable(f"search node {self.address}: connection lost ({exc or type(exc).__name__})") \
                    from None
            except TimeoutError:
                self._drop()
                raise NodeUnavailable(f"search node {self.address}: no answer within {self.timeout:g} s") from None
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                raise NodeUnavailable(f"search node {self.address}: {reason}") from None
            if closing:
                self._drop()
            return status, data
        raise AssertionError("unreachable")

    def _call(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        """One request; the decoded JSON answer, or the exception the module docstring lists."""
        body = json.dumps(payload, separators=(",", ":")).encode() if payload is not None else b""
        status, data = self._exchange("POST" if payload is not None else "GET", path, body)
        try:
            answer = json.loads(data) if data else None
        except ValueError:
            answer = None
            if status == 200:
                raise NodeError(f"search node {self.address}{path}: answer is not JSON") from None
        if status == 200:
            return answer
        error = answer if isinstance(answer, dict) else {}
        message = str(error.get("error") or data[:200].decode("utf-8", "replace") or f"HTTP {status}")
        if status == 400 and error.get("kind") == "syntax":
            position = error.get("position")
            raise QuerySyntaxError(str(error.get("message") or message),
                                   position if isinstance(position, int) else None)
        if status >= 500:
            raise NodeUnavailable(f"search node {self.address}{path}: HTTP {status}: {message}")
        raise NodeError(f"search node {self.address}{path}: HTTP {status}: {message}")

    def health(self) -> dict[str, Any]:
        """``GET /health``: ``{"shards", "docs", "generation"}``."""
        return dict(self._call("/health"))

    def stats(self, text: str) -> Stats:
        """Statistics of the query's terms on the node's shards."""
        return Stats.from_json(self._call("/stats", {"q": text}))

    def search(self, text: str, want: int, per_site: int, stats: Stats, semantic: int = 0) -> SearchPage:
        """The node's best ``want`` candidates, scored with ``stats`` (and its ``semantic`` nearest pages)."""
        payload = {"q": text, "want": want, "per_site": per_site, "stats": stats.to_json()}
        if semantic > 0:
            payload["semantic"] = semantic
        answer = self._call("/search", payload)
        try:
            generation = str(answer["generation"])

            def candidates(key: str) -> list[Candidate]:
                return [RemoteCandidate(*Candidate.from_json(c).to_json(), generation=generation)
                        for c in answer.get(key) or ()]

            return SearchPage(candidates("candidates"), int(answer["total"]), generation, candidates("neighbours"))
        except (KeyError, TypeError, ValueError) as exc:
            raise NodeError(f"search node {self.address}/search: malformed answer ({exc})") from None

    def details(self, candidates: Sequence[Candidate], text: str) -> list[HitDetails]:
        """Details of candidates this node returned (``NodeError`` if its index changed since)."""
        generations = {c.generation for c in candidates if isinstance(c, RemoteCandidate)}
        if len(generations) > 1:
            raise NodeError(f"search node {self.address}: candidates from different index generations")
        answer = self._call("/details", {"q": text, "candidates": [c.to_json() for c in candidates],
                                         "generation": generations.pop() if generations else None})
        try:
            details = [HitDetails.from_json(d) for d in answer]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise NodeError(f"search node {self.address}/details: malformed answer ({exc})") from None
        if len(details) != len(candidates):
            raise NodeError(f"search node {self.address}/details: {len(details)} answers for "
                            f"{len(candidates)} candidates")
        return details

    def explain(self, url: str, text: str, stats: Stats) -> dict[str, Any] | None:
        """The score explanation of ``url`` on this node (``None`` when the page is not here)."""
        answer = self._call("/explain", {"q": text, "url": url, "stats": stats.to_json()})
        return dict(answer) if answer is not None else None
