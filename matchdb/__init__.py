"""matchdb: the Texas Hold'em match-table database, precomputed and served instantly.

>>> import matchdb
>>> matchdb.evaluate("AH QD 4S KH 8C") == 0x000CBA62
True

Names are imported on first use (PEP 562), so ``import matchdb`` costs
almost nothing and a one-off query never loads what it does not need
(numba, dask, zarr, the HTTP stack).
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> module that defines it.
_EXPORTS = {
    "Card": "matchdb.core.cards",
    "format_cards": "matchdb.core.cards",
    "parse_cards": "matchdb.core.cards",
    "flop_index": "matchdb.core.canonical",
    "hand_index": "matchdb.core.hole_cards",
    "hand_order": "matchdb.core.hole_cards",
    "CLASSES": "matchdb.core.hole_cards",
    "evaluate": "matchdb.core.evaluator",
    "match_table": "matchdb.core.table",
    "Answer": "matchdb.answers",
    "WinRate": "matchdb.answers",
    "Outcome": "matchdb.answers",
    "HandReport": "matchdb.answers",
    "RangeEquity": "matchdb.answers",
    "HandTable": "matchdb.answers",
    "MatchDB": "matchdb.db.query",
    "FlopTable": "matchdb.db.query",
    "open": "matchdb.db.query",
    "export_hdf5": "matchdb.db.export",
    "pack": "matchdb.db.pack",
    "MatchdbError": "matchdb.errors",
    "CardError": "matchdb.errors",
    "BoardError": "matchdb.errors",
    "RangeError": "matchdb.errors",
    "DatabaseError": "matchdb.errors",
    "DatabaseNotFoundError": "matchdb.errors",
    "FormatVersionError": "matchdb.errors",
    "IncompleteDatabaseError": "matchdb.errors",
    "CorruptDatabaseError": "matchdb.errors",
    "NotReadyError": "matchdb.errors",
}

__all__ = [*sorted(_EXPORTS), "__version__"]  # noqa: PLE0604  (the keys of _EXPORTS are names)


def __getattr__(name: str) -> Any:  # the lazy public names: classes, functions, the version
    if name == "__version__":
        from importlib.metadata import version

        value = version("matchdb")
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'matchdb' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
