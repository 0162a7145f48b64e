"""Writing known-bot hands as PHH and fitting a bot to a player: the bot's chances, recovery of a known bot."""

from __future__ import annotations

import numpy as np
import pytest

from matchdb.hands import HandsError, fit, history_of, play_hands, read, replay, write
from matchdb.hands.fitting import (
    Spots,
    action_probabilities,
    cell_frequencies,
    collect_spots,
)
from matchdb.play import engine as E
from matchdb.play.bots import CallingStation, RandomBot, WestBot, load_bot

pokerkit = pytest.importorskip("pokerkit")
NAMES = ["target", "loose", "station", "aggressive", "random", "west"]


def field():
    return [WestBot(personality="tight", name="target"), WestBot(personality="loose"), CallingStation(),
            WestBot(personality="aggressive"), RandomBot(), WestBot()]


@pytest.fixture(scope="module")
def source(full_db):
    from matchdb.play.strength import StrengthSource

    return StrengthSource(full_db, capacity=96)


@pytest.fixture(scope="module")
def known_hands(source, tmp_path_factory):
    """500 six-handed hands of a known bot (West's tight player) and a field, written as PHH with hidden cards."""
    hands = list(play_hands(field(), 500, seed=11, source=source))
    path = tmp_path_factory.mktemp("known") / "known.phhs"
    write((history_of(h, 1, 2, players=NAMES, hidden=True, venue="matchdb arena") for h in hands), path)
    return hands, path


def test_written_hands_load_in_pokerkit_and_replay_identically(known_hands):
    hands, path = known_hands
    with open(path, "rb") as handle:
        histories = list(pokerkit.HandHistory.load_all(handle))
    assert len(histories) == 500
    for history, hand in zip(histories[:200], hands[:200], strict=True):
        assert list(list(history)[-1].stacks) == history.finishing_stacks  # pokerkit ends where the engine ended
        assert sorted(history.finishing_stacks) == sorted(hand.stacks)
    report = replay(path)
    assert (report.read, report.identical) == (500, 500)


def test_one_hand_writes_as_phh_and_two_do_not(tmp_path):
    hand = next(play_hands([CallingStation(), CallingStation()], 1, seed=1))
    path = write([history_of(hand, 1, 2)], tmp_path / "one.phh")
    assert len(list(read(path))) == 1
    with pytest.raises(HandsError, match="A .phh file holds one hand"):
        write([history_of(hand, 1, 2)] * 2, tmp_path / "two.phh")


def _one_spot(view: E.View, strength: float) -> Spots:
    row = {"hand": [0], "cell": [0], "action": [1], "size": [np.nan], "to_call": [view.to_call], "pot": [view.pot],
               "stack": [view.stack], "bet": [view.bet], "max_bet": [view.max_bet], "min_to": [view.min_raise_to],
               "max_to": [view.max_raise_to], "can_raise": [view.can_raise], "big_blind": [view.big_blind],
               "strength": [[strength, strength]], "known": [True]}
    return Spots(**{k: np.array(v) for k, v in row.items()}, first=np.array([[strength]]),
                 shown_strength=np.array([np.nan]), hands=1)


def test_the_bots_chances_are_the_chances_it_plays(source):
    """action_probabilities against West's bot itself: 3,000 decisions at each of 12 spots, within 4.5 sigma."""
    from matchdb.play.strength import seed_kernels

    seed_kernels(3)
    bots = [WestBot(personality=p) for p in ("west", "tight", "loose", "aggressive")]
    checked = 0
    for number, hand in enumerate(play_hands([CallingStation()] * 6, 6, seed=7)):
        table = E.Table(list(hand.start), 1, 2, button=hand.button)
        replayed = table.start_hand()  # a fresh hand: only its first spots, where the view is known exactly
        view = replayed.view(source)
        bot = bots[number % len(bots)]
        strength = bot.strength(view)
        probabilities, _ = action_probabilities(bot.vector(), _one_spot(view, strength))
        chances = probabilities[0, -1]
        counts = np.zeros(3)
        for _ in range(3000):
            kind, _ = bot.act(view)
            counts[0 if kind == E.FOLD else 2 if kind == E.RAISE else 1] += 1
        spread = np.sqrt(np.maximum(chances * (1 - chances), 1e-4) / 3000)
        assert np.all(np.abs(counts / 3000 - chances) <= 4.5 * spread), (chances, counts / 3000)
        checked += 1
    assert checked == 6


def test_fitting_recovers_a_known_bot(known_hands, full_db, tmp_path):
    """Fitted on 3/4 of the target's hands, on the held-out quarter the fitted bot's chances are close to the
    true bot's (both computed on the same spots), and closer than West's default start."""
    _, path = known_hands
    result = fit(path, "target", full_db, cycles=800, seed=2)
    assert result.train_hands + result.test_hands == 500 and result.test_hands == 125
    assert result.search.best_loss < result.search.start_loss
    assert result.distance < result.start_distance
    hands = []
    replay(path, on_hand=hands.append)
    spots = collect_spots(hands, "target", full_db, seed=2).subset(np.arange(3, 500, 4))
    counts, _, truth = cell_frequencies(WestBot(personality="tight").vector(), spots)
    _, _, fitted = cell_frequencies(result.bot.vector(), spots)
    _, _, start = cell_frequencies(WestBot().vector(), spots)
    used = counts > 0

    def gap(freqs):
        return float((counts[used, None] * np.abs(freqs[used] - truth[used])).sum() / (3 * counts[used].sum()))

    assert gap(fitted) < 0.02 < gap(start)
    saved = result.save(tmp_path / "fitted.json")
    bot = load_bot(saved)
    assert np.allclose(bot.vector(), result.bot.vector()) and bot.name == "fitted-target"
    assert "held-out mean absolute difference" in result.to_text()


def test_fitting_an_unknown_player_says_so(known_hands, full_db):
    _, path = known_hands
    with pytest.raises(HandsError, match="The player 'nobody' acts in none of the hands"):
        fit(path, "nobody", full_db, cycles=1)


def test_the_compiled_replay_counts_known_bot_hands_as_the_python_replay(known_hands):
    from matchdb.hands import analyse
    from tests.hands.test_analysis import _python_path, _same_analysis

    _, path = known_hands
    _same_analysis(analyse(path), _python_path(path))
