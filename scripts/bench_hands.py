"""Benchmark real hands: read, replay and analyse per second on one core, beside pokerkit's own replay.

    python scripts/bench_hands.py [FILES...] [--repeats 5] [--copies 20]

By default the two real sample files of ``tests/data/hands`` (171 hands),
``--copies`` times over in one temporary ``.phhs`` file each, so that a
run is long enough to time. Every figure is the median of ``--repeats``
runs in this process (the machine may be shared). pokerkit's figure is its
reader (``HandHistory.load_all``) and its replay of every hand into its
final state (iterating the ``HandHistory``), on the same files; matchdb's
are ``read`` alone, ``read`` + ``replay``, and ``read`` + ``replay`` +
``analyse`` (player statistics with all-in adjustment, no database; the
exact expectations of all-ins are not reused between runs, and a second
figure leaves them out: a preflop all-in costs about 0.4 s of enumeration).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path
from unittest.mock import patch

from matchdb.hands import analyse, read, replay
from matchdb.hands.allin import _shares

ROOT = Path(__file__).resolve().parents[1]


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="PHH files (default: the sample files, copied --copies times)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--skip-pokerkit", action="store_true")
    args = parser.parse_args()
    folder = None
    if args.files:
        files = [Path(f) for f in args.files]
    else:
        folder = tempfile.TemporaryDirectory(prefix="matchdb-bench-hands-")
        files = []
        for source in sorted((ROOT / "tests" / "data" / "hands").glob("*.phhs")):
            text = source.read_text()
            sections = text.split("\n[")
            out = []
            number = 0
            for _ in range(args.copies):
                for k, section in enumerate(sections):
                    body = section.split("]\n", 1)[1] if k or section.startswith("[") else section
                    number += 1
                    out.append(f"[{number}]\n{body.strip()}\n")
            path = Path(folder.name) / source.name
            path.write_text("\n".join(out))
            files.append(path)
    hands = sum(1 for _ in read(files))
    print(f"{hands} hands in {len(files)} files")
    for _ in range(2):  # compile or load every kernel the files need, and start the enumeration's threads
        _shares.cache_clear()
        analyse(files)

    def rate(run) -> tuple[float, list[float]]:
        values = [hands / timed(run) for _ in range(args.repeats)]
        return statistics.median(values), values

    def analyse_fresh() -> None:
        _shares.cache_clear()  # all-in expectations are not reused from an earlier run
        analyse(files)

    def analyse_no_allins() -> None:
        with patch("matchdb.hands.analysis.allin_adjusted", lambda *args: [float(x) for x in args[5]]):
            analyse(files)

    figures = {
        "matchdb read": rate(lambda: sum(1 for _ in read(files))),
        "matchdb read + replay": rate(lambda: replay(files)),
        "matchdb read + replay + analyse": rate(analyse_fresh),
        "  the same without all-in adjustment": rate(analyse_no_allins),
    }
    if not args.skip_pokerkit:
        from pokerkit import HandHistory

        def pokerkit_replay() -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for path in files:
                    with open(path, "rb") as handle:
                        for history in HandHistory.load_all(handle):
                            for _ in history:
                                pass

        def pokerkit_read() -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for path in files:
                    with open(path, "rb") as handle:
                        for _ in HandHistory.load_all(handle):
                            pass

        figures["pokerkit read (HandHistory.load_all)"] = rate(pokerkit_read)
        figures["pokerkit read + replay"] = rate(pokerkit_replay)
    for name, (median, values) in figures.items():
        spread = ", ".join(f"{v:,.0f}" for v in values)
        print(f"{name:40} {median:>10,.0f} hands/s (runs: {spread})")
    tracemalloc.start()
    analyse(files)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak Python memory of one analyse run: {peak / 1e6:.1f} MB for {hands} hands")
    if folder is not None:
        folder.cleanup()


if __name__ == "__main__":
    main()
