"""Exceptions raised by matchdb.

Every error is a :class:`MatchdbError`, itself a :class:`ValueError`, so callers
can catch one class. Messages are one sentence that quotes the input and says
what was expected.
"""

from __future__ import annotations

__all__ = [
    "MatchdbError",
    "CardError",
    "BoardError",
    "RangeError",
    "DatabaseError",
    "DatabaseNotFoundError",
    "FormatVersionError",
    "IncompleteDatabaseError",
    "CorruptDatabaseError",
    "NotReadyError",
    "WorkLimitError",
]


class MatchdbError(ValueError):
    """Base class of every error matchdb raises on purpose."""


class CardError(MatchdbError):
    """A card, a hand or a board could not be parsed or repeats a card."""


class BoardError(MatchdbError):
    """A board has the wrong number of cards or overlaps the hole cards."""


class RangeError(MatchdbError):
    """A range of hands is malformed or empty."""


class DatabaseError(MatchdbError):
    """The database cannot be used to answer a question.

    ``table`` is the table (its canonical flop index) the error is about, when
    it is about one: what a server tells its clients instead of the message,
    whose paths are its own (the message goes to its log).
    """

    table: int | None = None


class DatabaseNotFoundError(DatabaseError, FileNotFoundError):
    """No database exists at the given path."""


class FormatVersionError(DatabaseError):
    """The database was written in another format version."""


class IncompleteDatabaseError(DatabaseError):
    """The database lacks a table that the question needs."""


class CorruptDatabaseError(DatabaseError):
    """Stored bytes do not match their checksum or cannot be decoded."""


class NotReadyError(DatabaseError):
    """Data the question needs is being prepared (a server computes a database's missing derived data once, at
    start-up); the same question succeeds once it is done (HTTP 503 with Retry-After)."""


class WorkLimitError(MatchdbError):
    """A question would take more work than a server accepts (its estimate is over the documented bound)."""
