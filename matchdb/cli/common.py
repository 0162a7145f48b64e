"""What the command groups share: the ``--db`` help, rendering an answer, opening the database, checking outputs, parsing lists.

Import-light on purpose: every command group imports this module when the
parser is built, so it loads nothing heavier than ``argparse`` and ``json``
(``matchdb query`` must answer before numba, dask or zarr would have loaded).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from pathlib import Path

    from matchdb.db.query import MatchDB

__all__ = ["DB_HELP", "IMAGE_SUFFIXES", "PERCENT_HELP", "check_numbers", "check_output", "check_percent", "check_suffix", "names",
           "open_db", "render"]

#: File endings of the images the plots write (matplotlib picks the format from them).
IMAGE_SUFFIXES = (".png", ".svg", ".pdf")

#: Help text of every ``--db`` option.
DB_HELP = "database path (default $MATCHDB_PATH, else matchdb.zarr in the user's data folder)"


#: Help text of every ``--percent`` option.
PERCENT_HELP = "print equities and probabilities as percentages (57.2571 %%) instead of fractions (0.572571)"


def render(answer: Any, as_json: bool, percent: bool = False) -> None:
    """Print an answer: its ``to_dict()`` as one JSON object with ``--json``, else its ``to_text()`` (with ``percent``,
    its figures as percentages: ``to_text(percent=True)``)."""
    if as_json:
        print(json.dumps(answer.to_dict()))
    else:
        print(answer.to_text(percent=True) if percent else answer.to_text())


def check_percent(args: argparse.Namespace) -> None:
    """Refuse ``--percent`` with ``--json`` before any work: JSON carries every figure as a fraction."""
    if getattr(args, "percent", False) and getattr(args, "json", False):
        raise MatchdbError("--percent changes the printed text; --json gives every figure as a fraction: leave one out.")


def open_db(args: argparse.Namespace) -> MatchDB:
    """The database that ``--db`` names (the default database when it is not given)."""
    from matchdb.db.query import open as open_database

    return open_database(args.db)


def check_output(args: argparse.Namespace, option: str, suffixes: tuple[str, ...]) -> Path | None:
    """The file that ``--OPTION`` names, checked before any work: its suffix, a writable folder that exists, and
    not the database that ``--db`` names (or the default one) nor inside it. None when the option is not given."""
    from matchdb.storage import default_path
    from matchdb.storage.files import check_output_file

    value = getattr(args, option.replace("-", "_"), None)
    if not value:
        return None
    check_suffix(f"--{option}", value, suffixes, ignore_case=True)
    return check_output_file(value, suffixes[0], reading=getattr(args, "db", None) or default_path())


def check_suffix(option: str, value: str, suffixes: tuple[str, ...], ignore_case: bool = False) -> None:
    """Refuse an output file name that ends in none of ``suffixes`` (in any case with ``ignore_case``), naming the option.

    >>> check_suffix("--out", "figures.csv", (".csv", ".json"))
    >>> check_suffix("--out", "figures.txt", (".csv", ".json"))
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: --out is 'figures.txt'; expected a file name ending in .csv or .json.
    """
    if not (value.lower() if ignore_case else value).endswith(suffixes):
        listed = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]
        raise MatchdbError(f"{option} is {value!r}; expected a file name ending in {listed}.")


def names(text: str | None) -> list[str]:
    """The names of a comma-separated option (an empty list when it is not given).

    >>> names(" raise_fraction, ,call_limit")
    ['raise_fraction', 'call_limit']
    """
    return [n.strip() for n in text.split(",") if n.strip()] if text else []


def check_numbers(args: argparse.Namespace, bounds: tuple[tuple[str, float, float], ...]) -> None:
    """Every numeric option within its bounds before any work: ``bounds`` holds (option, low, high)."""
    import math

    for option, low, high in bounds:
        value = getattr(args, option, None)
        if value is None:
            continue
        if isinstance(value, float) and not math.isfinite(value) or not low <= value <= high:
            shown = f"{high:,}" if isinstance(high, int) else f"{high:g}"
            raise MatchdbError(f"--{option.replace('_', '-')} is {value}; expected {low}..{shown}.")

