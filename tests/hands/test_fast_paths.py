"""The fast paths of reading and replaying give what the careful paths give: records, refusals, blocks, stand-ins.

The reader splits a PHH file in large pieces (``HandStream._phh``) instead
of line by line (``_phh_lines``), and makes the common hand's record by a
quick path (``_quick_record``) instead of field by field
(``_careful_record``). The compiled replay values a hidden showdown hand's
completions once per pair of ranks (``batch._extreme``). Each is compared
here with its plain counterpart on the real sample files and on damaged or
unusual inputs.
"""

from __future__ import annotations

import io
import itertools
import random
import types
from decimal import Decimal

import numpy as np
import pytest

from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate
from matchdb.hands import batch as B
from matchdb.hands import read_text
from matchdb.hands import reader as R
from tests.hands.conftest import ABS, PS, phh

pytest.importorskip("pokerkit")


def _sections(path) -> list[tuple[str, dict]]:
    loads, _ = R._toml()
    return list(loads(path.read_text()).items())


def _outcome(make, raw: dict) -> tuple:
    """A record's fields, or the refusal's reason and sentence."""
    try:
        return ("record", vars(make(dict(raw), "f.phhs", "7", 3)))
    except R._Refuse as refusal:
        return ("refused", refusal.reason, refusal.text)


def _check_same(raw: dict) -> tuple:
    """make_record and the quick path agree with the careful path on ``raw``; returns the careful outcome."""
    careful = _outcome(R._careful_record, raw)
    assert _outcome(R.make_record, raw) == careful
    quick = R._quick_record(dict(raw), "f.phhs", "7", 3)
    assert quick is None or ("record", vars(quick)) == careful
    return careful


def test_the_quick_path_makes_every_real_hand_as_the_careful_path_does():
    made = 0
    for path in (ABS, PS):
        for number, raw in _sections(path):
            careful = R._careful_record(raw, str(path), number, 1)
            quick = R._quick_record(raw, str(path), number, 1)
            assert quick is not None, f"{path.name} [{number}] left the quick path"
            assert vars(quick) == vars(careful)
            assert list(vars(quick)) == list(vars(careful))  # the same fields in the same order
            assert repr(quick) == repr(careful)
            made += 1
    assert made == 171


def _base() -> dict:
    loads, _ = R._toml()
    return loads(phh(["d dh p1 AsAd", "d dh p2 ????", "d dh p3 KcKd", "p3 cbr 6.5", "p1 cbr 100", "p2 f",
                      "p3 cc", "d db 2c7dJh", "d db 3s", "d db 9h", "p1 sm AsAd", "p3 sm KcKd"],
                     stacks=(100, 80.25, 100), blinds=(0.5, 1), winnings=[200.5, 0, 0]))


CHANGES = {
    "nothing": {},
    "no variant": {"variant": None},
    "omaha": {"variant": "PO"},
    "no actions": {"actions": None},
    "actions not a list": {"actions": "p1 f"},
    "stacks a tuple": {"starting_stacks": (100, 80.25, 100)},
    "one player": {"starting_stacks": [100], "antes": [0], "blinds_or_straddles": [1]},
    "eleven players": {"starting_stacks": [100] * 11, "antes": [0] * 11, "blinds_or_straddles": [1, 2] + [0] * 9},
    "two antes for three": {"antes": [0, 0]},
    "two players named": {"players": ["a", "b"]},
    "players not a list": {"players": "abc"},
    "numbers as names": {"players": [1, 2, 3]},
    "short winnings": {"winnings": [1, 2]},
    "finishing stacks": {"finishing_stacks": [0, 80.25, 0.0]},
    "a bool stack": {"starting_stacks": [100, True, 100]},
    "a text stack": {"starting_stacks": [100, "x", 100]},
    "a Decimal stack": {"starting_stacks": [100, Decimal("80.25"), 100]},
    "a Decimal stack with seven decimals": {"starting_stacks": [100, Decimal("80.0000001"), 100]},
    "an unlimited stack": {"starting_stacks": [100, float("inf"), 100]},
    "a NaN stack": {"starting_stacks": [100, float("nan"), 100]},
    "an enormous stack": {"starting_stacks": [100, 1e301, 100]},
    "a negative stack": {"starting_stacks": [100, -5, 100]},
    "a negative blind": {"blinds_or_straddles": [-1, 2, 0]},
    "a negative minimum bet": {"min_bet": -1},
    "seven decimals": {"starting_stacks": [100, 80.0000001, 100]},
    "a tenth": {"starting_stacks": [100, 80.2, 100], "winnings": [200.5, 0.1, 0]},
    "a thousandth": {"starting_stacks": [100, 80.125, 100]},
    "a large int": {"starting_stacks": [100, 10**30, 100]},
    "a large float": {"starting_stacks": [100, 1e20, 100]},
    "unlimited winnings": {"winnings": [float("inf"), 0, 0]},
    "unknown action": {"actions": ["p1 fold"]},
    "empty action": {"actions": ["d dh p1 AsAd", "", "p3 f"]},
    "comment action": {"actions": ["d dh p1 AsAd", "# note", "p3 f"]},
    "action with a comment": {"actions": ["d dh p1 AsAd", "p3 f # quick", "p1 cbr 2.5  # small"]},
    "an int action": {"actions": ["p3 f", 5]},
    "a list action": {"actions": ["p3 f", ["p1", "f"]]},
    "player beyond the table": {"actions": ["p9 f"]},
    "a draw": {"actions": ["p1 sd"]},
    "a bad card": {"actions": ["d dh p1 AsXx"]},
    "an odd card text": {"actions": ["d dh p1 AsA"]},
    "an unlimited bet": {"actions": ["p3 cbr inf"]},
    "a NaN bet": {"actions": ["p3 cbr nan"]},
    "a bet with seven decimals": {"actions": ["p3 cbr 2.0000001"]},
    "a bet with commas": {"actions": ["p3 cbr 1,000.50"]},
    "a bet that is not a number": {"actions": ["p3 cbr lots"]},
    "an int bet at unit one": {"starting_stacks": [100, 80, 100], "blinds_or_straddles": [1, 2, 0],
                               "min_bet": 2, "winnings": [200, 0, 0], "actions": ["p3 cbr 6", "p1 cbr 6.0"]},
    "a post": {"blinds_or_straddles": [0.5, 1, -1]},
    "a negative ante": {"antes": [0, 0, -1]},
    "a stack of 2**63": {"starting_stacks": [100, 2**63, 100]},
    "a stack at the bound": {"starting_stacks": [100, 10**13, 100]},
    "a stack past the bound": {"starting_stacks": [100, 10**13 + 0.5, 100]},
    "a 400-digit stack": {"starting_stacks": [100, 10**400, 100]},
    "a 400-digit Decimal stack": {"starting_stacks": [100, Decimal(10**400), 100]},
    "a bet past the bound": {"actions": ["p3 cbr 10000000000000.01"]},
    "a negative winning past the bound": {"winnings": [-(10**14), 0, 0]},
    "too many actions": {"actions": ["p3 f"] * (R.MAX_ACTIONS + 1)},
    "as many actions as read": {"actions": ["# a note"] * R.MAX_ACTIONS},
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_the_quick_path_agrees_with_the_careful_path_on_unusual_hands(name):
    raw = _base()
    for key, value in CHANGES[name].items():
        if value is None:
            raw.pop(key)
        else:
            raw[key] = value
    outcome = _check_same(raw)
    _check_same(raw)  # again, with everything it met cached
    if name == "nothing":
        assert outcome[0] == "record" and outcome[1]["unit"] == 100


def test_a_stream_of_unusual_hands_reads_and_refuses_the_same_either_way(monkeypatch):
    texts = [phh(["p3 f", "p1 f"], number=1), phh(["p3 cbr 2.5", "p1 f", "p2 f"], number=2, stacks=(100, 80.5, 90)),
             phh(["p3 f", "p1 fold"], number=3), phh(["p3 f", "p1 f"], number=4).replace("NT", "PO"),
             phh(["p3 f", "p1 cc", "p2 cc"], number=5, stacks=(100, 100, "x"))]
    text = "\n".join(texts)
    quick = read_text(text, "mixed.phhs")
    got = [vars(r) for r in quick]
    monkeypatch.setattr(R, "_quick_record", lambda *args: None)
    careful = read_text(text, "mixed.phhs")
    assert got == [vars(r) for r in careful]
    assert quick.refused == careful.refused and len(quick.refused) == 3


TRICKY = [
    "",
    "\n\n",
    "# only a comment\n",
    "variant = 'NT'\nantes = [0, 0]\n",
    "# a comment first\n\n[1]\nx = 1\n[2]\ny = 2",
    "a = 1\n[1]\nb = 2\n",
    "[1]\n[2]\n[3]\n",
    "[1]\nactions = [\n  'p1 f',\n]\n[[x]]\nz = 1\n[2] # two\nq = 'a'\n",
    "[ 'quoted' ]\nx = 1\n[\"dq\"]\ny = 2\n[bad\n[a.b]\nz = 3\n",
    "[1]\ns = '''\n[2]\n'''\n[3]\nt = 1\n",
    "[1]\r\nx = 1\r\n[2]\r\ny = 2\r\n",
    "[1]\nx = 1\n  [2]\ny = 2\n[3]",
    "[1]\nx = 1\n[2]",
    "[[1]]\nx = 1\n",
    "[1]\nx = 1\n[[2]]\ny = 2\n[3]\nz = 3\n",
    "[[ 'a' ]] # note\nx = 1\n[[b]\n",
    "[1]\nx = '" + "y" * 400 + "'\n[2]\nz = 1\n" + "w" * 700 + "\n[3]\n",
]


@pytest.mark.parametrize("piece", [1, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("longest", [R.MAX_HAND_CHARS, 500])
def test_the_piecewise_split_finds_the_sections_reading_line_by_line_finds(monkeypatch, piece, longest):
    """The same sections (a section longer than ``MAX_HAND_CHARS`` as None, ``[[N]]`` as a refused header)."""
    monkeypatch.setattr(R, "_PIECE", piece)
    monkeypatch.setattr(R, "MAX_HAND_CHARS", longest)
    texts = TRICKY + [ABS.read_text()[:5000], PS.read_text()]
    for text in texts:
        for block in (1, 2, 256):
            assert _split(text, block, "_phh") == _split(text, block, "_phh_lines"), (text[:60], block)
    if longest == 500:
        assert None in [text for found in _split(PS.read_text(), 256, "_phh") for _, _, text in found]


def _split(text: str, block: int, method: str) -> list:
    seen: list = []

    class Spy(R.HandStream):
        def _sections(self, name, sections):
            seen.append(list(sections))
            return iter(())

    spy = Spy([], block=block)
    handle = io.StringIO(text)
    list(getattr(spy, method)("x.phhs", handle if method == "_phh" else iter(handle.readlines())))
    return seen


def test_a_file_read_with_universal_newlines_splits_the_same(tmp_path):
    path = tmp_path / "crlf.phhs"
    path.write_bytes(ABS.read_text().replace("\n", "\r\n").encode())
    records = list(R.read(path))
    assert [vars(r) | {"file": ""} for r in records] == [vars(r) | {"file": ""} for r in R.read(ABS)]


def _extreme_plain(board: list[int], left: list[int], strongest: bool) -> tuple[int, int]:
    """The first pair of ``left`` (in order) whose value with the board is the least (or the greatest)."""
    best = None
    for a, b in itertools.combinations(left, 2):
        value = evaluate([a, b, *board])
        if best is None or (value > best[0] if strongest else value < best[0]):
            best = (value, a, b)
    assert best is not None
    return best[1], best[2]


def test_a_hidden_hand_gets_the_stand_in_every_pair_would_give():
    rng = random.Random(23)
    cards = np.zeros(7, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int32)
    for trial in range(24):
        deck = list(range(52))
        rng.shuffle(deck)
        if trial % 2:  # three, four or five of one suit on the board
            suit = rng.randrange(4)
            board = rng.sample([13 * suit + r for r in range(13)], 3 + trial % 3)
            board += [c for c in deck if c not in board][: 5 - len(board)]
        else:
            board = deck[:5]
        left = [c for c in deck if c not in board][: rng.choice([12, 30, 45])]
        if trial % 3 == 0:
            left.sort()
        padded = np.array(left + [0] * (52 - len(left)), dtype=np.int64)
        for strongest in (False, True):
            got = B._extreme(-1, -1, np.array(board, dtype=np.int64), padded, len(left), strongest, cards, counts,
                             STRAIGHT_TOP, FLUSH_VALUE)
            assert (int(got[0]), int(got[1])) == _extreme_plain(board, left, strongest), (board, strongest)


def _plain_arrays(records: list) -> dict:
    """A block's input arrays built record by record, seat by seat (what Block.of builds at once)."""
    from matchdb.hands.replayer import short_big_blind_posted, table_parameters
    from matchdb.play import engine as E

    meta, stacks, posts, paid, finishing, ops = [], [], [], [], [], []
    pad = [0] * B.MAX
    for record in records:
        table = table_parameters(record)
        n = len(table.stacks)
        first = len(ops)
        ops += [B._op_row(op) for op in record.ops]
        rules = E.RULE_OPEN_FOLD | (E.RULE_POSTED_BLIND if short_big_blind_posted(record) else 0)
        rules |= E.RULE_POSTS if table.posts is not None else 0
        dead = sum(1 << s for s, b in enumerate(record.blinds) if b < 0) if table.posts is not None else 0
        assert table.rules == rules and table.dead == dead
        meta.append((n, table.small_blind, table.big_blind, table.ante, table.button, first, len(ops),
                     record.winnings is not None, record.finishing_stacks is not None, rules, table.opener,
                     record.fields.get("venue") == "PartyPoker", table.notes, dead))
        stacks.append([*table.stacks, *pad[n:]])
        posts.append([*(table.posts or pad[:n]), *pad[n:]])
        paid.append([*(record.winnings if record.winnings is not None else pad[:n]), *pad[n:]])
        ends = ([-1 if x is None or s is None else x for x, s in zip(record.finishing_stacks, record.stacks, strict=True)]
                if record.finishing_stacks is not None else pad[:n])
        finishing.append([*ends, *pad[n:]])
    as_array = {"meta": meta, "stacks": stacks, "posts": posts, "winnings": paid, "finishing": finishing, "ops": ops}
    return {k: np.array(v, dtype=np.int64).reshape(len(v), -1) for k, v in as_array.items()}


def test_a_block_encodes_its_records_as_the_plain_loop_does():
    records = list(R.read([ABS, PS]))[:300]
    odd = read_text("\n".join([
        phh(["p3 f", "p1 f"], number=1, extra="finishing_stacks = [99, 101, 100]"),
        phh(["p3 cbr 50", "p1 f", "p2 cc", "d db 2c7dJh", "d db 3s", "d db 9h", "p2 cc", "p3 cc"], number=2,
            stacks=(100, 999, 100), winnings=[0, 101, 0], extra="finishing_stacks = [99, 0, 50]").replace("999", "inf"),
        phh(["p2 f"], number=3, stacks=(100, 100), blinds=(2, 1), extra="_short_big_blind = 'posted'"),
        phh(["p3 cc", "p4 f", "p1 f", "p2 f"], number=4, stacks=(100, 100, 100, 100), blinds=(1, 2, -2),
            extra="venue = 'PartyPoker'"),
        phh(["p3 f", "p1 f"], number=5, blinds=(2, 0)),
    ]), "odd.phhs")
    odd_records = list(odd)
    assert len(odd_records) == 5, odd.refused
    for chosen in (records, odd_records, odd_records + records[:5], records[:1]):
        block = B.Block.of(chosen)
        plain = _plain_arrays(chosen)
        for name, expected in plain.items():
            got = getattr(block, name)
            assert got.dtype == np.int64 and got.shape[0] == expected.shape[0]
            assert (got.reshape(expected.shape) == expected).all(), name


def test_replaying_and_analysing_leave_no_reference_cycles():
    """A refused hand's error does not hold its block (every record of it) in a cycle until the collector runs."""
    import gc

    from matchdb.hands import analyse, replay

    assert replay([ABS, PS]).refused  # the sample files have refused hands, whose errors are made here
    analyse([ABS, PS])  # the first run compiles and caches
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        replay([ABS, PS])
        analyse([ABS, PS])
        gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage to be looked at
        gc.collect()
        # only this package's cycles: other threads of the test session (servers, pools) may leave their own
        ours = [o for o in gc.garbage
                if type(o).__module__.startswith("matchdb.")
                or (isinstance(o, types.FrameType) and "matchdb" in o.f_code.co_filename)
                or (isinstance(o, types.TracebackType) and "matchdb" in o.tb_frame.f_code.co_filename)]
        assert ours == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def test_the_rake_adds_up_hand_by_hand_whatever_the_blocks():
    """The compiled replay's rake is the Python replay's to the last bit, for any block size."""
    from matchdb.hands import replay
    from matchdb.hands.replayer import ReplayReport

    records = list(R.read([ABS, PS]))
    python = replay(records, on_hand=lambda done: None)
    assert python.raked > 0
    for size in (1, 7, 256, 1024):
        report = ReplayReport()
        B.replay_blocks(records, report, [], size=size)
        assert (report.raked, report.rake) == (python.raked, python.rake), size
