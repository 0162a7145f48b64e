"""matchdb: the Texas Hold'em match-table database, precomputed and served instantly.

>>> import matchdb
>>> matchdb.evaluate("AH QD 4S KH 8C") == 0x000CBA62
True
"""

from importlib.metadata import version as _version

from matchdb.canonical import flop_index
from matchdb.cards import Card, format_cards, parse_cards
from matchdb.errors import (
    BoardError,
    CardError,
    CorruptDatabaseError,
    DatabaseError,
    DatabaseNotFoundError,
    FormatVersionError,
    IncompleteDatabaseError,
    MatchdbError,
    RangeError,
)
from matchdb.evaluator import evaluate
from matchdb.kernels import match_table
from matchdb.query import HandTable, MatchDB, Outcome, hand_index, hand_order, open

__version__ = _version("matchdb")

__all__ = [
    "BoardError",
    "Card",
    "CardError",
    "CorruptDatabaseError",
    "DatabaseError",
    "DatabaseNotFoundError",
    "FormatVersionError",
    "HandTable",
    "IncompleteDatabaseError",
    "MatchDB",
    "MatchdbError",
    "Outcome",
    "RangeError",
    "evaluate",
    "flop_index",
    "format_cards",
    "hand_order",
    "hand_index",
    "match_table",
    "open",
    "parse_cards",
]
