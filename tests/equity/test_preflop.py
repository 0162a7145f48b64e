"""Preflop tables from the full database: published exact figures, eval7 Monte Carlo and sampling, kept in the store."""

from __future__ import annotations

import csv
import json
import warnings
import zlib

import numpy as np
import pytest

import matchdb
from matchdb.answers import PreflopMultiway
from matchdb.cli.main import main
from matchdb.core.hole_cards import CLASSES
from matchdb.db.pack import pack
from matchdb.errors import CorruptDatabaseError, IncompleteDatabaseError, MatchdbError
from tests.equity.test_multiway import _e7_cards, _eval7

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


def test_preflop_is_cached_in_the_store_and_shipped(full_store, preflop, full_matchups, tmp_path, capsys):
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
        assert np.array_equal(shipped.preflop_matchups().win, full_matchups.win)  # the matchups are shipped too
        assert shipped.equity("AhKh", "", "QsQd") == pytest.approx(0.4621445724590958, abs=1e-15)
        assert main(["preflop", "--db", str(shipped_path), "--players", "2..3", "--out", str(tmp_path / "p.csv"), "--quiet"]) == 0
        with open(tmp_path / "p.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 169 and rows[0]["hand"] == "AA" and list(rows[0]) == ["hand", "combos", "equity", "win_rate_2", "win_rate_3"]
        assert float(rows[0]["equity"]) == preflop.equity[0]
        assert main(["preflop", "--db", str(shipped_path), "--players", "11"]) == 2
        assert "cover 2..10 players" in capsys.readouterr().err
    finally:  # a 224 MB file: never leave it behind
        shipped_path.unlink(missing_ok=True)


def test_edited_preflop_files_are_refused_and_verify_names_them(own_full_store, tmp_path):
    """The preflop files are derived data bound to the tables: AA's equity edited to 0.9520 was served, and verify said
    OK (issue 16); an edited matchup count is refused, and verify says so; a derived file a complete store lacks is
    named, not a failure (a store built before `matchdb build` computed it). One verify of the damaged copy names both
    edits (a verify reads all 1,755 tables: two here, not one per edit)."""
    from matchdb.db.verify import verify

    derived = own_full_store / "derived"
    preflop, matchups, multiway = derived / "preflop.json", derived / "preflop_matchups.json", derived / "preflop_multiway.json"
    originals = {path: path.read_bytes() for path in (preflop, matchups)}
    edited = json.loads(originals[preflop])
    edited["content"]["equity"][CLASSES.index("AA")] = 0.9520
    counts = json.loads(originals[matchups])
    counts["content"]["win"][0] += 1
    try:
        preflop.write_text(json.dumps(edited))
        matchups.write_text(json.dumps(counts))
        multiway.rename(tmp_path / multiway.name)
        with pytest.raises(CorruptDatabaseError, match="derived/preflop.json.*altered or damaged"):
            matchdb.open(own_full_store).preflop()
        with pytest.raises(CorruptDatabaseError, match="derived/preflop_matchups.json.*altered or damaged"):
            matchdb.open(own_full_store).range_equity("AA", "KK", "")
        report = verify(own_full_store, sample=0)
        assert not report.ok and len(report.problems) == 2
        assert any("derived/preflop.json" in p and "altered" in p for p in report.problems)
        assert any("preflop_matchups.json" in p and "altered" in p for p in report.problems)
        assert report.derived_missing == ["preflop_multiway"]
        assert "derived data not yet computed: preflop_multiway (matchdb build computes it" in report.lines()[-2]
    finally:
        for path, content in originals.items():
            path.write_bytes(content)
        (tmp_path / multiway.name).rename(multiway)
    assert matchdb.open(own_full_store).preflop().row("AA")["equity"] == pytest.approx(0.8520, abs=5e-5)
    report = verify(own_full_store, sample=0)
    assert report.ok and report.derived_missing == []
    assert report.derived_checked == ["derived/preflop.json", "derived/preflop_matchups.json", "derived/preflop_multiway.json"]


def test_preflop_needs_every_table(small_store):
    with pytest.raises(IncompleteDatabaseError, match="lacks table 3; build it with"):
        matchdb.open(small_store).preflop()


# -- preflop against 1 to 9 random hands ------------------------------------------------------

#: OMPEval's exact enumeration of JhTh against two random hands: scripts/ompeval_peer.cpp built as its header says, then
#: ``nice -n 19 ./omp_peer JhTh random random -r 1`` (1,894,107,877,200 deals; 9,905 s here beside other work, about
#: 900 CPU-s; 367 s on a quiet core of an earlier machine).
JTS_AGAINST_TWO_OMPEVAL = 0.4194939234087244


@pytest.fixture(scope="module")
def sampled():
    """The shipped sampled table (compute_preflop_multiway(db.tables(), draws=1, seed=0) on a full database: 15 minutes)."""
    from matchdb.equity.preflop import sampled_multiway

    data = sampled_multiway()
    return PreflopMultiway(
        classes=tuple(data["classes"]), opponents=tuple(data["opponents"]), equity=np.array(data["equity"]),
        standard_error=np.array(data["standard_error"]), exact=tuple(data["exact"]),
        sampled_heads_up=np.array(data["sampled_heads_up"]), provenance=data["provenance"],
        win=np.full((169, 9), np.nan), tie=np.full((169, 9), np.nan),
    )


@pytest.fixture(scope="module")
def multiway_table(full_db):
    """The full database's multiway preflop table, computed by the build (exact against one and two opponents)."""
    return full_db.preflop_multiway()


def test_preflop_published(sampled, multiway_table):
    aa = multiway_table.row("AA")
    assert round(100 * aa["equity"][1], 2) == 85.20  # heads-up, exact
    assert aa["standard_error"][1] == aa["standard_error"][2] == 0.0 and multiway_table.exact[:3] == (True, True, False)
    # AA against 3 random hands: an independent 400 M-sample simulation gives 0.63836 +- 0.00002
    assert abs(aa["equity"][3] - 0.63836) <= 4 * np.hypot(aa["standard_error"][3], 0.00002)
    assert sampled.standard_error.max() <= 0.0002 and multiway_table.standard_error.max() <= 0.0002
    assert np.array_equal(multiway_table.equity[:, 2:], sampled.equity[:, 2:])  # 3-9 opponents: the shipped figures


def test_preflop_sampler_against_exact_heads_up(sampled):
    """The sampled heads-up figures (kept as a check) agree with the exact ones: no bias in the dealing."""
    diff = sampled.sampled_heads_up - sampled.equity[:, 0]
    # per class the sampled heads-up figure has s.e. about 0.00025 (no control variate for it)
    assert np.abs(diff).max() < 0.0012
    assert abs(diff.mean()) < 0.0001


def test_two_opponents_exact_against_the_sampler_and_ompeval(multiway_table, sampled, preflop):
    """Every class against two random hands, exact (the build's counts), within 4.5 s.e. of the shipped sampled figure
    (an independent sampler), and JTs equal to OMPEval's exact enumeration; heads-up equal to the preflop table."""
    exact, guess = multiway_table.equity[:, 1], sampled.equity[:, 1]
    z = (exact - guess) / sampled.standard_error[:, 1]
    assert np.abs(z).max() < 4.5 and abs(z.mean()) < 0.3, (np.abs(z).max(), z.mean())
    assert np.array_equal(multiway_table.equity[:, 0], preflop.equity)  # the same counts, to the last bit
    assert exact[CLASSES.index("JTs")] == pytest.approx(JTS_AGAINST_TWO_OMPEVAL, abs=1e-14)
    win, tie = multiway_table.win[:, 1], multiway_table.tie[:, 1]
    assert (win <= exact).all() and (exact <= win + tie).all() and (tie > 0).all()


@pytest.mark.parametrize(("name", "opponents"), [("AA", 2), ("KQs", 3), ("76s", 5), ("22", 8)])
def test_preflop_against_eval7_simulation(multiway_table, name, opponents):
    eval7 = _eval7()
    cards = _e7_cards()
    rng = np.random.default_rng(zlib.crc32(f"{name}/{opponents}".encode()))
    from matchdb.core.hole_cards import hand_class

    hands = [(a, b) for b in range(52) for a in range(b) if multiway_table.classes[hand_class(a, b)] == name]
    shares = []
    for _ in range(30000):
        a, b = hands[int(rng.integers(len(hands)))]
        deck = np.array([c for c in range(52) if c not in (a, b)])
        dealt = rng.choice(deck, size=5 + 2 * opponents, replace=False)
        board = [cards[c] for c in dealt[:5]]
        hero = eval7.evaluate([cards[a], cards[b], *board])
        values = [eval7.evaluate([cards[dealt[5 + 2 * i]], cards[dealt[6 + 2 * i]], *board]) for i in range(opponents)]
        best = max(values)
        shares.append(0.0 if best > hero else 1.0 / (1 + values.count(hero)) if best == hero else 1.0)
    mean, se = np.mean(shares), np.std(shares) / np.sqrt(len(shares))
    row = multiway_table.row(name)
    assert abs(row["equity"][opponents] - mean) <= 4 * np.hypot(se, row["standard_error"][opponents])


def test_preflop_json_round_trip(multiway_table):
    again = PreflopMultiway.from_stored(multiway_table.to_stored())
    assert np.array_equal(again.equity, multiway_table.equity) and again.exact == multiway_table.exact
    assert np.array_equal(again.win[:, :2], multiway_table.win[:, :2]) and np.isnan(again.win[:, 2:]).all()
    with pytest.raises(MatchdbError, match="version"):
        PreflopMultiway.from_stored({**multiway_table.to_stored(), "version": 99})


def test_preflop_multiway_on_a_few_tables(full_db):
    """The sampler itself (what computed the shipped figures), on 5 flops: every class seen, the sampled heads-up agrees
    with the exact one."""
    from matchdb.equity.preflop import compute_preflop_multiway

    part = compute_preflop_multiway(full_db.tables(range(0, 1755, 351)), seed=1)
    assert part.provenance["tables"] == 5 and part.exact[0]
    seen = np.isfinite(part.equity[:, 1])
    assert seen.all()
    # the sampled heads-up figures agree with the exact ones of the same flops
    z = (part.sampled_heads_up - part.equity[:, 0]) / 0.006
    assert np.abs(z).max() < 4
    # more opponents, less equity, class by class
    assert (np.diff(part.equity, axis=1) < 1e-3).all()


def test_the_multiway_preflop_table_is_kept_in_the_store_and_printed(full_store, multiway_table, capsys):
    """The build kept the table in the store as derived data bound to these tables: read back, printed, read once."""
    from matchdb.cli.main import main

    assert (full_store / "derived" / "preflop_multiway.json").exists()
    db = matchdb.open(full_store)
    again = db.preflop_multiway()
    assert np.array_equal(again.equity, multiway_table.equity)
    assert main(["preflop", "--multiway", "--db", str(full_store), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["hand"] + [f"vs{k}" for k in range(1, 10)] and lines[1].split()[0] == "AA"
    assert float(lines[1].split()[3]) == pytest.approx(multiway_table.equity[0, 2], abs=5e-5)  # AA against 3 opponents
    assert lines[-1].startswith("(against 1-2 opponents exact; against 3-9 sampled, standard errors at most 0.000")
    assert db.preflop_multiway() is again  # read and checked once per open database


# -- exact counts against one and two random hands, per table -------------------------------------


def _brute_force(levels: np.ndarray, hands: np.ndarray, row: int) -> tuple[int, int, int, int, int]:
    """(wins, ties against one random hand; deals with both of two below, none above; share in sixths) of ``row`` on
    one column, by looking at every pair of opponent hands."""
    masks = (np.uint64(1) << hands[:, 0].astype(np.uint64)) | (np.uint64(1) << hands[:, 1].astype(np.uint64))
    valid = levels != 65535
    others = np.flatnonzero(valid & ((masks & masks[row]) == 0))
    level, lv, m = levels[row], levels[others].astype(np.int64), masks[others]
    assert len(others) == 990
    pairs = np.triu((m[:, None] & m[None, :]) == 0, k=1)
    below, tied = lv < level, lv == level
    both_below = pairs & below[:, None] & below[None, :]
    not_behind = pairs & (below | tied)[:, None] & (below | tied)[None, :]
    both_tied = pairs & tied[:, None] & tied[None, :]
    sixths = 6 * both_below.sum() + 3 * (not_behind.sum() - both_below.sum() - both_tied.sum()) + 2 * both_tied.sum()
    return int(below.sum()), int(tied.sum()), int(both_below.sum()), int(not_behind.sum()), int(sixths)


def test_counts_against_random_hands_equal_looking_at_every_pair(table_cache):
    """Every 25th row's counts on three columns of 2c7dJh (one with the largest tie), weighted 1, 2 and 3, equal the
    counts over every pair of opponent hands, and the class totals add them times the orbit size."""
    from matchdb.core.pairs import PAIRS, remaining_cards
    from matchdb.equity.preflop import RandomCounts, add_table_counts

    flop = matchdb.parse_cards("2c7dJh")
    table = table_cache("2c7dJh")
    hands = remaining_cards(flop)[PAIRS].astype(np.int64)
    largest_tie = max(range(1176), key=lambda j: np.unique(table[table[:, j] != 65535, j], return_counts=True)[1].max())
    chosen = [0, 517, largest_tie]
    weights = np.array([1, 2, 3])
    totals = RandomCounts()
    rows = add_table_counts(np.ascontiguousarray(table[:, chosen].T), weights, hands, 12, totals)
    for row in range(0, 1176, 25):
        want = np.zeros(5, dtype=np.int64)
        weight = 0
        for column, w in zip(chosen, weights, strict=True):
            if table[row, column] != 65535:
                want += w * np.array(_brute_force(table[:, column], hands, row))
                weight += w
        assert rows[row].tolist() == [*want[:4].tolist(), int(want[4]), weight], row
    assert int(totals.counts[:, 5].sum()) == 12 * int(rows[:, 5].sum())


def test_counts_on_every_column_equal_the_flop_multiway_engine(small_db, table_cache):
    """On every column of 2c7dJh: the three-player win, tie and equity equal db.multiway's exact flop answer
    (the counting identity's kernel, another code), the heads-up ones db.outcome's, for several hands."""
    from matchdb.core.pairs import PAIRS, pair_row, remaining_cards
    from matchdb.equity.preflop import HEADS_UP_DEALS, THREE_PLAYER_DEALS, RandomCounts, add_table_counts

    flop = matchdb.parse_cards("2c7dJh")
    rows = add_table_counts(np.ascontiguousarray(table_cache("2c7dJh").T), np.ones(1176, dtype=np.int64),
                            remaining_cards(flop)[PAIRS], 1, RandomCounts())
    for hand in ("AhKh", "7c7h", "3s2s", "JdJc", "Qs8d", "2d2s"):
        below, tied, both, not_behind, sixths, weight = rows[pair_row(flop, matchdb.parse_cards(hand))]
        three = small_db.multiway(hand, "2c7dJh", 2)
        assert three.exact
        assert sixths / (6 * THREE_PLAYER_DEALS * weight) == pytest.approx(three.equity, abs=1e-15), hand
        assert (both / (THREE_PLAYER_DEALS * weight), (not_behind - both) / (THREE_PLAYER_DEALS * weight)) == \
            pytest.approx((three.win, three.tie), abs=1e-15), hand
        heads_up = small_db.outcome(hand, "2c7dJh")
        assert (below / (HEADS_UP_DEALS * weight), tied / (HEADS_UP_DEALS * weight)) == \
            pytest.approx((heads_up.win, heads_up.tie), abs=1e-15), hand


def _against_two_random_by_flops(db, hand: str) -> float:
    """A hand's equity against two random hands before the flop, counted apart from the multiway table: the mean over
    the 19,600 flops that miss the hand of each flop's exact three-player figure (db.multiway on the flop: the counting
    identity's kernel), flops that a renaming of suits keeping the hand maps onto each other counted once, weighted."""
    from collections import Counter
    from concurrent.futures import ThreadPoolExecutor
    from itertools import combinations

    from matchdb.core.canonical import CARD_MAP

    hero = matchdb.parse_cards(hand)
    keeping = [p for p in range(24) if {int(CARD_MAP[p, c]) for c in hero} == set(hero)]
    flops = Counter(min(tuple(sorted(int(CARD_MAP[p, c]) for c in flop)) for p in keeping)
                    for flop in combinations([c for c in range(52) if c not in hero], 3))
    assert sum(flops.values()) == 19_600

    def equity(flop):
        return db.multiway(hero, list(flop), 2).equity

    with ThreadPoolExecutor(2) as pool:
        values = list(pool.map(equity, flops))
    return sum(n * v for n, v in zip(flops.values(), values, strict=True)) / 19_600


@pytest.mark.slow
@pytest.mark.parametrize("hand", ["JhTh", "AsAh", "7c2d"])
def test_two_random_hands_equal_every_flops_exact_figure(full_db, multiway_table, hand):
    """The table's exact figure against two random hands equals the mean of every flop's exact three-player figure,
    to 1e-12 (a suited hand, a pair and an offsuit one: 3,300 to 9,800 distinct flops, a minute or more each)."""
    from matchdb.core.hole_cards import hand_class

    cards = matchdb.parse_cards(hand)
    name = multiway_table.classes[hand_class(*cards)]
    assert _against_two_random_by_flops(full_db, hand) == pytest.approx(multiway_table.row(name)["equity"][2], abs=1e-12)
