"""A library packed into one file (``matchdb library pack``), read in place from a path or a URL.

The file is a zip of the library folder's files, stored as they are (their
arrays are already compressed), plus ``SHA256SUMS`` listing every member's
SHA-256; ``FILE.sha256`` beside it holds the whole file's. It is read like the
packed tables (:mod:`matchdb.storage.packed`): the central directory once
(:mod:`zipfile`), then each member by byte offset, its local header checked
against the central directory and its bytes against their CRC-32. Over HTTP
(:class:`matchdb.storage.remote.HttpFile`) only the members asked for are
fetched, by range requests through a local cache.
"""

from __future__ import annotations

import hashlib
import os
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from matchdb.errors import MatchdbError
from matchdb.library.spec import LibraryError
from matchdb.library.store import FolderFiles, library_spec
from matchdb.outputs import write_whole
from matchdb.storage.digests import sha256_range

__all__ = ["PackedFiles", "pack_library", "library_files", "SUMS_MEMBER"]

SUMS_MEMBER = "SHA256SUMS"
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")


def pack_library(path: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Write the library folder ``path`` as the one file ``out`` (and ``out.sha256``); the file appears whole or not
    at all. Hidden leftovers of a killed build are left out."""
    source = FolderFiles(path)
    library_spec(source)  # a folder that is not a library is refused before anything is written
    names = [n for n in source.members(".", deep=True) if not any(part.startswith(".") for part in Path(n).parts)]
    target = Path(out)
    partial = target.with_name(f".{target.name}.partial")

    def write() -> None:
        sums = []
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED) as archive:
            for name in names:
                data = (Path(path) / name).read_bytes()
                archive.writestr(name, data)
                sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
            archive.writestr(SUMS_MEMBER, "".join(sums))
        with open(partial, "rb+") as handle:
            os.fsync(handle.fileno())

    write_whole(target, partial, write)
    os.replace(partial, target)
    digest = sha256_range(target, 0, target.stat().st_size)  # read in pieces: a library may be gigabytes
    Path(f"{target}.sha256").write_text(f"{digest}  {target.name}\n")
    return target


class PackedFiles:
    """A packed library's members, from a local file or a URL (see the module's docstring)."""

    def __init__(self, location: str | os.PathLike[str]) -> None:
        from matchdb.storage.packed import LocalFile
        from matchdb.storage.remote import HttpFile

        text = os.fspath(location)
        try:
            self.source: Any = HttpFile(text) if text.startswith(("http://", "https://")) else LocalFile(text)
        except MatchdbError as error:
            raise LibraryError(str(error).replace("database", "library")) from None
        self.name = text
        try:
            with zipfile.ZipFile(self.source.zip_file()) as archive:
                infos = archive.infolist()
        except MatchdbError:
            raise
        except Exception as error:  # zipfile raises BadZipFile, EOFError, ... on damage
            raise LibraryError(f"The packed library '{text}' is truncated or damaged ({error}); expected a file written "
                               "by 'matchdb library pack'.") from None
        self._members = {info.filename: info for info in infos}
        if len(self._members) != len(infos):
            raise LibraryError(f"The packed library '{text}' names a member twice; the file is damaged.")

    def read(self, member: str) -> bytes | None:
        info = self._members.get(member)
        if info is None:
            return None
        name = info.filename.encode()
        header = self.source.pread(_LOCAL_HEADER.size + len(name), info.header_offset)
        damaged = f"The packed library '{self.name}' is damaged: member {member!r}"
        if len(header) != _LOCAL_HEADER.size + len(name):
            raise LibraryError(f"{damaged} has no local header.")
        signature, _, _, method, _, _, _, _, _, name_length, extra_length = _LOCAL_HEADER.unpack(header[: _LOCAL_HEADER.size])
        if (signature, method, header[_LOCAL_HEADER.size :]) != (b"PK\x03\x04", zipfile.ZIP_STORED, name):
            raise LibraryError(f"{damaged} has a local header that does not match the central directory.")
        start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        data: bytes = self.source.pread(info.file_size, start)
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise LibraryError(f"{damaged} fails its CRC-32 check.")
        return data

    def members(self, folder: str, deep: bool = False) -> list[str]:
        prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
        found = []
        for name in self._members:
            if not name.startswith(prefix) or name == SUMS_MEMBER:
                continue
            rest = name[len(prefix):]
            if deep or "/" not in rest:
                found.append(rest)
        return sorted(found)


def library_files(location: str | os.PathLike[str]) -> FolderFiles | PackedFiles:
    """The files of the library at ``location``: a folder, a packed file, or a packed file's URL."""
    text = os.fspath(location)
    if text.startswith(("http://", "https://")) or Path(text).is_file():
        return PackedFiles(text)
    return FolderFiles(text)
