"""How large a library would be with the turn's decisions on every turn card stored, in candidate formats (issue 33).

Solves one flop of a spec, walks its flop decisions and, after each line that ends the flop, every turn card's
decisions, encodes both sets as the library stores the flop's (16-bit strategy and EV, float32 combos, 16-bit
equity; 1,326 hands; zstd level 10), and prints the decisions and bytes of each and their projection to every
flop. Then the turn's decisions in smaller candidate formats (zstd level 10 each; see :func:`turn_formats`),
each projected to every flop with the turn cards that suit symmetry leaves (36.0 of 49 on average over the
1,755 canonical flops; a rainbow flop keeps all 49), and last the flop as ``matchdb library build`` stores it
(its files' bytes; the turn's projected the same way). A measurement for the storage's design, not a benchmark
against a peer.

    python3 scripts/library_turn_size.py [--spec data/library/3bet-100bb.toml] [--board Kh9d4c] [--db PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from numcodecs import Zstd  # noqa: E402 (zarr's own zstd)

import matchdb  # noqa: E402
from matchdb.core.canonical import CANONICAL_FLOPS, N_FLOPS, canonicalize, rename  # noqa: E402
from matchdb.core.cards import format_cards, parse_cards  # noqa: E402
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


def turn_classes(flop: list[int]) -> int:
    """The turn cards of ``flop`` that differ by more than a renaming of suits that leaves the flop as it is."""
    own = set(flop)
    keep = [p for p in range(24) if {int(c) for c in rename(flop, p)} == own]
    return len({frozenset(int(rename([c], p)[0]) for p in keep) for c in range(52) if c not in own})


def turn_formats(solution: Any, nodes: list[Any], pot: float) -> dict[str, int]:
    """Compressed bytes of ``nodes`` (the turn's decisions) in candidate formats, each over (decision, action,
    hand) in the 1,326-hand order. Combos are not stored in any but the first (the stored strategies give them:
    the spec's weights times each player's frequencies along the line) nor equity (computed from those ranges
    on the turn board when asked)."""
    most = max(len(n.actions) for n in nodes)
    strategy = np.zeros((len(nodes), most, 1326))
    ev = np.full((len(nodes), most, 1326), np.nan)
    combos = np.zeros((len(nodes), 1326))
    for k, node in enumerate(nodes):
        p = 0 if node.player == "OOP" else 1
        where = solution.spot.hands[p].index
        held = node.combos(p)
        inside = held > 0
        combos[k, where] = held
        strategy[k, : len(node.actions)][:, where] = np.where(inside, node.strategy, 0)
        ev[k, : len(node.actions)][:, where] = np.where(inside, node.action_ev(), np.nan)
    packer = Zstd(level=10)

    def size(a: np.ndarray, shuffled: bool = False) -> int:
        a = np.ascontiguousarray(a)
        if shuffled:  # the bytes of each number apart: high bytes with high bytes
            a = np.ascontiguousarray(np.moveaxis(a.view(np.uint8).reshape(a.shape + (a.itemsize,)), -1, 0))
        return len(packer.encode(a.tobytes()))

    finite = np.isfinite(ev)
    scale = np.nanmax(np.where(finite, np.abs(ev), np.nan), axis=(1, 2), keepdims=True)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    ev16 = np.where(finite, np.rint(np.nan_to_num(ev) / scale * 32767), -32768).astype(np.int16)
    ev8 = np.where(finite, np.rint(np.nan_to_num(ev) / scale * 127), -128).astype(np.int8)
    step = 0.005 * pot  # half a percent of the spec's pot
    ev_steps = np.where(finite, np.clip(np.rint(np.nan_to_num(ev) / step), -32767, 32767), -32768).astype(np.int16)
    s16 = np.rint(strategy[:, :-1] * 65535).astype(np.uint16)  # the last action's: 1 less the others
    s8 = np.rint(strategy[:, :-1] * 255).astype(np.uint8)
    return {
        "16-bit frequencies and EVs (of the largest), f32 combos": size(s16) + size(ev16) + size(combos.astype(np.float32)),
        "16-bit frequencies and EVs (of the largest)": size(s16) + size(ev16),
        "8-bit frequencies, 16-bit EVs (of the largest)": size(s8) + size(ev16),
        "8-bit frequencies, EVs in steps of 0.5 % of the pot (bytes shuffled)": size(s8) + size(ev_steps, True),
        "8-bit frequencies and EVs (of the largest)": size(s8) + size(ev8),
    }


def as_stored(solution: Any, board: str) -> dict[str, int]:
    """The bytes of each array of the flop as ``matchdb library build`` writes it (:func:`extract`, :func:`write_flop`),
    the solution being of ``board``'s canonical flop."""
    from matchdb.core.canonical import canonicalize
    from matchdb.library.store import create_library, extract, write_flop

    index = canonicalize(parse_cards(board)[:3]).index
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "size.zarr"
        spec = read_spec(ROOT / "data" / "library" / "3bet-100bb.toml")
        create_library(root, spec)
        answers = extract(solution, index, "-")
        write_flop(root, answers)
        group = root / "flops" / f"{index:04d}"
        return {name: sum(f.stat().st_size for f in (group / name).rglob("*") if f.is_file()) for name in answers.arrays()}


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
    canonical = format_cards([int(c) for c in CANONICAL_FLOPS[canonicalize(parse_cards(args.board)[:3]).index]])
    if canonical != args.board:
        print(f"{args.board} is solved as its canonical flop {canonical} (the same solution, suits renamed)")
        args.board = canonical
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
    here = turn_classes(list(parse_cards(args.board)[:3]))
    classes = sum(turn_classes([int(c) for c in flop]) for flop in CANONICAL_FLOPS)
    print(f"turn cards after suit symmetry: {here} of {cards} on {args.board}, {classes / N_FLOPS:.1f} on average "
          "over the canonical flops")
    if turn:
        spec_pot = float(read_spec(args.spec).pot)
        for name, size in turn_formats(solution, turn, spec_pot).items():
            print(f"turn, {name}: {size / 1e6:.3f} MB on {args.board}; every flop: "
                  f"{size / here * classes / 1e9:.2f} GB")
    stored = as_stored(solution, args.board)
    flop_part = sum(v for k, v in stored.items() if not k.startswith("turn_"))
    turn_part = sum(v for k, v in stored.items() if k.startswith("turn_"))
    parts = ", ".join(f"{k} {v / 1e3:.0f} kB" for k, v in stored.items())
    print(f"as the library stores it ({parts}): {(flop_part + turn_part) / 1e6:.3f} MB on {args.board}; every flop: "
          f"{(flop_part * N_FLOPS + turn_part / max(here, 1) * classes) / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
