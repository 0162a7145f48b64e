"""How large a library would be with the turn's decisions on every turn card stored as the flop's are (issue 33).

Solves one flop of a spec, walks its flop decisions and, after each line that ends the flop, every turn card's
decisions, encodes both sets as the library stores the flop's (16-bit strategy and EV, float32 combos, 16-bit
equity; 1,326 hands; zstd level 10), and prints the decisions and bytes of each and their projection to every
flop. A measurement for the storage depth's design, not a benchmark against a peer.

    python3 scripts/library_turn_size.py [--spec data/library/3bet-100bb.toml] [--board Kh9d4c] [--db PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from numcodecs import Zstd  # noqa: E402 (zarr's own zstd)

import matchdb  # noqa: E402
from matchdb.core.canonical import N_FLOPS  # noqa: E402
from matchdb.library import read_spec  # noqa: E402


def decisions(root: Any) -> list[Any]:
    """Every decision of ``root``'s street below it, in preorder."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.kind == "action" and node.street == root.street:
            out.append(node)
            stack.extend(node.play(a) for a in reversed(node.actions))
    return out


def street_ends(root: Any) -> list[Any]:
    """The deals that end ``root``'s street (a line of checks or a call)."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.kind == "action" and node.street == root.street:
            stack.extend(node.play(a) for a in node.actions)
        elif node.kind == "chance":
            out.append(node)
    return out


def stored_bytes(solution: Any, nodes: list[Any]) -> dict[str, int]:
    """The compressed bytes of ``nodes`` encoded as a library stores a flop's decisions."""
    most = max(len(n.actions) for n in nodes)
    arrays = {"strategy": np.zeros((len(nodes), most, 1326), np.uint16),
              "ev": np.full((len(nodes), most, 1326), -32768, np.int16),
              "combos": np.zeros((len(nodes), 1326), np.float32),
              "equity": np.full((len(nodes), 1326), 65535, np.uint16)}
    for k, node in enumerate(nodes):
        p = 0 if node.player == "OOP" else 1
        where = solution.spot.hands[p].index
        held = node.combos(p)
        inside = held > 0
        arrays["combos"][k, where] = held
        arrays["strategy"][k, : len(node.actions)][:, where] = np.where(inside, np.rint(node.strategy * 65535), 0)
        values = node.action_ev()
        finite = np.isfinite(values) & inside
        scale = float(np.abs(values[finite]).max()) if finite.any() else 1.0
        arrays["ev"][k, : len(node.actions)][:, where] = np.where(finite, np.rint(np.where(finite, values, 0) / scale * 32767), -32768)
        equity = node.equity(p)
        good = np.isfinite(equity) & inside
        arrays["equity"][k, where] = np.where(good, np.rint(np.where(good, equity, 0) * 65534), 65535)
    packer = Zstd(level=10)
    return {name: len(packer.encode(a.tobytes())) for name, a in arrays.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default=str(ROOT / "data" / "library" / "3bet-100bb.toml"))
    parser.add_argument("--board", default="Kh9d4c")
    parser.add_argument("--db", default=None, help="the database (default: matchdb's own)")
    args = parser.parse_args()
    db = matchdb.open(args.db) if args.db else matchdb.open()
    options = read_spec(args.spec).solve_options()
    oop, ip, pot, stack, bet, raise_ = (options.pop(k) for k in ("oop", "ip", "pot", "stack", "bet", "raise_"))
    started = time.perf_counter()
    solution = db.solve(oop, ip, args.board, pot, stack, bet, raise_, **options)
    print(f"{args.board}: solved in {time.perf_counter() - started:.1f} s, {solution.iterations} iterations, "
          f"{solution.exploitability_pct:.3f} % of the pot")
    flop = decisions(solution.root)
    ends = street_ends(solution.root)
    turn = [node for deal in ends for card in deal.cards() for node in decisions(deal.play(card))]
    cards = len(ends[0].cards()) if ends else 0
    print(f"flop decisions {len(flop)}; lines ending the flop {len(ends)} x {cards} turn cards: turn decisions {len(turn)}")
    for name, nodes in (("flop", flop), ("turn", turn)):
        sizes = stored_bytes(solution, nodes)
        total = sum(sizes.values())
        parts = ", ".join(f"{k} {v / 1e3:.0f} kB" for k, v in sizes.items())
        print(f"{name}: {total / 1e6:.3f} MB per flop ({parts}); every flop: {total * N_FLOPS / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
