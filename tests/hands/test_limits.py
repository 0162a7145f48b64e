"""Every bad hand in one sentence, the good ones kept: huge amounts, byte-order marks, ``[[N]]`` headers, huge hands.

Each refusal says the bound it met; the hands around it are read,
replayed and analysed as without it, by the quick and the careful reading
paths alike, and memory stays within the reader's pieces whatever the size
of one hand.
"""

from __future__ import annotations

import io
import tracemalloc

import pytest

from matchdb.hands import analyse, read, read_text, replay, replay_hand
from matchdb.hands import reader as R
from matchdb.hands.batch import Block
from tests.hands.conftest import ABS, MADE_UP_PS, phh

pytest.importorskip("pokerkit")

GOOD = ["p3 cbr 6", "p1 f", "p2 f"]


def _file(*hands: str) -> str:
    return "\n".join(hands)


def _hand(number: int, **change) -> str:
    return phh(GOOD, number=number, winnings=[0, 0, 9], **change)


@pytest.mark.parametrize(("bad", "words"), [
    (_hand(2, stacks=(2**63, 100, 100)), "has an amount of 9,223,372,036,854,775,808 chips; matchdb reads amounts "
                                          "of at most 10^15 chips."),
    (_hand(2, stacks=(10**400, 100, 100)), "has an amount of 401 digits; matchdb reads amounts of at most 10^15 "
                                            "chips."),
    (_hand(2, stacks=(1e299, 100, 100)), "has an amount of 300 digits"),
    (_hand(2, stacks=(100.5, 100, 2**62)), "has an amount of 461,168,601,842,738,790,400 chips; matchdb reads "
                                            "amounts of at most 10^15 chips (10,000,000,000,000.00 in this hand's "
                                            "currency)."),
    (phh(["p3 cbr 10000000000000000", "p1 f", "p2 f"], number=2, stacks=(100, 100, "inf")).replace("'inf'", "inf"),
     "has an amount of 10,000,000,000,000,000 chips"),
    (phh(["p3 f", "p1 f"], number=2, winnings=[0, -(10**16), 0]), "has an amount of 10,000,000,000,000,000 chips"),
])
def test_a_huge_amount_refuses_its_hand_in_one_sentence_and_keeps_the_others(bad, words, monkeypatch):
    text = _file(_hand(1), bad, _hand(3))
    for quick in (True, False):
        if not quick:
            monkeypatch.setattr(R, "_quick_record", lambda *args: None)
        stream = read_text(text, "huge.phhs")
        assert [r.number for r in stream] == ["1", "3"]
        [refusal] = stream.refused
        assert (refusal.reason, refusal.number) == ("limit", "2")
        assert refusal.message.startswith("Hand [2] of huge.phhs ") and words in refusal.message
        assert refusal.message.count(". ") == 0
    report = replay(read_text(text, "huge.phhs"))
    assert (report.read, report.identical, dict(report.refused)) == (3, 2, {"limit": 1})
    analysed = analyse(read_text(text, "huge.phhs")).report
    assert (analysed.read, analysed.identical, dict(analysed.refused)) == (3, 2, {"limit": 1})


def test_amounts_at_the_bound_replay_in_python_and_compiled_alike():
    """Stacks of 10^15 chips, and unlimited stacks betting 10^15: no overflow in either replay."""
    big = 10**15
    texts = [phh(["p3 cbr 10", "p1 cbr 1000000000000000", "p2 f", "p3 cc", "d db 2c7dJh", "d db 3s", "d db 9h",
                  "p1 sm AsAd", "p3 sm KsKd"], number=1, stacks=(big, big, big)),
             phh(["p3 cbr 1000000000000000", "p1 cc", "p2 cc", "d db 2c7dJh", "p1 cc", "p2 cc", "p3 cc", "d db 3s",
                  "p1 cc", "p2 cc", "p3 cc", "d db 9h", "p1 cc", "p2 cc", "p3 cc", "p1 sm AsAd", "p2 sm KsKd",
                  "p3 sm QsQd"], number=2,
                 stacks=("inf", "inf", "inf")).replace("'inf'", "inf")]
    records = list(read_text("\n".join(texts), "bound.phhs"))
    assert len(records) == 2
    block = Block.of(records)
    block.run()
    for k, record in enumerate(records):
        done = replay_hand(record)
        assert int(block.status[k]) == 2 and block.won[k, :3].tolist() == list(done.won)
    assert replay_hand(records[0]).won == (2 * big + 2, 0, 0)
    assert replay_hand(records[1]).won == (3 * big, 0, 0)


def test_a_pokerstars_history_with_a_400_digit_stack_keeps_its_other_hands():
    text = MADE_UP_PS.read_text().replace("Seat 2: Bob ($200 in chips)", "Seat 2: Bob ($1" + "0" * 400 + " in chips)", 1)
    stream = read_text(text, "ps.txt")
    assert [r.number for r in stream] == ["2"]
    [refusal] = stream.refused
    assert refusal.reason == "limit" and "has an amount of 401 digits; matchdb reads amounts of at most 10^15" in (
        refusal.message)


def test_a_byte_order_mark_is_read_past_in_both_formats(tmp_path):
    phh_path = tmp_path / "bom.phhs"
    phh_path.write_bytes(b"\xef\xbb\xbf" + ABS.read_bytes())
    stream = read(phh_path)
    assert len(list(stream)) == 83 and stream.refused == []
    stream = read_text("\ufeff" + ABS.read_text(), "bom.phhs")
    assert len(list(stream)) == 83 and stream.refused == []
    ps_path = tmp_path / "bom.txt"
    ps_path.write_bytes(b"\xef\xbb\xbf" + MADE_UP_PS.read_bytes())
    stream = read(ps_path)
    assert [r.number for r in stream] == ["1", "2"] and stream.refused == []
    stream = read_text("\ufeff" + MADE_UP_PS.read_text(), "bom.txt")
    assert [r.number for r in stream] == ["1", "2"] and stream.refused == []


def test_an_array_of_tables_header_is_refused_and_the_hands_around_it_read():
    text = _file(_hand(1), _hand(2).replace("[2]", "[[2]]"), _hand(3))
    for method in ("_phh", "_phh_lines"):
        stream = R.HandStream([])
        records = list(getattr(stream, method)("tables.phhs", io.StringIO(text) if method == "_phh"
                                                else iter(io.StringIO(text).readlines())))
        assert [r.number for r in records] == ["1", "3"]
        assert "2" not in records[0].fields  # hand 1 did not take hand [[2]] in as a table of its own
        [refusal] = stream.refused
        assert (refusal.reason, refusal.number) == ("malformed", "2")
        assert refusal.message == ("Hand [2] of tables.phhs is headed [[2]], a TOML array of tables; a .phhs file "
                                   "heads each hand [N].")
        assert stream.read == 3


def test_a_hand_of_a_million_actions_is_refused_within_bounded_memory(tmp_path):
    """9 MB in one hand: refused in one sentence, the next hand read; the reader holds about a piece at a time."""
    path = tmp_path / "long.phhs"
    actions = ", ".join(["'p1 cc'"] * 1_000_000)
    long = _hand(2).replace("actions = [", f"actions = [{actions}, ", 1)
    assert len(long) > 9_000_000
    path.write_text(_file(_hand(1), long, _hand(3)))
    tracemalloc.start()
    try:
        stream = read(path)
        numbers = [r.number for r in stream]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert numbers == ["1", "3"]
    [refusal] = stream.refused
    assert refusal.reason == "limit" and refusal.message == (
        f"Hand [2] of long.phhs is longer than {R.MAX_HAND_CHARS:,} characters; matchdb reads hands of at most "
        f"{R.MAX_HAND_CHARS:,} characters and {R.MAX_ACTIONS:,} actions.")
    assert peak < 16_000_000, peak
    assert replay(path).refused == {"limit": 1}


def test_a_hand_of_too_many_actions_is_refused_by_either_reading_path(monkeypatch):
    many = _hand(2).replace("actions = [", "actions = [" + "'p1 cc', " * R.MAX_ACTIONS, 1)
    text = _file(_hand(1), many, _hand(3))
    for quick in (True, False):
        if not quick:
            monkeypatch.setattr(R, "_quick_record", lambda *args: None)
        stream = read_text(text, "many.phhs")
        assert [r.number for r in stream] == ["1", "3"]
        [refusal] = stream.refused
        assert refusal.reason == "limit" and refusal.message == (
            f"Hand [2] of many.phhs has {R.MAX_ACTIONS + 3:,} actions; matchdb reads hands of at most "
            f"{R.MAX_ACTIONS:,} actions and {R.MAX_HAND_CHARS:,} characters.")


def test_a_long_site_history_hand_is_refused_without_parsing_it():
    text = MADE_UP_PS.read_text()
    first, rest = text.split("*** SUMMARY ***", 1)
    padded = first + ("Ann: chats something\n" * 60_000) + "*** SUMMARY ***" + rest
    stream = read_text(padded, "ps.txt")
    assert [r.number for r in stream] == ["2"]
    assert stream.refused[0].reason == "limit" and "is longer than 1,000,000 characters" in stream.refused[0].message
