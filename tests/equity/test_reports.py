"""Reports over all flops: per-flop equity, preflop identity, hit counts and textures against independent counts."""

from __future__ import annotations

import csv
import io
import json
import warnings
from itertools import combinations

import numpy as np
import pytest

from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES, canonical_index
from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.ranges import parse_range, range_weights
from matchdb.core.table import match_table
from matchdb.equity.reports import (
    HITS,
    TEXTURES,
    flop_report,
    flop_texture,
    hand_hits,
    is_suit_symmetric,
    report,
)
from matchdb.errors import MatchdbError, RangeError
from tests.equity.test_distributions import E7, Eval7Flop

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

TOP = "22+,A2s+,K9s+,QTs+,JTs,T9s,98s,ATo+,KJo+"
FLOPZILLA_TYPES = ("High Card", "Pair", "Two Pair", "Trips", "Straight", "Flush", "Full House", "Quads", "Straight Flush")


def computed(indices):
    """TableItem tuples for a few canonical flops, tables from the kernel."""
    return [(i, tuple(int(c) for c in CANONICAL_FLOPS[i]), int(ORBIT_SIZES[i]), match_table(CANONICAL_FLOPS[i])) for i in indices]


@pytest.fixture(scope="module")
def some_tables():
    rng = np.random.default_rng(5)
    return computed(sorted(int(i) for i in rng.choice(1755, size=6, replace=False)) + [0, 677])


# -- hits against a brute-force count --------------------------------------------------------


def brute_hits(hole, flop) -> set[str]:
    """The hit categories by eval7 hand types and a rank-by-rank search for straight outs."""
    cards = list(hole) + list(flop)
    kind = FLOPZILLA_TYPES.index(eval7.handtype(eval7.evaluate([E7[c] for c in cards])))
    flop_ranks = [c % 13 for c in flop]
    flop_kind = {3: 0, 2: 1, 1: 3}[len(set(flop_ranks))]
    pocket = hole[0] % 13 == hole[1] % 13
    out = set()
    if kind > flop_kind:
        out.add("pair_or_better")
        name = {2: "two_pair", 4: "straight", 5: "flush"}.get(kind)
        if name:
            out.add(name)
        if kind == 3:
            out.add("set" if pocket else "trips")
        if kind >= 6:
            out.add("full_house_plus")
    if max(sum(1 for c in cards if c // 13 == s) for s in range(4)) == 4:
        out.add("flush_draw")

    def has_straight(ranks) -> bool:  # suits dealt round so that no flush hides the straight
        ranks = sorted(ranks)
        hand = [E7[(i % 4) * 13 + r] for i, r in enumerate(ranks)]
        return eval7.handtype(eval7.evaluate(hand)) == "Straight"

    ranks = [c % 13 for c in cards]
    if not has_straight(ranks):
        outs = sum(1 for r in range(13) if r not in ranks and has_straight(ranks + [r]))
        if outs >= 2:
            out.add("oesd")
        elif outs == 1:
            out.add("gutshot")
    return out


def test_hand_hits_examples():
    assert hand_hits("JhTh", "9h8c2h") == ("flush_draw", "oesd")
    assert hand_hits("AhQd", "KcKd7s") == ()  # the board pair is not the hero's
    assert hand_hits("7s7d", "Kc7h2d") == ("pair_or_better", "set")
    assert hand_hits("Kh2s", "KcKd7s") == ("pair_or_better", "trips")
    assert hand_hits("7s2d", "KcKd7h") == ("pair_or_better", "two_pair")
    assert hand_hits("Ah5d", "Kc4h3s") == ("gutshot",)  # 2 makes the wheel
    assert hand_hits("9s6d", "8c7h2d") == ("oesd",)
    assert hand_hits("Th6d", "9c7h2d") == ("gutshot",)
    assert hand_hits("QhJh", "AhKhTh") == ("pair_or_better", "full_house_plus")  # a royal flush
    with pytest.raises(MatchdbError, match="shares a card"):
        hand_hits("AhKh", "AhQd2c")


def test_hits_against_brute_force_on_random_flops():
    rng = np.random.default_rng(3)
    for _ in range(150):
        cards = [int(c) for c in rng.choice(52, size=5, replace=False)]
        assert set(hand_hits(cards[:2], cards[2:])) == brute_hits(cards[:2], cards[2:]), format_cards(cards)


@pytest.mark.parametrize("hero", [TOP, "AhKh,QsJs,7c7d,9h8h"])
def test_report_hits_against_brute_force(some_tables, hero):
    """Hit shares of every entry (canonical flops, or every flop of their orbits) against a hand-by-hand count."""
    r = flop_report(some_tables, hero)
    weights = {frozenset((a, b)): w for a, b, w in parse_range(hero)}
    for e, flop_text in enumerate(r.flops):
        flop = parse_cards(flop_text)
        live = {hand: w for hand, w in weights.items() if not hand & set(flop)}
        total = sum(live.values())
        assert r.hero_weight[e] == pytest.approx(total)
        for name in HITS:
            expected = sum(w for hand, w in live.items() if name in brute_hits(tuple(hand), flop)) / total if total else 0.0
            assert r.hits[name][e] == pytest.approx(expected, abs=1e-12), (flop_text, name)
    assert r.symmetric == is_suit_symmetric(range_weights(hero))
    assert r.total_flops == sum(item[2] for item in some_tables)


# -- equity on each flop -------------------------------------------------------------------


def test_equity_on_one_flop_against_eval7():
    """Range against range on one flop by eval7 on every board (the independent enumeration)."""
    index = canonical_index(parse_cards("2c7dJh"))[0]
    flop = tuple(int(c) for c in CANONICAL_FLOPS[index])
    ref = Eval7Flop(flop)
    hero, villain = "QQ+,AKs,7c7h", "JJ,TT,99,AQs,0.5(J7s)"
    r = flop_report(computed([index]), hero, villain, per_flop=True)
    e = r.flops.index(format_cards(flop))
    weights = [{frozenset((a, b)): w for a, b, w in parse_range(text)} for text in (hero, villain)]
    score = deals = 0.0
    for h, hw in weights[0].items():
        for k, vw in weights[1].items():
            if h & k or (h | k) & set(flop):
                continue
            i, m = ref.index[h], ref.index[k]
            both = (ref.values[:, i] >= 0) & (ref.values[:, m] >= 0)
            hv, kv = ref.values[both, i], ref.values[both, m]
            score += hw * vw * ((hv > kv).sum() + (hv == kv).sum() / 2)
            deals += hw * vw * both.sum()
    assert r.equity[e] == pytest.approx(score / deals, abs=1e-12)
    assert r.deals[e] == pytest.approx(deals)


def test_symmetric_entries_equal_per_flop(some_tables):
    """Suit-symmetric ranges through orbits, and the same ranges flop by flop: the same equities and hits."""
    by_orbit = flop_report(some_tables, "AA,KQs", "KK,QJo")
    one_by_one = flop_report(some_tables, "AA,KQs", "KK,QJo", per_flop=True)
    assert by_orbit.symmetric and not one_by_one.symmetric
    assert len(one_by_one.flops) == by_orbit.total_flops == one_by_one.total_flops
    for e, index in enumerate(by_orbit.index):
        members = one_by_one.index == index
        np.testing.assert_allclose(one_by_one.equity[members], by_orbit.equity[e], atol=1e-12)
        np.testing.assert_allclose(one_by_one.deals[members], by_orbit.deals[e], rtol=1e-12)
        for name in HITS:
            np.testing.assert_allclose(one_by_one.hits[name][members], by_orbit.hits[name][e], atol=1e-12)
    assert by_orbit.overall_equity() == pytest.approx(one_by_one.overall_equity(), abs=1e-12)
    for a, b in zip(by_orbit.by_texture("connectedness"), one_by_one.by_texture("connectedness"), strict=True):
        assert a == pytest.approx(b)


# -- textures ---------------------------------------------------------------------------------


def test_textures_count_every_flop():
    """Texture classes over the 22,100 flops against closed-form counts and an independent straight test."""
    counts: dict[str, dict[str, int]] = {key: {} for key in TEXTURES}
    for flop in combinations(range(52), 3):
        for key, value in flop_texture(flop).items():
            counts[key][value] = counts[key].get(value, 0) + 1
    assert counts["suits"] == {"monotone": 1144, "two-tone": 12168, "rainbow": 8788}
    assert counts["pairing"] == {"unpaired": 18304, "paired": 3744, "trips": 52}
    assert counts["high_card"]["A"] == 22100 - 48 * 47 * 46 // 6  # flops holding an ace
    assert counts["high_card"]["2"] == 4 and sum(counts["high_card"].values()) == 22100  # only 2-2-2 is 2-high
    # connected: three distinct ranks inside one of the ten straights (A-5 to T-A), any suits
    straights = [[12, 0, 1, 2, 3]] + [list(range(low, low + 5)) for low in range(9)]
    triples = {tuple(sorted(t)) for window in straights for t in combinations(window, 3)}
    assert counts["connectedness"]["connected"] == len(triples) * 4**3
    # disconnected: no two distinct ranks inside one straight (and no trips: those are one rank)
    close = {tuple(sorted(p)) for window in straights for p in combinations(window, 2)}
    apart = sum(
        1 for flop in combinations(range(52), 3)
        if len({c % 13 for c in flop}) > 1 and not any(tuple(sorted(p)) in close for p in combinations({c % 13 for c in flop}, 2))
    )
    assert counts["connectedness"]["disconnected"] == apart + 52


def test_texture_examples():
    assert flop_texture("AhKhQh") == {"suits": "monotone", "pairing": "unpaired", "high_card": "A", "connectedness": "connected"}
    assert flop_texture("Ah5c2d")["connectedness"] == "connected"  # the wheel
    assert flop_texture("Ah6c2d")["connectedness"] == "semi-connected"
    assert flop_texture("Kc8d2h")["connectedness"] == "disconnected"
    assert flop_texture("7c7d2h")["pairing"] == "paired" and flop_texture("7c7d7h")["connectedness"] == "disconnected"


# -- the report object -------------------------------------------------------------------------


def test_report_outputs(some_tables, tmp_path):
    r = flop_report(some_tables, TOP, "QQ+,AK")
    rows = r.rows(sort="equity")
    assert [row["equity"] for row in rows] == sorted(r.equity.tolist(), reverse=True)
    assert r.rows(sort="flush_draw", descending=False)[0]["flush_draw"] == min(r.hits["flush_draw"])
    expanded = r.rows(expand=True)
    assert len(expanded) == r.total_flops and all(row["count"] == 1 for row in expanded)
    assert sum(row["frequency"] * row["equity"] for row in expanded) == pytest.approx(r.overall_equity())
    assert sum(row["frequency"] for row in expanded) == pytest.approx(1.0)
    text = r.to_csv(tmp_path / "flops.csv", sort="equity")
    back = list(csv.DictReader(io.StringIO((tmp_path / "flops.csv").read_text())))
    assert text == (tmp_path / "flops.csv").read_text() and len(back) == len(r.flops)
    assert float(back[0]["equity"]) == pytest.approx(rows[0]["equity"])
    groups = r.by_texture(("suits", "pairing"), sort="equity", descending=False)
    assert [g["equity"] for g in groups] == sorted(g["equity"] for g in groups)
    assert sum(g["flops"] for g in groups) == r.total_flops
    assert sum(g["frequency"] for g in groups) == pytest.approx(1.0)
    weighted = sum(g["frequency"] * g["equity"] for g in groups)
    assert weighted == pytest.approx(r.overall_equity())
    data = json.loads(r.to_json())
    assert data["equity"] == pytest.approx(r.overall_equity()) and len(data["flops"]) == len(r.flops)
    assert set(data["textures"]) == set(TEXTURES)
    line = r.summary()
    assert "\n" not in line and f"{r.overall_equity():.4f}" in line and TOP in line


def test_report_refuses_bad_input(some_tables):
    with pytest.raises(RangeError, match="not suit-symmetric"):
        flop_report(some_tables, "AhKh", per_flop=False)
    with pytest.raises(RangeError, match="cannot be parsed"):
        flop_report(some_tables, "AK,XX")
    with pytest.raises(RangeError, match="no hand with a positive weight"):
        flop_report(some_tables, np.zeros(1326))
    r = flop_report(some_tables[:1], "AA")
    with pytest.raises(MatchdbError, match="texture key 'colour' is unknown"):
        r.by_texture("colour")
    with pytest.raises(MatchdbError, match="Cannot sort by 'nothing'"):
        r.rows(sort="nothing")
    with pytest.raises(MatchdbError, match="No table was given"):
        flop_report([], "AA")


# -- all flops, through a real store ----------------------------------------------------------------


def test_all_flops_mean_is_the_preflop_equity(full_db):
    """AA against a random hand over every flop equals the store's preflop table (computed apart, from W's sums)."""
    r = report(full_db, "AA")
    assert r.total_flops == 22100 and len(r.flops) == 1755 and r.symmetric
    table = full_db.preflop()
    assert r.overall_equity() == pytest.approx(table.equity[table.classes.index("AA")], abs=1e-12)
    assert sum(g["flops"] for g in r.by_texture("suits")) == 22100
    assert r.overall_hits()["pair_or_better"] == pytest.approx(1.0)
    # for AA: an ace among the three flop cards (from the 50 left), or trips of another rank on the board
    ace = 1 - (48 * 47 * 46) / (50 * 49 * 48)
    trips_board = 12 * 4 / (50 * 49 * 48 / 6)
    assert r.overall_hits()["set"] + r.overall_hits()["full_house_plus"] == pytest.approx(ace + trips_board, abs=1e-12)


def test_all_flops_explicit_hands_against_eval7_preflop(full_db):
    """AhKh against QsQd: every one of the 22,100 flops on its own, against eval7 on all 1,712,304 boards."""
    r = report(full_db, "AhKh", "QsQd")
    assert not r.symmetric and len(r.flops) == 22100
    hero, villain = [E7[c] for c in parse_cards("AhKh")], [E7[c] for c in parse_cards("QsQd")]
    rest = [E7[c] for c in range(52) if c not in parse_cards("AhKhQsQd")]
    evaluate = eval7.evaluate
    score = 0.0
    boards = 0
    for board in combinations(rest, 5):
        board = list(board)
        a, b = evaluate(board + hero), evaluate(board + villain)
        score += 1.0 if a > b else 0.5 if a == b else 0.0
        boards += 1
    assert boards == 1712304
    assert r.overall_equity() == pytest.approx(score / boards, abs=1e-12)


@pytest.mark.slow
def test_all_flops_symmetric_ranges_against_eval7_preflop(full_db):
    """AA against KK through the orbits, against eval7 on every board of each suit class of the 36 deals."""
    r = report(full_db, "AA", "KK")
    evaluate = eval7.evaluate
    score = deals = 0.0
    classes: dict[tuple, tuple[float, int]] = {}
    for a in combinations([c for c in range(52) if c % 13 == 12], 2):
        for k in combinations([c for c in range(52) if c % 13 == 11], 2):
            key = len({c // 13 for c in a} & {c // 13 for c in k})  # suits shared: the class up to renaming
            if key not in classes:
                hero, villain = [E7[c] for c in a], [E7[c] for c in k]
                rest = [E7[c] for c in range(52) if c not in a + k]
                s = 0.0
                for board in combinations(rest, 5):
                    board = list(board)
                    x, y = evaluate(board + hero), evaluate(board + villain)
                    s += 1.0 if x > y else 0.5 if x == y else 0.0
                classes[key] = (s, 1712304)
            score += classes[key][0]
            deals += classes[key][1]
    assert r.overall_equity() == pytest.approx(score / deals, abs=1e-12)


def test_random_hero_is_the_mirror(some_tables):
    """A random hero against a range wins what the range loses against a random hand, flop by flop."""
    mirror = flop_report(some_tables, None, "QQ+,AKs")
    direct = flop_report(some_tables, "QQ+,AKs")
    np.testing.assert_allclose(mirror.equity, 1 - direct.equity, atol=1e-12)
    assert mirror.hero == "random" and mirror.overall_equity() == pytest.approx(1 - direct.overall_equity(), abs=1e-12)


def test_tables_from_one_reused_buffer(some_tables):
    """The whole-database iterator will decode every table into one buffer: the report reads ahead safely."""

    def reused():
        buffer = np.empty((1176, 1176), dtype=np.uint16)
        for index, flop, orbit, table in some_tables:
            buffer[...] = table
            yield index, flop, orbit, buffer

    a = flop_report(reused(), TOP, "QQ+,AK")
    b = flop_report(some_tables, TOP, "QQ+,AK")
    np.testing.assert_array_equal(a.equity, b.equity)
    # items may also be objects with index, flop, orbit and table (the whole-database iterator's)
    from types import SimpleNamespace

    objects = (SimpleNamespace(index=i, flop=f, orbit=o, table=t) for i, f, o, t in some_tables)
    np.testing.assert_array_equal(flop_report(objects, TOP, "QQ+,AK").equity, b.equity)

    def broken():
        yield some_tables[0]
        raise MatchdbError("Table 7 is damaged; expected a checksum match.")

    with pytest.raises(MatchdbError, match="Table 7 is damaged"):
        flop_report(broken(), "AA")


def test_command_line_and_service_report(full_db, tmp_path, capsys):
    import httpx

    from matchdb.cli.main import main
    from tests.helpers import running_server

    out = tmp_path / "report.csv"
    assert main(["report", "QQ+,AKs", "--villain", "JJ-99", "--db", str(full_db.path), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 1755 and "wrote 22,100 flops' figures" in printed
    want = report(full_db, "QQ+,AKs", "JJ-99")
    assert printed.startswith(want.summary().split("; ")[0])
    with running_server(full_db.path, tmp_path / "serve.log") as url:
        body = httpx.get(f"{url}/v1/report", params={"hero": "QQ+,AKs", "villain": "JJ-99"}, timeout=120).json()
        assert body["equity"] == pytest.approx(want.overall_equity(), abs=1e-12) and "flops" not in body
        assert set(body["textures"]) == {"suits", "pairing", "high_card", "connectedness"}


def test_ranges_that_cannot_be_dealt_together_are_an_error_not_nan(some_tables):
    """Issue 20 item 2: 'matchdb report AhAs --villain AhAd' printed 'equity nan' and /v1/report answered null."""
    from matchdb.equity.reports import flop_report
    from matchdb.errors import RangeError

    with pytest.raises(RangeError, match="No deal is possible: every hand of 'AhAs' shares a card"):
        flop_report(some_tables, "AhAs", "AhAd")
    report = flop_report(some_tables, "AhAs", "AhAd,KK")  # one villain hand can be dealt: an answer
    assert np.isfinite(report.overall_equity())
