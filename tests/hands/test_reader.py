"""Reading PHH and site histories: the real files, refusals with one sentence each, and the rest still read."""

from __future__ import annotations

from decimal import Decimal

import pytest

from matchdb.hands import HandsError, read, read_text
from matchdb.hands import reader as R
from tests.hands.conftest import ABS, DATA, MADE_UP_PS, PS, phh

pokerkit = pytest.importorskip("pokerkit")


def test_both_real_files_read_every_hand():
    stream = read([ABS, PS])
    records = list(stream)
    assert stream.read == len(records) == 171
    assert stream.refused == []
    assert sum(r.file.endswith("abs-100nl.phhs") for r in records) == 83
    assert [r.number for r in records[:3]] == ["1", "2", "3"]


def test_a_folder_reads_its_phh_files_sorted():
    records = list(read(DATA))
    assert len(records) == 191  # the made-up PokerStars text is not a .phh/.phhs file


def test_amounts_become_whole_chips_and_back_exactly():
    """Every record's amounts equal pokerkit's own reading of the same hand (Decimal, exact)."""
    with open(ABS, "rb") as handle, pytest.warns(UserWarning, match="is an unexpected field"):
        theirs = list(pokerkit.HandHistory.load_all(handle))
    ours = list(read(ABS))
    for record, history in zip(ours, theirs, strict=True):
        assert [record.amount(x) for x in record.stacks] == [Decimal(x) for x in history.starting_stacks]
        assert [record.amount(x) for x in record.blinds] == [Decimal(x) for x in history.blinds_or_straddles]
        assert [record.amount(x) for x in record.antes] == [Decimal(x) for x in history.antes]
        assert list(record.actions) == history.actions
        if history.winnings is not None:
            assert [record.amount(x) for x in record.winnings] == [Decimal(x) for x in history.winnings]
        back = record.history()  # and our record as pokerkit's object again
        assert back.starting_stacks == [Decimal(x) for x in history.starting_stacks]
        assert back.players == history.players and back.hand == history.hand


def test_standard_library_toml_reads_the_same(monkeypatch):
    import tomllib

    fast = list(read(PS))
    monkeypatch.setattr(R, "_toml", lambda: (tomllib.loads, (tomllib.TOMLDecodeError, ValueError)))
    slow = list(read(PS))
    assert [(r.stacks, r.ops, r.winnings) for r in fast] == [(r.stacks, r.ops, r.winnings) for r in slow]


def test_another_variant_is_refused_in_one_sentence_and_the_rest_read():
    text = (phh(["p3 f", "p1 f"], number=1) + "\n"
            + phh(["p3 f", "p1 f"], number=2).replace("variant = 'NT'", "variant = 'PO'") + "\n"
            + phh(["p3 f", "p1 cc", "p2 cc"], number=3))
    stream = read_text(text, "mixed.phhs")
    assert [r.number for r in stream] == ["1", "3"]
    [refusal] = stream.refused
    assert (refusal.reason, refusal.number) == ("variant", "2")
    assert refusal.message == ("Hand [2] of mixed.phhs is pot-limit Omaha hold'em ('PO'); matchdb reads no-limit "
                               "Texas hold'em ('NT') only.")


def test_a_truncated_file_refuses_its_last_hand_and_reads_the_rest(tmp_path):
    text = ABS.read_text()
    cut = text.index("[11]") + 200  # in the middle of hand 11's fields
    path = tmp_path / "cut.phhs"
    path.write_text(text[:cut])
    stream = read(path)
    assert len(list(stream)) == 10
    [refusal] = stream.refused
    assert refusal.number == "11" and refusal.reason == "malformed"
    assert refusal.message.startswith("Hand [11] of cut.phhs ")
    assert refusal.message.count(".") >= 1 and "\n" not in refusal.message


def test_a_damaged_hand_in_the_middle_is_refused_and_the_rest_read(tmp_path):
    text = PS.read_text().replace("actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', "
                                  "'d dh p5 ????', 'p3 cc'", "actions = ['d dh p1 ????' 'p3 cc'", 1)
    path = tmp_path / "damaged.phhs"
    path.write_text(text)
    stream = read(path)
    assert len(list(stream)) == 87
    [refusal] = stream.refused
    assert (refusal.number, refusal.reason) == ("1", "malformed")
    assert "is not valid TOML" in refusal.message


@pytest.mark.parametrize(("change", "reason", "words"), [
    (("actions = [", "actions = ['p9 f', "), "malformed", "for a player beyond p3"),
    (("min_bet = 2\n", ""), "malformed", "lacks the field 'min_bet'"),
    (("starting_stacks = [100, 100, 100]", "starting_stacks = [100, 'x', 100]"), "malformed", "not a number"),
    (("'p3 f'", "'p3 fold'"), "malformed", "expected 'pN f'"),
])
def test_malformed_hands_say_why(change, reason, words):
    text = phh(["p3 f", "p1 f"], number=1).replace(*change) + "\n" + phh(["p3 f", "p1 f"], number=2)
    stream = read_text(text, "bad.phhs")
    assert [r.number for r in stream] == ["2"]
    [refusal] = stream.refused
    assert refusal.reason == reason and words in refusal.message, refusal.message


def test_raw_pokerstars_histories_go_through_pokerkits_parser():
    stream = read(MADE_UP_PS)
    first, second = list(stream)
    assert first.players == ("Bob", "Cy", "Ann") and first.stacks == (200, 200, 200)
    assert first.actions[2:4] == ("d dh p3 AhKh", "p3 cbr 6")
    assert second.unit == 100 and second.stacks == (19400, 20640, 19900)
    assert second.actions[-2:] == ("p2 sm 9c9d", "p3 sm ????")


def test_a_raw_hand_pokerkit_cannot_parse_is_refused_and_the_rest_read(tmp_path):
    text = MADE_UP_PS.read_text()
    broken = text.replace("Seat 3: Cy ($200 in chips)\n", "", 1)  # Cy posts a blind but has no seat
    path = tmp_path / "broken.txt"
    path.write_text(broken)
    stream = read(path, site="pokerstars")
    assert [r.number for r in stream] == ["2"]
    [refusal] = stream.refused
    assert refusal.message.startswith("Hand [1] of broken.txt cannot be parsed as a pokerstars hand")


def test_bad_sources_say_so():
    with pytest.raises(HandsError, match="does not exist or is not a file"):
        list(read("nowhere.phhs"))
    with pytest.raises(HandsError, match="The site 'stars' is unknown"):
        read(ABS, site="stars")
    with pytest.raises(HandsError, match="neither PHH nor a site history"):
        list(read_text("hello", "note.txt"))
