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
validator for the same reason. Plain ``urllib``: no dependency beyond Python.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from matchdb.errors import CorruptDatabaseError, DatabaseError, DatabaseNotFoundError
from matchdb.storage.files import is_url, write_atomically

__all__ = ["HttpFile", "is_url"]

_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")
#: Most bytes one request may ask for (a whole table's seven chunks are about 150 kB).
_MOST_PER_REQUEST = 64 << 20


def _default_cache() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("matchdb") / "remote"


class HttpFile:
    """A file served over HTTP, read by byte ranges through a local cache (what :class:`PackedStore` needs)."""

    def __init__(self, url: str, cache_dir: str | os.PathLike | None = None, timeout: float = 30.0) -> None:
        self.url = self.name = url
        self.timeout = timeout
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

    def _request(self, start: int, end: int) -> tuple[int, dict, bytes]:
        """GET bytes ``start..end`` (inclusive): (status, headers, body); one-sentence errors."""
        import urllib.error
        import urllib.request

        request = urllib.request.Request(self.url, headers={"Range": f"bytes={start}-{end}", **self._validator})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, headers = response.status, response.headers
                body = response.read(end - start + 1) if status == 206 else b""
        except urllib.error.HTTPError as error:
            if error.code == 404:
                raise DatabaseNotFoundError(f"No database at '{self.url}' (HTTP 404).") from None
            if error.code in (412, 416):
                raise DatabaseError(
                    f"The file at '{self.url}' changed since it was opened (HTTP {error.code}); open it again."
                ) from None
            raise DatabaseError(f"The server of '{self.url}' answered HTTP {error.code} ({error.reason}).") from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or error
            raise DatabaseError(f"The database at '{self.url}' cannot be reached ({reason}).") from None
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

    def _total(self, headers) -> int:
        got = _CONTENT_RANGE.fullmatch(headers.get("Content-Range", ""))
        if got is None:
            raise CorruptDatabaseError(f"The server of '{self.url}' did not say the file's size (no Content-Range).")
        return int(got[3])

    def pread(self, length: int, offset: int) -> bytes:
        """Up to ``length`` bytes from ``offset`` (fewer at the end of the file), from the cache or the server."""
        length = max(0, min(length, self.size - offset))
        if length == 0:
            return b""
        if length > _MOST_PER_REQUEST:
            return b"".join(self.pread(min(_MOST_PER_REQUEST, offset + length - o), o) for o in range(offset, offset + length, _MOST_PER_REQUEST))
        cached = self._cache.get(offset, length)
        if cached is not None:
            return cached
        _, _, data = self._request(offset, offset + length - 1)
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
        """A seekable file object over the remote file, for :mod:`zipfile` to parse the central directory."""
        return io.BufferedReader(_RawHttp(self), buffer_size=1 << 16)

    def checksum_beside(self) -> str | None:
        """The text of ``FILE.sha256`` served beside the file, or None."""
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(self.url + ".sha256", timeout=self.timeout) as response:
                return response.read(4096).decode(errors="replace")
        except (urllib.error.URLError, OSError, ValueError):
            return None

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
        try:
            self._ranges = [[int(a), int(b)] for a, b in json.loads(self._index.read_text())]
        except (OSError, ValueError, TypeError):
            pass

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
    def __init__(self, remote: HttpFile) -> None:
        self._remote = remote
        self._position = 0

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

    def readinto(self, buffer) -> int:
        data = self._remote.pread(len(buffer), self._position)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)
