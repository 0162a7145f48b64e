"""Shards: writing one table's shard, and reading its inner chunks straight from the file.

A shard is what zarr's sharding codec writes for one table: 7 zstd frames of
168 rows each (little-endian uint16, zstd level 10 with a content checksum),
then the shard index, (offset, nbytes) as uint64 per chunk and a crc32c.
:func:`encode_shard` writes exactly those bytes (plain zarr reads them), and
returns what the manifest records of each chunk: its byte range and crc32c.

Reading goes around zarr's indexing (1-2.5 ms a row): :class:`ShardReader`
reads only the chunks a question needs, by the byte ranges the table's
manifest entry records, and checks each one's crc32c before decoding it. A
chunk of any other table, or a damaged one, fails that check, so every byte
decoded is proven to belong to the table asked for; the zstd frame must then
declare exactly a chunk's size, and its content checksum must hold.

>>> import numpy as np
>>> table = np.arange(1176 * 1176, dtype=np.uint16).reshape(1176, 1176)
>>> data, chunks = encode_shard(table)
>>> len(chunks), chunks[0][0], len(data) == chunks[-1][0] + chunks[-1][1] + SHARD_INDEX_BYTES
(7, 0, True)
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Sequence
from typing import Any, NamedTuple

import google_crc32c
import numpy as np
import zstandard

from matchdb.core.canonical import CANONICAL_FLOPS
from matchdb.core.cards import format_cards
from matchdb.core.pairs import N_PAIRS
from matchdb.errors import CorruptDatabaseError, DatabaseError, IncompleteDatabaseError
from matchdb.storage.layout import (
    CHUNK_BYTES,
    CHUNK_ROWS,
    MAX_SHARD_BYTES,
    N_CHUNKS,
    SHARD_INDEX_BYTES,
    ZSTD_LEVEL,
    about_table,
    check_manifest,
)

__all__ = [
    "Location",
    "make_location",
    "read_file_ranges",
    "encode_shard",
    "parse_shard_index",
    "frame_content_size",
    "decode_chunk_into",
    "ShardReader",
]

_INDEX_LAYOUT = struct.Struct(f"<{2 * N_CHUNKS}QI")  # (offset, nbytes) per chunk, then the crc32c
_EMPTY = 2**64 - 1  # zarr's mark of a chunk that is not written
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class Location(NamedTuple):
    """Where a table's shard lies, and the byte range and crc32c of each of its chunks (from the manifest)."""

    path: str
    start: int
    length: int
    chunks: tuple[tuple[int, int, int], ...]


def make_location(path: str, start: int, length: int, entry: dict[str, Any], index: int, where: str) -> Location:
    """A table's :class:`Location` from its manifest entry, after checking the entry names ``index`` and fits the shard."""
    chunks = check_manifest(entry, index, where)
    if length > MAX_SHARD_BYTES:
        raise CorruptDatabaseError(
            f"The shard of table {index} in '{where}' is {length:,} bytes; a shard is at most {MAX_SHARD_BYTES:,}: "
            "the store is damaged, nothing of it was read."
        )
    if length != entry.get("shard_bytes") or any(o + n > length - SHARD_INDEX_BYTES for o, n, _ in chunks):
        raise CorruptDatabaseError(
            f"The shard of table {index} in '{where}' is {length} bytes; its manifest records "
            f"{entry.get('shard_bytes')!r}: the store is damaged or the shard belongs to another table."
        )
    return Location(path, start, length, chunks)


def encode_shard(table: np.ndarray) -> tuple[bytes, list[tuple[int, int, int]]]:
    """The shard bytes of one (1176, 1176) uint16 table, and (offset, nbytes, crc32c) of each chunk."""
    from numcodecs import (
        Zstd,  # zarr's own codec, so the frames are byte for byte what zarr writes
    )

    codec = Zstd(level=ZSTD_LEVEL, checksum=True)
    rows = np.ascontiguousarray(table, dtype="<u2").reshape(N_CHUNKS, CHUNK_ROWS, N_PAIRS)
    frames = [codec.encode(block) for block in rows]
    chunks = []
    offset = 0
    for frame in frames:
        chunks.append((offset, len(frame), google_crc32c.value(frame)))
        offset += len(frame)
    index = struct.pack(f"<{2 * N_CHUNKS}Q", *(value for o, n, _ in chunks for value in (o, n)))
    return b"".join(frames) + index + struct.pack("<I", google_crc32c.value(index)), chunks


def parse_shard_index(tail: bytes, where: str) -> tuple[tuple[int, int], ...]:
    """(offset, nbytes) of each chunk from the index at a shard's end (zarr v3 sharding, crc32c-checked)."""
    if len(tail) != SHARD_INDEX_BYTES:
        raise CorruptDatabaseError(f"The shard {where} is truncated; expected an index of {SHARD_INDEX_BYTES} bytes.")
    *pairs, crc = _INDEX_LAYOUT.unpack(tail)
    if google_crc32c.value(tail[:-4]) != crc:
        raise CorruptDatabaseError(f"The shard {where} has a damaged index (crc32c mismatch); rebuild or re-verify it.")
    if _EMPTY in pairs:
        raise CorruptDatabaseError(f"The shard {where} lacks inner chunks; expected all {N_CHUNKS}.")
    return tuple(zip(pairs[0::2], pairs[1::2], strict=True))


def frame_content_size(frame: bytes) -> int:
    """The decoded size a zstd frame declares in its header (RFC 8878, 3.1.1.1), or -1 when it does not say.

    >>> frame_content_size(zstandard.ZstdCompressor().compress(bytes(1000)))
    1000
    """
    if len(frame) < 6 or frame[:4] != _ZSTD_MAGIC:
        return -1
    descriptor = frame[4]
    single_segment = (descriptor >> 5) & 1
    width = (single_segment, 2, 4, 8)[descriptor >> 6]
    start = 5 + (1 - single_segment) + (0, 1, 2, 4)[descriptor & 3]  # after the window and dictionary fields
    if width == 0 or len(frame) < start + width:
        return -1
    size = int.from_bytes(frame[start : start + width], "little")
    return size + 256 if width == 2 else size


def decode_chunk_into(data: bytes, out: np.ndarray, where: str) -> None:
    """Decode one inner chunk into ``out`` (168 x 1176 uint16, contiguous), checking its size and zstd checksum.

    The size is checked before decoding: a frame declaring fewer bytes would
    leave part of ``out`` as it was, and ``out`` may hold another table's rows.
    """
    size = frame_content_size(data)
    if size != CHUNK_BYTES:
        raise CorruptDatabaseError(f"The chunk {where} declares {size} bytes; expected a zstd frame of {CHUNK_BYTES}.")
    try:
        # python-zstandard, not numcodecs, on the read path: as fast, and it imports in
        # 1 ms where numcodecs takes 45 ms (a third of a one-shot query's budget).
        # A fresh decompressor per chunk (a few microseconds) keeps threads apart.
        reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        decoded = reader.readinto(memoryview(out).cast("B"))  # type: ignore[arg-type]  # an ndarray is a buffer
        after = reader.read(1)  # anything after the frame: another frame's bytes, or an error
    except zstandard.ZstdError as error:  # a bad frame or checksum
        raise CorruptDatabaseError(f"The chunk {where} cannot be decoded ({error}); the database is damaged.") from None
    if decoded != CHUNK_BYTES or after:
        raise CorruptDatabaseError(
            f"The chunk {where} decodes to {decoded + len(after)}{'+' if after else ''} bytes; "
            f"expected one zstd frame of {CHUNK_BYTES}: the database is damaged."
        )


def read_file_ranges(path: str, start: int, ranges: Sequence[tuple[int, int]], where: str) -> list[bytes]:
    """The bytes of (offset, nbytes) ranges of a local file, offsets counted from ``start``.

    The file is opened without blocking and must be a regular file: a FIFO or
    a device put in a shard's place fails at once instead of hanging.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise DatabaseError(f"The shard {where} cannot be opened ({error.strerror}).") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CorruptDatabaseError(f"The shard {where} is not a regular file; expected the table's shard.")
        return [os.pread(fd, nbytes, start + offset) for offset, nbytes in ranges]
    except OSError as error:
        raise DatabaseError(f"The shard {where} cannot be read ({error.strerror}).") from None
    finally:
        os.close(fd)


def _check_buffer(out: np.ndarray, shape: tuple[int, int], what: str) -> None:
    if (
        not isinstance(out, np.ndarray)
        or out.shape != shape
        or out.dtype != np.uint16
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        got = f"{out.shape} {out.dtype}" if isinstance(out, np.ndarray) else repr(type(out).__name__)
        raise DatabaseError(f"A {what} buffer must be a writable contiguous {shape} uint16 array; got {got}.")


class ShardReader:
    """Reads tables' chunks straight from their shards into buffers the caller owns.

    ``database`` is what :func:`matchdb.storage.open_database` returns: its
    ``locate(index)`` gives a table's :class:`Location` (None when the table
    is not built) and ``read_ranges(location, ranges, where)`` the bytes of
    byte ranges of its shard. Every chunk read is checked against the crc32c
    the table's manifest entry records before it is decoded.
    """

    def __init__(self, database: Any) -> None:
        self._database = database
        self._name = database.name

    def locate(self, index: int) -> Location:
        """Where table ``index`` lies; raises when the database lacks it (each error marked as about the table)."""
        with about_table(index):
            location: Location | None = self._database.locate(index)
            if location is None:
                flop = format_cards(CANONICAL_FLOPS[index])
                raise IncompleteDatabaseError(
                    f"The database '{self._name}' lacks table {index} (flop {flop}); {self._database.build_hint(index)}."
                )
        return location

    def decode_chunks(
        self, index: int, chunks: Sequence[int], outs: Sequence[np.ndarray], location: Location | None = None
    ) -> Location:
        """Decode inner chunks of table ``index``, each into the matching (168, 1176) uint16 array of ``outs``.

        Returns the table's location; pass it back to skip locating it again.
        A damaged chunk raises, and its array, like those of the chunks before
        it, may then hold partly decoded rows: callers count an array as
        filled only once this returns.
        """
        for out in outs:
            _check_buffer(out, (CHUNK_ROWS, N_PAIRS), "chunk")
        if location is None:
            location = self.locate(index)
        where = f"of table {index} (flop {format_cards(CANONICAL_FLOPS[index])}) in '{self._name}'"
        ranges = [location.chunks[chunk][:2] for chunk in chunks]
        with about_table(index):
            for chunk, out, data in zip(chunks, outs, self._database.read_ranges(location, ranges, where), strict=True):
                if len(data) != location.chunks[chunk][1] or google_crc32c.value(data) != location.chunks[chunk][2]:
                    raise CorruptDatabaseError(
                        f"The chunk {chunk} {where} does not match the crc32c its manifest records; "
                        "the shard is damaged or belongs to another table."
                    )
                decode_chunk_into(data, out, f"{chunk} {where}")
        return location

    def read_table(self, index: int, out: np.ndarray | None = None) -> np.ndarray:
        """The whole W matrix of table ``index``, decoded into ``out`` when given (reusing memory is faster)."""
        if out is None:
            out = np.empty((N_PAIRS, N_PAIRS), dtype=np.uint16)
        _check_buffer(out, (N_PAIRS, N_PAIRS), "table")
        self.decode_chunks(index, range(N_CHUNKS), list(out.reshape(N_CHUNKS, CHUNK_ROWS, N_PAIRS)))
        return out
