"""Tuning: the optimisers on problems with known optima, the preflop score against the database, bots tuned in the arena, the CLI.

Claims about bots carry their seed: the arena run below is seed 3 (tuning)
and reproduces with it.
"""

from __future__ import annotations

import builtins
import dataclasses
import itertools
import json
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchdb.cli.main import main
from matchdb.core.hole_cards import CLASSES
from matchdb.play.arena import run_arena
from matchdb.play.bots import (
    AllIn,
    BotError,
    CallingStation,
    PairOfFives,
    WestBot,
    load_bot,
    make_bot,
    montecarlo,
    save_bot,
)
from matchdb.play.games import S_INVESTED, S_NET, GameSettings, play_game
from matchdb.play.optimise import OptimiseError, genetic, random_walk
from matchdb.play.preflop_score import (
    _FEATURES,
    PARAMETERS,
    PreflopScore,
    ScoreError,
    critical_hands,
    fit_preflop_score,
    preflop_targets,
    spearman,
)
from matchdb.play.sources import TableSource
from matchdb.play.tuning import (
    Objective,
    SessionConfig,
    SessionPlayer,
    Tuner,
    TuningConfig,
    TuningError,
    compare_methods,
    t_quantile,
    tune_bot,
)

METHODS = {"walk": random_walk, "genetic": genetic}


# -- the optimisers on synthetic problems ------------------------------------------------------------


def bowl(optimum, scale):
    """A quadratic bowl with a known minimum (0 at ``optimum``), its axes of very different sizes."""
    optimum = np.asarray(optimum, dtype=float)
    scale = np.asarray(scale, dtype=float)
    return lambda x: float((((x - optimum) / scale) ** 2).sum())


# Parameters of magnitudes 0.01 .. 1000: pre-scaling by the bounds' widths lets one step suit all of them.
OPTIMUM = np.array([0.013, 0.7, 3.0, -40.0, 650.0])
LOW = np.array([0.0, 0.0, -10.0, -100.0, 0.0])
HIGH = np.array([0.02, 1.0, 10.0, 100.0, 1000.0])
START = np.array([0.001, 0.1, 9.0, 90.0, 10.0])


@pytest.mark.parametrize("method", METHODS)
def test_the_optimisers_find_a_known_optimum_within_their_tolerance(method):
    scale = HIGH - LOW
    result = METHODS[method](bowl(OPTIMUM, scale), START, LOW, HIGH, step=0.02, cycles=20_000, target=1e-4, seed=5)
    assert result.reason == "target" and result.best_loss <= 1e-4
    # loss <= 1e-4 bounds every coordinate's error by 0.01 of its range
    assert np.all(np.abs(result.best - OPTIMUM) <= 0.01 * scale), (result.best, OPTIMUM)
    assert result.start_loss > 1.0 and result.evaluations < 20_000


@pytest.mark.parametrize("method", METHODS)
def test_pinned_parameters_never_move_and_bounds_hold(method):
    seen = []
    optimum_outside = np.array([0.05, 2.0, 3.0, -40.0, 650.0])  # the first two lie beyond the upper bounds

    def loss(x):
        seen.append(x.copy())
        return bowl(optimum_outside, HIGH - LOW)(x)

    result = METHODS[method](loss, START, LOW, HIGH, step=0.05, pinned=["x2", 3], cycles=3000, seed=1)
    seen = np.array(seen)
    assert len(seen) == 3001  # the start and every candidate
    assert np.all(seen >= LOW) and np.all(seen <= HIGH)
    assert np.all(seen[:, 2] == START[2]) and np.all(seen[:, 3] == START[3])
    assert result.best[0] == pytest.approx(HIGH[0], rel=1e-3) and result.best[1] == pytest.approx(HIGH[1], rel=1e-3)
    assert all(name not in ("x2", "x3") for step in result.steps for name, _, _ in step.changes)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_box_and_any_pins_hold_for_every_candidate(data):
    n = data.draw(st.integers(1, 6))
    low = np.array(data.draw(st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n)))
    width = np.array(data.draw(st.lists(st.floats(0, 1e3), min_size=n, max_size=n)))
    high = low + width
    start = low + width * np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    start = np.clip(start, low, high)
    pinned = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    method = data.draw(st.sampled_from(sorted(METHODS)))
    if all(high[i] == low[i] for i in range(n) if i not in pinned):
        with pytest.raises(OptimiseError, match="^Every parameter is pinned or has equal bounds"):
            METHODS[method](lambda x: 0.0, start, low, high, pinned=pinned)
        return
    target = low + width * np.array(data.draw(st.lists(st.floats(-0.5, 1.5), min_size=n, max_size=n)))
    seen = []

    def loss(x):
        seen.append(x.copy())
        return float(((x - target) ** 2).sum())

    METHODS[method](loss, start, low, high, pinned=pinned, step=0.3, cycles=60, seed=data.draw(st.integers(0, 99)))
    seen = np.array(seen)
    assert np.all(seen >= low) and np.all(seen <= high)
    for i in pinned:
        assert np.all(seen[:, i] == start[i])


@pytest.mark.parametrize("method", METHODS)
def test_each_stopping_rule_fires(method):
    run = METHODS[method]
    loss = bowl([0.5, 0.5], [1.0, 1.0])
    reached = run(loss, [0.0, 0.0], [0, 0], [1, 1], step=0.05, cycles=10_000, target=0.01, seed=2)
    assert reached.reason == "target" and reached.best_loss <= 0.01 and reached.evaluations < 10_000
    budget = run(loss, [0.0, 0.0], [0, 0], [1, 1], step=0.05, cycles=25, target=1e-12, seed=2)
    assert budget.reason == "cycles" and budget.evaluations == 25 and budget.best_loss > 1e-12
    flat = run(lambda x: 1.0, [0.0, 0.0], [0, 0], [1, 1], cycles=10_000, patience=40, seed=2)
    assert flat.reason == "stalled" and not flat.steps
    assert flat.evaluations == 40 if method == "walk" else 40 <= flat.evaluations < 40 + 8  # whole generations
    # improvements smaller than the tolerance are kept but are no progress: the run stalls all the same
    creeping = run(lambda x: -1e-6 * float(x.sum()), [0.0, 0.0], [0, 0], [1, 1], cycles=10_000, patience=50,
                   tolerance=1e-3, seed=2)
    assert creeping.reason == "stalled" and creeping.steps and creeping.evaluations < 10_000


@pytest.mark.parametrize("method", METHODS)
def test_the_same_seed_gives_the_same_trajectory(method):
    loss = bowl(OPTIMUM, HIGH - LOW)
    one, two, other = (METHODS[method](loss, START, LOW, HIGH, cycles=300, seed=s) for s in (7, 7, 8))
    assert np.array_equal(one.losses, two.losses) and np.array_equal(one.best, two.best)
    assert not np.array_equal(one.losses, other.losses)


def test_a_change_that_helped_is_repeated_when_honing():
    seen = []

    def loss(x):
        seen.append(float(x[0]))
        return -float(x[0])  # larger is better: every step up helps

    random_walk(loss, [0.0], [0.0], [100.0], step=0.01, cycles=20, hone=True, seed=0)
    ups = [b - a for a, b in itertools.pairwise(seen) if b > a]
    first_up = next(i for i in range(1, len(seen)) if seen[i] > seen[0])
    assert seen[first_up + 1] - seen[first_up] == pytest.approx(seen[first_up] - seen[0])  # the same change again
    assert len(ups) > 5
    seen.clear()
    random_walk(loss, [0.0], [0.0], [100.0], step=0.01, cycles=20, hone=False, seed=0)
    steps = np.diff([v for v in seen if v > 0])
    assert len(set(np.round(steps, 12))) > 1  # fresh random changes


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: random_walk(lambda x: 0.0, [5.0], [0.0], [1.0]), "The start value x0 = 5.0 is outside its bounds 0.0 to 1.0."),
        (lambda: random_walk(lambda x: 0.0, [0.5], [0.0], [1.0], pinned=["y"]), "The pinned parameter 'y' is not one of x0."),
        (lambda: random_walk(lambda x: 0.0, [0.5], [0.0], [1.0], pinned=[0]),
         "Every parameter is pinned or has equal bounds; nothing is left to optimise."),
        (lambda: random_walk(lambda x: math.nan, [0.5], [0.0], [1.0]), "The loss returned NaN for [0.5]; expected a number."),
        (lambda: random_walk(lambda x: 0.0, [0.5], [0.0], [1.0], step=0), "The step 0 is not a positive number."),
        (lambda: genetic(lambda x: 0.0, [0.5], [0.0], [1.0], parents=0), "The number of parents 0 is not a whole number of at least 1."),
        (lambda: random_walk(lambda x: 0.0, [0.5, 1], [0.0], [1.0]), "The lower bounds [0.0] has 1 entries; expected 2."),
    ],
)
def test_optimiser_errors_are_one_sentence(call, message):
    with pytest.raises(OptimiseError) as caught:
        call()
    assert str(caught.value) == message


# -- the preflop score ---------------------------------------------------------------------------------


def test_the_preflop_fit_ranks_the_169_classes_as_the_database_does(db):
    """The issue's target: rank correlation >= 0.95 with the heads-up equity, fitted in <= 10 s (measured: 0.997, 0.4 s)."""
    table = db.preflop()
    targets = preflop_targets(table, 1)
    started = time.perf_counter()
    fit = fit_preflop_score(targets, seed=0)
    seconds = time.perf_counter() - started
    assert spearman(fit.score.scores(), table.equity) >= 0.95
    assert fit.correlation == pytest.approx(spearman(fit.score.scores(), targets))
    assert seconds <= 10.0
    # the fit is as good as least squares gets: the linear least-squares optimum (unclipped, unbounded) is no better
    solution, *_ = np.linalg.lstsq(_FEATURES, targets, rcond=None)
    best_linear = math.sqrt(float(np.mean((_FEATURES @ solution - targets) ** 2)))
    assert fit.rms <= best_linear + 0.5, (fit.rms, best_linear)
    assert fit.start_rms > 3 * fit.rms


@pytest.mark.parametrize("opponents", [2, 5, 9])
def test_multiway_targets_are_the_naive_win_rates(db, opponents):
    table = db.preflop()
    targets = preflop_targets(table, opponents)
    values = table.win_rate[opponents + 1]
    assert targets.max() == 1000.0 and targets.min() == 0.0
    assert spearman(targets, values) == pytest.approx(1.0)
    assert preflop_targets(table, opponents, scale="equity") == pytest.approx(1000 * values)
    fit = fit_preflop_score(targets, seed=1)
    assert fit.correlation >= 0.95


def test_exact_multiway_tables_give_their_own_column():
    """A table of equities against 1..9 opponents (the shape of main's db.preflop_multiway()) is read column by column."""
    from types import SimpleNamespace

    equity = np.random.default_rng(0).random((len(CLASSES), 9))  # stand-in figures
    table = SimpleNamespace(classes=CLASSES, opponents=tuple(range(1, 10)), equity=equity)
    for k in (1, 4, 9):
        assert preflop_targets(table, k, scale="equity") == pytest.approx(1000 * equity[:, k - 1])
    partial = SimpleNamespace(classes=CLASSES, opponents=(1, 2), equity=equity[:, :2])
    with pytest.raises(ScoreError, match=r"^The multiway table has no equity against 3 opponents; it has \[1, 2\]\.$"):
        preflop_targets(partial, 3)


def test_critical_hands_weights_and_pins():
    hands = "AA:950,KK:900,22:400,AKs:700,AKo:650,72o:20,JTs:560"
    even = fit_preflop_score(hands, seed=3, pinned=["suited", "ace"])
    heavy = fit_preflop_score(hands.replace("JTs:560", "JTs:560:50"), seed=3, pinned=["suited", "ace"])
    for fit in (even, heavy):
        assert fit.score.parameters()["suited"] == PreflopScore().parameters()["suited"]
        assert fit.score.parameters()["ace"] == PreflopScore().parameters()["ace"]
        assert int((~np.isnan(fit.targets)).sum()) == 7
    assert abs(heavy.score.score("JTs") - 560) < abs(even.score.score("JTs") - 560)
    assert heavy.weights[CLASSES.index("JTs")] == 50


def test_critical_hands_from_files(tmp_path):
    (tmp_path / "hands.csv").write_text("hand,target,weight\nAA,950,2\nAKs,800,\n")
    (tmp_path / "hands.json").write_text(json.dumps({"AA": [950, 2], "AKs": 800}))
    for name in ("hands.csv", "hands.json"):
        index, targets, weights = critical_hands(str(tmp_path / name))
        assert index.tolist() == [0, 1] and targets.tolist() == [950, 800] and weights.tolist() == [2, 1]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("AA:950,AA:900", "The critical hand 'AA' is named twice; expected each class at most once."),
        ("AA:1950", "The target of AA is '1950'; expected a number 0..1000."),
        ("AA:950:-1", "The weight of AA is '-1'; expected a number 0..inf."),
        ("AA", "The critical hand ('AA',) is not (hand, target) or (hand, target, weight)."),
        ("", "The critical hands '' name no hand; expected at least one, like 'AA:950'."),
        ("missing.csv", "The critical-hands file 'missing.csv' does not exist."),
    ],
)
def test_critical_hand_errors_are_one_sentence(spec, message):
    with pytest.raises(ScoreError) as caught:
        critical_hands(spec)
    assert str(caught.value) == message


def test_spearman_matches_scipy_with_ties():
    scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is only an independent reference here")
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.integers(0, 8, 40).astype(float)
        b = a + rng.integers(0, 5, 40)
        assert spearman(a, b) == pytest.approx(scipy_stats.spearmanr(a, b).statistic, abs=1e-12)
    assert t_quantile(9) == pytest.approx(scipy_stats.t.ppf(0.975, 9), abs=1e-3)
    assert t_quantile(45) == pytest.approx(scipy_stats.t.ppf(0.975, 45), abs=1e-4)


def test_a_score_saves_and_loads(tmp_path):
    score = PreflopScore(suited=81.5, pair_step=640)
    assert PreflopScore.load(score.save(tmp_path / "score.json")).parameters() == score.parameters()
    assert set(score.parameters()) == {p.name for p in PARAMETERS}
    assert score.score("AhKh") == score.score("AKs") and score.score("KhAd") == score.score("AKo")
    with pytest.raises(ScoreError, match=r"^The score file 'nope.json' does not exist\.$"):
        PreflopScore.load("nope.json")


# -- the arena hook: chips invested ------------------------------------------------------------------------


def test_games_count_the_chips_each_seat_invests():
    """All-in against a calling station: every hand both stacks go in, so each seat invests 2,000 chips a hand."""
    result = play_game([AllIn(), CallingStation()], GameSettings(mode="cash", hands=50, stack=2000), deal_seed=4,
                       bot_seed=4)
    assert result.stats[S_INVESTED].tolist() == [2000 * 50, 2000 * 50]
    assert result.stats[S_NET].sum() == 0
    mixed = play_game([PairOfFives(), CallingStation(), CallingStation()], GameSettings(mode="cash", hands=80),
                      deal_seed=5, bot_seed=5)
    assert np.all(mixed.stats[S_INVESTED] >= 0) and np.all(mixed.stats[S_NET] + mixed.stats[S_INVESTED] >= 0)
    assert np.all(mixed.stats[S_INVESTED] >= 10 * 80 // 3)  # every seat posts blinds


# -- tuning in the arena ------------------------------------------------------------------------------------


def loose_caller():
    """West's loose personality with stack protection off: it calls all-ins far too often."""
    return WestBot(name="loose", personality="loose", protect_strength=0.0)


def test_a_seeded_tuning_run_improves_beyond_the_noise_and_repeats(source):
    """Seed 3: the loose caller against always-all-in, heads-up cash (100 duplicate games of 50 hands a session).

    Measured: the start makes 185.5 bb/100 with a noise sd of 28.2 over 4 sessions; the tuned bot gains 462.7
    bb/100 on those held-out sessions, 95 % t interval [389.6, 535.9].
    """
    sessions = SessionConfig(games=100, hands=50, chunks=2)
    config = TuningConfig(cycles=40, noise_sessions=4, seed=3, sessions=sessions)
    first = tune_bot(loose_caller(), ["allin"], config, source=source)
    assert first.beyond_noise
    assert first.improvement.low > 0 and first.improvement.mean > first.noise.sd > 0
    assert first.train_best > first.train_start
    assert first.search.evaluations == 40 and first.improvement.units == 4
    again = tune_bot(loose_caller(), ["allin"], config, source=source)
    assert np.array_equal(first.search.losses, again.search.losses)
    assert np.array_equal(first.search.best, again.search.best)
    assert np.array_equal(first.validation, again.validation) and first.log == again.log
    other = tune_bot(loose_caller(), ["allin"], TuningConfig(cycles=5, noise_sessions=4, seed=4, sessions=sessions),
                     source=source)
    assert not np.array_equal(first.search.losses[:5], other.search.losses)


def test_pinned_traits_and_narrowed_bounds_hold_in_the_arena():
    config = TuningConfig(cycles=25, noise_sessions=2, seed=2, pinned=["call_otherwise"],
                          bounds={"raise_fraction": (0.5, 1.5)}, step=0.2, sessions=SessionConfig(games=20, hands=20))
    result = tune_bot("fives", ["station"], config)
    assert result.bot.params[2] == PairOfFives().params[2]
    assert 0.5 <= result.bot.params[1] <= 1.5
    assert "call_otherwise" not in result.changed() and result.settings["pinned"] == ["call_otherwise"]


def test_the_weak_character_approaches_its_target_rate():
    """Tomlinson's weak player: minimise (rate - target)^2, here fives against two calling stations, seed 1."""
    config = TuningConfig(objective="target", target=-50.0, cycles=30, noise_sessions=3, seed=1, step=0.2,
                          sessions=SessionConfig(games=30, hands=30))
    result = tune_bot("fives", ["station", "station"], config)
    assert abs(result.train_best + 50) < abs(result.train_start + 50)
    assert result.search.best_loss == pytest.approx((result.train_best + 50) ** 2)
    assert result.improvement.mean == pytest.approx(float(np.mean(
        np.abs(result.noise.values + 50) - np.abs(result.validation + 50))))


def test_the_tight_objective_is_chips_won_per_chip_invested():
    player = SessionPlayer(["station", "random"], SessionConfig(games=12, hands=20, chunks=1))
    session = player.play([(PairOfFives(name="candidate"), 9)])[0]
    plain = run_arena([PairOfFives(name="candidate"), "station", "random"], games=12, seats=3, seed=9,
                      duplicate=True, mode="cash", hands=20, progress=False)
    values = plain.unit_values["candidate"]
    assert session.bb_per_100 == pytest.approx(values["bb_per_100"].mean())  # one chunk: exactly the arena's run
    assert Objective("invested").value(session) == pytest.approx(values["chips"].mean() / values["invested"].mean())
    assert session.invested > 0


def test_random_walk_and_genetic_search_compare_on_one_budget():
    config = TuningConfig(cycles=24, noise_sessions=3, seed=6, step=0.2, children=6,
                          sessions=SessionConfig(games=24, hands=20))
    comparison = compare_methods("fives", ["station", "random"], config)
    walk, ga = comparison.results["random walk"], comparison.results["genetic"]
    assert walk.search.evaluations == ga.search.evaluations == 24
    assert np.array_equal(walk.noise.values, ga.noise.values) and walk.values[0] == ga.values[0]
    assert walk.settings["seed"] == ga.settings["seed"] == 6
    assert "random walk" in comparison.summary() and "genetic" in comparison.summary()


def test_dask_workers_give_the_same_trajectory():
    def config(workers):
        return TuningConfig(cycles=6, noise_sessions=2, seed=11,
                            sessions=SessionConfig(games=18, hands=20, chunks=3, workers=workers))

    one = tune_bot("fives", ["station", "random"], config(1))
    two = tune_bot("fives", ["station", "random"], config(2))
    assert np.array_equal(one.search.losses, two.search.losses) and np.array_equal(one.validation, two.validation)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: TuningConfig(objective="target"),
         "The objective 'target' needs a target rate (big blinds per 100 hands); give target=."),
        (lambda: TuningConfig(objective="profit"),
         "The objective 'profit' is unknown; expected one of bb_per_100, invested, target, wins."),
        (lambda: tune_bot("fives", ["station"], TuningConfig(pinned=["nerve"])),
         "The pinned parameter 'nerve' is not one of min_pair_rank, raise_fraction, call_otherwise."),
        (lambda: tune_bot("fives", ["station"], TuningConfig(bounds={"raise_fraction": (2, 20)})),
         "The bounds of raise_fraction are 2 to 20; expected low <= high within the bot's 0 to 10."),
        (lambda: tune_bot("allin", ["station"]), "The bot 'allin' has no parameters to tune."),
        (lambda: tune_bot("fives", ["fives-tuned"], TuningConfig(cycles=1)), "The bot 'fives-tuned' is unknown"),
        (lambda: tune_bot("fives", [PairOfFives(name="fives-tuned")],
                          TuningConfig(cycles=1, noise_sessions=2, sessions=SessionConfig(games=2))),
         "The candidate's name 'fives-tuned' is also an opponent's; results would be pooled."),
        (lambda: TuningConfig(method="annealing"), "The method 'annealing' is unknown; expected one of walk, genetic."),
        (lambda: tune_bot("fives", ["station"] * 10), "The candidate and 10 opponents need 11 seats; a table has at most 10."),
        (lambda: TuningConfig(cycles=0), "The number of cycles 0 is not a whole number of at least 1."),
        (lambda: TuningConfig(step=2.0), "The step 2.0 is not a number above 0 and at most 1 (a share of each "
         "parameter's range)."),
        (lambda: TuningConfig(noise_sessions=1), "The number of noise sessions 1 is not a whole number of at least 2."),
        (lambda: TuningConfig(seed=-1), "The seed -1 is not a whole number of at least 0."),
        (lambda: TuningConfig(pinned="nerve"), "The pinned parameters 'nerve' are not a list of parameter names."),
        (lambda: TuningConfig(sessions={"games": 2}), "The sessions {'games': 2} are not a SessionConfig."),
        (lambda: SessionConfig(games=0), "The number of games 0 is not a whole number of at least 1."),
        (lambda: SessionConfig(seats=11), "The number of seats 11 is out of range; expected 2..10."),
        (lambda: SessionConfig(mode="sng"), "The mode 'sng' is unknown; expected 'cash' or 'tournament'."),
        (lambda: SessionConfig(workers=0), "The number of workers 0 is not a whole number of at least 1."),
        (lambda: tune_bot("fives", ["station"], {"cycles": 2}), "The config {'cycles': 2} is not a TuningConfig."),
    ],
)
def test_tuning_errors_are_one_sentence(call, message):
    with pytest.raises((TuningError, BotError)) as caught:
        call()
    assert str(caught.value).startswith(message) and str(caught.value).count(". ") == 0


def test_the_configurations_are_frozen_keyword_only_and_normalised():
    with pytest.raises(TypeError):
        TuningConfig("bb_per_100")
    with pytest.raises(TypeError):
        SessionConfig(200)
    config = TuningConfig(pinned=["raise_fraction"], bounds={"raise_fraction": (0.5, 1.5)})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.cycles = 3  # type: ignore[misc]
    assert config.pinned == ("raise_fraction",) and config.sessions == SessionConfig()
    assert config.goal == Objective("bb_per_100") and TuningConfig(objective="target", target=-5.0).goal.target == -5.0


def test_tune_bot_takes_the_old_keywords_with_a_warning_and_gives_the_same_run(db):
    """The old keywords build the same configuration and source: same trajectory (fives against west, which reads
    hand strength, so the source is opened)."""
    config = TuningConfig(cycles=3, noise_sessions=2, seed=5, step=0.2, sessions=SessionConfig(games=4, hands=10, chunks=1))
    new = tune_bot("fives", ["west"], config, source=TableSource(db, capacity=8))
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        old = tune_bot("fives", ["west"], cycles=3, noise_sessions=2, seed=5, step=0.2, games=4, hands=10, chunks=1,
                       db=db, capacity=8)
    assert sorted(str(w.message) for w in caught) == [
        "tune_bot's db=, tables= and capacity= are deprecated; give source=TableSource(db=..., tables=..., "
        "capacity=...) (matchdb.play.sources.TableSource).",
        "tune_bot's keywords chunks=, cycles=, games=, hands=, noise_sessions=, seed=, step= are deprecated; give "
        "config=TuningConfig(..., sessions=SessionConfig(...)) (matchdb.play.tuning).",
    ]
    assert {w.filename for w in caught} == {__file__}  # the warnings point at the caller's line
    assert np.array_equal(new.search.losses, old.search.losses) and np.array_equal(new.validation, old.validation)
    assert new.settings == old.settings


def test_compare_methods_takes_the_old_keywords_and_refuses_unknown_or_doubled_ones():
    with pytest.warns(DeprecationWarning, match=r"^compare_methods's keywords cycles=, games=, hands=, noise_sessions= "
                      r"are deprecated; give config=TuningConfig"):
        comparison = compare_methods("fives", ["station"], cycles=2, games=4, hands=10, noise_sessions=2)
    assert [r.search.evaluations for r in comparison.results.values()] == [2, 2]
    with pytest.raises(TypeError, match="^tune_bot\\(\\) got an unexpected keyword argument 'cycels'$"):
        tune_bot("fives", ["station"], cycels=3)
    with pytest.warns(DeprecationWarning, match="deprecated"), pytest.raises(TuningError, match=r"^tune_bot was given config= and also "
                                                          r"cycles=; give only config=TuningConfig\(\.\.\.\)\.$"):
        tune_bot("fives", ["station"], TuningConfig(), cycles=3)


# -- the tuned bot's file ----------------------------------------------------------------------------------------


def test_the_saved_bot_loads_and_plays_in_the_arena(tmp_path, source):
    config = TuningConfig(cycles=8, noise_sessions=2, seed=3, sessions=SessionConfig(games=20, hands=20))
    result = tune_bot(loose_caller(), ["allin"], config, source=source)
    path = result.save(tmp_path / "tuned.json")
    bot = load_bot(path)
    assert bot.name == "loose-tuned" and isinstance(bot, WestBot)
    assert np.array_equal(bot.vector(), result.bot.vector()) and bot.strength == result.bot.strength
    assert json.loads(path.read_text())["tuning"]["method"] == "random walk"
    played = run_arena([str(path), "west", "allin"], games=6, seed=1, source=source, progress=False)
    assert [b.name for b in played.bots] == ["loose-tuned", "west", "allin"] and played.bot("loose-tuned").hands > 0
    assert make_bot(str(path)).name == "loose-tuned"


def test_bot_files_round_trip_every_builtin_kind(tmp_path):
    for bot in (PairOfFives(min_pair_rank=5), WestBot(personality="tight", strength=montecarlo(50)),
                make_bot("income:headsup"), make_bot("tomlinson")):
        loaded = load_bot(save_bot(bot, tmp_path / "bot.json"))
        assert type(loaded) is type(bot) and loaded.name == bot.name
        assert np.array_equal(loaded.vector(), bot.vector()) and loaded.strength == bot.strength


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "The bot file '{path}' does not exist; expected a file written by save_bot or 'matchdb tune bot --out'."),
        ("{", "The bot file '{path}' cannot be read as JSON"),
        ('{"kind": "matchdb-bot", "class": "Shark"}', "The file '{path}' does not describe a bot;"),
        ('{"kind": "matchdb-bot", "class": "WestBot", "name": "w", "parameters": {"nerve": 1}}',
         "The parameter 'nerve' is not one of WestBot's:"),
        ('{"kind": "matchdb-bot", "class": "WestBot", "name": "w", "parameters": {"fold_1": 2}}',
         "The parameter fold_1 = 2 is out of bounds; expected 0.0 to 1.0."),
        ('{"kind": "matchdb-bot", "class": "WestBot", "name": "w", "strength": {"kind": "exactly"}}',
         "The strength 'exactly' is unknown;"),
    ],
)
def test_bad_bot_files_are_one_sentence(tmp_path, content, message):
    path = tmp_path / "bot.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(BotError) as caught:
        load_bot(path)
    assert str(caught.value).startswith(message.format(path=path))


def test_a_python_strength_cannot_be_saved(tmp_path):
    with pytest.raises(BotError, match=r"uses a Python strength .*; only built-in strengths can be saved\.$"):
        save_bot(WestBot(strength=lambda view: 0.5), tmp_path / "bot.json")


# -- command line ---------------------------------------------------------------------------------------------


def test_cli_tunes_a_bot_and_writes_the_file_the_log_and_the_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the plot is an optional extra: pip install matplotlib")
    out, log, image = tmp_path / "tuned.json", tmp_path / "tune.log", tmp_path / "tune.png"
    argv = ["tune", "bot", "fives", "--field", "station,random", "--cycles", "12", "--games", "18", "--hands", "20",
            "--noise-sessions", "3", "--seed", "5", "--step", "0.2", "--out", str(out), "--log", str(log),
            "--plot", str(image), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "tuned fives by random walk against station, random" in printed and f"wrote {out}" in printed
    assert load_bot(out).name == "fives-tuned"
    lines = log.read_text().splitlines()
    assert lines[0].startswith("noise: the start parameters over 3 sessions of 18 games")
    assert lines[-1].startswith("held-out: the best of random walk over the 3 noise sessions")
    assert all(line.startswith("random walk candidate ") for line in lines[1:-1])
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["arena", "--bots", f"{out},station", "--games", "4", "--quiet"]) == 0
    assert "fives-tuned" in capsys.readouterr().out


def test_cli_compares_both_methods(tmp_path, capsys):
    assert main(["tune", "bot", "fives", "--field", "station", "--method", "both", "--cycles", "8", "--games", "10",
                 "--hands", "10", "--noise-sessions", "2", "--out", str(tmp_path / "best.json"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "same budget: 8 candidates" in printed and "\ngenetic " in printed and "\nrandom walk " in printed
    assert load_bot(tmp_path / "best.json").name == "fives-tuned"


def test_cli_fits_the_preflop_score_to_the_database(db, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the plot is an optional extra: pip install matplotlib")
    out, log, image = tmp_path / "score.json", tmp_path / "fit.log", tmp_path / "fit.png"
    assert main(["tune", "preflop", "--db", str(db.path), "--out", str(out), "--log", str(log), "--plot", str(image),
                 "--quiet"]) == 0
    printed = capsys.readouterr().out
    correlation = float(printed.split("rank correlation with the database's heads-up equity over 169 classes: ")[1][:6])
    assert correlation >= 0.95
    assert PreflopScore.load(out).parameters() == pytest.approx(json.loads(out.read_text())["parameters"])
    assert log.read_text().startswith("cycle ") and image.read_bytes()[:4] == b"\x89PNG"
    assert main(["tune", "preflop", "--critical", "AA:950,AKs:800:2,72o:10", "--json", "--quiet"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["targets"] == "critical hands" and answer["rms"] < 10


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tune", "bot", "fives", "--field", "station", "--objective", "target"], "needs a target rate"),
        (["tune", "bot", "fives", "--field", "station", "--pin", "nerve"], "The pinned parameter 'nerve' is not one"),
        (["tune", "bot", "fives", "--field", "station", "--bound", "raise_fraction=1"], "--bound is 'raise_fraction=1'"),
        (["tune", "bot", "fives", "--field", "station", "--out", "tuned.txt"], "expected a file name ending in .json."),
        (["tune", "bot", "bluffer", "--field", "station"], "The bot 'bluffer' is unknown"),
        (["tune", "bot", "fives", "--field", "station", "--log", "/no/such/folder/tune.log"], "in a folder that does not exist"),
        (["tune", "preflop", "--critical", "AA:950,AKx:1"], "The critical hand 'AKx' is not a class"),
        (["tune", "preflop", "--opponents", "12"], "--opponents is 12; expected 1..9"),
    ],
)
def test_cli_tune_errors_are_one_line_and_exit_2(capsys, argv, message):
    assert main(argv + ["--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("matchdb: ") and message in err and err.count("\n") == 1


def test_cli_says_in_one_sentence_when_matplotlib_is_missing(tmp_path, capsys, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["tune", "preflop", "--critical", "AA:950", "--plot", str(tmp_path / "x.png"), "--quiet"]) == 2
    assert capsys.readouterr().err == "matchdb: Plotting needs matplotlib; install it with 'pip install matplotlib'.\n"


def test_the_tuner_measures_the_noise_once_for_both_methods():
    player = SessionPlayer(["station"], SessionConfig(games=8, hands=10))
    tuner = Tuner("fives", player, noise_sessions=2, seed=1)
    first = tuner.noise()
    assert tuner.noise() is first and len(first.seeds) == 2 and first.seeds[0] != 1
    assert first.sd == pytest.approx(float(np.std(first.values, ddof=1)))
