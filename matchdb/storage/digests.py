"""Checksums: SHA-256 of byte ranges, files and tables (through :mod:`hashlib`), and of sets of tables.

>>> import numpy as np
>>> table_digest(np.zeros((2, 2), dtype=np.uint16))[:12]
'af5570f5a181'
>>> tables_digest(["ab", "cd"]) == tables_digest(["ab", "cd"]) != tables_digest(["cd", "ab"])
True
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

__all__ = ["sha256_range", "sha256_file", "sha256_bytes", "table_digest", "tables_digest"]

_BLOCK = 1 << 20


def sha256_range(path: str | Path, start: int, length: int) -> str:
    """SHA-256 hex digest of ``length`` bytes of a file from ``start``, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        handle.seek(start)
        left = length
        while left > 0 and (block := handle.read(min(left, _BLOCK))):
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


def sha256_file(path: str | Path) -> str:
    """SHA-256 hex digest of a whole file."""
    return sha256_range(path, 0, os.path.getsize(path))


def sha256_bytes(data: bytes) -> str:
    """SHA-256 hex digest of bytes in memory."""
    return hashlib.sha256(data).hexdigest()


def table_digest(table: np.ndarray) -> str:
    """SHA-256 of a table's little-endian uint16 bytes (independent of the codec)."""
    return hashlib.sha256(np.ascontiguousarray(table, dtype="<u2").tobytes()).hexdigest()


def tables_digest(table_digests: Iterable[str]) -> str:
    """SHA-256 over tables' digests in order: names the data something was derived from."""
    digest = hashlib.sha256()
    for entry in table_digests:
        digest.update(entry.encode())
    return digest.hexdigest()
