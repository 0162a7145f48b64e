"""Constructors of many fields take their fields by name (issue 31): no call can put a value in the wrong field by
its position, as ``Multiway(..., False, ...)`` could."""

from __future__ import annotations

import inspect

import pytest

from matchdb.answers.base import Outcome, RangeEquity
from matchdb.db.query import FlopTable
from matchdb.hands.fitting import FitResult
from matchdb.hands.single import Replayed, Setup
from matchdb.play.games import PlayedHand
from matchdb.play.optimise import Search
from matchdb.play.preflop_score import PreflopFit
from matchdb.play.tuning import Session, SessionConfig, TuningConfig, TuningResult
from matchdb.solver.layout import Flat
from matchdb.solver.navigate import Place
from matchdb.solver.solution import Solution
from matchdb.solver.solve import Spot

KEYWORD_ONLY = [Outcome, RangeEquity, FlopTable, FitResult, Replayed, Setup, PlayedHand, Search, PreflopFit, Session,
                SessionConfig, TuningConfig, TuningResult, Flat, Place, Spot]


@pytest.mark.parametrize("cls", KEYWORD_ONLY, ids=lambda cls: cls.__name__)
def test_every_field_is_given_by_name(cls):
    parameters = inspect.signature(cls).parameters.values()
    assert len(parameters) >= 6 and all(p.kind is p.KEYWORD_ONLY for p in parameters)


def test_a_solution_takes_its_spot_then_names():
    kinds = [p.kind for p in inspect.signature(Solution).parameters.values()]
    assert kinds[0] is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(kind is inspect.Parameter.KEYWORD_ONLY for kind in kinds[1:])


def test_a_positional_call_is_refused():
    with pytest.raises(TypeError, match="positional argument"):
        Outcome("AhKh", "", "random", 0.5, 0.4, 0.2, 0.4)
