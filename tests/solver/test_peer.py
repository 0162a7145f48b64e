"""The solver against postflop-solver on the same spots: the same trees solve to the same figures.

The peer's figures are literals recorded from its benchmark driver (scripts/postflop_peer.rs, built as
../shared/DESIGN.md section 6 says), with the ranges of its own example (``PEER_OOP``, ``PEER_IP``), pot 200,
stack 900, bets ``60%, e, a``, raises ``2.5x``:

    postflop_peer --oop PEER_OOP --ip PEER_IP --board BOARD --pot 200 --stack 900 --bet "60%, e, a" \\
        --raise "2.5x" [--max-iterations N] --target-pct 0.5

The two solvers run the same iterations in the same order of floating-point operations, so the exploitability
after a given number of iterations agrees to float32's precision (the peer prints float32).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.solver.conftest import PEER_IP, PEER_OOP


def _solve(db, board, **options):
    return db.solve(PEER_OOP, PEER_IP, board, pot=200, stack=900, bet="60%, e, a", raise_="2.5x", **options)


def test_the_peers_river_spot(peer_db):
    # postflop_peer ... --board Td9d6hQc2s: iterations 50, exploitability 0.89952374, oop_equity 0.5161739,
    # oop_ev 92.621994, ip_ev 107.378006, root Check 0.6631645523666676 / Bet(120) 0.3368354502156308 / AllIn(900) 0
    solution = _solve(peer_db, "Td9d6hQc2s")
    assert solution.iterations == 50
    assert solution.exploitability == pytest.approx(0.89952374, rel=1e-6)
    assert solution.oop_equity == pytest.approx(0.5161739, abs=1e-6)
    assert solution.oop_ev == pytest.approx(92.621994, abs=1e-3)
    assert solution.ip_ev == pytest.approx(107.378006, abs=1e-3)
    assert solution.root.actions == ["Check", "Bet 120", "All-in 900"]
    assert solution.root.frequencies() == pytest.approx([0.6631645523666676, 0.3368354502156308, 0], abs=1e-5)
    assert [len(solution.root.hands(p)) for p in (0, 1)] == [167, 246]
    assert solution.memory <= 195_884  # the peer's memory_bytes_f32


def test_the_peers_turn_spot_iteration_by_iteration(peer_db):
    # postflop_peer ... --board Td9d6hQc --max-iterations 0 / 10: exploitability 186.38431, then 48.687645
    start = _solve(peer_db, "Td9d6hQc", max_iterations=0)
    assert start.exploitability == pytest.approx(186.38431, rel=1e-6)
    # the peer's memory_bytes_f32 counts its numbers (regrets, summed strategy, values kept at street roots and
    # deals), not its working buffers: ours, with our working rows and showdown orders, are no more
    numbers = sum(a.nbytes for a in start.spot.bufs if isinstance(a, np.ndarray))
    assert numbers <= 12_323_112 and start.memory <= 12_323_112
    ten = _solve(peer_db, "Td9d6hQc", max_iterations=10, target=0.0)
    assert ten.iterations == 10
    assert ten.exploitability == pytest.approx(48.687645, rel=1e-6)


@pytest.mark.slow
def test_the_peers_turn_spot_to_half_a_percent(peer_db):
    # postflop_peer ... --board Td9d6hQc --target-pct 0.5: iterations 100, exploitability 0.83643126,
    # oop_equity 0.53060293, oop_ev 91.88035, ip_ev 108.11965, root [0.9298844540144411, 0.05678505025673255,
    # 0.013330497827823199, 0] for Check, Bet(120), Bet(216), AllIn(900)
    solution = _solve(peer_db, "Td9d6hQc")
    assert solution.iterations == 100
    assert solution.exploitability == pytest.approx(0.83643126, rel=1e-5)
    assert solution.oop_equity == pytest.approx(0.53060293, abs=1e-6)
    assert solution.oop_ev == pytest.approx(91.88035, abs=0.01)
    assert solution.ip_ev == pytest.approx(108.11965, abs=0.01)
    assert solution.root.frequencies() == pytest.approx([0.9298844540144411, 0.05678505025673255, 0.013330497827823199, 0],
                                                        abs=1e-4)


@pytest.mark.slow
def test_the_peers_flop_spot_starts_and_moves_as_the_peers(peer_db):
    # postflop_peer ... --board Td9d6h --bet "50%, a" --raise "3x" --max-iterations 0 / 10:
    # exploitability 161.31754, then 57.122025 (memory_bytes_f32 480,382,052)
    options = {"bet": "50%, a", "raise_": "3x"}
    start = peer_db.solve(PEER_OOP, PEER_IP, "Td9d6h", pot=200, stack=900, max_iterations=0, **options)
    assert start.exploitability == pytest.approx(161.31754, rel=1e-6)
    assert start.memory <= 480_382_052
    ten = peer_db.solve(PEER_OOP, PEER_IP, "Td9d6h", pot=200, stack=900, max_iterations=10, target=0.0, **options)
    assert ten.exploitability == pytest.approx(57.122025, rel=1e-6)
