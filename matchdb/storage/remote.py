"""A packed database read over HTTP: only the byte ranges a question needs, cached on this machine.

``matchdb.open("https://host/matchdb.zip")`` reads the zip's central directory
and then, like a local packed file, each table's manifest entry and the
chunks a question needs, each with an HTTP range request. Everything fetched
is kept in a local cache (the user's cache folder, ``~/.cache/matchdb`` on
Linux), so a tool builder hosts one static file and clients fetch kilobytes
instead of 224 MB. Nothing is trusted that the file does not prove: every
chunk is checked against the crc32c its table's manifest records, every
small member against its CRC-32, as for a local packed file.

The server must answer range requests with 206 Partial Content. Each request
after the first carries the file's validator (``If-Match`` with its ETag, or
``If-Unmodified-Since``), so a file changed on the server fails with one
sentence instead of mixing old and new bytes; cached pieces are kept per
validator for the same reason.

Nothing a server does can hold a client longer than it allows: each piece
(its redirects, headers and body together) must arrive within a total
deadline, and so must the whole central directory (``$MATCHDB_HTTP_DEADLINE``
seconds, default 30; a watchdog closes the connection when it passes, so a
server that sends one byte a second fails too). Redirects are followed only
to the same origin (scheme, host and port) and only over http or https; a
directory over 32 MB is refused before it is read. Plain ``urllib``: no
dependency beyond Python, proxies from the environment still apply.

>>> HttpFile("http://[::1/x.zip")
Traceback (most recent call last):
...
matchdb.errors.DatabaseError: The database URL 'http://[::1/x.zip' is not a valid address (Invalid IPv6 URL); expected one like https://example.org/matchdb.zip.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from matchdb.errors import CorruptDatabaseError, DatabaseError, DatabaseNotFoundError, MatchdbError
from matchdb.storage.files import is_url, write_atomically

if TYPE_CHECKING:
    from email.message import Message

__all__ = ["HttpFile", "is_url", "http_deadline", "MOST_DIRECTORY_BYTES"]

_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")
#: Most bytes one request may ask for (a whole table's seven chunks are about 150 kB).
_MOST_PER_REQUEST = 8 << 20
#: Most bytes read while parsing the zip's central directory (a full database's is about 300 kB).
MOST_DIRECTORY_BYTES = 32 << 20
_DEADLINE_ENV = "MATCHDB_HTTP_DEADLINE"
_DEFAULT_DEADLINE = 30.0


def http_deadline() -> float:
    """Seconds a piece (or the whole central directory) may take: ``$MATCHDB_HTTP_DEADLINE``, default 30.

    >>> http_deadline()
    30.0
    """
    text = os.environ.get(_DEADLINE_ENV)
    if not text:
        return _DEFAULT_DEADLINE
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 3600:
        raise MatchdbError(f"${_DEADLINE_ENV} is {text!r}; expected seconds, more than 0 and at most 3600.")
    return value


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def _default_cache() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("matchdb") / "remote"


class _Watch:
    """The connections of one request, closed by a timer when the request's total deadline passes.

    Each connection's socket is kept from the moment it connects: urllib hands the socket over to the response
    once the headers have arrived (the connection's own ``sock`` is then None), and a body trickled a byte at a
    time must still be cut off when the deadline passes.
    """

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def connection(self, kind: type[http.client.HTTPConnection]) -> Any:
        """A factory of ``kind`` connections (what urllib's handlers call) whose sockets this watch can close."""

        def make(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
            made = kind(*args, **kwargs)
            connect = made.connect

            def connect_watched() -> None:
                connect()
                with self._lock:
                    self._sockets.append(made.sock)
                    if self.expired:
                        _cut(made.sock)

            made.connect = connect_watched  # type: ignore[method-assign]  # this connection's own, watched
            return made

        return make

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _cut(sock)

    def __enter__(self) -> _Watch:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def _cut(sock: socket.socket | None) -> None:
    """Shut a socket down both ways: a read blocked on it returns at once (closing it would not wake the read)."""
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class _HttpHandler(urllib.request.HTTPHandler):
    def __init__(self, watch: _Watch) -> None:
        super().__init__()
        self._watch = watch

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._watch.connection(http.client.HTTPConnection), req)


class _HttpsHandler(urllib.request.HTTPSHandler):
    def __init__(self, watch: _Watch) -> None:
        super().__init__()
        self._watch = watch

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._watch.connection(http.client.HTTPSConnection), req, context=self._context)  # type: ignore[attr-defined]


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Redirects followed only to the origin first asked (scheme, host, port), so only over http or https."""

    max_redirections = 5

    def __init__(self, url: str) -> None:
        super().__init__()
        self._url = url

    def http_error_302(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any) -> Any:
        newurl = headers.get("location") or headers.get("uri")
        if newurl:
            try:
                self._check(urljoin(req.full_url, newurl))
            except DatabaseError:
                fp.close()  # the redirect's own answer, which urllib closes only when it follows it
                raise
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def _check(self, target: str) -> None:
        try:
            allowed = _origin(target) == _origin(self._url)
        except ValueError:
            allowed = False
        if not allowed:
            raise DatabaseError(
                f"The server of '{self._url}' redirects to '{target[:200]}'; "
                "expected the file itself or a redirect on the same scheme, host and port (others are not followed)."
            )


class HttpFile:
    """A file served over HTTP, read by byte ranges through a local cache (what :class:`PackedStore` needs).

    ``timeout`` is the total deadline of each piece, and of the whole central
    directory, in seconds (default :func:`http_deadline`).
    """

    def __init__(self, url: str, cache_dir: str | os.PathLike[str] | None = None, timeout: float | None = None) -> None:
        self.url = self.name = url
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError as error:
            raise DatabaseError(
                f"The database URL '{url}' is not a valid address ({error}); expected one like https://example.org/matchdb.zip."
            ) from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise DatabaseError(
                f"The database URL '{url}' is not a valid address (no host, or not http or https); "
                "expected one like https://example.org/matchdb.zip."
            )
        self.timeout = http_deadline() if timeout is None else float(timeout)
        self.requests = 0
        self.fetched_bytes = 0
        self._validator: dict[str, str] = {}
        status, headers, _ = self._request(0, 0)
        if status != 206:
            raise DatabaseError(
                f"The server of '{url}' ignores HTTP range requests (it answered {status} to a request for one byte); "
                "expected 206 Partial Content: host the file where ranges are served, or download it and open the copy."
            )
        self.size = self._total(headers)
        if headers.get("ETag"):
            self._validator = {"If-Match": headers["ETag"]}
        elif headers.get("Last-Modified"):
            self._validator = {"If-Unmodified-Since": headers["Last-Modified"]}
        version = "|".join([url, str(self.size), *self._validator.values()])
        self._cache = _RangeCache(Path(cache_dir or _default_cache()) / hashlib.sha256(version.encode()).hexdigest()[:24])

    def _get(self, url: str, headers: dict[str, str], most: int, until: float | None) -> tuple[int, Message, bytes]:
        """GET ``url``: (status, headers, at most ``most`` bytes of body), within this file's deadline (and ``until``)."""
        left = self.timeout if until is None else min(self.timeout, until - time.monotonic())
        if left <= 0:
            raise DatabaseError(self._late())
        deadline = time.monotonic() + left
        with _Watch(left) as watch:
            opener = urllib.request.OpenerDirector()
            for handler in (
                urllib.request.ProxyHandler(), _HttpHandler(watch), _HttpsHandler(watch), _SameOrigin(self.url),
                urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor(),
            ):
                opener.add_handler(handler)
            try:
                # the socket's own timeout a little later than the watch, so a stall is reported as one
                with opener.open(urllib.request.Request(url, headers=headers), timeout=left + 1) as response:
                    status, got = response.status, response.headers
                    blocks, size = [], 0
                    while size < most and (block := response.read(min(1 << 16, most - size))):
                        blocks.append(block)
                        size += len(block)
                body = b"".join(blocks)
            except MatchdbError:
                raise
            except urllib.error.HTTPError as error:
                if watch.expired:
                    raise DatabaseError(self._late()) from None
                raise self._http_error(error.code, error.reason) from None
            except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as error:
                if watch.expired or time.monotonic() >= deadline:
                    raise DatabaseError(self._late()) from None
                reason = getattr(error, "reason", None) or str(error) or type(error).__name__
                raise DatabaseError(f"The database at '{self.url}' cannot be reached ({reason}).") from None
        if watch.expired:
            raise DatabaseError(self._late())
        return status, got, body

    def _late(self) -> str:
        return (
            f"The server of '{self.url}' did not send what was asked within {self.timeout:g} s (the total deadline "
            f"of each request and of the directory, ${_DEADLINE_ENV}); it is too slow or stalls."
        )

    def _http_error(self, code: int, reason: object) -> DatabaseError:
        if code == 404:
            return DatabaseNotFoundError(f"No database at '{self.url}' (HTTP 404).")
        if code in (412, 416):
            return DatabaseError(f"The file at '{self.url}' changed since it was opened (HTTP {code}); open it again.")
        return DatabaseError(f"The server of '{self.url}' answered HTTP {code} ({reason}).")

    def _request(self, start: int, end: int, until: float | None = None) -> tuple[int, Message, bytes]:
        """GET bytes ``start..end`` (inclusive): (status, headers, body); one-sentence errors."""
        status, headers, body = self._get(self.url, {"Range": f"bytes={start}-{end}", **self._validator}, end - start + 1, until)
        if status != 206:
            body = b""
        self.requests += 1
        self.fetched_bytes += len(body)
        if status == 206:
            got = _CONTENT_RANGE.fullmatch(headers.get("Content-Range", ""))
            if got is None or (int(got[1]), int(got[2])) != (start, end) or len(body) != end - start + 1:
                raise CorruptDatabaseError(
                    f"The server of '{self.url}' sent other bytes than asked for ({start}-{end}); the file may be truncated."
                )
            if hasattr(self, "size") and int(got[3]) != self.size:
                raise DatabaseError(f"The file at '{self.url}' changed since it was opened (its size differs); open it again.")
        return status, headers, body

    def _total(self, headers: Message) -> int:
        got = _CONTENT_RANGE.fullmatch(headers.get("Content-Range", ""))
        if got is None:
            raise CorruptDatabaseError(f"The server of '{self.url}' did not say the file's size (no Content-Range).")
        return int(got[3])

    def pread(self, length: int, offset: int, until: float | None = None) -> bytes:
        """Up to ``length`` bytes from ``offset`` (fewer at the end of the file), from the cache or the server.

        Each request must finish within the file's deadline, and all of them before ``until`` (a monotonic time) when given.
        """
        length = max(0, min(length, self.size - offset))
        if length == 0:
            return b""
        if length > _MOST_PER_REQUEST:
            return b"".join(
                self.pread(min(_MOST_PER_REQUEST, offset + length - o), o, until)
                for o in range(offset, offset + length, _MOST_PER_REQUEST)
            )
        cached = self._cache.get(offset, length)
        if cached is not None:
            return cached
        _, _, data = self._request(offset, offset + length - 1, until)
        self._cache.put(offset, data)
        return data

    def read_ranges(self, start: int, ranges: Sequence[tuple[int, int]], where: str) -> list[bytes]:
        """(offset, nbytes) ranges from ``start``: one request covering them all (a table's chunks lie side by side)."""
        if not ranges:
            return []
        low = min(offset for offset, _ in ranges)
        high = max(offset + nbytes for offset, nbytes in ranges)
        block = self.pread(high - low, start + low)
        return [block[offset - low : offset - low + nbytes] for offset, nbytes in ranges]

    def zip_file(self) -> io.BufferedReader:
        """A seekable file object over the remote file, for :mod:`zipfile` to parse the central directory.

        Everything read through it must arrive within one deadline, and be at most :data:`MOST_DIRECTORY_BYTES`.
        """
        return io.BufferedReader(_RawHttp(self, time.monotonic() + self.timeout), buffer_size=1 << 16)

    def checksum_beside(self) -> str | None:
        """The text of ``FILE.sha256`` served beside the file, or None (also when it is not there in time)."""
        try:
            status, _, body = self._get(self.url + ".sha256", {}, 4096, None)
        except DatabaseError:
            return None
        return body.decode(errors="replace") if status == 200 else None

    def sha256(self, start: int = 0, length: int | None = None) -> str:
        """SHA-256 of a range of the remote file (fetching it through the cache)."""
        length = self.size - start if length is None else length
        digest = hashlib.sha256()
        for offset in range(start, start + length, 1 << 20):
            digest.update(self.pread(min(1 << 20, start + length - offset), offset))
        return digest.hexdigest()


class _RangeCache:
    """Byte ranges of one version of a remote file, kept in a sparse local file with the list of ranges held.

    Any range inside what was fetched before is read locally, whatever pieces
    it was fetched in. A cache that cannot be written only costs later
    fetches; two processes filling it at once write the same bytes.
    """

    def __init__(self, folder: Path) -> None:
        self._data = folder / "data"
        self._index = folder / "ranges.json"
        self._ranges: list[list[int]] = []  # merged [start, end) ranges, sorted
        with contextlib.suppress(OSError, ValueError, TypeError):
            self._ranges = [[int(a), int(b)] for a, b in json.loads(self._index.read_text())]

    def get(self, offset: int, length: int) -> bytes | None:
        if not any(a <= offset and offset + length <= b for a, b in self._ranges):
            return None
        try:
            with open(self._data, "rb") as handle:
                data = os.pread(handle.fileno(), length, offset)
        except OSError:
            return None
        return data if len(data) == length else None

    def put(self, offset: int, data: bytes) -> None:
        try:
            self._data.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._data, os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                os.pwrite(fd, data, offset)
            finally:
                os.close(fd)
            merged: list[list[int]] = []
            for a, b in sorted(self._ranges + [[offset, offset + len(data)]]):
                if merged and a <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], b)
                else:
                    merged.append([a, b])
            self._ranges = merged
            write_atomically(self._index, json.dumps(merged).encode())
        except OSError:
            pass


class _RawHttp(io.RawIOBase):
    def __init__(self, remote: HttpFile, until: float) -> None:
        self._remote = remote
        self._position = 0
        self._until = until
        self._read = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._remote.size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        self._read += len(buffer)
        if self._read > MOST_DIRECTORY_BYTES:
            raise CorruptDatabaseError(
                f"The zip directory of '{self._remote.url}' is over {MOST_DIRECTORY_BYTES >> 20} MB; "
                "expected a file written by 'matchdb pack' (about 300 kB of directory)."
            )
        data = self._remote.pread(len(buffer), self._position, self._until)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)
