"""The on-disk layout of a database: format constants, member names and the checks on metadata.

A database is a zarr (format 3) group, as a folder or packed into one zip
file (:mod:`matchdb.db.pack`); both hold the same members::

    zarr.json            group attributes: format name and version, codec, provenance
    W/zarr.json          the tables: (1755, 1176, 1176) uint16, one shard per table,
                         168-row inner chunks, zstd level 10 with a content checksum
    W/c/<index>/0/0      table <index>'s shard: 7 zstd frames, then the shard index
    collision/ flops/ orbit_sizes/ pairs/ cards/   the small arrays of the frame
    manifest/NNNN.json   one per finished table: its index and flop, the SHA-256 of the
                         decoded table and of the shard, each inner chunk's byte range
                         and crc32c (what binds every byte read to its table)
    preflop.json ...     derived data, bound to the tables it came from (see derived.py)

A table counts as built only once its manifest entry exists: the entry is
written, atomically, after the shard is on disk and synced.

>>> shard_member(677), manifest_member(677)
('W/c/677/0/0', 'manifest/0677.json')
>>> check_index(1755)
Traceback (most recent call last):
...
matchdb.errors.MatchdbError: The table index 1755 is out of range; expected an integer 0..1754.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from matchdb.core.canonical import CANONICAL_FLOPS, N_FLOPS
from matchdb.core.cards import format_cards
from matchdb.core.pairs import N_PAIRS
from matchdb.errors import CorruptDatabaseError, DatabaseError, FormatVersionError, MatchdbError

__all__ = [
    "about_table",
    "table_name",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "CHUNK_ROWS",
    "N_CHUNKS",
    "CHUNK_BYTES",
    "MAX_FRAME_BYTES",
    "MAX_SHARD_BYTES",
    "ZSTD_LEVEL",
    "SHARD_INDEX_BYTES",
    "GROUP_META",
    "default_path",
    "shard_member",
    "manifest_member",
    "check_index",
    "check_attrs",
    "check_manifest",
]

FORMAT_NAME = "matchdb"
#: 2: manifest entries record each inner chunk's byte range and crc32c (version 1 did not).
FORMAT_VERSION = 2
CHUNK_ROWS = 168  # divides 1,176; 7 inner chunks per table (see docs/data-format.md)
N_CHUNKS = N_PAIRS // CHUNK_ROWS
#: Bytes of one decoded inner chunk.
CHUNK_BYTES = CHUNK_ROWS * N_PAIRS * 2
ZSTD_LEVEL = 10
#: The shard index at the end of every shard: (offset, nbytes) uint64 per chunk, then a crc32c.
SHARD_INDEX_BYTES = N_CHUNKS * 16 + 4
#: Most bytes of one stored chunk: zstd's worst case for a chunk (ZSTD_compressBound), its
#: frame header and checksum; real chunks are about 20 kB. A manifest claiming more is damaged.
MAX_FRAME_BYTES = CHUNK_BYTES + (CHUNK_BYTES >> 8) + 64
#: Most bytes of one table's shard: seven chunks at their largest and the shard index.
MAX_SHARD_BYTES = N_CHUNKS * MAX_FRAME_BYTES + SHARD_INDEX_BYTES
GROUP_META = "zarr.json"


def default_path() -> Path:
    """The database path: ``$MATCHDB_PATH`` if set, else ``matchdb.zarr`` in the user's data folder.

    The data folder is the platform's (platformdirs): ``~/.local/share/matchdb``
    on Linux (or under ``$XDG_DATA_HOME``), so every command finds the database
    from any working directory.
    """
    if os.environ.get("MATCHDB_PATH"):
        return Path(os.environ["MATCHDB_PATH"])
    from platformdirs import user_data_path

    return user_data_path("matchdb") / "matchdb.zarr"


def shard_member(index: int) -> str:
    """Name of table ``index``'s shard inside the store."""
    return f"W/c/{index}/0/0"


def manifest_member(index: int) -> str:
    """Name of table ``index``'s manifest entry inside the store."""
    return f"manifest/{index:04d}.json"


def table_name(index: int) -> str:
    """How messages name table ``index``: its index and its canonical flop.

    >>> table_name(677)
    'table 677 (flop 3cTdAd)'
    """
    return f"table {index} (flop {format_cards(CANONICAL_FLOPS[index])})"


@contextmanager
def about_table(index: int) -> Iterator[None]:
    """Mark a :class:`~matchdb.errors.DatabaseError` raised inside as being about table ``index`` (its ``table``),
    so that a server can name the table to its clients without the message's paths."""
    try:
        yield
    except DatabaseError as error:
        if error.table is None:
            error.table = index
        raise


def check_index(index: object) -> int:
    """Return ``index`` as an int after checking that it names one of the 1,755 tables.

    Only whole numbers are accepted (not text, floats or booleans).
    """
    if isinstance(index, bool) or not hasattr(index, "__index__"):
        raise MatchdbError(f"The table index {index!r} is not a whole number; expected an integer 0..{N_FLOPS - 1}.")
    value: int = index.__index__()
    if not 0 <= value < N_FLOPS:
        raise MatchdbError(f"The table index {index!r} is out of range; expected an integer 0..{N_FLOPS - 1}.")
    return value


def check_attrs(attrs: object, where: str) -> dict[str, Any]:
    """Return the group attributes ``attrs`` after checking they describe a store this matchdb reads."""
    if not isinstance(attrs, dict) or attrs.get("format") != FORMAT_NAME:
        shown = attrs.get("format") if isinstance(attrs, dict) else attrs
        raise FormatVersionError(f"The store '{where}' is not a matchdb database; its format is {shown!r}.")
    version = attrs.get("format_version")
    if version != FORMAT_VERSION:
        remedy = (
            f"'matchdb build --out {where}' upgrades a store folder in place"
            if version == 1
            else f"Rebuild it: remove it and run 'matchdb build --out {where}'"
        )
        raise FormatVersionError(
            f"The database '{where}' has format version {version!r}; this matchdb reads version {FORMAT_VERSION}. {remedy}."
        )
    codec = attrs.get("codec")
    layout = (attrs.get("chunk_rows"), codec.get("name") if isinstance(codec, dict) else None)
    if layout != (CHUNK_ROWS, "zstd"):
        raise FormatVersionError(
            f"The database '{where}' stores {layout[0]!r}-row {layout[1]!r} chunks; "
            f"this matchdb reads {CHUNK_ROWS}-row zstd chunks. Rebuild it with 'matchdb build --out {where}'."
        )
    return attrs


def check_manifest(entry: object, index: int, where: str) -> tuple[tuple[int, int, int], ...]:
    """Check that a manifest entry describes table ``index``; return its chunks as (offset, nbytes, crc32c).

    An entry copied from another table, or damaged so that it names one, is
    refused here: nothing read under it could be trusted to belong to ``index``.
    """
    flop = format_cards(CANONICAL_FLOPS[index])
    if not isinstance(entry, dict) or entry.get("index") != index or entry.get("flop") != flop:
        named = (entry.get("index"), entry.get("flop")) if isinstance(entry, dict) else entry
        raise CorruptDatabaseError(
            f"The manifest entry of table {index} in '{where}' describes {named!r}; "
            f"expected table {index} (flop {flop}): the store is damaged, rebuild the table with "
            f"'matchdb build --flops {index} --out {where}'."
        )
    chunks = entry.get("chunks")
    try:
        ranges = tuple((int(offset), int(nbytes), int(crc)) for offset, nbytes, crc in chunks)  # type: ignore[union-attr]
    except (TypeError, ValueError):  # None or anything but triples of whole numbers
        ranges = ()
    if len(ranges) != N_CHUNKS or any(n <= 0 or o < 0 for o, n, _ in ranges):
        raise CorruptDatabaseError(
            f"The manifest entry of table {index} in '{where}' lacks its {N_CHUNKS} chunk ranges; "
            f"the store is damaged, rebuild the table with 'matchdb build --flops {index} --out {where}'."
        )
    largest = max(ranges, key=lambda r: (r[1] > MAX_FRAME_BYTES, r[0] + r[1]))
    if largest[1] > MAX_FRAME_BYTES or largest[0] + largest[1] > MAX_SHARD_BYTES - SHARD_INDEX_BYTES:
        raise CorruptDatabaseError(
            f"The manifest entry of table {index} in '{where}' records a chunk of {largest[1]:,} bytes at offset "
            f"{largest[0]:,}; a chunk is at most {MAX_FRAME_BYTES:,} bytes inside a shard of at most "
            f"{MAX_SHARD_BYTES:,}: the store is damaged, nothing of it was read."
        )
    return ranges
