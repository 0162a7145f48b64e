"""``matchdb arena --hands-out DIR``: every arena game as PHH, replayed by pokerkit to the arena's own chips.

pokerkit is the oracle: it replays each written hand to its finishing stacks, and those equal the engine's
(per hand) and add up to the arena's chips per game (cash) or chain from hand to hand to the winner
(tournament). ``matchdb.hands.read`` reads every hand back as the engine played it, card for card.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from matchdb.cli.main import main
from matchdb.hands import ArenaWriter, HandsError, read, replay
from matchdb.hands.reader import DB, DH
from matchdb.hands.writer import phh_order
from matchdb.play import engine as E
from matchdb.play.arena import run_arena
from matchdb.play.games import GameSettings, PlayedHand

pokerkit = pytest.importorskip("pokerkit")
FIELD = ["allin", "random", "station", "fives"]  # no database needed


class Keeping:
    """A HandsOut that writes through ArenaWriter and keeps every played hand per game, to compare with."""

    def __init__(self, folder: Path) -> None:
        self.writer = ArenaWriter(folder)
        self.hands: dict[str, list[PlayedHand]] = defaultdict(list)
        self.names: dict[str, list[str]] = {}

    def game(self, label, names):
        inner = self.writer.game(label, names)
        self.names[label] = list(names)
        keep = self.hands[label]

        class Game:
            def add(self, played):
                keep.append(played)
                inner.add(played)

            def close(self):
                inner.close()

        return Game()


def pokerkit_hands(path: Path) -> list:
    with open(path, "rb") as handle:
        return list(pokerkit.HandHistory.load_all(handle))


def final_stacks(history) -> list[int]:
    """pokerkit's own replay of a hand: the stacks of its last state."""
    *_, state = history
    return [int(x) for x in state.stacks]


def short_big_blind(played: PlayedHand) -> bool:
    """The big blind posted less than the big blind (where the engine's 'full' rule and pokerkit differ)."""
    return any(kind == E.BIG_BLIND and amount < played.big_blind for _, _, kind, amount in played.record.history)


def test_cash_games_replay_in_pokerkit_to_the_arenas_chips_and_read_back_as_played(tmp_path):
    keeping = Keeping(tmp_path / "hands")
    result = run_arena(FIELD, games=5, seed=2, mode="cash", hands=40, hands_out=keeping, progress=False)
    files = sorted((tmp_path / "hands").glob("*.phhs"))
    assert [f.stem for f in files] == sorted(f"seed2-unit{u}-game0" for u in range(5))
    checked = 0
    for path in files:
        histories = pokerkit_hands(path)
        played = keeping.hands[path.stem]
        assert len(histories) == len(played) == 40
        won: dict[str, int] = defaultdict(int)
        for history, hand in zip(histories, played, strict=True):
            order = phh_order(hand.record)
            assert final_stacks(history) == history.finishing_stacks == [hand.record.stacks[s] for s in order]
            for name, start, end in zip(history.players, history.starting_stacks, history.finishing_stacks, strict=True):
                won[name] += end - start
            checked += 1
        unit = int(path.stem.split("-")[1].removeprefix("unit"))
        for name, chips in won.items():  # one seat per bot: its chips per game are the arena's figure
            assert chips == result.unit_values[name]["chips"][unit], (path.name, name)
    assert checked == 200
    # matchdb reads every hand back as played: stacks, winnings, players, every hole and board card
    records = list(read(sorted(files)))
    played = [hand for path in files for hand in keeping.hands[path.stem]]
    assert len(records) == len(played)
    for record, hand in zip(records, played, strict=True):
        r = hand.record
        order = phh_order(r)
        names = keeping.names[record.fields["table"]]
        assert record.players == tuple(names[s] for s in order)
        assert record.stacks == tuple(r.start[s] for s in order)
        assert record.finishing_stacks == tuple(r.stacks[s] for s in order)
        assert record.winnings == tuple(r.won[s] for s in order)
        assert record.blinds[:2] == (hand.small_blind, hand.big_blind)
        assert [cards for kind, _, cards in record.ops if kind == DH] == [r.holes[s] for s in order]
        board = [c for kind, _, cards in record.ops if kind == DB for c in cards]
        assert tuple(board) == r.board[:len(board)]
        assert record.fields["hand"] == hand.number + 1 and record.fields["seats"] == [s + 1 for s in order]
    report = replay(files)
    assert (report.read, report.identical) == (200, 200)


@pytest.mark.parametrize("rule", ["posted", "full"])
def test_tournaments_replay_in_pokerkit_hand_after_hand_to_the_winner(tmp_path, rule):
    """Five seats of three bots (names repeat: allin, random, station, allin-2, random-2), antes from level 2.

    Under pokerkit's rule for a short big blind ('posted') every hand replays to the engine's stacks; under the
    card rooms' rule ('full', the default) every hand does except where the big blind was short and the others
    owed the full big blind, which PHH cannot say (pokerkit charges only what was posted).
    """
    keeping = Keeping(tmp_path / "hands")
    settings = GameSettings(rules=E.Rules(short_big_blind=rule), schedule=((10, 20, 0), (20, 40, 5), (30, 60, 10)),
                            hands_per_level=4)
    result = run_arena(FIELD[:3], seats=5, games=12, seed=9, settings=settings, hands_out=keeping, progress=False)
    differ = antes = 0
    for label, played in keeping.hands.items():
        histories = pokerkit_hands(tmp_path / "hands" / f"{label}.phhs")
        assert len(histories) == len(played) > 0
        previous = None
        for history, hand in zip(histories, played, strict=True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pokerkit warns of a fold it sees no reason for (the 'full' rule)
                final = final_stacks(history)
            if final != history.finishing_stacks:
                assert rule == "full" and short_big_blind(hand), (label, history.hand)
                differ += 1
            antes += hand.ante > 0
            if previous is not None:  # each hand starts where the last one ended
                ended = dict(zip(previous.players, previous.finishing_stacks, strict=True))
                assert all(ended[name] == start for name, start in zip(history.players, history.starting_stacks, strict=True))
            previous = history
        winner = max(zip(previous.finishing_stacks, previous.players, strict=True))[1]
        assert sum(previous.finishing_stacks) == 5 * 1500 == max(previous.finishing_stacks)
        unit = int(label.split("-")[1].removeprefix("unit"))
        bot = winner.rsplit("-", 1)[0] if winner[-2:] == "-2" else winner
        assert result.unit_values[bot]["wins"][unit] == 1, (label, winner)
    assert antes > 0
    assert differ == 0 or rule == "full"
    # matchdb replays every hand under the rule it was played by (the _short_big_blind field)
    report = replay(tmp_path / "hands")
    assert report.read == report.identical == sum(len(v) for v in keeping.hands.values())
    assert {record.fields["_short_big_blind"] for record in read(tmp_path / "hands")} == {rule}


def test_dask_workers_write_the_same_files(tmp_path):
    run_arena(FIELD, games=4, seed=5, duplicate=True, hands_out=ArenaWriter(tmp_path / "one"), progress=False)
    run_arena(FIELD, games=4, seed=5, duplicate=True, workers=2, hands_out=ArenaWriter(tmp_path / "two"),
              progress=False)
    one = sorted((tmp_path / "one").glob("*.phhs"))
    assert len(one) == 24  # one set of every order of four bots
    assert [p.read_bytes() for p in one] == [(tmp_path / "two" / p.name).read_bytes() for p in one]


def test_the_folder_is_checked_before_any_game(tmp_path, capsys):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "x.phhs").write_text("")
    with pytest.raises(HandsError, match="already holds .phhs files"):
        ArenaWriter(tmp_path / "old")
    (tmp_path / "file").write_text("")
    with pytest.raises(HandsError, match="is a file; expected a folder"):
        ArenaWriter(tmp_path / "file")
    with pytest.raises(HandsError, match="dead-button hand"):
        run_arena(FIELD, games=3, seed=1, settings=GameSettings(rules=E.Rules(button="dead")),
                  hands_out=ArenaWriter(tmp_path / "dead"), progress=False)
    assert main(["arena", "--bots", "allin,station", "--games", "2", "--hands-out", str(tmp_path / "old"),
                 "--quiet"]) == 2
    assert "already holds .phhs files" in capsys.readouterr().err
    assert main(["arena", "--bots", "allin,station", "--games", "2", "--button", "dead", "--hands-out",
                 str(tmp_path / "new"), "--quiet"]) == 2
    assert "cannot write the dead button's hands" in capsys.readouterr().err
    assert main(["arena", "--bots", "allin,station", "--games", "2", "--short-big-blind", "full", "--hands-out",
                 str(tmp_path / "new"), "--quiet"]) == 2
    assert "would write hands that pokerkit replays to other stacks" in capsys.readouterr().err
    assert main(["arena", "--bots", "allin,station", "--games", "2", "--mode", "cash", "--hands", "10",
                 "--hands-out", str(tmp_path / "new"), "--quiet"]) == 0
    assert f"wrote 2 games' hands as PHH to {tmp_path / 'new'} (played under pokerkit's" in capsys.readouterr().out
    records = list(read(tmp_path / "new"))
    assert len(records) == 20 and {r.fields["_short_big_blind"] for r in records} == {"posted"}


def test_a_persons_sit_and_go_with_short_big_blinds_replays_in_matchdb_identically(tmp_path):
    """Sessions play pokerkit's short-big-blind rule and say so in each hand; matchdb replays them under it."""
    from matchdb.human import Session, TableConfig

    short = 0
    for seed in range(1, 40):  # the random bot draws from numba's generator: play until short big blinds came
        if short >= 2:
            break
        session = Session.new(TableConfig(seats=4, opponents="station,random,station", game="sng", stack=100,
                                          hands_per_level=2, seed=seed), directory=tmp_path)
        while True:
            while not session.hand_over:
                view = session.view()
                if view["your_turn"]:
                    session.act("check" if view["legal"]["check"] else "call")
                else:
                    session.step()
            if session.over:
                break
            session.next_hand()
        records = list(read(session.history_path))
        short += sum(r.stacks[1] < r.blinds[1] for r in records if r.size > 2)  # p2 posts a short big blind
        assert {r.fields["_short_big_blind"] for r in records} == {"posted"}
        report = replay(session.history_path)
        assert report.read == report.identical == len(records)
    assert short >= 2
