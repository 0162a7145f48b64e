"""The first preflop question of every kind beside the second, each kind in a fresh process.

A question's first answer may pay for one-time work: derived data read from the store (or, on a
store lacking it, computed from every table), numba kernels loaded. Each kind runs in its own
process on the database given (``--db``, default the one ``matchdb.open()`` finds), which times the
first question and then a second of the same kind (other hands, so nothing of the first is reused).
``--strip`` works on a copy of the database whose derived data is removed before every kind: what an
old store (built before ``matchdb build`` computed the derived data) pays.

    PYTHONPATH=$PWD python3 scripts/bench_first_use.py [--db PATH] [--strip /tmp/copy.zarr] [--kinds naive,report]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

#: kind -> (first question, second question), each a Python expression over ``db``.
KINDS = {
    "hand vs hand": ('db.equity("AhKh", "", "QsQd")', 'db.equity("AcAd", "", "KhKs")'),
    "hand vs range": ('db.equity("AhKh", "", "QQ+,AKs")', 'db.equity("9s8s", "", "TT+,AQs+")'),
    "range vs range": ('db.range_equity("QQ+,AKs", "JJ-99,AQs", "")', 'db.range_equity("22+", "AKo", "")'),
    "multiway with ranges": ('db.multiway("AhKh", "", ["QQ+", "JsJh"]).equity', 'db.multiway("KsQs", "", ["AA", "TcTd"]).equity'),
    "hand vs two random": ('db.multiway("JhTh", "", 2, seed=1).equity', 'db.multiway("9c9d", "", 2, seed=1).equity'),
    "naive": ('db.win_rate("AhKh", "", players=3)', 'db.win_rate("7c2d", "", players=6)'),
    "equities grid": ('db.equities("").value("AhAs")', 'db.equities("", "QQ+").value("AhKh")'),
    "report": ('db.report("AhKh", "", players=3, villain="QsQd").equity', 'db.report("QcJc", "", players=4, villain="KK").equity'),
}


def one_kind(db_path: str | None, kind: str) -> dict:
    """Open the database and time the kind's two questions (in this process)."""
    import matchdb

    db = matchdb.open(db_path)
    out: dict = {"kind": kind}
    for name, expression in zip(("first", "second"), KINDS[kind], strict=True):
        started = time.perf_counter()
        value = eval(expression, {"db": db})  # the expressions above, nothing from outside
        out[name] = time.perf_counter() - started
        out[f"{name}_value"] = float(value)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--strip", default=None, help="copy the database here and remove its derived data before each kind")
    parser.add_argument("--kinds", default=None, help="the kinds to time, comma-separated (default all)")
    parser.add_argument("--kind", default=None, help=argparse.SUPPRESS)  # one kind, in this process
    args = parser.parse_args()
    if args.kind:
        print(json.dumps(one_kind(args.db, args.kind)))
        return
    path = args.db
    if args.strip:
        import matchdb

        source = Path(args.db) if args.db else Path(matchdb.open().path)
        copy = Path(args.strip)
        if not copy.exists():
            shutil.copytree(source, copy)
        path = str(copy)
    print(f"database {path or '(default)'}{' (derived data removed before each kind)' if args.strip else ''}")
    print("| kind | first | second | answer |")
    print("|---|---:|---:|---|")
    for kind in args.kinds.split(",") if args.kinds else KINDS:
        if args.strip:
            shutil.rmtree(Path(path) / "derived", ignore_errors=True)
        command = [sys.executable, __file__, "--kind", kind] + (["--db", path] if path else [])
        result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
        print(f"| {kind} | {result['first']:.3f} s | {result['second']:.3f} s | {result['first_value']:.6f} |", flush=True)


if __name__ == "__main__":
    main()
