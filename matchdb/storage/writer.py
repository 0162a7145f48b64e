"""Writing a store: create it, write a table (shard, then manifest entry), and tell a finished table.

Each table is one whole shard written by one writer, so many processes can
build different tables of one store at once. :func:`write_table` writes the
shard atomically and syncs it, then records the table's manifest entry
(its index and flop, the SHA-256 of the decoded table and of the shard, and
each chunk's byte range and crc32c), atomically too: a table counts as built
only once that entry exists, so a build killed at any moment resumes where it
stopped and ends bit-identical to an uninterrupted one.

Shards are written here rather than through zarr's array indexing: the bytes
are exactly those zarr writes (the tests compare them), but writing them
ourselves gives each chunk's byte range and crc32c without reading the shard
back, and temporary files that name their writer, so a cleanup never
removes the file of a writer still at work (zarr names its own by a random
id only).
"""

from __future__ import annotations

import json
import os
import platform
import socket
import tempfile
from datetime import UTC, datetime
from importlib.metadata import version as _package_version
from pathlib import Path
from typing import Any

import google_crc32c
import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES, flop_cards
from matchdb.core.cards import format_cards
from matchdb.core.pairs import COLLISION, N_PAIRS, PAIRS, SENTINEL
from matchdb.errors import CorruptDatabaseError, DatabaseError
from matchdb.storage.digests import sha256_bytes, sha256_file, table_digest
from matchdb.storage.files import remove_stale_partials, write_atomically
from matchdb.storage.folder import FolderStore, read_attrs
from matchdb.storage.layout import (
    CHUNK_ROWS,
    FORMAT_NAME,
    FORMAT_VERSION,
    GROUP_META,
    SHARD_INDEX_BYTES,
    ZSTD_LEVEL,
    manifest_member,
    shard_member,
)
from matchdb.storage.shards import encode_shard, parse_shard_index

__all__ = ["create_store", "write_table", "table_is_done", "clean_partials", "upgrade_store"]


def _provenance() -> dict[str, Any]:
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "matchdb": _package_version("matchdb"),
        "numpy": np.__version__,
        "numba": _package_version("numba"),
        "zarr": _package_version("zarr"),
    }


def _attributes() -> dict[str, Any]:
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "tables": len(CANONICAL_FLOPS),
        "rows": N_PAIRS,
        "chunk_rows": CHUNK_ROWS,
        "codec": {"name": "zstd", "level": ZSTD_LEVEL, "checksum": True},
        "local_order": "rank-major, the flop's ranks last",
        "pair_order": "local (low, high) sorted by (high // 4, low // 4, low, high)",
        "sentinel": SENTINEL,
        "provenance": _provenance(),
    }


def create_store(root: str | Path) -> dict[str, Any]:
    """Create an empty store at ``root``, or check and reuse the one there; return its attributes.

    Creating writes every array but the tables, into a temporary folder renamed
    into place, so a half-created store never appears. Reusing checks the
    format version and layout, so a build never mixes tables of two formats.
    """
    import zarr
    from zarr.codecs import ZstdCodec

    root = Path(root)
    if (root / GROUP_META).exists():
        upgrade_store(root)
        return read_attrs(root)
    if root.exists() and not root.is_dir():
        raise DatabaseError(f"The path '{root}' is a file; expected a folder for the store (or a path that does not exist).")
    if root.exists() and any(root.iterdir()):
        raise DatabaseError(f"The path '{root}' exists and is not a matchdb store; expected an empty or missing folder.")
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=root.parent))
    except OSError as error:
        raise DatabaseError(f"The store '{root}' cannot be created ({error.strerror}).") from None
    try:
        group = zarr.open_group(tmp, mode="w", attributes=_attributes())
        group.create_array(
            "W",
            shape=(len(CANONICAL_FLOPS), N_PAIRS, N_PAIRS),
            chunks=(1, CHUNK_ROWS, N_PAIRS),
            shards=(1, N_PAIRS, N_PAIRS),
            dtype="uint16",
            compressors=ZstdCodec(level=ZSTD_LEVEL, checksum=True),
            fill_value=SENTINEL,
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
        try:
            os.rename(tmp, root)  # atomic: a half-created store never appears at root
        except OSError:
            if not (root / GROUP_META).exists():  # not another process winning the race
                raise
    except OSError as error:
        raise DatabaseError(f"The store '{root}' cannot be created ({error.strerror}).") from None
    finally:
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return read_attrs(root)


def upgrade_store(root: str | Path) -> int:
    """Bring a version-1 store to this format in place; return how many tables were kept.

    Version 1 stored the same shards; its manifest entries lacked each chunk's
    byte range and crc32c. Each shard whose SHA-256 matches its entry gets
    them (from its own crc32c-checked index); any other table is dropped from
    the manifest, so the build that follows computes it again. A store of
    this format is left alone.
    """
    root = Path(root)
    group = json.loads((root / GROUP_META).read_text())
    attrs = group.get("attributes", {})
    if attrs.get("format") != FORMAT_NAME or attrs.get("format_version") != 1:
        return 0
    kept = 0
    for index in FolderStore(root, check=False).built():
        path = root / manifest_member(index)
        try:
            entry = json.loads(path.read_text())
            data = (root / shard_member(index)).read_bytes()
            if sha256_bytes(data) != entry.get("shard_sha256") or entry.get("index") != index:
                raise ValueError("shard does not match")
            ranges = parse_shard_index(data[-SHARD_INDEX_BYTES:], f"of table {index}")
            entry["chunks"] = [[o, n, google_crc32c.value(data[o : o + n])] for o, n in ranges]
        except (OSError, ValueError, CorruptDatabaseError):
            path.unlink(missing_ok=True)  # not trusted: the build computes it again
            continue
        write_atomically(path, json.dumps(entry, indent=1).encode())
        kept += 1
    (root / "preflop.json").unlink(missing_ok=True)  # version 1's preflop file is not bound to the tables
    attrs["format_version"] = FORMAT_VERSION
    attrs.setdefault("provenance", {})["upgraded"] = _provenance()["created"]
    write_atomically(root / GROUP_META, json.dumps(group, indent=2).encode())
    return kept


def write_table(root: str | Path, index: int, table: np.ndarray, seconds: float = 0.0) -> dict[str, Any]:
    """Write table ``index`` as one whole shard, synced, then record it in the manifest; return the entry.

    Safe to run for different tables in many processes at once: each writes
    only its own shard and entry. Raises OSError as the system reports it (a
    full disk): nothing is recorded then, and the table is simply not built.
    """
    root = Path(root)
    data, chunks = encode_shard(table)
    shard = root / shard_member(index)
    shard.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(shard, data)
    entry = {
        "index": int(index),
        "flop": format_cards(CANONICAL_FLOPS[index]),
        "table_sha256": table_digest(table),
        "shard_sha256": sha256_bytes(data),
        "shard_bytes": len(data),
        "chunks": [list(chunk) for chunk in chunks],
        "seconds": round(seconds, 4),
        "host": socket.gethostname(),
    }
    write_atomically(root / manifest_member(index), json.dumps(entry, indent=1).encode())
    return entry


def table_is_done(root: str | Path, index: int) -> bool:
    """True when table ``index`` has a manifest entry naming it, and its shard matches the recorded SHA-256."""
    store = FolderStore(root, check=False)
    try:
        entry = store.manifest(index)
        if entry is None:
            return False
        location = store.locate(index)
    except (CorruptDatabaseError, DatabaseError):
        return False  # damaged or unreadable: build it again
    return location is not None and sha256_file(location.path) == entry.get("shard_sha256")


def clean_partials(root: str | Path, index: int) -> int:
    """Remove temporary files that dead writers left beside table ``index``'s shard; return how many."""
    return remove_stale_partials((Path(root) / shard_member(index)).parent)

