"""Replaying recorded hands through matchdb's engine and counting the outcomes: :func:`replay`, :func:`replay_files`.

A hand is replayed in Python, one at a time with every step
(:func:`replay_hand`, :mod:`matchdb.hands.single`, whose notes give the
rules of a replay), or compiled, in blocks of hands
(:mod:`matchdb.hands.batch`), with the same seating and count of chips
(:mod:`matchdb.play.recorded`); :func:`replay` picks the compiled replay
unless it is asked for every replayed hand, and gives the same counts either
way. The names of :mod:`matchdb.hands.single` are importable from here too.

>>> from matchdb.hands.reader import read_text
>>> text = '''
... variant = 'NT'
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 6', 'p1 f', 'p2 f']
... winnings = [0, 0, 5]
... '''
>>> report = replay(list(read_text(text, "walk.phh")))
>>> report.read, report.identical
(1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from matchdb.hands.batch import replay_blocks
from matchdb.hands.reader import MAX_CHIPS, HandsError, HandStream, Record, Refusal, read
from matchdb.hands.single import (
    NOTES,
    STATUSES,
    Replayed,
    ReplayError,
    ReplayReport,
    Setup,
    Step,
    TableParameters,
    engine_table,
    note_names,
    post_seats,
    replay_hand,
    short_big_blind_posted,
    showdown_hands,
    shown_holes,
    table_parameters,
    table_setup,
)
from matchdb.progress import progress as _progress

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "MAX_CHIPS",
    "NOTES",
    "STATUSES",
    "ReplayError",
    "ReplayReport",
    "Replayed",
    "Setup",
    "Step",
    "TableParameters",
    "engine_table",
    "note_names",
    "post_seats",
    "replay",
    "replay_files",
    "replay_hand",
    "short_big_blind_posted",
    "showdown_hands",
    "shown_holes",
    "table_parameters",
    "table_setup",
]


def replay(source: Any, *, site: str | None = None, show_progress: bool | None = None, on_hand: Callable[..., Any] | None = None,
           on_block: Callable[..., Any] | None = None) -> ReplayReport:
    """Replay every hand of ``source`` (paths, a folder, a :class:`HandStream` or records) and count the outcomes.

    ``on_hand(replayed)`` is called with each :class:`Replayed` hand (to
    analyse it, say: the Python replay, one hand at a time, with every
    step). Without it the compiled replay (:mod:`matchdb.hands.batch`) plays
    the hands in blocks, calling ``on_block(block)`` with each replayed
    :class:`~matchdb.hands.batch.Block`; the counts are the same. Refused
    hands are counted by reason with their sentence in ``refusals``, in the
    order of the hands, and the run goes on.
    """
    import time

    started = time.perf_counter()
    stream = source if isinstance(source, HandStream) else None
    records: Iterable[Record]
    total = 0
    if stream is None and isinstance(source, Record):
        records = [source]
    elif stream is None and isinstance(source, (list, tuple)) and source and isinstance(source[0], Record):
        records = source
    else:
        stream = stream or read(source, site=site)
        records = stream
        if show_progress:
            total = _count_sections(stream.sources)
    report = ReplayReport()
    bar = _progress(records, total, "replaying", unit="hand", enabled=bool(show_progress))
    numbered: list[tuple[int, Refusal]] = []
    if on_hand is None:
        replay_blocks(bar, report, numbered, on_block)
    else:
        for record in bar:
            report.read += 1
            try:
                done = replay_hand(record)
            except ReplayError as error:
                report.refused[error.reason] += 1
                numbered.append((report.read, Refusal(record.file, record.number, record.index, error.reason,
                                                      str(error))))
                continue
            setattr(report, done.status, getattr(report, done.status) + 1)
            report.noted.update(done.notes)
            report.rake += float(record.amount(done.rake))
            on_hand(done)
    report.refusals = [r for _, r in sorted(numbered, key=lambda pair: pair[0])]
    if stream is not None:
        report.read += len(stream.refused)
        for refusal in stream.refused:
            report.refused[refusal.reason] += 1
        report.refusals = list(stream.refused) + report.refusals
    report.seconds = time.perf_counter() - started
    return report


def _count_sections(sources: Iterable[Path | str | tuple[str, str]]) -> int:
    """Hands in PHH files, counted by their section lines (for a progress bar's total; 0 when unknown)."""
    total = 0
    for source in sources:
        if isinstance(source, tuple):
            return 0
        try:
            with open(source, "rb") as handle:
                total += sum(1 for line in handle if line.startswith(b"[") and not line.startswith(b"[["))
        except OSError:
            return 0
    return total


def _replay_one(path: str, site: str | None) -> ReplayReport:
    report = replay([path], site=site)
    report.refusals = report.refusals[:1000]
    return report


def replay_files(sources: Any, *, site: str | None = None, workers: int = 2, show_progress: bool | None = None) -> ReplayReport:
    """Replay many files at once on a Dask LocalCluster of ``workers`` processes (one file per task), and add up.

    The counts equal :func:`replay`'s over the same files; each worker keeps
    at most 1,000 refusal sentences per file.
    """
    import logging
    import os
    import time

    from matchdb.hands.reader import _paths

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise HandsError(f"The number of workers {workers!r} is not a whole number of at least 1.")
    paths = [str(p) for p in _paths(sources)]
    started = time.perf_counter()
    total = ReplayReport()
    if workers == 1:
        parts = (_replay_one(p, site) for p in paths)
        for part in _progress(parts, len(paths), "replaying files", unit="file", enabled=bool(show_progress)):
            _merge(total, part)
    else:
        from distributed import Client, LocalCluster, as_completed

        saved = dict(os.environ)  # the nanny writes its pre-spawn variables into this process's environment
        # distributed leaves these unannotated
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)  # type: ignore[no-untyped-call]
        client = Client(cluster)  # type: ignore[no-untyped-call]
        try:
            futures = [client.submit(_replay_one, p, site, pure=False) for p in paths]
            done = _progress(as_completed(futures), len(futures), "replaying files", unit="file",  # type: ignore[no-untyped-call]
                             enabled=bool(show_progress))
            for future in done:
                _merge(total, future.result())
        finally:
            client.close()  # type: ignore[no-untyped-call]
            cluster.close()
            os.environ.clear()
            os.environ.update(saved)
        total.refusals.sort(key=lambda r: (r.file, r.index))
    total.seconds = time.perf_counter() - started
    return total


def _merge(total: ReplayReport, part: ReplayReport) -> None:
    total.read += part.read
    total.identical += part.identical
    total.raked += part.raked
    total.unrecorded += part.unrecorded
    total.refused.update(part.refused)
    total.refusals += part.refusals
    total.noted.update(part.noted)
    total.rake += part.rake
