"""The solver beside postflop-solver on the same spots, trees and target, in the same run (medians of repeats).

Spots (the ranges of postflop-solver's own example, pot 200, stack 900, target 0.5 % of the pot):

- ``turn``: Td9d6hQc, bets ``60%, e, a``, raises ``2.5x`` (the peer's public example, without donk sizes);
- ``river``: Td9d6hQc2s, the same sizes;
- ``flop``: Td9d6h, bets ``50%, a``, raises ``3x`` (two sizes).

Each solve runs in a process of its own (so that its peak memory is its own), ours and the peer's in turn,
``--repeats`` times. Our time is the solve's (kernels already loaded: numba reads them from its cache once per
process, shown apart as "load"); the peer's is its driver's ``seconds`` (scripts/postflop_peer.rs: build it as
its header says, then ``--peer PATH``). The table gives the medians and the differences; CPU seconds are shown
too, since on a shared machine the wall clock also counts other people's work.

    python3 scripts/bench_solver.py [--db PATH] [--peer PATH] [--spots turn,river,flop] [--repeats 3]
        [--threads N] [--compressed] [--max-iterations N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
SPOTS = {
    "turn": ("Td9d6hQc", "60%, e, a", "2.5x"),
    "river": ("Td9d6hQc2s", "60%, e, a", "2.5x"),
    "flop": ("Td9d6h", "50%, a", "3x"),
}
POT, STACK, TARGET = 200, 900, 0.5


def ours(spot: str, db_path: str | None, threads: int | None, compressed: bool, max_iterations: int = 1000) -> dict:
    """One solve of ours, in this process: its figures as one dict."""
    import matchdb
    from matchdb.solver.solution import Solution
    from matchdb.solver.solve import allocate, prepare, run

    board, bet, raise_ = SPOTS[spot]
    db = matchdb.open(db_path)
    began = time.perf_counter()
    prepared = prepare(db, OOP, IP, board, POT, STACK, bet, raise_, compressed=compressed, threads=threads)
    allocate(prepared, db)
    setup = time.perf_counter() - began
    cpu = time.process_time()
    stats = run(prepared, POT * TARGET / 100, max_iterations)
    cpu = time.process_time() - cpu
    solution = Solution(prepared, stats=stats, question={}, weights=(None, None), target=POT * TARGET / 100)
    root = solution.root
    return {
        "solver": "matchdb", "spot": spot, "seconds": stats.seconds, "cpu_seconds": cpu,
        "setup_seconds": setup - prepared.load_seconds, "load_seconds": prepared.load_seconds,
        "iterations": stats.iterations, "exploitability": stats.exploitability,
        "memory_bytes": prepared.memory, "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "oop_equity": solution.oop_equity, "oop_ev": solution.oop_ev, "ip_ev": solution.ip_ev,
        "root_actions": root.actions, "root_freqs": root.frequencies(), "threads": prepared.threads,
    }


def peer(path: str, spot: str, threads: int | None, compressed: bool, max_iterations: int = 1000) -> dict:
    board, bet, raise_ = SPOTS[spot]
    command = [path, "--oop", OOP, "--ip", IP, "--board", board, "--pot", str(POT), "--stack", str(STACK), "--bet", bet,
               "--raise", raise_, "--target-pct", str(TARGET), "--max-iterations", str(max_iterations)]
    if threads:
        command += ["--threads", str(threads)]
    if compressed:
        command.append("--compress")
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    figures = json.loads(done.stdout)
    actions = [a.replace("Bet(", "Bet ").replace("Raise(", "Raise ").replace("AllIn(", "All-in ").rstrip(")")
               for a in figures["root_actions"]]
    return {
        "solver": "postflop-solver", "spot": spot, "seconds": figures["seconds"],
        "cpu_seconds": figures.get("cpu_seconds_solve"), "iterations": figures["iterations"],
        "exploitability": figures["exploitability"], "memory_bytes": figures["memory_bytes"],
        "peak_rss_bytes": figures.get("peak_rss_bytes"), "oop_equity": figures["oop_equity"], "oop_ev": figures["oop_ev"],
        "ip_ev": figures["ip_ev"], "root_actions": actions, "root_freqs": figures["root_freqs"],
        "threads": figures["threads"],
    }


def ours_in_a_process(spot: str, args: argparse.Namespace) -> dict:
    command = [sys.executable, __file__, "--one", spot] + (["--db", args.db] if args.db else [])
    command += (["--threads", str(args.threads)] if args.threads else []) + (["--compressed"] if args.compressed else [])
    command += ["--max-iterations", str(args.max_iterations)]
    done = subprocess.run(command, check=True, capture_output=True, text=True, env={**os.environ})
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def _row(name: str, runs: list[dict]) -> list[str]:
    last = runs[-1]
    freqs = " / ".join(f"{a} {f:.3f}" for a, f in zip(last["root_actions"], last["root_freqs"], strict=True))
    cpu = _median(runs, "cpu_seconds")
    rss = _median(runs, "peak_rss_bytes")
    return [name, f"{_median(runs, 'seconds'):.3f}", "-" if cpu is None else f"{cpu:.2f}", str(last["iterations"]),
            f"{last['memory_bytes'] / 1e6:.1f}", "-" if rss is None else f"{rss / 1e6:.0f}",
            f"{last['exploitability']:.4f} ({100 * last['exploitability'] / POT:.3f} %)", f"{last['oop_equity']:.6f}",
            f"{last['oop_ev']:.2f}", f"{last['ip_ev']:.2f}", freqs]


def _line(cells: list[str]) -> str:
    """One row of a Markdown table."""
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="database path (default: matchdb.open()'s)")
    parser.add_argument("--peer", help="postflop-solver's driver (scripts/postflop_peer.rs, built)")
    parser.add_argument("--spots", default="turn,river,flop", help="spots to run (default turn,river,flop)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each solver per spot (default 3)")
    parser.add_argument("--threads", type=int, help="threads for both (default: every core)")
    parser.add_argument("--compressed", action="store_true", help="16-bit numbers in both")
    parser.add_argument("--max-iterations", type=int, default=1000,
                        help="most iterations in both (default 1000; fewer to time a spot too long to solve here)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(ours(args.one, args.db, args.threads, args.compressed, args.max_iterations)))
        return
    header = ["spot / solver", "seconds", "cpu s", "iterations", "memory MB", "peak RSS MB", "exploitability",
              "OOP equity", "OOP EV", "IP EV", "OOP root strategy"]
    print(_line(header))
    print(_line(["---"] * len(header)))
    for spot in args.spots.split(","):
        mine, theirs = [], []
        load_before = os.getloadavg()[0]
        for _ in range(args.repeats):
            mine.append(ours_in_a_process(spot, args))
            if args.peer:
                theirs.append(peer(args.peer, spot, args.threads, args.compressed, args.max_iterations))
        print(_line(_row(f"{spot}: matchdb", mine)), flush=True)
        if theirs:
            print(_line(_row(f"{spot}: postflop-solver", theirs)))
            a, b = mine[-1], theirs[-1]
            ratio = _median(mine, "seconds") / _median(theirs, "seconds")
            cpu_mine, cpu_theirs = _median(mine, "cpu_seconds"), _median(theirs, "cpu_seconds")
            cpu_ratio = f"x{cpu_mine / cpu_theirs:.2f}" if cpu_mine and cpu_theirs else "-"  # the peer reports 10 ms steps
            deltas = [f"{x - y:+.3f}" for x, y in zip(a["root_freqs"], b["root_freqs"], strict=True)]
            print(_line([f"{spot}: difference", f"x{ratio:.2f}", cpu_ratio,
                              f"{a['iterations'] - b['iterations']:+d}", f"x{a['memory_bytes'] / b['memory_bytes']:.2f}", "",
                              f"{a['exploitability'] - b['exploitability']:+.4f}", f"{a['oop_equity'] - b['oop_equity']:+.6f}",
                              f"{a['oop_ev'] - b['oop_ev']:+.3f}", f"{a['ip_ev'] - b['ip_ev']:+.3f}", " / ".join(deltas)]),
                  flush=True)
        load = statistics.median(r["load_seconds"] for r in mine)
        print(f"<!-- {spot}: our kernels' load from numba's cache {load:.2f} s a process; setup "
              f"{statistics.median(r['setup_seconds'] for r in mine):.2f} s; {mine[-1]['threads']} threads; load average {load_before:.1f} "
              f"before, {os.getloadavg()[0]:.1f} after -->", flush=True)


if __name__ == "__main__":
    main()
