"""Preflop tables from the full database: published exact figures, eval7 Monte Carlo and sampling, kept in the store."""

from __future__ import annotations

import csv
import json
import warnings

import numpy as np
import pytest

import matchdb
from matchdb.cli.main import main
from matchdb.errors import CorruptDatabaseError, IncompleteDatabaseError
from matchdb.core.hole_cards import CLASSES
from matchdb.db.pack import pack

with warnings.catch_warnings():  # eval7 builds its range grammar with names pyparsing now deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7


# -- the full database: preflop tables and the shipped size ---------------------------


@pytest.fixture(scope="module")
def full_db(full_store):
    return matchdb.open(full_store)


@pytest.fixture(scope="module")
def preflop(full_db):
    return full_db.preflop()


def test_preflop_matches_published_exact_figures(preflop):
    """Exact heads-up equities against a random hand as published (PokerStove's full enumeration)."""
    published = {"AA": 0.8520, "KK": 0.8240, "AKs": 0.6704, "AKo": 0.6532, "72o": 0.3458, "32o": 0.3230}
    for name, value in published.items():
        assert preflop.equity[CLASSES.index(name)] == pytest.approx(value, abs=5e-5), name
    assert len(preflop.classes) == 169 and sorted(preflop.win_rate) == list(range(2, 11))


def test_preflop_equity_against_eval7_monte_carlo(preflop):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        everything = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32")
    for name, hand in (("AA", "AsAc"), ("T9s", "Th9h"), ("K4o", "Kd4s"), ("55", "5c5h")):
        estimate = eval7.py_hand_vs_range_monte_carlo([eval7.Card(hand[:2]), eval7.Card(hand[2:])], everything, [], 2_000_000)
        assert preflop.equity[CLASSES.index(name)] == pytest.approx(estimate, abs=0.0015), name  # about 4 sigma


def test_preflop_naive_win_rate_against_eval7_sampling(preflop):
    """Sample flop, turn and river; rank every other valid hand with eval7; average (1 - S) ** (n - 1)."""
    rng = np.random.default_rng(7)
    deck = [eval7.Card(matchdb.format_cards([c])) for c in range(52)]
    hole = list(matchdb.parse_cards("QdJd"))
    samples = []
    for _ in range(1200):
        board = [int(c) for c in rng.choice([c for c in range(52) if c not in hole], size=5, replace=False)]
        cards = [deck[c] for c in board]
        hero = eval7.evaluate([deck[c] for c in hole] + cards)
        rest = [c for c in range(52) if c not in board]
        others = [eval7.evaluate([deck[a], deck[b]] + cards) for i, a in enumerate(rest) for b in rest[i + 1 :] if {a, b} != set(hole)]
        others = np.array(others)
        samples.append(((others < hero).sum() + (others == hero).sum() / 2) / len(others))
    samples = np.array(samples)
    for players in (2, 6):
        values = samples ** (players - 1)
        sigma = values.std() / np.sqrt(len(values))
        assert preflop.win_rate[players][CLASSES.index("QJs")] == pytest.approx(values.mean(), abs=4 * sigma)


def test_preflop_is_cached_in_the_store_and_shipped(full_store, preflop, tmp_path, capsys):
    assert (full_store / "derived" / "preflop.json").exists()
    again = matchdb.open(full_store).preflop(players=[3, 6])  # read from the cache
    assert np.array_equal(again.equity, preflop.equity) and sorted(again.win_rate) == [3, 6]
    assert np.array_equal(again.win_rate[6], preflop.win_rate[6])
    shipped_path = tmp_path / "full.zip"
    try:
        report = pack(full_store, shipped_path)
        assert report.bytes <= 250e6 and report.preflop_seconds == 0.0 and "computed the preflop" not in report.summary()
        shipped = matchdb.open(shipped_path)
        assert np.array_equal(shipped.preflop().win_rate[6], preflop.win_rate[6])
        assert main(["preflop", "--db", str(shipped_path), "--players", "2..3", "--out", str(tmp_path / "p.csv"), "--quiet"]) == 0
        with open(tmp_path / "p.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 169 and rows[0]["hand"] == "AA" and list(rows[0]) == ["hand", "combos", "equity", "win_rate_2", "win_rate_3"]
        assert float(rows[0]["equity"]) == preflop.equity[0]
        assert main(["preflop", "--db", str(shipped_path), "--players", "11"]) == 2
        assert "cover 2..10 players" in capsys.readouterr().err
    finally:  # a 224 MB file: never leave it behind
        shipped_path.unlink(missing_ok=True)


def test_an_edited_preflop_file_is_refused_and_verify_names_it(full_store, preflop):
    """AA's equity edited to 0.9520 was served, and verify said OK (issue 16)."""
    path = full_store / "derived" / "preflop.json"
    original = path.read_bytes()
    payload = json.loads(original)
    payload["content"]["equity"][CLASSES.index("AA")] = 0.9520
    try:
        path.write_text(json.dumps(payload))
        with pytest.raises(CorruptDatabaseError, match="derived/preflop.json.*altered or damaged"):
            matchdb.open(full_store).preflop()
        from matchdb.db.verify import verify

        report = verify(full_store, sample=0)
        assert not report.ok and any("derived/preflop.json" in p and "altered" in p for p in report.problems)
    finally:
        path.write_bytes(original)
    assert matchdb.open(full_store).preflop().row("AA")["equity"] == pytest.approx(0.8520, abs=5e-5)


def test_preflop_needs_every_table(small_store):
    with pytest.raises(IncompleteDatabaseError, match="lacks table 3; build it with"):
        matchdb.open(small_store).preflop()
