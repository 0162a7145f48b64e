"""Answers: what :class:`matchdb.MatchDB` returns, each knowing its fields, its JSON and its text.

The answer of every database question (what :class:`matchdb.MatchDB`'s
methods return) lives in this package: the one-hand and heads-up answers and
:class:`Multiway` (:mod:`matchdb.answers.base`), :mod:`matchdb.answers.distributions` (a hand's or
every hand's distribution), :mod:`matchdb.answers.reports` (a range over
every flop) and :mod:`matchdb.answers.preflop` (the 169 classes' tables).
Every answer is a frozen dataclass. ``to_dict()`` gives the JSON the HTTP
service sends and ``matchdb ... --json`` prints (plain JSON types only, so
``json.dumps(answer.to_dict())`` always works), ``to_json()`` the same as a
str, and ``to_text()`` the lines the terminal shows (the equity answers'
``to_text(percent=True)`` as percentages, what ``--percent`` prints). The command line and the
service only render answers, so a new kind of answer is written once, here.
(The arena's, tuning's and the hand histories' results live beside the code
that makes them, in :mod:`matchdb.play` and :mod:`matchdb.hands`, with the same
``to_dict()`` and ``to_text()``; a result's ``summary()`` is one line of
text.)
An answer never holds NaN: a value that would be NaN is an error before it is
built.

In a notebook an answer shows itself: a short ``repr`` (numbers as plain
floats, arrays summarised), ``_repr_html_`` (a :class:`HandTable` draws its
coloured 13 x 13 grid) and ``to_pandas()``, a DataFrame (pandas is the
``notebook`` extra: ``pip install 'matchdb[notebook]'``).

>>> answer = Outcome.of("AhKh", "2c7dJh", "random", 0.5, 0.25, 0.25)
>>> answer.equity, answer.to_dict()["villain"]
(0.625, 'random')
>>> print(answer.to_text())
AhKh on 2c7dJh
  exact heads-up equity vs random: 0.625000
  win 0.500000  tie 0.250000  loss 0.250000
>>> print(answer.to_text(percent=True))      # as matchdb query --percent prints it
AhKh on 2c7dJh
  exact heads-up equity vs random: 62.5000 %
  win 50.0000 %  tie 25.0000 %  loss 25.0000 %
>>> answer.to_json()
'{"hole": "AhKh", "board": "2c7dJh", "villain": "random", "equity": 0.625, "win": 0.5, "tie": 0.25, "loss": 0.25}'
"""

from __future__ import annotations

from matchdb.answers.base import (
    Answer,
    HandReport,
    HandTable,
    Multiway,
    Outcome,
    RangeEquity,
    WinRate,
    class_cell,
    class_grid,
    format_grid,
    grid_html,
    grid_text,
    plain,
    plural,
    require_pandas,
    write_json,
)
from matchdb.answers.distributions import BoardDistributions, HandDistribution
from matchdb.answers.preflop import PreflopMultiway, PreflopTable
from matchdb.answers.reports import FlopReport

__all__ = [
    "Answer",
    "WinRate",
    "Outcome",
    "HandReport",
    "RangeEquity",
    "HandTable",
    "Multiway",
    "class_cell",
    "class_grid",
    "format_grid",
    "grid_html",
    "grid_text",
    "plain",
    "plural",
    "require_pandas",
    "write_json",
    "BoardDistributions",
    "FlopReport",
    "HandDistribution",
    "PreflopMultiway",
    "PreflopTable",
]
