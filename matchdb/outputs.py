"""Files a command writes for the user (a dataset, a report, a figure, a bot): whole or not at all, a failure in one sentence.

Each is written under a temporary name beside its final one and renamed
into place once complete, so a full disk, a file-size limit or an
interruption never leaves half a file under the name asked for, and never
a temporary file either. A full disk is said as such:

>>> import errno
>>> write_failure("a.zarr", OSError(errno.ENOSPC, "No space left on device"))
"Writing 'a.zarr' failed: the disk is full (No space left on device); nothing was left behind."
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matchdb.errors import DatabaseError

__all__ = ["write_failure", "write_whole", "save_text", "save_figure"]


def _partial(path: Path) -> Path:
    """A temporary name beside ``path`` that keeps its suffix (matplotlib picks the format from it)."""
    return path.with_name(f".{path.stem}.{os.getpid()}.{uuid.uuid4().hex[:12]}.partial{path.suffix}")


def write_failure(out: str | Path, error: OSError) -> str:
    """One sentence for a write of ``out`` that failed with ``error`` (a full disk said so), after its partial file is gone.

    >>> write_failure("r.csv", OSError(27, "File too large"))
    "Writing 'r.csv' failed: the file is larger than this system allows (File too large); nothing was left behind."
    """
    import errno

    text = (error.strerror or str(error) or type(error).__name__).splitlines()[0][:200]
    full = error.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left" in str(error) or "errno = 28" in str(error)
    if full:
        return f"Writing '{out}' failed: the disk is full ({os.strerror(errno.ENOSPC)}); nothing was left behind."
    if error.errno == errno.EFBIG or "File too large" in text:
        return f"Writing '{out}' failed: the file is larger than this system allows ({text}); nothing was left behind."
    return f"Writing '{out}' failed ({text}); nothing was left behind."


def write_whole(out: str | Path, partial: Path, write: Callable[[], object]) -> None:
    """Call ``write()``, a writer of ``partial`` (the temporary form of ``out``): on any failure ``partial`` is removed,
    and an OSError (a full disk) becomes one sentence.

    A plain function, not a context manager, so that what the failed writer
    leaves (h5py's objects, which report the same failure again as they are
    freed) is freed here, quietly, before the sentence is raised.
    """
    import gc
    import sys

    failure = None
    hooks = sys.unraisablehook, sys.excepthook  # Cython's __dealloc__ reports through both
    sys.unraisablehook, sys.excepthook = (lambda _: None), (lambda *_: None)
    try:
        try:
            write()
        except OSError as error:
            failure = write_failure(out, error)
        except RuntimeError as error:  # h5py reports a failed write at close as RuntimeError
            if "write failed" not in str(error) and "errno =" not in str(error):
                _remove_path(partial)
                raise
            failure = write_failure(out, OSError(str(error)))
        except BaseException:
            _remove_path(partial)
            raise
        gc.collect()
    finally:
        sys.unraisablehook, sys.excepthook = hooks
    if failure is not None:
        _remove_path(partial)
        raise DatabaseError(failure)


def _remove_path(path: Path) -> None:
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def save_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all; a failure is one sentence.

    >>> import tempfile, pathlib
    >>> save_text(pathlib.Path(tempfile.mkdtemp()) / "a.csv", "x\\n").read_text()
    'x\\n'
    """
    path = Path(path)
    partial = _partial(path)

    def write() -> None:
        with open(partial, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)

    write_whole(path, partial, write)
    return path


def save_figure(figure: Any, path: str | os.PathLike[str], **options: Any) -> Path:
    """``figure.savefig`` to ``path`` whole or not at all: drawn under a temporary name with the same suffix, then renamed."""
    path = Path(path)
    partial = _partial(path)

    def write() -> None:
        figure.savefig(os.fspath(partial), **options)
        os.replace(partial, path)

    write_whole(path, partial, write)
    return path
