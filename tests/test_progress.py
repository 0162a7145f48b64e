"""Progress lines: the time left comes from the pace of the work done, never from the start-up before it.

Driven with given times (no clock is read): a build whose cluster takes 6 s to start, then 20 tables a second.
"""

from __future__ import annotations

import io
import logging
import re
import sys

import pytest

from matchdb.progress import progress, time_left


def _lines(monkeypatch, caplog, times: list[float], total: int) -> list[str]:
    """The log lines of ``progress`` over ``total`` items, its clock reading ``times`` in turn."""
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal: log lines, not a bar
    ticks = iter(times)
    caplog.set_level(logging.INFO, logger="matchdb")
    assert list(progress(range(total), total, "building", unit="table", clock=lambda: next(ticks))) == list(range(total))
    return [record.getMessage() for record in caplog.records if record.name == "matchdb"]


def test_the_first_estimate_is_the_pace_of_the_work_not_of_the_start_up(monkeypatch, caplog):
    """Issue 29: a full build began with 'about 10282 s left' (1,754 tables at the pace of the cluster's start-up)."""
    total, startup, pace = 1755, 6.0, 0.05
    finished = [startup + pace * k for k in range(total)]  # when each table is done
    lines = _lines(monkeypatch, caplog, [0.0, *finished, finished[-1]], total)
    assert lines[0] == "building: 1/1755 tables, the first after 6.0 s; the time left comes with the next ones"
    estimates = [re.fullmatch(r"building: (\d+)/1755 tables, ([\d.]+)/s, about (\d+) s left", line) for line in lines[1:-1]]
    assert estimates and all(estimates), lines
    for match in estimates:
        done, rate, left = int(match[1]), float(match[2]), int(match[3])
        assert rate == pytest.approx(1 / pace, rel=1e-3)
        assert left == pytest.approx((total - done) * pace, abs=1), match[0]  # the true time left, to the second
    assert int(estimates[0][3]) < 90  # not 10282
    assert lines[-1] == f"building: 1755/1755 tables in {finished[-1]:.1f} s"


def test_no_estimate_from_one_item_or_from_no_time():
    assert time_left(1, 100, first_at=5.0, now=60.0) is None  # only the first item: no pace yet
    assert time_left(3, 100, first_at=5.0, now=60.0) is None  # two after it: fewer than three
    assert time_left(4, 100, first_at=5.0, now=5.0) is None  # all at once: no time has passed
    assert time_left(4, 100, first_at=5.0, now=8.0) == 96.0  # three in 3 s: one a second, 96 to go
    assert time_left(100, 100, first_at=5.0, now=8.0) == 0.0


def test_slow_items_get_an_estimate_once_three_follow_the_first(monkeypatch, caplog):
    """Tables a minute apart after a quick start: no estimate until the fourth, then the true time left."""
    finished = [2.0 + 60.0 * k for k in range(10)]
    lines = _lines(monkeypatch, caplog, [0.0, *finished, finished[-1]], 10)
    waiting = "the first after 2.0 s; the time left comes with the next ones"
    assert lines[:2] == [f"building: {k}/10 tables, {waiting}" for k in (2, 3)]  # the first came within 5 s: no line
    assert lines[2] == "building: 4/10 tables, 0.0167/s, about 360 s left"
    assert lines[7] == "building: 9/10 tables, 0.0167/s, about 60 s left"
