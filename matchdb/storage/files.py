"""Safe file I/O for the store: small files read without blocking, files written atomically, temp files named by writer.

Every file the store writes appears whole or not at all: it is written under
a temporary name that says which process wrote it, synced, and renamed over
the final name. A writer killed halfway leaves only its temporary file, which
:func:`remove_stale_partials` removes once that process is gone, never the
temporary file of a writer still at work.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_atomically(folder / "a.json", b"{}")
>>> read_small_file(folder / "a.json", "file"), read_small_file(folder / "b.json", "file")
(b'{}', None)
"""

from __future__ import annotations

import os
import stat
import time
import uuid
from pathlib import Path

from matchdb.errors import CorruptDatabaseError, DatabaseError

__all__ = ["is_url", "read_small_file", "write_atomically", "fsync_path", "remove_stale_partials", "check_output_file", "check_outside", "PARTIAL_SUFFIX"]

#: Most bytes read from a metadata file, a manifest entry or a derived file; more is damage.
MAX_SMALL_FILE = 64 << 20
PARTIAL_SUFFIX = ".partial"
_HOST = os.uname().nodename.replace(".", "-")  # what socket.gethostname() says, without importing socket


def is_url(path: object) -> bool:
    """True for an ``http://`` or ``https://`` address (a packed database read by range requests)."""
    return isinstance(path, str) and path.startswith(("http://", "https://"))


def read_small_file(path: str | Path, what: str) -> bytes | None:
    """The bytes of a small regular file, or None when it does not exist; other failures are one-sentence errors."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO in a file's place must not block
    except FileNotFoundError:
        return None
    except OSError as error:
        raise DatabaseError(f"The {what} '{path}' cannot be opened ({error.strerror}).") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CorruptDatabaseError(f"The {what} '{path}' is not a regular file; the database is damaged.")
        if info.st_size > MAX_SMALL_FILE:
            raise CorruptDatabaseError(f"The {what} '{path}' is {info.st_size} bytes; expected a small file.")
        blocks = []
        while block := os.read(fd, 1 << 20):
            blocks.append(block)
        return b"".join(blocks)
    except OSError as error:
        raise DatabaseError(f"The {what} '{path}' cannot be read ({error.strerror}).") from None
    finally:
        os.close(fd)


def fsync_path(path: str | Path) -> None:
    """Flush a file or a folder to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _partial_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{_HOST}.{os.getpid()}.{uuid.uuid4().hex[:12]}{PARTIAL_SUFFIX}")


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` holds either its old content or all of ``data``.

    Raises OSError as the system reports it (a full disk, a read-only folder):
    the caller words the message, and the temporary file is gone.
    """
    path = Path(path)
    tmp = _partial_name(path)
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_path(path.parent)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this host still runs (a killed process not yet reaped, a zombie, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc (not Linux): os.kill's answer stands
    return state not in ("Z", "X")


def remove_stale_partials(folder: str | Path, older_than: float = 3600.0) -> int:
    """Remove temporary files in ``folder`` left by writers that are gone; return how many.

    A file written by this host's process that no longer runs goes at once; a
    file of another host (or of an older naming) only when older than
    ``older_than`` seconds, since its writer may still be at work.
    """
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for entry in entries:
        if not entry.name.endswith(PARTIAL_SUFFIX):
            continue
        parts = entry.name.split(".")
        try:
            mine = len(parts) >= 5 and parts[-4] == _HOST and not _alive(int(parts[-3]))
            stale = time.time() - entry.stat().st_mtime > older_than
        except (ValueError, FileNotFoundError):
            continue
        if mine or stale:
            try:
                os.unlink(entry.path)
                removed += 1
            except FileNotFoundError:
                pass
    return removed


def check_output_file(out: str | Path, suffix: str, reading: str | os.PathLike[str] | None = None) -> Path:
    """``out`` as a Path after checking a file can be written there, before any work starts.

    Not a folder, in a folder that exists and this user can write to, and not
    the database being read (``reading``, a store folder or packed file) nor
    anything inside it: ``matchdb pack --db STORE --out STORE/zarr.json``
    would overwrite the store's metadata with the zip.

    >>> check_output_file("no/such/folder/x.zip", ".zip")
    Traceback (most recent call last):
    ...
    matchdb.errors.DatabaseError: The output 'no/such/folder/x.zip' is in a folder that does not exist ('no/such/folder'); create it first.
    >>> check_output_file(f"{path}/zarr.json", ".zip", reading=path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    matchdb.errors.DatabaseError: The output '.../zarr.json' is inside the database '...' being read; expected a path outside it.
    """
    if not isinstance(out, (str, os.PathLike)) or not str(out):
        raise DatabaseError(f"The output {out!r} is not a file name; expected one like 'matchdb{suffix}'.")
    out = Path(out)
    if out.is_dir():
        raise DatabaseError(f"The output '{out}' is a folder; expected a file name like 'matchdb{suffix}'.")
    if not out.parent.is_dir():
        raise DatabaseError(f"The output '{out}' is in a folder that does not exist ('{out.parent}'); create it first.")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise DatabaseError(f"The output '{out}' is in a folder this user cannot write to ('{out.parent}').")
    check_outside(out, reading)
    return out


def check_outside(out: str | Path, reading: str | os.PathLike[str] | None) -> None:
    """Refuse an output that is the database being read (``reading``) or lies inside it; URLs are never inside."""
    if reading is None or is_url(reading):
        return
    try:
        store = Path(reading).resolve()
        target = Path(out).resolve()
    except (OSError, RuntimeError):  # a loop of links: nothing to compare
        return
    if target == store or store in target.parents:
        raise DatabaseError(f"The output '{out}' is inside the database '{reading}' being read; expected a path outside it.")
