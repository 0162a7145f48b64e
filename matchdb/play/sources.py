"""Where the bots' hand strengths read the match tables from, named once: :class:`TableSource`.

The arena (:func:`matchdb.play.arena.run_arena`), tuning
(:class:`matchdb.play.tuning.SessionPlayer`, :func:`matchdb.play.tuning.tune_bot`)
and ``matchdb arena`` / ``matchdb tune bot`` take one ``source=``: a
:class:`TableSource` names the database (an open :class:`matchdb.MatchDB`, its
path or URL, or None for :func:`matchdb.open`'s default), a folder of decoded
tables (:func:`matchdb.play.strength.decode_tables`) or none (tables are then
decoded on first use), and how many decoded tables are kept
(:data:`matchdb.play.strength.TABLE_CAPACITY` unless told). Nothing is opened
until a bot needs a strength (:meth:`TableSource.open`); worker processes get
the description and open their own (:meth:`TableSource.for_workers`). An open
:class:`matchdb.play.strength.StrengthSource` is a source too
(``TableSource(strengths=...)``, or given as ``source=`` directly).

>>> TableSource(db="data/matchdb.zarr", tables="/scratch/decoded")
TableSource(db='data/matchdb.zarr', tables='/scratch/decoded', capacity=64)
>>> TableSource(capacity=0)
Traceback (most recent call last):
...
matchdb.play.strength.StrengthError: The table capacity 0 is not a whole number of at least 1.
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import TYPE_CHECKING, Any, cast

from matchdb.play.strength import TABLE_CAPACITY, StrengthError, StrengthSource, open_decoded

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = ["TableSource", "source_of"]


class TableSource:
    """Where hand strengths come from: a database, its decoded tables (or none), and how many decoded tables are kept.

    Parameters
    ----------
    db : an open :class:`matchdb.MatchDB`, a database path or URL, or None
        (:func:`matchdb.open`'s default database).
    tables : a folder of decoded tables (:func:`matchdb.play.strength.decode_tables`,
        ``matchdb arena --decode``), or None to decode tables on first use.
    capacity : decoded tables kept in memory when ``tables`` is None
        (2.8 MB each; default :data:`matchdb.play.strength.TABLE_CAPACITY`).
    strengths : an open :class:`matchdb.play.strength.StrengthSource` to use
        as it is in this process (then ``db`` is its database); worker
        processes open that database again, with ``tables`` when given.
    """

    def __init__(self, db: MatchDB | str | os.PathLike[str] | None = None, *,
                 tables: str | os.PathLike[str] | None = None, capacity: int = TABLE_CAPACITY,
                 strengths: StrengthSource | None = None) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise StrengthError(f"The table capacity {capacity!r} is not a whole number of at least 1.")
        if tables is not None and not isinstance(tables, (str, os.PathLike)):
            raise StrengthError(f"The tables {tables!r} are not a folder; expected the path of a folder written by "
                                "decode_tables, or None.")
        if strengths is not None:
            if not callable(getattr(strengths, "arrays", None)) or getattr(strengths, "tables", None) is None:
                raise StrengthError(f"The strengths {strengths!r} are not a StrengthSource.")
            if db is not None:
                raise StrengthError("An open StrengthSource brings its own database; give db= only without strengths=.")
            db = strengths.db
        self.db = db
        self.tables = tables
        self.capacity = capacity
        self._strengths = strengths
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        db = self.db if self.db is None or not isinstance(self.db, (str, os.PathLike)) else str(self.db)
        tables = None if self.tables is None else str(self.tables)
        return f"TableSource(db={db!r}, tables={tables!r}, capacity={self.capacity})"

    def __getstate__(self) -> dict[str, Any]:
        # what travels to another process is the description: an open source and its lock stay here
        return {"db": self.db, "tables": self.tables, "capacity": self.capacity}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["db"], tables=state["tables"], capacity=state["capacity"])  # type: ignore[misc]

    @property
    def decoded(self) -> bool:
        """True when the tables come from a folder of decoded tables."""
        return self.tables is not None

    def check(self) -> None:
        """Say at once (:class:`matchdb.play.strength.StrengthError`) when ``tables`` holds no decoded tables."""
        if self.tables is not None:
            open_decoded(self.tables)

    def open(self) -> StrengthSource:
        """The :class:`matchdb.play.strength.StrengthSource`, opened on the first call and kept."""
        with self._lock:
            if self._strengths is None:
                from matchdb.db.query import open as open_database

                db = self.db
                if db is None or isinstance(db, (str, os.PathLike)):
                    db = open_database(db)
                decoded = open_decoded(self.tables) if self.tables is not None else None
                self._strengths = StrengthSource(db, tables=decoded, capacity=self.capacity)
            return self._strengths

    def path(self) -> str | None:
        """The database's path or URL (what a worker process opens), or None when it has none (a MatchDB without one)."""
        db = self.db
        if db is None:
            from matchdb.storage import default_path

            return str(default_path())
        if isinstance(db, (str, os.PathLike)):
            return str(db)
        path = getattr(db, "path", None)
        return None if path is None else str(path)

    def for_workers(self) -> TableSource:
        """The same description with the database as a path, for worker processes that open their own."""
        path = self.path()
        if path is None:
            raise StrengthError(f"Workers open the database themselves, and {self.db!r} has no path; give the database "
                                "as a path or an opened MatchDB.")
        return TableSource(path, tables=None if self.tables is None else str(self.tables), capacity=self.capacity)

    def key(self) -> tuple[str | None, str | None, int]:
        """(database path, tables folder, capacity): equal keys open equal sources."""
        return self.path(), None if self.tables is None else str(self.tables), self.capacity


def source_of(source: object, db: MatchDB | str | os.PathLike[str] | None = None,
              tables: str | os.PathLike[str] | None = None, capacity: int | None = None, *,
              where: str, stacklevel: int = 3) -> TableSource | None:
    """The :class:`TableSource` of a ``source=`` argument, or of the deprecated ``db=``, ``tables=``, ``capacity=``.

    ``source`` may be a :class:`TableSource`, an open
    :class:`matchdb.play.strength.StrengthSource` or None; the old keywords
    (still taken for one release) warn with a :class:`DeprecationWarning`
    that names the replacement. ``where`` names the caller in messages, and
    ``stacklevel`` the frame the warning points at (3: the caller's caller).
    Returns None when nothing was given.

    >>> source_of(None, where="run_arena") is None
    True
    >>> source_of(TableSource(capacity=8), where="run_arena")
    TableSource(db=None, tables=None, capacity=8)
    >>> source_of("data/matchdb.zarr", where="run_arena")
    Traceback (most recent call last):
    ...
    matchdb.play.strength.StrengthError: The source 'data/matchdb.zarr' is not a TableSource or a StrengthSource; expected source=TableSource(db=..., tables=...).
    """
    old = {name: value for name, value in (("db", db), ("tables", tables), ("capacity", capacity)) if value is not None}
    if old:
        warnings.warn(f"{where}'s db=, tables= and capacity= are deprecated; give source=TableSource(db=..., "
                      "tables=..., capacity=...) (matchdb.play.sources.TableSource).", DeprecationWarning,
                      stacklevel=stacklevel)
        capacity = capacity if capacity is not None else TABLE_CAPACITY
        if source is not None:  # the old way: an open source here, the database and tables for workers
            if isinstance(source, TableSource) or db is not None:
                raise StrengthError(f"{where} was given source= and also {', '.join(k + '=' for k in old)}; give only "
                                    "source=TableSource(...).")
            return TableSource(tables=tables, capacity=capacity, strengths=_strengths(source))
        return TableSource(db, tables=tables, capacity=capacity)
    if source is None or isinstance(source, TableSource):
        return source
    return TableSource(strengths=_strengths(source))


def _strengths(source: object) -> StrengthSource:
    if isinstance(source, StrengthSource):
        return source
    if callable(getattr(source, "arrays", None)) and hasattr(source, "tables"):
        return cast("StrengthSource", source)  # anything with a StrengthSource's arrays() and tables serves as one
    raise StrengthError(f"The source {source!r} is not a TableSource or a StrengthSource; expected "
                        "source=TableSource(db=..., tables=...).")
