"""Distributions, EHS, EHS^2, HS and potential against published values and an independent eval7 enumeration."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchdb.core.canonical import CARD_MAP, PERMUTATIONS
from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.hole_cards import hand_order
from matchdb.core.pairs import PAIRS, board_columns, local_index, pair_row, remaining_cards
from matchdb.core.ranges import range_weights
from matchdb.core.table import match_table
from matchdb.equity.distributions import board_distributions, hand_distribution, histogram_bins
from matchdb.equity.heads_up import hand_vs_weights
from matchdb.errors import BoardError, CardError, MatchdbError, RangeError

with warnings.catch_warnings():  # eval7 builds its range grammar with names pyparsing now deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

E7 = [eval7.Card(format_cards([c])) for c in range(52)]


def distribution(db, hole, board, villain=None, bins=50):
    """The query layer's answer (the tests were written against a module function of this name)."""
    return db.distribution(hole, board, villain=villain, bins=bins)


def distributions(db, board, villain=None, bins=50):
    return db.distributions(board, villain=villain, bins=bins)


# -- the independent reference: eval7 on every board, numpy for the counting ----------------


class Eval7Flop:
    """Every two-card hand's eval7 value on every full board of one flop (1.27 M evaluations, about 2 s).

    Its own enumeration order (itertools over card ids), nothing from matchdb's frame.
    """

    def __init__(self, flop: tuple[int, ...]) -> None:
        self.flop = tuple(flop)
        rest = [c for c in range(52) if c not in flop]
        self.hands = list(combinations(rest, 2))
        self.cards = np.array(self.hands)
        self.index = {frozenset(h): i for i, h in enumerate(self.hands)}
        values = np.full((len(self.hands), len(self.hands)), -1, dtype=np.int64)  # [board, hand]
        base = [E7[c] for c in flop]
        evaluate = eval7.evaluate
        for j, (t, r) in enumerate(self.hands):
            board = base + [E7[t], E7[r]]
            row = values[j]
            for i, (a, b) in enumerate(self.hands):
                if a != t and a != r and b != t and b != r:
                    row[i] = evaluate(board + [E7[a], E7[b]])
        self.values = values

    def now_values(self, extra: tuple[int, ...]) -> np.ndarray:
        board = [E7[c] for c in self.flop + extra]
        return np.array(
            [-1 if a in extra or b in extra else eval7.evaluate(board + [E7[a], E7[b]]) for a, b in self.hands]
        )

    def figures(self, hole, extra=(), weights=None, bins=50) -> dict:
        """Every figure of ``hole`` on the flop plus ``extra`` (turn, river), against ``weights`` by hand (default 1)."""
        a, b = hole
        n = len(self.hands)
        w = np.ones(n) if weights is None else np.array([weights.get(frozenset(h), 0.0) for h in self.hands])
        hero = self.index[frozenset(hole)]
        disjoint = ~np.isin(self.cards, [a, b]).any(axis=1)
        boards = ~np.isin(self.cards, [a, b]).any(axis=1)
        for c in extra:
            boards &= (self.cards == c).any(axis=1)
        boards = np.flatnonzero(boards)
        values = self.values[boards]  # (boards, hands)
        live = (values >= 0) & disjoint[None, :]
        hv = values[:, hero][:, None]
        win = ((values < hv) & live) @ w
        tie = ((values == hv) & live) @ w
        deals = live @ w
        keep = deals > 0
        boards, win, tie, deals = boards[keep], win[keep], tie[keep], deals[keep]
        live, values, hv = live[keep], values[keep], hv[keep]
        score2 = 2 * win + tie
        equity = score2 / 2 / deals
        which = np.minimum((score2 * bins) // (2 * deals), bins - 1).astype(np.int64)
        probability = deals / deals.sum()
        river = {frozenset(set(self.hands[j]) - set(extra)): (e, p) for j, e, p in zip(boards, equity, probability, strict=True)}
        turn = {}
        if not extra:
            for card in {c for j in boards for c in self.hands[j]}:
                on = (self.cards[boards] == card).any(axis=1)
                turn[card] = (score2[on].sum() / 2 / deals[on].sum(), deals[on].sum() / 2 / deals.sum())
        # now: the hand as dealt, eval7 on the 5, 6 or 7 cards
        now = self.now_values(extra)
        opponents = disjoint & (now >= 0) & (w > 0)
        state = np.where(now[hero] > now, 0, np.where(now[hero] == now, 1, 2))
        now_w = np.array([w[opponents & (state == s)].sum() for s in range(3)])
        river_state = np.where(hv > values, 0, np.where(hv == values, 1, 2))
        hp = np.zeros((3, 3))
        for s0 in range(3):
            for s1 in range(3):
                hp[s0, s1] = ((live & (river_state == s1)) @ (w * (opponents & (state == s0)))).sum()
        total = hp.sum(axis=1)
        pden, nden = total[2] + total[1] / 2, total[0] + total[1] / 2
        ppot = (hp[2, 0] + hp[2, 1] / 2 + hp[1, 0] / 2) / pden if pden else 0.0
        npot = (hp[0, 2] + hp[1, 2] / 2 + hp[0, 1] / 2) / nden if nden else 0.0
        if len(extra) == 2:
            ppot = npot = 0.0
        return {
            "ehs": score2.sum() / 2 / deals.sum(),
            "ehs2": (probability * equity**2).sum(),
            "counts": np.bincount(which, minlength=bins),
            "histogram": np.bincount(which, weights=probability, minlength=bins),
            "river": river,
            "turn": turn,
            "hs": (now_w[0] + now_w[1] / 2) / now_w.sum(),
            "now": now_w,
            "potential": hp,
            "ppot": ppot,
            "npot": npot,
        }


@pytest.fixture(scope="module")
def oracle_flops():
    """Two random flops (fixed seed), each with its eval7 reference and match table."""
    rng = np.random.default_rng(12)
    out = []
    for _ in range(2):
        flop = tuple(int(c) for c in rng.choice(52, size=3, replace=False))
        out.append((flop, Eval7Flop(flop), match_table(flop)))
    return out


def check_against(d, ref, extra, rest):
    """A :class:`HandDistribution` in a table's frame against the eval7 figures."""
    for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
        assert getattr(d, name) == pytest.approx(ref[name], abs=1e-9), name
    assert (d.river_counts == ref["counts"]).all()
    np.testing.assert_allclose(d.river_histogram, ref["histogram"], atol=1e-9)
    np.testing.assert_allclose(d.now, ref["now"], atol=1e-9)
    np.testing.assert_allclose(d.potential, ref["potential"], atol=1e-9)
    ours = {frozenset(r.tolist()): (e, p) for r, e, p in zip(d.runouts, d.river_equities, d.river_probabilities, strict=True)}
    assert ours.keys() == ref["river"].keys()
    for key, (e, p) in ours.items():
        assert e == pytest.approx(ref["river"][key][0], abs=1e-12) and p == pytest.approx(ref["river"][key][1], abs=1e-12)
    assert sorted(d.turn_cards.tolist()) == sorted(ref["turn"])
    for c, e, p in zip(d.turn_cards.tolist(), d.turn_equities, d.turn_probabilities, strict=True):
        assert e == pytest.approx(ref["turn"][c][0], abs=1e-12) and p == pytest.approx(ref["turn"][c][1], abs=1e-12)
    # the histogram's mean is the exact equity
    assert (d.river_probabilities * d.river_equities).sum() == pytest.approx(d.ehs, abs=1e-12)
    assert d.river_histogram.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("street", [0, 1, 2])
def test_one_hand_against_eval7(oracle_flops, street):
    """Random heroes on random flops, turns and rivers, against a random hand and against integer weights."""
    rng = np.random.default_rng(100 + street)
    for flop, ref, table in oracle_flops:
        rest = remaining_cards(flop)
        lookup = local_index(flop)
        for _ in range(4):
            picked = [int(c) for c in rng.choice(rest, size=2 + street, replace=False)]
            hole, extra = tuple(picked[:2]), tuple(picked[2:])
            columns = board_columns([int(lookup[c]) for c in extra])
            row = pair_row(flop, hole)
            d = hand_distribution(table, flop, row, columns)
            check_against(d, ref.figures(hole, extra), extra, rest)
            assert int(d.river_counts.sum()) == (1081, 46, 1)[street]
            # a range: integer weights, so the bins are exact on both sides
            weights = rng.integers(0, 3, size=1176).astype(float)
            by_hand = {frozenset(int(c) for c in rest[PAIRS[i]]): weights[i] for i in range(1176)}
            d = hand_distribution(table, flop, row, columns, weights=weights)
            check_against(d, ref.figures(hole, extra, by_hand), extra, rest)
            win, tie, _ = hand_vs_weights(table, row, columns, weights)
            assert d.ehs == pytest.approx(win + tie / 2, abs=1e-12)


@pytest.mark.parametrize("street", [0, 1])
def test_every_hand_against_one_hand_and_eval7(oracle_flops, street):
    """board_distributions row by row equals hand_distribution, and eval7 on sampled rows."""
    rng = np.random.default_rng(7 + street)
    flop, ref, table = oracle_flops[street]
    rest = remaining_cards(flop)
    extra = tuple(int(c) for c in rng.choice(rest, size=street, replace=False))
    columns = board_columns([int(local_index(flop)[c]) for c in extra])
    weights = rng.integers(0, 4, size=1176).astype(float)
    for w in (None, weights):
        every = board_distributions(table, flop, columns, weights=w, raw=True)
        # every row against a random hand on the flop; a sample of rows otherwise (time)
        rows = range(1176) if w is None and not extra else rng.choice(1176, size=150, replace=False)
        for row in rows:
            if not every.valid[row]:
                assert set(rest[PAIRS[row]].tolist()) & set(extra)
                continue
            one = hand_distribution(table, flop, row, columns, weights=w)
            for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
                assert getattr(every, name)[row] == pytest.approx(getattr(one, name), abs=1e-9), (row, name)
            assert (every.river_counts[row] == one.river_counts).all()
            np.testing.assert_allclose(every.river_histogram[row], one.river_histogram, atol=1e-12)
            np.testing.assert_allclose(every.now[row], one.now)
            if not extra:
                np.testing.assert_allclose(every.turn_equities[row, one.turn_cards], one.turn_equities, atol=1e-12)
                assert (every.turn_counts[row] == one.turn_counts).all()
                np.testing.assert_allclose(every.turn_histogram[row], one.turn_histogram, atol=1e-12)
            live = every.river_probabilities[row] > 0
            np.testing.assert_allclose(np.sort(every.river_equities[row, live]), np.sort(one.river_equities), atol=1e-12)
        by_hand = None if w is None else {frozenset(int(c) for c in rest[PAIRS[i]]): w[i] for i in range(1176)}
        for row in rng.choice(np.flatnonzero(every.valid), size=6, replace=False):
            hole = tuple(int(c) for c in rest[PAIRS[row]])
            figures = ref.figures(hole, extra, by_hand)
            for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
                assert getattr(every, name)[row] == pytest.approx(figures[name], abs=1e-9), name
            assert (every.river_counts[row] == figures["counts"]).all()


# -- published values ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "board", "ehs"),
    [("TcQd", "7h9hQh", 0.683), ("5c9d", "3d5d7d", 0.679), ("KcQc", "7dQh4h2s3c", 0.856)],
)
def test_published_ehs(hole, board, ehs):
    """Ganzfried and Sandholm 2014 (flops), and the river example of the same literature."""
    cards = parse_cards(board)
    flop = cards[:3]
    lookup = local_index(flop)
    columns = board_columns([int(lookup[c]) for c in cards[3:]])
    d = hand_distribution(match_table(flop), flop, pair_row(flop, parse_cards(hole)), columns)
    assert round(d.ehs, 3) == ehs


@pytest.mark.parametrize(("hole", "flop"), [("KsQs", "Kc7d2h"), ("KdQh", "Ks7c2d"), ("QcKh", "2sKd7h")])
def test_published_hand_strength(hole, flop):
    """KQ on K72: 42 hands better, 6 tied, 1,033 worse, HS 0.958 (Billings' thesis)."""
    flop = parse_cards(flop)
    table = match_table(flop)
    row = pair_row(flop, parse_cards(hole))
    d = hand_distribution(table, flop, row, board_columns(()))
    assert d.now.tolist() == [1033, 6, 42]
    assert round(d.hs, 3) == 0.958
    every = board_distributions(table, flop, board_columns(()))
    assert every.now[row].tolist() == [1033, 6, 42]


# -- invariants -------------------------------------------------------------------------------


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_suit_renaming_changes_nothing(seed):
    rng = np.random.default_rng(seed)
    cards = [int(c) for c in rng.choice(52, size=6, replace=False)]
    perm = int(rng.integers(24))
    renamed = [int(CARD_MAP[perm, c]) for c in cards]
    street = int(rng.integers(0, 3))
    answers = []
    for picked in (cards, renamed):
        flop, hole, extra = tuple(picked[:3]), tuple(picked[3:5]), tuple(picked[5 : 5 + street])
        columns = board_columns([int(local_index(flop)[c]) for c in extra])
        answers.append(hand_distribution(match_table(flop), flop, pair_row(flop, hole), columns))
    first, second = answers
    for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
        assert getattr(first, name) == pytest.approx(getattr(second, name), abs=1e-12)
    assert (first.river_counts == second.river_counts).all()
    assert (first.turn_counts == second.turn_counts).all()
    mapped = {int(CARD_MAP[perm, c]): e for c, e in zip(first.turn_cards, first.turn_equities, strict=True)}
    assert mapped == pytest.approx(dict(zip(second.turn_cards.tolist(), second.turn_equities, strict=True)))


@pytest.mark.parametrize("flop", ["AhKhQh", "7c7d2s", "2c2d2h", "5s6s7d"])
def test_every_hand_invariants(flop):
    """Counts sum to the runouts, probabilities to 1, potentials lie in [0, 1], EHS^2 between EHS^2 and EHS."""
    flop = parse_cards(flop)
    table = match_table(flop)
    for extra in ((), (10,), (10, 30)):
        every = board_distributions(table, flop, board_columns(extra), bins=20)
        runouts = (1081, 46, 1)[len(extra)]
        valid = every.valid
        assert valid.sum() == (1176, 1128, 1081)[len(extra)]
        assert (every.river_counts[valid].sum(axis=1) == runouts).all()
        assert (every.river_counts[~valid] == 0).all()
        np.testing.assert_allclose(every.river_histogram[valid].sum(axis=1), 1.0)
        for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
            values = getattr(every, name)[valid]
            assert ((values >= 0) & (values <= 1)).all(), name
            assert np.isnan(getattr(every, name)[~valid]).all()
        assert (every.ehs2[valid] >= every.ehs[valid] ** 2 - 1e-12).all()
        assert (every.ehs2[valid] <= every.ehs[valid] + 1e-12).all()
        if not extra:
            assert (every.turn_counts.sum(axis=1) == 47).all()
            np.testing.assert_allclose(every.turn_histogram.sum(axis=1), 1.0)
            # the turn equities average (by probability) to the flop equity
            turn = np.nan_to_num(every.turn_equities)
            assert np.allclose(turn.sum(axis=1) / 47, every.ehs)  # a random opponent: every turn equally likely
        else:
            assert every.turn_equities.shape == (1176, 0)


def test_histogram_bins_edges():
    """The bin rule on exact edges: 1/50 goes to bin 1, 1 to the last bin."""
    assert histogram_bins(np.array([0.0, 0.02, 0.0199999, 0.98, 1.0])).tolist() == [0, 1, 0, 49, 49]
    assert histogram_bins(np.array([0.5]), bins=2).tolist() == [1]


# -- through a real store ----------------------------------------------------------------------


def test_real_cards_through_the_database(full_db):
    d = distribution(full_db, "TcQd", "7h9hQh")
    assert round(d.ehs, 3) == 0.683 and d.hole == parse_cards("TcQd")
    assert round(distribution(full_db, "5c9d", "3d5d7d").ehs, 3) == 0.679
    assert round(distribution(full_db, "KcQc", "7dQh4h2s3c").ehs, 3) == 0.856
    # runouts and turn cards are real cards: none repeats the hole cards or the board
    d = distribution(full_db, "AhKh", "2c7dJh9h", villain="QQ+,AK")
    assert d.ehs == pytest.approx(full_db.equity("AhKh", "2c7dJh9h", "QQ+,AK"), abs=1e-12)
    assert not set(d.runouts.ravel().tolist()) & set(parse_cards("AhKh2c7dJh9h"))
    # renaming suits of a real question changes no figure, and maps the turn cards
    first = distribution(full_db, "AhKh", "2c7dJh")
    second = distribution(full_db, "AsKs", "2d7cJs")
    assert first.ppot == pytest.approx(second.ppot, abs=1e-12) and first.npot == pytest.approx(second.npot, abs=1e-12)
    swap = int(np.flatnonzero((PERMUTATIONS == [1, 0, 3, 2]).all(axis=1))[0])  # c <-> d, h <-> s
    assert {int(CARD_MAP[swap, c]): e for c, e in zip(first.turn_cards, first.turn_equities, strict=True)} == pytest.approx(
        dict(zip(second.turn_cards.tolist(), second.turn_equities, strict=True))
    )


def test_one_core_and_parallel_agree():
    """``parallel=False`` (what the dataset builder's threads use) gives the parallel answer."""
    flop = parse_cards("Qs9s4d")
    table = match_table(flop)
    weights = np.random.default_rng(4).integers(0, 3, size=1176).astype(float)
    for extra in ((), (7,)):
        for w in (None, weights):
            a = board_distributions(table, flop, board_columns(extra), weights=w, raw=True)
            b = board_distributions(table, flop, board_columns(extra), weights=w, raw=True, parallel=False)
            for name in ("ehs", "ehs2", "hs", "ppot", "npot", "now", "river_histogram", "turn_equities",
                         "turn_histogram", "river_equities", "river_probabilities"):
                np.testing.assert_allclose(getattr(a, name), getattr(b, name), atol=1e-12, rtol=0)
            assert (a.river_counts == b.river_counts).all() and (a.turn_counts == b.turn_counts).all()


def test_grid_by_class():
    flop = parse_cards("Kc7d2h")
    every = board_distributions(match_table(flop), flop, board_columns(()))
    grid = every.grid("hs")
    assert grid.shape == (13, 13)
    # KK: three combos left (Kc is on the board), all sets
    kings = [i for i, name in enumerate(every.hands) if name[0] == "K" and name[2] == "K"]
    assert grid[1, 1] == pytest.approx(np.mean([every.hs[i] for i in kings]))
    aks = [i for i, name in enumerate(every.hands) if name[0] == "A" and name[2] == "K" and name[1] == name[3]]
    assert grid[0, 1] == pytest.approx(np.mean([every.hs[i] for i in aks]))  # suited above the diagonal
    with pytest.raises(MatchdbError, match="no grid"):
        every.grid("colour")


def test_every_hand_through_the_database(full_db):
    every = distributions(full_db, "2c7dJh", villain="QQ+,AK")
    assert every.hands == hand_order()
    exact = full_db.equities("2c7dJh", villain="QQ+,AK").values
    np.testing.assert_allclose(every.ehs, exact, atol=1e-12)  # NaN in the same places too
    i = hand_order().index("AhKh")
    assert every.hand("AhKh")["ehs"] == pytest.approx(full_db.equity("AhKh", "2c7dJh", "QQ+,AK"))
    assert np.isnan(every.turn_equities[i, parse_cards("AhKh2c7dJh")]).all()
    d = distribution(full_db, "AhKh", "2c7dJh", villain="QQ+,AK")
    assert dict(zip(d.turn_cards.tolist(), d.turn_equities, strict=True)) == pytest.approx(
        {c: e for c, e in enumerate(every.turn_equities[i]) if e == e}
    )


# -- bad input -----------------------------------------------------------------------------------


def test_bad_input_is_refused_with_a_clear_message():
    flop = parse_cards("2c7dJh")
    table = match_table(flop)
    columns = board_columns(())
    with pytest.raises(MatchdbError, match="match table must be"):
        hand_distribution(table[:10], flop, 0, columns)
    with pytest.raises(MatchdbError, match="Row 2000 is out of range"):
        hand_distribution(table, flop, 2000, columns)
    with pytest.raises(BoardError, match="not a board's columns"):
        hand_distribution(table, flop, 0, columns[:100])
    with pytest.raises(MatchdbError, match="number of bins 0"):
        board_distributions(table, flop, columns, bins=0)
    with pytest.raises(RangeError, match="1176 row weights"):
        hand_distribution(table, flop, 0, columns, weights=np.ones(5))
    with pytest.raises(RangeError, match="no hand with a positive weight"):
        hand_distribution(table, flop, 0, columns, weights=np.zeros(1176))
    with pytest.raises(RangeError, match="non-negative"):
        board_distributions(table, flop, columns, weights=-np.ones(1176))
    turn = board_columns((5,))
    row = int(np.flatnonzero((PAIRS == 5).any(axis=1))[0])
    with pytest.raises(CardError, match="share a card with the board"):
        hand_distribution(table, flop, row, turn)
    only = np.zeros(1176)
    only[row] = 1.0  # the one opponent hand holds the hero's card
    hero = int(np.flatnonzero((PAIRS[row][0] == PAIRS).any(axis=1))[1])
    with pytest.raises(RangeError, match="No opponent hand"):
        hand_distribution(table, flop, hero, columns, weights=only)
    with pytest.raises(RangeError, match="empty"):
        range_weights([])
    with pytest.raises(RangeError, match="1,326 entries"):
        range_weights([1.0, 2.0])


# -- the command line, the HTTP service and the plot ---------------------------------------------


def test_command_line_service_and_plot_give_the_api_answer(full_db, tmp_path, capsys):
    import json

    import httpx

    from matchdb.cli.main import main
    from tests.helpers import running_server

    want = full_db.distribution("KsQs", "Kc7d2h")
    assert main(["distribution", "KsQs", "Kc7d2h", "--db", str(full_db.path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["hs"], got["ehs"], got["ppot"], got["npot"]) == (want.hs, want.ehs, want.ppot, want.npot)
    assert got["river_counts"] == want.river_counts.tolist() and round(got["hs"], 3) == 0.958
    assert main(["distribution", "KsQs", "Kc7d2h", "--db", str(full_db.path)]) == 0
    assert "now (HS) 0.958372" in capsys.readouterr().out
    assert main(["distribution", "KsQs", "Kc7d2hKs", "--db", str(full_db.path)]) == 2
    assert "share 'Ks'; expected distinct cards" in capsys.readouterr().err
    image = tmp_path / "d.png"
    assert main(["plot", "distribution", "AhKh", "2c7dJh", "--db", str(full_db.path), "--out", str(image)]) == 0
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with running_server(full_db.path, tmp_path / "serve.log") as url:
        body = httpx.get(f"{url}/v1/distribution", params={"hole": "KsQs", "board": "Kc7d2h", "villain": "QQ+,AK"}).json()
        assert body["ehs"] == full_db.distribution("KsQs", "Kc7d2h", villain="QQ+,AK").ehs and body["villain"] == "QQ+,AK"
        bad = httpx.get(f"{url}/v1/distribution", params={"hole": "KsQs", "board": "Kc7d2h", "bins": 0})
        assert bad.status_code == 422
