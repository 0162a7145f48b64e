"""The table source (:class:`matchdb.play.sources.TableSource`): where hand strengths come from, as one object.

The arena, tuning and the command line take it as ``source=``; the old keywords ``db=``, ``tables=`` and
``capacity=`` still work for one release, with a DeprecationWarning that names the replacement.
"""

from __future__ import annotations

import inspect
import pickle

import pytest

from matchdb.play.arena import open_source, run_arena
from matchdb.play.sources import TableSource
from matchdb.play.strength import TABLE_CAPACITY, LazyTables, StrengthError, StrengthSource
from matchdb.play.tuning import SessionConfig, SessionPlayer


def test_one_default_capacity_everywhere():
    """The issue: 64 in the arena and tuning, 16 in StrengthSource and LazyTables; now one documented constant."""
    assert TableSource().capacity == TABLE_CAPACITY == 64
    for constructor in (StrengthSource.__init__, LazyTables.__init__, TableSource.__init__):
        assert inspect.signature(constructor).parameters["capacity"].default == TABLE_CAPACITY


def test_a_table_source_opens_once_and_travels_as_its_description(db):
    source = TableSource(db, capacity=3)
    opened = source.open()
    assert source.open() is opened and opened.db is db and len(opened.tables.array) == 3
    travelled = pickle.loads(pickle.dumps(source.for_workers()))  # what a Dask worker receives
    assert repr(travelled) == f"TableSource(db={str(db.path)!r}, tables=None, capacity=3)"
    assert travelled.key() == source.key() == (str(db.path), None, 3)
    again = travelled.open()
    assert again is not opened and again.naive("AhKh", "2c7dJh") == opened.naive("AhKh", "2c7dJh")


def test_an_open_strength_source_is_a_source(source):
    wrapped = TableSource(strengths=source)
    assert wrapped.open() is source and wrapped.db is source.db
    with pytest.raises(StrengthError, match=r"^An open StrengthSource brings its own database; give db= only without "):
        TableSource("elsewhere.zarr", strengths=source)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: TableSource(capacity=0), "The table capacity 0 is not a whole number of at least 1."),
        (lambda: TableSource(tables=5), "The tables 5 are not a folder; expected the path of a folder written by "
         "decode_tables, or None."),
        (lambda: TableSource(strengths="tables"), "The strengths 'tables' are not a StrengthSource."),
        (lambda: TableSource(tables="/nonexistent").check(),
         "No decoded tables at '/nonexistent/tables.npy'; expected a folder written by decode_tables."),
        (lambda: run_arena(["fives", "station"], games=2, source="data.zarr"),
         "The source 'data.zarr' is not a TableSource or a StrengthSource; expected source=TableSource(db=..., "
         "tables=...)."),
        (lambda: run_arena(["fives", "station"], games=2, source=TableSource(tables="/nonexistent")),
         "No decoded tables at '/nonexistent/tables.npy'; expected a folder written by decode_tables."),
        (lambda: SessionPlayer(["station"], source=TableSource(tables="/nonexistent")),
         "No decoded tables at '/nonexistent/tables.npy'; expected a folder written by decode_tables."),
    ],
)
def test_table_source_errors_are_one_sentence(call, message):
    with pytest.raises(StrengthError) as caught:
        call()
    assert str(caught.value) == message


def test_the_arena_takes_one_source_and_the_old_keywords_with_a_warning(db):
    bots = ["west", "allin"]  # west reads hand strength
    new = run_arena(bots, games=4, seed=2, source=TableSource(db, capacity=8), progress=False)
    with pytest.warns(DeprecationWarning, match=r"^run_arena's db=, tables= and capacity= are deprecated; give "
                      r"source=TableSource\(db=\.\.\., tables=\.\.\., capacity=\.\.\.\)") as caught:
        old = run_arena(bots, games=4, seed=2, db=db, capacity=8, progress=False)
    assert [w.filename for w in caught] == [__file__]  # the warning points at the caller's line
    assert old.to_dict()["bots"] == new.to_dict()["bots"]
    with pytest.warns(DeprecationWarning, match="deprecated"), pytest.raises(StrengthError, match=r"^run_arena was given source= and "
                                                          r"also db=; give only source=TableSource\(\.\.\.\)\.$"):
        run_arena(bots, games=4, source=TableSource(db), db=db)


def test_session_player_takes_one_source_and_the_old_keywords_with_a_warning(db):
    player = SessionPlayer(["west"], SessionConfig(games=4, hands=10), source=TableSource(db, capacity=8))
    assert player.source.db is db and player.source.capacity == 8
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        old = SessionPlayer(["west"], games=4, hands=10, db=db, capacity=8)
    assert sorted(str(w.message) for w in caught) == [
        "SessionPlayer's db=, tables= and capacity= are deprecated; give source=TableSource(db=..., tables=..., "
        "capacity=...) (matchdb.play.sources.TableSource).",
        "SessionPlayer's keywords games=, hands= are deprecated; give sessions=SessionConfig(...) (matchdb.play.tuning).",
    ]
    assert old.config == player.config and old.source.db is db and old.source.capacity == 8
    with pytest.raises(TypeError, match="unexpected keyword argument 'gmaes'"):
        SessionPlayer(["west"], gmaes=4)


def test_open_source_is_deprecated_and_still_opens(db):
    with pytest.warns(DeprecationWarning, match=r"^open_source is deprecated; use matchdb\.play\.sources\.TableSource"):
        opened = open_source(db, capacity=2)
    assert opened.db is db and len(opened.tables.array) == 2
