"""One shippable file: the store zipped without recompression, checksummed, and read in place.

``matchdb pack`` writes every file of a store folder into a zip archive with
the *stored* method (the shards are already zstd-compressed; compressing them
again gains nothing and would stop us from reading them by offset), adds a
``SHA256SUMS`` member listing the SHA-256 of every other member, and writes
``FILE.sha256`` beside it in ``sha256sum`` format.

:class:`PackedStore` reads such a file directly: Python's ``zipfile`` parses
the central directory once, and each shard is then read by byte offset with
an ordinary file handle, so lookups cost the same as in the folder and never
queue behind a lock (zarr's own ZipStore serializes reads and costs about
3 ms a row). Corruption cannot yield a wrong answer: shard indexes carry a
crc32c and every chunk a zstd content checksum, other members are read
through ``zipfile``, which checks their CRC-32, and ``matchdb verify FILE``
checks every SHA-256.

>>> report = pack("data/matchdb.zarr", "data/matchdb.zip")   # doctest: +SKIP
>>> db = matchdb.open("data/matchdb.zip")                     # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from matchdb.canonical import N_FLOPS
from matchdb.errors import CorruptDatabaseError, DatabaseError, DatabaseNotFoundError
from matchdb.store import PREFLOP_FILE, PREFLOP_VERSION, DirectoryStore, check_attrs, sha256_file, sha256_range

__all__ = ["pack", "PackReport", "PackedStore", "SUMS_MEMBER"]

#: The member listing ``<sha256>  <member>`` for every other member.
SUMS_MEMBER = "SHA256SUMS"
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # identical stores pack to identical bytes
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, then name and extra-field lengths at offset 26


@dataclass
class PackReport:
    """What :func:`pack` wrote."""

    path: Path
    members: int
    tables: int
    bytes: int
    sha256: str
    seconds: float
    preflop_seconds: float = 0.0

    def summary(self) -> str:
        first = f"computed the preflop table in {self.preflop_seconds:.1f} s; " if self.preflop_seconds else ""
        return (
            f"{first}packed {self.tables} tables ({self.members} files) into {self.path}: "
            f"{self.bytes / 1e6:.2f} MB in {self.seconds:.1f} s; sha256 {self.sha256}"
        )


def _store_files(root: Path) -> list[str]:
    names = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.startswith(".") or name.endswith(".partial"):
                continue  # temporary files of a build in progress
            names.append(Path(folder, name).relative_to(root).as_posix())
    return sorted(names, key=lambda n: (n.startswith("W/"), n))  # metadata first, shards last


def pack(db: str | Path, out: str | Path, quiet: bool = True, preflop: bool = True) -> PackReport:
    """Pack the store folder ``db`` into the single file ``out`` (and ``out.sha256``).

    With ``preflop`` (the default), a complete database's preflop table is
    computed first if the store has none cached, so the shipped file carries
    it. The file appears only when complete: it is written as
    ``out.partial``, synced and renamed.
    """
    from tqdm import tqdm

    source = DirectoryStore(db)
    out = Path(out)
    if out.is_dir():
        raise DatabaseError(f"The output '{out}' is a folder; expected a file name like 'matchdb.zip'.")
    preflop_seconds = 0.0
    if preflop and source.read_preflop() is None and len(source.built()) == N_FLOPS:
        from matchdb.query import MatchDB

        started = time.perf_counter()
        MatchDB(source.root).preflop(quiet=quiet)
        preflop_seconds = time.perf_counter() - started
    started = time.perf_counter()
    names = _store_files(source.root)
    partial = out.with_name(out.name + ".partial")
    out.parent.mkdir(parents=True, exist_ok=True)
    sums = []
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name in tqdm(names, desc="packing", unit="file", disable=True if quiet else None):
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            digest = hashlib.sha256()
            with open(source.root / name, "rb") as handle, archive.open(info, "w", force_zip64=False) as member:
                while block := handle.read(1 << 20):
                    digest.update(block)
                    member.write(block)
            sums.append(f"{digest.hexdigest()}  {name}\n")
        info = zipfile.ZipInfo(SUMS_MEMBER, date_time=_FIXED_TIME)
        info.external_attr = 0o644 << 16
        archive.writestr(info, "".join(sums))
    with open(partial, "rb") as handle:
        os.fsync(handle.fileno())
    whole = sha256_file(partial)
    beside = Path(str(out) + ".sha256")
    beside.unlink(missing_ok=True)  # never leave an old checksum beside a new file
    os.replace(partial, out)
    beside.write_text(f"{whole}  {out.name}\n")
    return PackReport(
        path=out,
        members=len(names) + 1,
        tables=len(source.built()),
        bytes=out.stat().st_size,
        sha256=whole,
        seconds=time.perf_counter() - started,
        preflop_seconds=preflop_seconds,
    )


class PackedStore:
    """A file written by :func:`pack`, seen as a database (same methods as :class:`DirectoryStore`)."""

    packed = True

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(path)
        if not self.path.exists():
            raise DatabaseNotFoundError(f"No database at '{path}'; build one with 'matchdb build' and 'matchdb pack'.")
        try:
            with zipfile.ZipFile(self.path) as archive:
                self._members = {info.filename: info for info in archive.infolist()}
                meta = archive.read("zarr.json")
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise CorruptDatabaseError(
                f"The packed database '{path}' is truncated or damaged ({error}); expected a file written by 'matchdb pack'."
            ) from None
        except KeyError:
            raise CorruptDatabaseError(f"The packed database '{path}' has no zarr.json; expected a file written by 'matchdb pack'.") from None
        try:
            self.attrs = json.loads(meta)["attributes"]
        except (ValueError, KeyError) as error:
            raise CorruptDatabaseError(f"The metadata in '{path}' cannot be read ({error}); expected zarr group JSON.") from None
        check_attrs(self.attrs, self.name)
        self._size = self.path.stat().st_size
        self._starts: dict[str, int] = {}

    def _start_of(self, info: zipfile.ZipInfo) -> int:
        """Offset of a member's bytes: after its local header, whose lengths may differ from the central directory's."""
        start = self._starts.get(info.filename)
        if start is None:
            with open(self.path, "rb") as handle:
                handle.seek(info.header_offset)
                header = handle.read(_LOCAL_HEADER.size)
            if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
                raise CorruptDatabaseError(f"The packed database '{self.name}' is damaged: member {info.filename} has no local header.")
            _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
            start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
            if info.compress_type != zipfile.ZIP_STORED or start + info.file_size > self._size:
                raise CorruptDatabaseError(
                    f"The packed database '{self.name}' is damaged: member {info.filename} is compressed or runs past the end."
                )
            self._starts[info.filename] = start
        return start

    def shard(self, index: int) -> tuple[str, int, int] | None:
        """(file, start, length) of table ``index``'s shard inside the pack, or None when it is not there."""
        info = self._members.get(f"W/c/{index}/0/0")
        if info is None or f"manifest/{index:04d}.json" not in self._members:
            return None
        return str(self.path), self._start_of(info), info.file_size

    def read_member(self, name: str) -> bytes:
        """A member's bytes, checked against the CRC-32 the archive records for it."""
        info = self._members[name]
        with open(self.path, "rb") as handle:
            handle.seek(self._start_of(info))
            data = handle.read(info.file_size)
        if zlib.crc32(data) != info.CRC:
            raise CorruptDatabaseError(f"The member {name} of '{self.name}' fails its CRC-32 check; the file is damaged.")
        return data

    def read_preflop(self) -> dict | None:
        """The preflop table packed with the database, or None."""
        if PREFLOP_FILE not in self._members:
            return None
        data = json.loads(self.read_member(PREFLOP_FILE))
        return data if data.get("version") == PREFLOP_VERSION else None

    def write_preflop(self, data: dict) -> None:
        """A packed file is never modified: a preflop table computed from it is kept in memory only."""

    def manifest(self, index: int) -> dict | None:
        name = f"manifest/{index:04d}.json"
        if name not in self._members:
            return None
        try:
            return json.loads(self.read_member(name))
        except ValueError:
            return None

    def built(self) -> list[int]:
        return [i for i in range(N_FLOPS) if f"manifest/{i:04d}.json" in self._members]

    def integrity_problems(self) -> list[str]:
        """Check the ``.sha256`` beside the file and every member against ``SHA256SUMS``."""
        problems = []
        beside = Path(str(self.path) + ".sha256")
        if beside.exists():
            listed = beside.read_text().split()
            if not listed or listed[0] != sha256_file(self.path):
                problems.append(f"the file's SHA-256 differs from {beside.name} (altered or truncated)")
        if SUMS_MEMBER not in self._members:
            return problems + [f"the pack has no {SUMS_MEMBER} member"]
        try:
            lines = self.read_member(SUMS_MEMBER).decode().splitlines()
        except CorruptDatabaseError as error:
            return problems + [str(error)]
        listed_names = set()
        for line in lines:
            digest, _, name = line.partition("  ")
            listed_names.add(name)
            info = self._members.get(name)
            if info is None:
                problems.append(f"member {name} is listed in {SUMS_MEMBER} but missing")
                continue
            try:
                actual = sha256_range(str(self.path), self._start_of(info), info.file_size)
            except CorruptDatabaseError as error:
                problems.append(str(error))
                continue
            if actual != digest:
                problems.append(f"member {name} does not match its SHA-256 in {SUMS_MEMBER}")
        unlisted = set(self._members) - listed_names - {SUMS_MEMBER}
        if unlisted:
            problems.append(f"{len(unlisted)} members are not in {SUMS_MEMBER}, for example {sorted(unlisted)[0]}")
        return problems

    def zarr_store(self):
        from zarr.storage import ZipStore

        return ZipStore(self.path, mode="r", read_only=True)
