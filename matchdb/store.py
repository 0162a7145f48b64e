"""The on-disk database: a zarr (format 3) store, its manifest and a fast reader.

Layout of ``matchdb.zarr/`` (a zarr group)::

    zarr.json        group attributes: format name and version, codec, provenance
    W/               (1755, 1176, 1176) uint16; one shard per table, 168-row inner
                     chunks, zstd level 10 with a content checksum; fill 65535
    collision/       (1176, 1176) bool, the same for every flop
    flops/           (1755, 3) uint8 canonical flops (card ids), ascending
    orbit_sizes/     (1755,) uint8, how many of the 22,100 flops each one stands for
    pairs/           (1176, 2) uint8 local card indices of each row/column
    cards/           (1755, 49) uint8 card id of each local index, per flop
    manifest/NNNN.json   one per finished table: SHA-256 of the table and its shard

A table counts as built only when its manifest entry exists: the entry is
written (atomically) after the shard is on disk and synced, so a build killed
at any moment leaves either a finished table or one that the next run redoes.

Reading goes around zarr's indexing (1-2.5 ms a row): :class:`ShardReader`
reads a shard's index and decodes only the inner chunks a query needs.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import socket
import struct
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version as _package_version
from pathlib import Path

import google_crc32c
import numpy as np
from numcodecs import Zstd

from matchdb.canonical import CANONICAL_FLOPS, N_FLOPS, ORBIT_SIZES
from matchdb.cards import format_cards
from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    DatabaseNotFoundError,
    FormatVersionError,
    IncompleteDatabaseError,
)
from matchdb.pairs import COLLISION, N_PAIRS, PAIRS, SENTINEL

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "CHUNK_ROWS",
    "ZSTD_LEVEL",
    "DEFAULT_PATH",
    "default_path",
    "create_store",
    "open_store_attrs",
    "shard_path",
    "manifest_path",
    "read_manifest",
    "write_table",
    "table_is_done",
    "ShardReader",
    "directory_source",
    "DirectoryStore",
    "open_database",
    "sha256_range",
    "sha256_file",
    "table_digest",
    "flop_cards",
]

FORMAT_NAME = "matchdb"
FORMAT_VERSION = 1
CHUNK_ROWS = 168  # divides 1,176; 7 inner chunks per table (see README, data format)
ZSTD_LEVEL = 10
N_CHUNKS = N_PAIRS // CHUNK_ROWS
DEFAULT_PATH = Path("data") / "matchdb.zarr"
PREFLOP_FILE = "preflop.json"  # the cached preflop table, see matchdb.preflop
PREFLOP_VERSION = 1
_INDEX_BYTES = N_CHUNKS * 16 + 4  # (offset, nbytes) uint64 pairs and a crc32c
_EMPTY = 2**64 - 1


def default_path() -> Path:
    """The database path: ``$MATCHDB_PATH`` if set, else ``data/matchdb.zarr``."""
    return Path(os.environ.get("MATCHDB_PATH") or DEFAULT_PATH)


@functools.cache
def flop_cards() -> np.ndarray:
    """(1755, 49) card ids of every canonical flop's local indices (read-only, computed once).

    The same order as :func:`matchdb.cards.remaining_cards`, vectorised: sort
    every card by (rank on the flop, rank, suit) with the flop's own cards last.

    >>> from matchdb.pairs import remaining_cards
    >>> bool((flop_cards()[677] == remaining_cards(CANONICAL_FLOPS[677])).all())
    True
    """
    cards = np.arange(52)
    rank, suit = cards % 13, cards // 13
    flops = CANONICAL_FLOPS.astype(np.int64)
    on_flop_rank = (rank[None, :, None] == (flops % 13)[:, None, :]).any(axis=2)
    key = (on_flop_rank * 13 + rank) * 4 + suit
    key[np.arange(N_FLOPS)[:, None], flops] = 1 << 20
    out = np.argsort(key, axis=1, kind="stable")[:, :49].astype(np.uint8)
    out.flags.writeable = False
    return out


def shard_path(root: Path, index: int) -> Path:
    """Where table ``index``'s shard lives inside the store."""
    return Path(root) / "W" / "c" / str(index) / "0" / "0"


def manifest_path(root: Path, index: int) -> Path:
    """Where table ``index``'s manifest entry lives inside the store."""
    return Path(root) / "manifest" / f"{index:04d}.json"


def _provenance() -> dict:
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "matchdb": _package_version("matchdb"),
        "numpy": np.__version__,
        "numba": _package_version("numba"),
        "zarr": _package_version("zarr"),
    }


def create_store(root: Path) -> dict:
    """Create an empty store at ``root``, or check and reuse the one there; return its attributes.

    Creating writes every array but the tables. Reusing checks the format
    version and layout, so a build never mixes tables of two formats.
    """
    import zarr
    from zarr.codecs import ZstdCodec

    root = Path(root)
    if (root / "zarr.json").exists():
        return open_store_attrs(root)
    if root.exists() and any(root.iterdir()):
        raise DatabaseError(f"The path '{root}' exists and is not a matchdb store; expected an empty or missing folder.")
    attrs = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "tables": N_FLOPS,
        "rows": N_PAIRS,
        "chunk_rows": CHUNK_ROWS,
        "codec": {"name": "zstd", "level": ZSTD_LEVEL, "checksum": True},
        "local_order": "rank-major, the flop's ranks last",
        "pair_order": "local (low, high) sorted by (high // 4, low // 4, low, high)",
        "sentinel": int(SENTINEL),
        "provenance": _provenance(),
    }
    tmp = Path(tempfile.mkdtemp(prefix=root.name + ".", dir=root.parent if root.parent.exists() else None))
    try:
        group = zarr.open_group(tmp, mode="w", attributes=attrs)
        group.create_array(
            "W",
            shape=(N_FLOPS, N_PAIRS, N_PAIRS),
            chunks=(1, CHUNK_ROWS, N_PAIRS),
            shards=(1, N_PAIRS, N_PAIRS),
            dtype="uint16",
            compressors=ZstdCodec(level=ZSTD_LEVEL, checksum=True),
            fill_value=int(SENTINEL),
            dimension_names=("flop", "hand", "runout"),
        )
        for name, data in (
            ("collision", COLLISION),
            ("flops", CANONICAL_FLOPS),
            ("orbit_sizes", ORBIT_SIZES.astype(np.uint8)),
            ("pairs", PAIRS),
            ("cards", flop_cards()),
        ):
            group.create_array(name, data=np.ascontiguousarray(data), chunks=data.shape)
        (tmp / "manifest").mkdir()
        root.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(tmp, root)  # atomic: a half-created store never appears at root
        except OSError:
            if not (root / "zarr.json").exists():  # not another process winning the race
                raise
    finally:
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return open_store_attrs(root)


def open_store_attrs(root: Path) -> dict:
    """Return the group attributes of the store at ``root`` after checking its format."""
    root = Path(root)
    meta = root / "zarr.json"
    if not meta.exists():
        if root.exists():
            raise DatabaseNotFoundError(f"The path '{root}' is not a matchdb database; expected a folder with zarr.json.")
        raise DatabaseNotFoundError(f"No database at '{root}'; build one with 'matchdb build --out {root}'.")
    try:
        attrs = json.loads(meta.read_text())["attributes"]
    except (ValueError, KeyError) as error:
        raise CorruptDatabaseError(f"The metadata '{meta}' cannot be read ({error}); expected zarr group JSON.") from None
    check_attrs(attrs, str(root))
    return attrs


def check_attrs(attrs: dict, where: str) -> None:
    """Raise unless ``attrs`` describe a store of this format version."""
    if attrs.get("format") != FORMAT_NAME:
        raise FormatVersionError(f"The store '{where}' is not a matchdb database; its format is {attrs.get('format')!r}.")
    if attrs.get("format_version") != FORMAT_VERSION:
        raise FormatVersionError(
            f"The database '{where}' has format version {attrs.get('format_version')!r}; "
            f"this matchdb reads version {FORMAT_VERSION}. Rebuild it with 'matchdb build'."
        )
    layout = (attrs.get("chunk_rows"), attrs.get("codec", {}).get("name"))
    if layout != (CHUNK_ROWS, "zstd"):
        raise FormatVersionError(
            f"The database '{where}' stores {layout[0]!r}-row {layout[1]!r} chunks; "
            f"this matchdb reads {CHUNK_ROWS}-row zstd chunks. Rebuild it with 'matchdb build'."
        )


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_path(path.parent)


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def table_digest(table: np.ndarray) -> str:
    """SHA-256 of a table's little-endian uint16 bytes (independent of the codec)."""
    return hashlib.sha256(np.ascontiguousarray(table, dtype="<u2").tobytes()).hexdigest()


_OPEN_ARRAYS: dict[str, object] = {}


def _table_array(root: Path):
    import zarr

    key = str(Path(root).resolve())
    if key not in _OPEN_ARRAYS:
        _OPEN_ARRAYS[key] = zarr.open_array(Path(root) / "W", mode="r+")
    return _OPEN_ARRAYS[key]


def write_table(root: Path, index: int, table: np.ndarray, seconds: float = 0.0) -> dict:
    """Write table ``index`` as one whole shard, sync it, then record it in the manifest.

    Returns the manifest entry. Safe to run for different tables in many
    processes at once: each writes only its own shard and entry.
    """
    root = Path(root)
    _table_array(root)[index] = table  # the whole shard, written by zarr to a temp file and renamed
    shard = shard_path(root, index)
    _fsync_path(shard)
    _fsync_path(shard.parent)
    entry = {
        "index": int(index),
        "flop": format_cards(CANONICAL_FLOPS[index]),
        "table_sha256": table_digest(table),
        "shard_sha256": sha256_file(shard),
        "shard_bytes": shard.stat().st_size,
        "seconds": round(seconds, 4),
        "host": socket.gethostname(),
    }
    _write_atomically(manifest_path(root, index), json.dumps(entry, indent=1).encode())
    return entry


def read_manifest(root: Path, index: int) -> dict | None:
    """The manifest entry of table ``index``, or None when the table is not finished."""
    path = manifest_path(root, index)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except ValueError:
        return None  # a torn entry cannot exist (atomic rename), but never trust one


def table_is_done(root: Path, index: int, check_shard: bool = True) -> bool:
    """True when table ``index`` has a manifest entry whose shard is present and intact."""
    entry = read_manifest(root, index)
    if entry is None:
        return False
    shard = shard_path(root, index)
    if not shard.exists() or shard.stat().st_size != entry.get("shard_bytes"):
        return False
    return not check_shard or sha256_file(shard) == entry.get("shard_sha256")


# ---------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class ShardIndex:
    """Byte ranges of one table's 7 inner chunks inside its shard (plain ints: each first touch reads one)."""

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]


_INDEX_LAYOUT = struct.Struct(f"<{2 * N_CHUNKS}QI")  # (offset, nbytes) per chunk, then the crc32c


def parse_shard_index(tail: bytes, where: str) -> ShardIndex:
    """Parse the index at the end of a shard (zarr v3 sharding, index at the end, crc32c)."""
    if len(tail) != _INDEX_BYTES:
        raise CorruptDatabaseError(f"The shard {where} is truncated; expected an index of {_INDEX_BYTES} bytes.")
    *pairs, crc = _INDEX_LAYOUT.unpack(tail)
    if google_crc32c.value(tail[:-4]) != crc:
        raise CorruptDatabaseError(f"The shard {where} has a damaged index (crc32c mismatch); rebuild or re-verify it.")
    if _EMPTY in pairs:
        raise CorruptDatabaseError(f"The shard {where} lacks inner chunks; expected all {N_CHUNKS}.")
    return ShardIndex(offsets=tuple(pairs[0::2]), sizes=tuple(pairs[1::2]))


_ZSTD = Zstd()
_CHUNK_BYTES = CHUNK_ROWS * N_PAIRS * 2
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def frame_content_size(frame: bytes) -> int:
    """The decoded size a zstd frame declares in its header (RFC 8878, 3.1.1.1), or -1 when it does not say.

    >>> frame_content_size(Zstd().encode(bytes(1000)))
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
    """Decode one inner chunk into ``out`` (CHUNK_ROWS x 1176 uint16, contiguous), checking its size and zstd checksum.

    The size is checked before decoding: a frame declaring fewer bytes would
    leave part of ``out`` as it was, and ``out`` may hold another table's rows.
    """
    size = frame_content_size(data)
    if size != _CHUNK_BYTES:
        raise CorruptDatabaseError(f"The chunk {where} declares {size} bytes; expected a zstd frame of {_CHUNK_BYTES}.")
    try:
        _ZSTD.decode(data, out=out)
    except Exception as error:  # numcodecs raises RuntimeError on a bad frame or checksum
        raise CorruptDatabaseError(f"The chunk {where} cannot be decoded ({error}); the database is damaged.") from None


def _check_buffer(out: np.ndarray, shape: tuple[int, int], what: str) -> None:
    if out.shape != shape or out.dtype != np.uint16 or not out.flags.c_contiguous or not out.flags.writeable:
        raise DatabaseError(f"A {what} buffer must be a writable contiguous {shape} uint16 array; got {out.shape} {out.dtype}.")


class ShardReader:
    """Reads tables straight from shard files, one inner chunk at a time, into buffers the caller owns.

    ``source(index)`` returns ``(file_path, start, length)`` of table
    ``index``'s shard bytes (a file of the store, or a member of a packed file),
    or None when the table is missing.
    """

    def __init__(self, source, name: str) -> None:
        self._source = source
        self._name = name

    def _locate(self, index: int) -> tuple[str, int, int]:
        located = self._source(index)
        if located is None:
            flop = format_cards(CANONICAL_FLOPS[index])
            raise IncompleteDatabaseError(
                f"The database '{self._name}' lacks table {index} (flop {flop}); "
                f"build it with 'matchdb build --flops {index}'."
            )
        return located

    def _read_index(self, fd: int, index: int, start: int, length: int) -> ShardIndex:
        if length < _INDEX_BYTES:
            raise CorruptDatabaseError(f"The shard of table {index} in '{self._name}' is truncated to {length} bytes.")
        shard_index = parse_shard_index(os.pread(fd, _INDEX_BYTES, start + length - _INDEX_BYTES), f"of table {index} in '{self._name}'")
        if any(offset + size > length - _INDEX_BYTES for offset, size in zip(shard_index.offsets, shard_index.sizes)):
            raise CorruptDatabaseError(f"The shard of table {index} in '{self._name}' points past its end; it is truncated.")
        return shard_index

    def decode_chunks(self, index: int, chunks: list[int], outs: list[np.ndarray], located=None) -> tuple:
        """Decode inner chunks of table ``index``, each into the matching (168, 1176) uint16 array of ``outs``.

        Returns the shard's location; pass it back to skip reading the shard
        index again. A damaged chunk raises, and its array, like those of the
        chunks before it, may then hold partly decoded rows: callers count an
        array as filled only once this returns.
        """
        if located is None:
            path, start, length = self._locate(index)
        else:
            path, start, shard_index = located
        fd = os.open(path, os.O_RDONLY)  # plain descriptors and pread: a Python file object costs more than the read
        try:
            if located is None:
                shard_index = self._read_index(fd, index, start, length)
                located = (path, start, shard_index)
            for chunk, out in zip(chunks, outs, strict=True):
                _check_buffer(out, (CHUNK_ROWS, N_PAIRS), "chunk")
                data = os.pread(fd, shard_index.sizes[chunk], start + shard_index.offsets[chunk])
                decode_chunk_into(data, out, f"{chunk} of table {index} in '{self._name}'")
        finally:
            os.close(fd)
        return located

    def read_table(self, index: int, out: np.ndarray | None = None) -> np.ndarray:
        """The whole W matrix of table ``index``, decoded into ``out`` when given (reusing memory is faster)."""
        if out is None:
            out = np.empty((N_PAIRS, N_PAIRS), dtype=np.uint16)
        _check_buffer(out, (N_PAIRS, N_PAIRS), "table")
        self.decode_chunks(index, list(range(N_CHUNKS)), list(out.reshape(N_CHUNKS, CHUNK_ROWS, N_PAIRS)))
        return out


def directory_source(root: Path):
    """A :class:`ShardReader` source over a store folder: finished tables only."""
    return DirectoryStore(root, check=False).shard


def sha256_range(path: str, start: int, length: int) -> str:
    """SHA-256 hex digest of ``length`` bytes of a file from ``start``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        handle.seek(start)
        left = length
        while left > 0 and (block := handle.read(min(left, 1 << 20))):
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


class DirectoryStore:
    """A store folder seen as a database: its attributes, manifest and shard locations.

    :class:`matchdb.pack.PackedStore` offers the same methods over one packed
    file, so queries and verification need not know which they read.
    """

    packed = False

    def __init__(self, root: str | Path, check: bool = True) -> None:
        self.root = Path(root)
        self.name = str(root)
        self.attrs = open_store_attrs(self.root) if check else {}

    def shard(self, index: int) -> tuple[str, int, int] | None:
        """(file, start, length) of table ``index``'s shard, or None when the table is not finished."""
        root = str(self.root)  # plain strings: this runs on every first touch of a table
        if not os.path.exists(f"{root}/manifest/{index:04d}.json"):
            return None
        shard = f"{root}/W/c/{index}/0/0"
        try:
            return shard, 0, os.stat(shard).st_size
        except FileNotFoundError:
            return None

    def manifest(self, index: int) -> dict | None:
        """The manifest entry of table ``index``, or None."""
        return read_manifest(self.root, index)

    def built(self) -> list[int]:
        """Indices of the finished tables."""
        return [i for i in range(N_FLOPS) if manifest_path(self.root, i).exists()]

    def integrity_problems(self) -> list[str]:
        """Problems with checksums of the container itself (a folder has none of its own)."""
        return []

    def read_preflop(self) -> dict | None:
        """The cached preflop table (``preflop.json``), or None when there is none of this version."""
        try:
            data = json.loads((self.root / PREFLOP_FILE).read_text())
        except (FileNotFoundError, ValueError):
            return None
        return data if data.get("version") == PREFLOP_VERSION else None

    def write_preflop(self, data: dict) -> None:
        """Cache a preflop table in the store; a read-only store simply keeps no cache."""
        try:
            _write_atomically(self.root / PREFLOP_FILE, json.dumps(data).encode())
        except OSError:
            pass

    def zarr_store(self):
        """A read-only zarr store over the same data (for the small metadata arrays)."""
        from zarr.storage import LocalStore

        return LocalStore(self.root, read_only=True)


def open_database(path: str | Path):
    """The store folder or packed file at ``path``, checked for format and version."""
    path = Path(path)
    if path.is_file():
        from matchdb.pack import PackedStore

        return PackedStore(path)
    return DirectoryStore(path)
