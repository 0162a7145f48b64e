"""Storage: the database on disk, as a folder or one packed file, behind one small protocol.

Modules, each with one job:

- :mod:`~matchdb.storage.layout`: format constants, member names, attribute and manifest checks;
- :mod:`~matchdb.storage.files`: small files read safely, atomic writes, temporary-file cleanup;
- :mod:`~matchdb.storage.digests`: SHA-256 of files, ranges, tables;
- :mod:`~matchdb.storage.shards`: a table's shard bytes, and the reader that decodes its chunks;
- :mod:`~matchdb.storage.writer`: creating a store and writing tables (what a build calls);
- :mod:`~matchdb.storage.folder` and :mod:`~matchdb.storage.packed`: the two kinds of database;
- :mod:`~matchdb.storage.derived`: data computed from the tables, bound to them by digests.

:func:`open_database` returns a :class:`Database`. Nothing here knows about
queries, building or packing; the layers above call in, never the reverse.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol

from matchdb.errors import DatabaseError, DatabaseNotFoundError, MatchdbError
from matchdb.storage.layout import CHUNK_ROWS, FORMAT_VERSION, N_CHUNKS, default_path
from matchdb.storage.shards import Location, ShardReader

__all__ = [
    "Database",
    "Location",
    "ShardReader",
    "open_database",
    "default_path",
    "CHUNK_ROWS",
    "N_CHUNKS",
    "FORMAT_VERSION",
]


class Database(Protocol):
    """What a database offers the layers above, whichever container holds it."""

    name: str  #: the path as given, for messages
    packed: bool  #: True for a packed file
    attrs: dict[str, Any]  #: the group attributes (format, codec, provenance), checked

    def built(self) -> list[int]:
        """Indices of the finished tables, ascending."""

    def manifest(self, index: int) -> dict[str, Any] | None:
        """Table ``index``'s manifest entry, checked to name it; None when the table is not built."""

    def locate(self, index: int) -> Location | None:
        """Where table ``index``'s shard lies and its chunks' byte ranges and crc32c; None when not built."""

    def read_ranges(self, location: Location, ranges: list[tuple[int, int]], where: str) -> list[bytes]:
        """The bytes of (offset, nbytes) ranges of a located shard (checked by the caller)."""

    def build_hint(self, index: int) -> str:
        """How to add a missing table, for messages."""

    def read_member(self, name: str) -> bytes | None:
        """A small member's bytes, checked; None when absent."""

    def write_member(self, name: str, data: bytes) -> bool:
        """Store a small member atomically; False when the container cannot be written."""

    def members_under(self, folder: str) -> list[str]:
        """Member names under one folder."""

    def integrity_problems(self) -> list[str]:
        """Problems with the container's own checksums."""

    def zarr_store(self) -> Any:
        """A read-only zarr store over the same data."""


def open_database(path: str | os.PathLike[str]) -> Database:
    """The store folder, packed file or packed file's URL at ``path``, checked for format and version.

    >>> open_database(123)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The database path 123 is not a path; expected a store folder, a packed file or its URL.
    """
    if not isinstance(path, (str, os.PathLike)) or (isinstance(path, str) and not path):
        raise MatchdbError(f"The database path {path!r} is not a path; expected a store folder, a packed file or its URL.")
    from matchdb.storage.files import is_url

    if is_url(path):
        from matchdb.storage.packed import PackedStore
        from matchdb.storage.remote import HttpFile

        return PackedStore(HttpFile(str(path)))

    path = Path(path)
    try:
        is_file = path.is_file()
    except OSError as error:
        raise DatabaseError(f"The database path '{path}' cannot be read ({error.strerror}).") from None
    if is_file:
        from matchdb.storage.packed import PackedStore

        return PackedStore(path)
    if path.exists() and not path.is_dir():
        raise DatabaseNotFoundError(f"The path '{path}' is not a matchdb database; expected a store folder or a packed file.")
    from matchdb.storage.folder import FolderStore

    return FolderStore(path)
