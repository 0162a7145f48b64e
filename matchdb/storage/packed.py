"""A database packed into one zip file (``matchdb pack``), read in place.

The zip's central directory is parsed once with :mod:`zipfile`; every member
is then read by byte offset, like a file of a store folder, so lookups cost
the same and never queue behind a lock (zarr's own ZipStore serializes reads
and costs about 3 ms a row). Nothing is trusted that the file does not prove:

- a name that appears twice in the central directory is refused (one flipped
  bit can turn table 1683's name into 1681's);
- each member's local header must repeat the central directory's name,
  method, CRC-32 and sizes before its bytes are used;
- small members (metadata, manifest entries, derived files) are CRC-32-checked
  whole; shards are read chunk by chunk, each chunk checked against the
  crc32c its table's manifest entry records, which also proves the chunk
  belongs to that table.

``matchdb verify FILE`` checks the whole-file SHA-256 and every member's.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    DatabaseNotFoundError,
    MatchdbError,
)
from matchdb.storage.digests import sha256_range
from matchdb.storage.layout import (
    GROUP_META,
    check_attrs,
    check_manifest,
    manifest_member,
    shard_member,
)
from matchdb.storage.shards import Location, make_location, read_file_ranges

if TYPE_CHECKING:
    from zarr.abc.buffer import Buffer

__all__ = ["PackedStore", "LocalFile", "SUMS_MEMBER"]

#: The member listing ``<sha256>  <member>`` for every other member.
SUMS_MEMBER = "SHA256SUMS"
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # signature ... crc, sizes, name and extra-field lengths
_MAX_SMALL_MEMBER = 64 << 20


class PackedStore:
    """A file written by ``matchdb pack``, seen as a database (same methods as :class:`FolderStore`).

    ``source`` is a path (a :class:`LocalFile`) or any object with the same
    methods, like :class:`matchdb.storage.remote.HttpFile` for a file served
    over HTTP.
    """

    packed = True

    def __init__(self, source: Any) -> None:
        self.source = LocalFile(source) if isinstance(source, (str, os.PathLike)) else source
        self.name = self.source.name
        try:
            with zipfile.ZipFile(self.source.zip_file()) as archive:
                infos = archive.infolist()
        except MatchdbError:
            raise
        except OSError as error:
            raise DatabaseError(f"The packed database '{self.name}' cannot be read ({error.strerror or error}).") from None
        except Exception as error:  # zipfile raises BadZipFile, EOFError, NotImplementedError, ... on damage
            raise CorruptDatabaseError(
                f"The packed database '{self.name}' is truncated or damaged ({error}); expected a file written by 'matchdb pack'."
            ) from None
        self._members = {info.filename: info for info in infos}
        if len(self._members) != len(infos):
            seen: set[str] = set()
            twice = ""
            for info in infos:
                if info.filename in seen:
                    twice = info.filename
                    break
                seen.add(info.filename)
            raise CorruptDatabaseError(f"The packed database '{self.name}' names the member {twice!r} twice; the file is damaged.")
        self._size = self.source.size
        meta = self.read_member(GROUP_META)
        if meta is None:
            raise CorruptDatabaseError(f"The packed database '{self.name}' has no {GROUP_META}; expected a file written by 'matchdb pack'.")
        try:
            group = json.loads(meta)
        except ValueError as error:
            raise CorruptDatabaseError(f"The metadata in '{self.name}' cannot be read ({error}); expected zarr group JSON.") from None
        self.attrs = check_attrs(group.get("attributes") if isinstance(group, dict) else None, self.name)

    def _pread(self, length: int, offset: int) -> bytes:
        return self.source.pread(length, offset)

    def _start_of(self, info: zipfile.ZipInfo) -> int:
        """Offset of a member's bytes, after checking its local header repeats the central directory."""
        name = info.filename.encode()
        header = self._pread(_LOCAL_HEADER.size + len(name), info.header_offset)
        damaged = f"The packed database '{self.name}' is damaged: member {info.filename!r}"
        if len(header) != _LOCAL_HEADER.size + len(name):
            raise CorruptDatabaseError(f"{damaged} has no local header.")
        signature, _, flags, method, _, _, crc, compressed, size, name_length, extra_length = _LOCAL_HEADER.unpack(
            header[: _LOCAL_HEADER.size]
        )
        stated = (signature, method, name_length, header[_LOCAL_HEADER.size :])
        if stated != (b"PK\x03\x04", zipfile.ZIP_STORED, len(name), name) or info.compress_type != zipfile.ZIP_STORED:
            raise CorruptDatabaseError(f"{damaged} has a local header that does not match the central directory.")
        if not flags & 0x08 and (crc, compressed, size) != (info.CRC, info.compress_size, info.file_size):
            raise CorruptDatabaseError(f"{damaged} has sizes or a CRC-32 that differ from the central directory's.")
        start: int = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        if start + info.file_size > self._size:
            raise CorruptDatabaseError(f"{damaged} runs past the end of the file.")
        return start

    def read_member(self, name: str) -> bytes | None:
        """A small member's bytes, checked against its CRC-32, or None when there is no such member."""
        info = self._members.get(name)
        if info is None:
            return None
        if info.file_size > _MAX_SMALL_MEMBER:
            raise CorruptDatabaseError(f"The member {name!r} of '{self.name}' is {info.file_size} bytes; expected a small file.")
        data = self._pread(info.file_size, self._start_of(info))
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise CorruptDatabaseError(f"The member {name!r} of '{self.name}' fails its CRC-32 check; the file is damaged.")
        return data

    def write_member(self, name: str, data: bytes) -> bool:
        """A packed file is never modified: what is computed from it is kept in memory only."""
        return False

    def manifest(self, index: int) -> dict[str, Any] | None:
        """The manifest entry of table ``index`` (checked to name it), or None when the pack lacks the table."""
        data = self.read_member(manifest_member(index))
        if data is None:
            return None
        try:
            entry: dict[str, Any] = json.loads(data)
        except ValueError as error:
            raise CorruptDatabaseError(f"The manifest entry of table {index} in '{self.name}' cannot be read ({error}).") from None
        check_manifest(entry, index, self.name)
        return entry

    def locate(self, index: int) -> Location | None:
        """Where table ``index``'s shard lies inside the pack, or None when the pack lacks the table."""
        entry = self.manifest(index)
        if entry is None:
            return None
        info = self._members.get(shard_member(index))
        if info is None:
            raise CorruptDatabaseError(f"The packed database '{self.name}' records table {index} but lacks its shard.")
        return make_location(self.name, self._start_of(info), info.file_size, entry, index, self.name)

    def read_ranges(self, location: Location, ranges: Sequence[tuple[int, int]], where: str) -> list[bytes]:
        """The bytes of (offset, nbytes) ranges of a located shard."""
        return self.source.read_ranges(location.start, ranges, where)

    def built(self) -> list[int]:
        """Indices of the tables the pack holds, ascending."""
        return sorted(
            int(name[9:13]) for name in self._members if name.startswith("manifest/") and len(name) == 18 and name[9:13].isdigit()
        )

    def build_hint(self, index: int) -> str:
        """How to add a missing table, for messages."""
        return f"this file was packed from a partial build; build table {index} into the store folder and pack it again"

    def members_under(self, folder: str) -> list[str]:
        """Member names under one folder of the pack (like ``derived``), sorted."""
        return sorted(name for name in self._members if name.startswith(folder + "/"))

    def integrity_problems(self) -> list[str]:
        """Check the ``.sha256`` beside the file and every member against ``SHA256SUMS``."""
        problems = []
        listed = self.source.checksum_beside()
        if listed is not None and (not listed.split() or listed.split()[0] != self.source.sha256()):
            problems.append("the file's SHA-256 differs from the .sha256 beside it (altered or truncated)")
        try:
            sums = self.read_member(SUMS_MEMBER)
        except CorruptDatabaseError as error:
            return problems + [str(error)]
        if sums is None:
            return problems + [f"the pack has no {SUMS_MEMBER} member"]
        listed_names = set()
        for line in sums.decode(errors="replace").splitlines():
            digest, _, name = line.partition("  ")
            listed_names.add(name)
            info = self._members.get(name)
            if info is None:
                problems.append(f"member {name} is listed in {SUMS_MEMBER} but missing")
                continue
            try:
                actual = self.source.sha256(self._start_of(info), info.file_size)
            except CorruptDatabaseError as error:
                problems.append(str(error))
                continue
            if actual != digest:
                problems.append(f"member {name} does not match its SHA-256 in {SUMS_MEMBER}")
        unlisted = set(self._members) - listed_names - {SUMS_MEMBER}
        if unlisted:
            problems.append(f"{len(unlisted)} members are not in {SUMS_MEMBER}, for example {sorted(unlisted)[0]}")
        return problems

    def zarr_store(self) -> Any:
        """A read-only zarr store over the same data (for the small metadata arrays): a memory store of every member but the shards."""
        from zarr.storage import MemoryStore

        members = {name: self.read_member(name) for name in self._members if not name.startswith("W/c/") and name != SUMS_MEMBER}
        return MemoryStore({name: _buffer(data) for name, data in members.items() if data is not None}, read_only=True)


def _buffer(data: bytes) -> Buffer:
    from zarr.buffer import default_buffer_prototype

    return default_buffer_prototype().buffer.from_bytes(data)


class LocalFile:
    """A packed file on this machine, as :class:`PackedStore` reads it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.name = str(path)
        try:
            self.size = self.path.stat().st_size
        except FileNotFoundError:
            raise DatabaseNotFoundError(f"No database at '{path}'; build one with 'matchdb build' and 'matchdb pack'.") from None
        except OSError as error:
            raise DatabaseError(f"The packed database '{path}' cannot be read ({error.strerror}).") from None

    def zip_file(self) -> Path:
        """What :mod:`zipfile` opens to parse the central directory."""
        return self.path

    def pread(self, length: int, offset: int) -> bytes:
        return read_file_ranges(self.name, offset, [(0, length)], f"of '{self.name}'")[0]

    def read_ranges(self, start: int, ranges: Sequence[tuple[int, int]], where: str) -> list[bytes]:
        return read_file_ranges(self.name, start, ranges, where)

    def checksum_beside(self) -> str | None:
        """The text of ``FILE.sha256`` beside the file, or None."""
        beside = Path(f"{self.path}.sha256")
        return beside.read_text() if beside.exists() else None

    def sha256(self, start: int = 0, length: int | None = None) -> str:
        return sha256_range(self.path, start, self.size - start if length is None else length)


