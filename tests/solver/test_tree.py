"""The action tree: node for node the tree postflop-solver builds from the same options.

The reference trees in ``tests/data/solver/peer_*.tree.jsonl`` were written by
postflop-solver's own ``ActionTree`` through the benchmark's driver
(scripts/postflop_peer.rs), for the spots of ``scripts/bench_solver.py``:

    postflop_peer --oop R --ip R --board Td9d6hQc --pot 200 --stack 900 --bet "60%, e, a" --raise "2.5x" \\
        --dump-tree peer_turn.tree.jsonl --tree-only

(``turn_donk``: the same with ``--river-donk "50%"``; ``river``: board Td9d6hQc2s; ``flop``: board Td9d6h,
``--bet "50%, a" --raise "3x"``). Each line is a decision (line, player, actions, chips each has put in) or an end
(fold or showdown; an all-in called before the river ends in a showdown at the call, as the driver writes it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matchdb.solver.tree import ALLIN, BET, RAISE, ActionTree, TreeOptions, build_tree, donk_sizes, street_sizes, uniform_sizes

DATA = Path(__file__).resolve().parents[1] / "data" / "solver"

SPOTS = {
    "turn": (1, "60%, e, a", "2.5x", None),
    "turn_donk": (1, "60%, e, a", "2.5x", {"river": "50%"}),
    "river": (2, "60%, e, a", "2.5x", None),
    "flop": (0, "50%, a", "3x", None),
}


def _peer_action(action) -> str:
    """An action written as the peer's Debug format writes it: ``Bet(120)``, ``AllIn(900)``, ``Check``."""
    if action.kind in (BET, RAISE, ALLIN):
        return f"{('Bet', 'Raise', 'AllIn')[action.kind - BET]}({action.amount})"
    return str(action)


def _ends_in_allin_showdown(node) -> bool:
    while node.kind == "chance":
        node = node.children[0]
    return node.kind == "showdown"


def peer_dump(tree: ActionTree) -> list[dict]:
    """The tree in the driver's ``--dump-tree`` form: preorder, decisions and ends, "|" where a card is dealt."""
    stack = tree.options.stack
    out: list[dict] = []

    def visit(node, line: list[str]) -> None:
        total = [stack - node.stacks[0], stack - node.stacks[1]]
        if node.kind == "chance":
            if _ends_in_allin_showdown(node):
                out.append({"line": line, "terminal": "showdown", "total_bet": total})
            else:
                visit(node.children[0], [*line, "|"])
            return
        if node.kind in ("fold", "showdown"):
            out.append({"line": line, "terminal": node.kind, "total_bet": total})
            return
        out.append({"line": line, "player": ("oop", "ip")[node.player], "actions": [_peer_action(a) for a in node.actions],
                    "total_bet": total})
        for action, child in zip(node.actions, node.children, strict=True):
            visit(child, [*line, _peer_action(action)])

    visit(tree.root, [])
    return out


@pytest.mark.parametrize("spot", sorted(SPOTS))
def test_the_tree_is_the_peers_node_for_node(spot):
    street, bet, raise_, donk = SPOTS[spot]
    options = TreeOptions(street=street, pot=200, stack=900, sizes=street_sizes(bet, raise_), donk=donk_sizes(donk))
    mine = peer_dump(build_tree(options))
    theirs = [json.loads(line) for line in (DATA / f"peer_{spot}.tree.jsonl").read_text().splitlines()]
    assert len(mine) == len(theirs)
    for ours, peer in zip(mine, theirs, strict=True):
        assert ours == peer


def test_the_peers_example_root_and_its_answer_to_a_bet():
    """examples/basic.rs asserts these two nodes."""
    tree = build_tree(TreeOptions(street=1, pot=200, stack=900, sizes=uniform_sizes("60%, e, a", "2.5x")))
    assert [str(a) for a in tree.root.actions] == ["Check", "Bet 120", "Bet 216", "All-in 900"]
    assert [str(a) for a in tree.root.children[1].actions] == ["Fold", "Call", "Raise 300"]


def test_the_thresholds_add_force_and_merge_sizes():
    sizes = street_sizes("33%, 36%, 75%", "")
    tree = build_tree(TreeOptions(street=2, pot=100, stack=120, sizes=sizes))
    # all-in (120 <= 1.5 pots) and 75 and 36 are kept; 33 is within 10 % of 36: (1 + 0.36) / (1 + 0.33) < 1.1
    assert [str(a) for a in tree.root.actions] == ["Check", "Bet 36", "Bet 75", "All-in 120"]
    forced = build_tree(TreeOptions(street=2, pot=100, stack=80, sizes=street_sizes("70%", ""), force_allin=0.15))
    assert [str(a) for a in forced.root.actions] == ["Check", "All-in 80"]  # 70 leaves 10 behind a pot of 240: 0.04 <= 0.15


def test_the_kernels_copies_of_the_layouts_constants_agree():
    from matchdb.solver import layout
    from matchdb.solver._kernels import cfr

    for name in ("ACTION", "FOLD", "SHOWDOWN", "CHANCE", "MAX_RIVERS", "LANES", "ALIGNMENT"):
        assert getattr(cfr, name) == getattr(layout, name), name
