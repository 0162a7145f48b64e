"""A database stored as a folder (what ``matchdb build`` writes), seen through the storage protocol.

>>> FolderStore("no/such/folder")
Traceback (most recent call last):
...
matchdb.errors.DatabaseNotFoundError: No database at 'no/such/folder'; build one with 'matchdb build --out no/such/folder'.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matchdb.errors import CorruptDatabaseError, DatabaseError, DatabaseNotFoundError
from matchdb.storage.files import read_small_file, write_atomically
from matchdb.storage.layout import (
    GROUP_META,
    check_attrs,
    check_manifest,
    manifest_member,
    shard_member,
)
from matchdb.storage.shards import Location, make_location, read_file_ranges

__all__ = ["FolderStore", "read_attrs"]


def _json(data: bytes, what: str, where: str) -> Any:  # JSON: the caller checks its shape
    try:
        return json.loads(data)
    except ValueError as error:
        raise CorruptDatabaseError(f"The {what} '{where}' cannot be read ({error}); the database is damaged.") from None


def read_attrs(root: str | Path) -> dict[str, Any]:
    """The group attributes of the store folder at ``root``, after checking its format."""
    root = Path(root)
    if not root.is_dir():
        if root.exists():
            raise DatabaseNotFoundError(f"The path '{root}' is not a matchdb database; expected a store folder or a packed file.")
        raise DatabaseNotFoundError(f"No database at '{root}'; build one with 'matchdb build --out {root}'.")
    meta = root / GROUP_META
    data = read_small_file(meta, "metadata file")
    if data is None:
        raise DatabaseNotFoundError(f"The path '{root}' is not a matchdb database; expected a folder with {GROUP_META}.")
    group = _json(data, "metadata file", str(meta))
    return check_attrs(group.get("attributes") if isinstance(group, dict) else None, str(root))


class FolderStore:
    """A store folder: its attributes, manifest, shard locations and derived files.

    :class:`matchdb.storage.packed.PackedStore` offers the same methods over
    one packed file, so queries and verification need not know which they read.
    """

    packed = False

    def __init__(self, root: str | Path, check: bool = True) -> None:
        self.root = Path(root)
        self.name = str(root)
        self.attrs = read_attrs(self.root) if check else {}

    def manifest(self, index: int) -> dict[str, Any] | None:
        """The manifest entry of table ``index`` (checked to name it), or None when the table is not finished."""
        path = f"{self.root}/{manifest_member(index)}"  # plain strings: this runs on every first touch of a table
        data = read_small_file(path, "manifest entry")
        if data is None:
            return None
        entry: dict[str, Any] = _json(data, "manifest entry", path)
        check_manifest(entry, index, self.name)
        return entry

    def locate(self, index: int) -> Location | None:
        """Where table ``index``'s shard lies and its chunks' byte ranges, or None when the table is not finished."""
        entry = self.manifest(index)
        if entry is None:
            return None
        shard = f"{self.root}/{shard_member(index)}"
        try:
            info = os.stat(shard)
        except FileNotFoundError:
            raise CorruptDatabaseError(
                f"The database '{self.name}' records table {index} but its shard is missing; {self.build_hint(index)}."
            ) from None
        except OSError as error:
            raise DatabaseError(f"The shard '{shard}' cannot be read ({error.strerror}).") from None
        if not stat.S_ISREG(info.st_mode):
            raise CorruptDatabaseError(f"The shard of table {index} in '{self.name}' is not a regular file; expected the table's shard.")
        return make_location(shard, 0, info.st_size, entry, index, self.name)

    def read_ranges(self, location: Location, ranges: Sequence[tuple[int, int]], where: str) -> list[bytes]:
        """The bytes of (offset, nbytes) ranges of a located shard."""
        return read_file_ranges(location.path, location.start, ranges, where)

    def built(self) -> list[int]:
        """Indices of the finished tables (those with a manifest entry), ascending."""
        try:
            names = os.listdir(self.root / "manifest")
        except FileNotFoundError:
            return []
        except OSError as error:
            raise DatabaseError(f"The manifest folder of '{self.name}' cannot be listed ({error.strerror}).") from None
        return sorted(int(name[:4]) for name in names if len(name) == 9 and name.endswith(".json") and name[:4].isdigit())

    def build_hint(self, index: int) -> str:
        """How to add a missing table, for messages."""
        return f"build it with 'matchdb build --flops {index} --out {self.name}'"

    def read_member(self, name: str) -> bytes | None:
        """A file of the store by its member name (like ``preflop.json``), or None when there is none."""
        return read_small_file(self.root / name, "file")

    def write_member(self, name: str, data: bytes) -> bool:
        """Write a file into the store atomically; False when the store cannot be written (read-only)."""
        try:
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.root / name, data)
        except OSError:
            return False
        return True

    def members_under(self, folder: str) -> list[str]:
        """Member names of the files in one folder of the store (like ``derived``), sorted."""
        try:
            return sorted(f"{folder}/{name}" for name in os.listdir(self.root / folder) if not name.startswith("."))
        except FileNotFoundError:
            return []

    def integrity_problems(self) -> list[str]:
        """Problems with checksums of the container itself (a folder has none of its own)."""
        return []

    def zarr_store(self) -> Any:
        """A read-only zarr store over the same data (for the small metadata arrays)."""
        from zarr.storage import LocalStore

        return LocalStore(self.root, read_only=True)
