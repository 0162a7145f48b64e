"""One shippable file: the store zipped without recompression and checksummed (``matchdb pack``).

Every file of a store folder goes into a zip archive with the *stored*
method (the shards are already zstd-compressed; compressing them again gains
nothing and would stop us from reading them by offset), beside a
``SHA256SUMS`` member listing the SHA-256 of every other member; ``FILE.sha256``
is written beside the file in ``sha256sum`` format. Packing is reproducible:
the same store packs to the same bytes. :mod:`matchdb.storage.packed` reads
such a file in place.

>>> report = pack(path, "small.zip", preflop=False)
>>> report.tables, matchdb.open("small.zip").info()["packed"]
(8, True)
"""

from __future__ import annotations

import hashlib
import os
import shlex
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from matchdb.answers import plural
from matchdb.core.canonical import N_FLOPS
from matchdb.db.query import MatchDB
from matchdb.errors import DatabaseError
from matchdb.outputs import write_failure
from matchdb.progress import progress
from matchdb.storage.digests import sha256_file
from matchdb.storage.files import PARTIAL_SUFFIX, check_output_file, fsync_path
from matchdb.storage.packed import SUMS_MEMBER

__all__ = ["pack", "PackReport"]

_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # identical stores pack to identical bytes


@dataclass
class PackReport:
    """What :func:`pack` wrote."""

    path: Path
    members: int
    tables: int
    bytes: int
    sha256: str
    seconds: float
    preflop_seconds: float = 0.0  #: time spent computing the derived data first; 0 when the store had it

    def summary(self) -> str:
        first = f"computed the derived data in {self.preflop_seconds:.1f} s; " if self.preflop_seconds else ""
        return (
            f"{first}packed {plural(self.tables, 'table')} ({plural(self.members, 'file')}) into {self.path}: "
            f"{self.bytes / 1e6:.2f} MB in {self.seconds:.1f} s; sha256 {self.sha256}\n"
            f"check it with: (cd {shlex.quote(str(self.path.parent))} && sha256sum -c {shlex.quote(self.path.name)}.sha256)"
        )


def _store_files(root: Path) -> list[str]:
    names = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.startswith(".") or name.endswith(PARTIAL_SUFFIX):
                continue  # temporary files of a build in progress
            names.append(Path(folder, name).relative_to(root).as_posix())
    return sorted(names, key=lambda n: (n.startswith("W/"), n))  # metadata first, shards last


def pack(db: str | Path, out: str | Path, show_progress: bool = False, preflop: bool = True) -> PackReport:
    """Pack the store folder ``db`` into the single file ``out`` (and ``out.sha256``).

    With ``preflop`` (the default), a complete database's derived data (the
    preflop tables and matchups, :mod:`matchdb.equity.derived`) is computed
    first where the store lacks it (a store built before ``matchdb build``
    computed it), so the shipped file carries it.
    The file appears only when complete: it is written as ``out.partial``,
    synced and renamed, and the ``.sha256`` beside it follows.
    """
    source = MatchDB(db, cache_tables=1)
    if source.store.packed:
        raise DatabaseError(f"The database '{db}' is already packed; expected a store folder.")
    out = check_output_file(out, ".zip", reading=db)
    preflop_seconds = 0.0
    if preflop and len(source.built()) == N_FLOPS:
        started = time.perf_counter()
        if source.prepare(show_progress=show_progress):  # computed and kept in the store unless they are there, intact
            preflop_seconds = time.perf_counter() - started
    started = time.perf_counter()
    root = Path(db)
    names = _store_files(root)
    partial = out.with_name(out.name + PARTIAL_SUFFIX)
    beside = Path(str(out) + ".sha256")
    try:
        _write_zip(root, names, partial, show_progress)
        fsync_path(partial)
        whole = sha256_file(partial)
        beside.unlink(missing_ok=True)  # never leave an old checksum beside a new file
        os.replace(partial, out)
        beside.write_text(f"{whole}  {out.name}\n")
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise DatabaseError(write_failure(out, error)) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return PackReport(
        path=out,
        members=len(names) + 1,
        tables=len(source.built()),
        bytes=out.stat().st_size,
        sha256=whole,
        seconds=time.perf_counter() - started,
        preflop_seconds=preflop_seconds,
    )


def _write_zip(root: Path, names: list[str], partial: Path, show_progress: bool) -> None:
    sums = []
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name in progress(names, len(names), "packing", unit="file", enabled=show_progress):
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            digest = hashlib.sha256()
            with open(root / name, "rb") as handle, archive.open(info, "w", force_zip64=False) as member:
                while block := handle.read(1 << 20):
                    digest.update(block)
                    member.write(block)
            sums.append(f"{digest.hexdigest()}  {name}\n")
        info = zipfile.ZipInfo(SUMS_MEMBER, date_time=_FIXED_TIME)
        info.external_attr = 0o644 << 16
        archive.writestr(info, "".join(sums))
