"""Preflop questions through the database (an empty board): published figures, an independent enumeration, both ways of counting."""

from __future__ import annotations

import numpy as np
import pytest

import matchdb
from matchdb.core.cards import parse_cards
from matchdb.core.hole_cards import CLASSES
from matchdb.errors import CardError, MatchdbError, RangeError
from tests.equity.test_enumeration import reference_counts

AA_AGAINST_TWO = 0.7344  # AA against two random hands (OMPEval; the multiway preflop table: 0.7344, s.e. 0.0002)


def _equities(counts: np.ndarray) -> np.ndarray:
    return (counts / np.arange(1, counts.shape[1] + 1)).sum(axis=1) / (counts.sum(axis=0) / np.arange(1, counts.shape[1] + 1)).sum()


def test_hand_against_hand_published(small_db):
    """A database lacking tables answers by enumeration: OMPEval's exact figures."""
    assert small_db.equity("AhKh", "", villain="QsQd") == pytest.approx(0.4621445724590958, abs=1e-15)
    assert small_db.equity("AcAd", "", villain="KhKs") == pytest.approx(0.8125548967940268, abs=1e-15)
    answer = small_db.outcome("ah kh", [], "QsQd")
    assert answer.board == "" and answer.win + answer.tie + answer.loss == pytest.approx(1.0, abs=1e-15)
    assert answer.to_text().startswith("AhKh preflop\n")


def test_hand_against_a_range_equals_the_reference(small_db):
    hero = parse_cards("AhKh")
    wins = ties = boards = 0
    for villain in ("QsQd", "QsQh", "QsQc", "QdQh", "QdQc", "QhQc"):
        counts = reference_counts([hero, parse_cards(villain)])
        wins += counts[0, 0]
        ties += counts[0, 1]
        boards += counts[0, 0] + counts[0, 1] + counts[1, 0]
    answer = small_db.outcome("AhKh", "", "QQ")
    assert answer.win == pytest.approx(wins / boards, abs=1e-12) and answer.tie == pytest.approx(ties / boards, abs=1e-12)


def test_range_against_a_range_win_and_tie_equal_the_reference(small_db, full_db):
    """Win, tie and loss of a range against a range: the reference's counts of every matchup, weighted, to 1e-9.

    The small database enumerates its matchups, the full one reads them from the match tables: both agree.
    """
    hero, villain = "AhAd,0.5(KsKc)", "QhQd,0.25(AsKs)"
    wins = ties = boards = 0.0
    for a, wa in (("AhAd", 1.0), ("KsKc", 0.5)):
        for b, wb in (("QhQd", 1.0), ("AsKs", 0.25)):
            if set(parse_cards(a)) & set(parse_cards(b)):
                continue
            counts = reference_counts([parse_cards(a), parse_cards(b)])
            wins += wa * wb * counts[0, 0]
            ties += wa * wb * counts[0, 1]
            boards += wa * wb * (counts[0, 0] + counts[0, 1] + counts[1, 0])
    for db in (small_db, full_db):
        answer = db.range_outcome(hero, villain, "")
        assert answer.board == "" and answer.to_text().startswith("AhAd,0.5(KsKc) vs QhQd,0.25(AsKs) preflop\n")
        assert answer.win == pytest.approx(wins / boards, abs=1e-9) and answer.tie == pytest.approx(ties / boards, abs=1e-9)
        assert answer.loss == pytest.approx(1 - (wins + ties) / boards, abs=1e-9)
        assert answer.equity == pytest.approx((wins + ties / 2) / boards, abs=1e-9)
        assert answer.equity == db.range_equity(hero, villain, "")
    # large ranges go through the dense sums: still win + tie / 2 and the multiway engine's own figures
    full = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"
    for hero, villain in ((full, full), ("22+,A2+,K9+", "random"), ("QQ+,AKs", "JJ-99,AQs")):
        answer = full_db.range_outcome(hero, villain, "")
        other = full_db.multiway(hero, "", [villain])
        assert (answer.win, answer.tie, answer.loss) == pytest.approx((other.win, other.tie, other.loss), abs=1e-12)
        assert answer.win + answer.tie / 2 == pytest.approx(answer.equity, abs=1e-15)


def test_known_hands_every_player(small_db):
    hands = ["AhKh", "QsQd", "JcTc", "9d9c"]
    want = _equities(reference_counts([parse_cards(h) for h in hands]))
    got = small_db.multiway(hands[0], "", hands[1:])
    assert got.exact and got.player_equities == pytest.approx(want, abs=1e-12)
    three = small_db.multiway("AhKh", "", ["QsQd", "JcTc"])
    assert three.equity == pytest.approx(0.4020918414245004, abs=1e-15)


def test_ranges_among_three_players_exact_over_every_deal(small_db):
    """AhKh against QQ and JsJh: six deals, each counted over every board by the reference."""
    total = np.zeros(3)
    for queens in ("QsQd", "QsQh", "QsQc", "QdQh", "QdQc", "QhQc"):
        total += _equities(reference_counts([parse_cards(h) for h in ("AhKh", queens, "JsJh")]))
    got = small_db.multiway("AhKh", "", ["QQ", "JsJh"])
    assert got.exact and got.player_equities == pytest.approx(total / 6, abs=1e-12)


def test_random_opponents_are_sampled_with_their_standard_error(small_db, monkeypatch):
    from matchdb.equity import preflop_hands

    answer = small_db.multiway("AsAd", "", 2, seed=7)
    assert not answer.exact and answer.method == "sample" and 0 < answer.standard_error < 0.002
    assert abs(answer.equity - AA_AGAINST_TWO) <= 4 * answer.standard_error + 0.0002
    assert small_db.multiway("AsAd", "", 2, seed=7) == answer  # the seed reproduces it
    monkeypatch.setattr(preflop_hands, "THREADS", 1)
    assert small_db.multiway("AsAd", "", 2, seed=7) == answer  # whatever the number of threads
    exact = small_db.multiway("AhKh", "", ["QQ", "JsJh"])
    sampled = small_db.multiway("AhKh", "", ["QQ", "JsJh"], method="sample", samples=400_000, seed=3)
    assert abs(sampled.equity - exact.equity) <= 4 * sampled.standard_error


def test_one_opponent_equals_heads_up(small_db):
    assert small_db.multiway("AhKh", "", ["QsQd"]).equity == small_db.equity("AhKh", "", "QsQd")


def test_the_tables_and_the_enumeration_agree_on_ranges(full_db, full_matchups, small_db):
    """A complete database answers from its matchups (computed from the tables); one lacking tables enumerates."""
    for hero, villain in (("QQ+,AKs", "JJ,TT,99"), ("AKs", "22"), ("0.5(KK),AQs", "QQ")):
        assert full_db.range_equity(hero, villain, "") == pytest.approx(small_db.range_equity(hero, villain, ""), abs=1e-12)
    full = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"
    assert full_db.range_equity(full, full, "") == pytest.approx(0.5, abs=1e-12)
    assert full_db.range_equity("22+", "AKo", "") == pytest.approx(1 - full_db.range_equity("AKo", "22+", ""), abs=1e-12)


def test_every_hand_against_random_is_the_preflop_table(db, full_matchups):
    """Every hand's exact equity against a random hand, from the matchups, equals its class's figure of the preflop table."""
    table = db.equities("")
    preflop = db.preflop()
    grid_classes = {"AA": (0, 0), "AKs": (0, 1), "AKo": (1, 0), "72s": (7, 12), "72o": (12, 7), "32o": (12, 11)}
    for name, (i, j) in grid_classes.items():
        assert table.grid()[i, j] == pytest.approx(preflop.equity[CLASSES.index(name)], abs=1e-12), name
    assert table.value("AhAs") == pytest.approx(0.8520, abs=5e-5) and table.to_text().startswith("exact equity vs random of every hand preflop")


def test_naive_win_rate_before_the_flop(db, small_db):
    row = db.preflop().row("AKs")
    assert db.win_rate("AhKh", "", players=3) == row["win_rate_3"]
    report = db.report("AhKh", "", players=3, villain="QsQd")
    assert report.win_rate == row["win_rate_3"] and report.equity == pytest.approx(0.4621445724590958, abs=1e-15)
    with pytest.raises(MatchdbError, match="lacks tables"):
        small_db.win_rate("AhKh", "", players=3)


def test_bad_preflop_questions_are_refused(small_db):
    with pytest.raises(CardError, match="shares a card with the hero"):
        small_db.multiway("AhKh", "", ["AhQd", "random"])
    with pytest.raises(RangeError, match="can be dealt beside the hole cards"):
        small_db.equity("AhKh", "", "AhKh")
    with pytest.raises(MatchdbError, match="matchups this database has not counted"):
        small_db.range_equity("22+,A2+", "random", "")
    with pytest.raises(MatchdbError, match="unknown preflop"):
        small_db.multiway("AhKh", "", 2, method="independent")
    assert isinstance(matchdb.MatchdbError("x"), ValueError)


# -- derived data: computed by the build, read on first use ------------------------------------

#: One question of each kind before the flop, and a second of the same kind (other hands).
KINDS = {
    "hand vs hand": (lambda db: db.equity("AhKh", "", "QsQd"), lambda db: db.equity("AcAd", "", "KhKs")),
    "hand vs range": (lambda db: db.equity("AhKh", "", "QQ+,AKs"), lambda db: db.equity("9s8s", "", "TT+,AQs+")),
    "range vs range": (lambda db: db.range_outcome("QQ+,AKs", "JJ-99,AQs", "").equity,
                       lambda db: db.range_outcome("22+", "AKo", "").equity),
    "hero range vs random": (lambda db: db.multiway("QQ+", "", 1).equity, lambda db: db.multiway("AKs", "", 1).equity),
    "multiway with ranges": (lambda db: db.multiway("AhKh", "", ["QQ+", "JsJh"]).equity,
                             lambda db: db.multiway("KsQs", "", ["AA", "TcTd"]).equity),
    "hand vs two random": (lambda db: db.multiway("JhTh", "", 2, method="exact").equity,
                           lambda db: db.multiway("9c9d", "", ["random", "random"]).equity),
    "naive": (lambda db: db.win_rate("AhKh", "", players=3), lambda db: db.win_rate("7c2d", "", players=6)),
    "equities grid": (lambda db: db.equities("").value("AhAs"), lambda db: db.equities("", "QQ+").value("AhKh")),
    "report": (lambda db: db.report("AhKh", "", players=3, villain="QsQd").equity,
               lambda db: db.report("QcJc", "", players=4, villain="KK").equity),
    "preflop tables": (lambda db: db.preflop().equity[0], lambda db: db.preflop_multiway().equity[0, 4]),
}


def test_the_first_question_of_every_kind_computes_nothing(full_store, monkeypatch):
    """Issue 29: on a database `matchdb build` completed, the first preflop question of every kind reads the derived
    data the build stored (each kind read once, then kept) and computes none of it: no pass over the tables, no matchup
    enumerated, nothing written. The first question of a kind then costs what the second does."""
    from matchdb.equity import derived, matchups

    calls: list[str] = []

    def counted(name, function):
        def call(*args, **kwargs):
            calls.append(name)
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(derived, "compute_derived", counted("compute_derived", derived.compute_derived))
    monkeypatch.setattr(matchups, "enumerate_classes", counted("enumerate_classes", matchups.enumerate_classes))
    before = {p.name: p.stat().st_mtime_ns for p in (full_store / "derived").iterdir()}
    db = matchdb.open(full_store)
    reads = []
    real_read = db.store.read_member
    monkeypatch.setattr(db.store, "read_member", lambda name: reads.append(name) or real_read(name))
    for kind, (first, second) in KINDS.items():
        assert np.isfinite(first(db)) and np.isfinite(second(db)), kind
    assert calls == []
    assert sorted(reads) == sorted(f"derived/{kind}.json" for kind in derived.DERIVED)  # each read once, then kept
    assert db.missing_derived() == []
    assert {p.name: p.stat().st_mtime_ns for p in (full_store / "derived").iterdir()} == before
    assert db.multiway("JhTh", "", 2).exact  # 'auto' too: the table's exact figure, no longer sampled


def test_a_hand_against_two_random_hands_is_exact(full_db, small_db):
    """JhTh against two random hands, exact (OMPEval enumerates it in 367 s): the table's three-player counts, for a
    hand and for a range (the mean of its hands), with every player's equity; a database lacking tables says why."""
    answer = full_db.multiway("JhTh", "", ["random", "random"], method="exact")
    table = full_db.preflop_multiway().row("JTs")
    assert answer.exact and answer.method == "exact" and answer.standard_error == 0.0
    assert answer.equity == table["equity"][2] and answer.board == ""
    assert answer.player_equities == pytest.approx([answer.equity, (1 - answer.equity) / 2, (1 - answer.equity) / 2], abs=1e-15)
    assert answer.win + answer.tie + answer.loss == pytest.approx(1.0, abs=1e-12) and answer.win < answer.equity
    suited = full_db.multiway("JTs", "", 2, method="exact")
    assert suited.equity == pytest.approx(answer.equity, abs=1e-15)
    mixed = full_db.multiway("JTs,0.5(AA)", "", 2)
    aa = full_db.preflop_multiway().row("AA")["equity"][2]
    assert mixed.exact and mixed.equity == pytest.approx((4 * answer.equity + 0.5 * 6 * aa) / 7, abs=1e-15)
    sampled = full_db.multiway("JhTh", "", 2, method="sample", samples=200_000, seed=4)
    assert abs(sampled.equity - answer.equity) <= 4 * sampled.standard_error
    with pytest.raises(MatchdbError, match=r"lacks tables \(8 of 1755\).*method='sample'"):
        small_db.multiway("JhTh", "", 2, method="exact")
    assert not small_db.multiway("JhTh", "", 2, seed=1).exact  # auto: sampled, as before


@pytest.mark.slow
def test_a_store_built_before_computes_what_a_question_needs_once_with_progress(full_store, tmp_path, monkeypatch):
    """A complete store lacking its derived data (built before `matchdb build` computed it) computes, on a question's
    first use, what that question needs, once, with a bar on a terminal (standard error) and nothing elsewhere; then
    it is kept in the store, and `matchdb build` computes the rest (minutes on 2 cores)."""
    import io
    import sys

    from matchdb.db.build import build
    from tests.helpers import private_copy

    copy = private_copy(full_store, tmp_path / "old.zarr", skip=("derived",))
    terminal = io.StringIO()
    terminal.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stderr", terminal)
    db = matchdb.open(copy)
    assert db.range_equity("QQ+,AKs", "JJ-99", "") == matchdb.open(full_store).range_equity("QQ+,AKs", "JJ-99", "")
    assert "preflop data" in terminal.getvalue() and "1755/1755" in terminal.getvalue()
    assert sorted(p.name for p in (copy / "derived").iterdir()) == ["preflop_matchups.json"]
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal: no bar
    assert db.multiway("JhTh", "", 2, method="exact").equity == matchdb.open(full_store).multiway("JhTh", "", 2).equity
    assert sys.stderr.getvalue() == ""
    assert sorted(p.name for p in (copy / "derived").iterdir()) == ["preflop.json", "preflop_matchups.json", "preflop_multiway.json"]
    (copy / "derived" / "preflop.json").unlink()
    report = build(copy, quiet=True)
    assert report.built == [] and report.derived == ["preflop"] and "then the derived data (preflop) in" in report.summary()
