"""The solver's arrays: the action tree flattened for the kernels, where each node's numbers live, and what it all costs.

The game tree is the action tree repeated for every turn and river card dealt
(one card of each isomorphic pair). It is cut into *street subtrees*: the nodes
one street's action reaches without a card being dealt. A street subtree is
stored once per deal that reaches it (an *instance*: the flop's once, a turn
subtree once per turn card, a river subtree once per turn and river card), in
one block of the flat arrays; in the block each action node holds
``actions x hands of the player to act`` numbers (regrets, then the summed
strategy in a second array), action by action.

The kernels read the spot through four named structures made here (each a
named tuple of arrays): :class:`KTree` (the action tree), :class:`KCards` (the
hands, the deals and the showdown orders), :class:`KLayout` (where each
instance's block starts) and :class:`KBuffers` (the numbers themselves).

:func:`memory_estimate` counts the bytes before anything is allocated, so a
tree too large is refused with its estimate (:func:`check_memory`).
"""

from __future__ import annotations

import os
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

from matchdb.errors import WorkLimitError
from matchdb.solver.game import Deal, Hands, Showdown, card_masks, same_hands, swap_permutation
from matchdb.solver.tree import ActionTree, Node

__all__ = [
    "ACTION",
    "FOLD",
    "SHOWDOWN",
    "CHANCE",
    "MAX_RIVERS",
    "LANES",
    "KTree",
    "KCards",
    "KLayout",
    "KBuffers",
    "KScratch",
    "Params",
    "Flat",
    "flatten",
    "make_cards",
    "make_layout",
    "make_buffers",
    "make_scratch",
    "aligned_zeros",
    "ALIGNMENT",
    "per_thread",
    "terminal_lists",
    "memory_estimate",
    "check_memory",
    "default_memory_limit",
]

ACTION, FOLD, SHOWDOWN, CHANCE = 0, 1, 2, 3
_KINDS = {"action": ACTION, "fold": FOLD, "showdown": SHOWDOWN, "chance": CHANCE}
#: Width of the river index in instance tables: at most 48 river cards follow a turn.
MAX_RIVERS = 48
#: Folds or showdowns of one subtree valued together in one sweep (the lanes of a vector of float64).
LANES = 8
#: The boundary working rows start at (a cache line; see :func:`aligned_zeros`).
ALIGNMENT = 64

#: The action tree: per node (``kind``, ``player``, ``street``, ``pot`` in chips, ``nact`` actions, ``child``
#: (node, action) -> child node, ``loc`` its numbers' offset in its instance block, ``lnode`` its number among
#: its subtree's action nodes, ``pos`` its position in its subtree, ``sub`` that subtree, ``next_sub`` the
#: subtree a chance node deals into); per subtree (``sub_first``/``sub_nodes`` its nodes in preorder,
#: ``sub_street``, ``exit_first``/``exits`` its chance nodes, ``fold_first``/``folds`` and ``sd_first``/``sds``
#: its folds and showdowns, valued together); and the game's ``rake_rate``, ``rake_cap`` and
#: ``numcomb`` (the weight of all deals, what values are divided by).
KTree = namedtuple("KTree", "kind player street pot nact child loc lnode pos sub next_sub sub_first sub_nodes sub_street "
                            "exit_first exits fold_first folds sd_first sds rake_rate rake_cap numcomb")
#: The cards: per player (index 0 OOP, 1 IP) ``n`` hands, their ``cards`` (2 ids), ``mask`` (64-bit), ``same``
#: (the same hand's position among the opponent's, -1), ``weights``; the deals: ``turn_card``/``turn_mask``
#: per turn index, ``n_river``/``river_card``/``river_mask``/``runout`` per (turn, river) index, the turn deal's
#: cards taken from others (``tmap_rep``, ``tmap_swap``) and each river deal's (``rmap_n``, ``rmap_rep``,
#: ``rmap_swap``), ``swaps`` (suit pair, player, hand) -> swapped hand; ``board_mask``; the showdown orders
#: ``sd_order``, ``sd_strength``, the hands' two cards ``sd_card0``/``sd_card1`` in that order, ``sd_start`` (player, runout).
KCards = namedtuple("KCards", "n cards mask same weights board_mask turn_card turn_mask n_river river_card river_mask runout "
                              "tmap_rep tmap_swap rmap_n rmap_rep rmap_swap swaps sd_order sd_strength sd_card0 sd_card1 sd_start")
#: Where instances live: instance (subtree s, turn index t, river index r) is entry ``inst_first[s] + t * 48 + r``
#: of ``inst_base`` (offset of its block) and ``inst_node`` (number of its first action node among all).
KLayout = namedtuple("KLayout", "inst_first inst_base inst_node")
#: The numbers: ``regrets`` and ``strategy`` (float32), or in 16-bit mode ``regrets16``, ``strategy16`` with one
#: scale per action node instance (``rscale``, ``sscale``); ``lock_of`` (action node instance -> offset of its
#: locked strategy in ``locks``, -1 when not locked).
KBuffers = namedtuple("KBuffers", "regrets strategy regrets16 strategy16 rscale sscale lock_of locks compressed")
#: One traversal's parameters: ``mode`` (0 DCFR update, 1 best response, 2 the average strategy's values),
#: ``player`` traversing, the discounts ``alpha``, ``beta``, ``gamma``, and the ``threads`` the deals are spread over.
Params = namedtuple("Params", "mode player alpha beta gamma threads")
#: Working rows (a leading slot of one where each worker thread allocates a slot of its own: the arrays
#: :func:`per_thread` numbers): reach ``R*``, values ``V*`` and the row each node reads its reach from
#: (``src*``) for flop, turn and river subtrees; ``strat`` a strategy; ``exit_reach`` and ``job_out`` for the
#: deals spread over threads, ``deal_out`` for a thread's own rivers (below a flop only),
#: ``gather`` (the opponent's reach of each hand at up to ``LANES`` folds or showdowns valued together, a number
#: per lane), ``work`` (a number per row and lane: rows 0-51 the opponent's reach per card, 52 the total, 53-54 the
#: payoffs) and ``index`` (rows 0-2 each lane's reach row and value row and the hands kept, row 3 a node's
#: children, rows 4-6 the kept hands' strength and cards at a showdown).
KScratch = namedtuple("KScratch", "R_flop V_flop src_flop R_turn V_turn src_turn R_river V_river src_river strat acc "
                                  "exit_reach job_out deal_out gather work index")


@dataclass(kw_only=True)
class Flat:
    """The action tree flattened: :class:`KTree`'s node arrays before the cards are known, and per subtree its
    street, nodes, action nodes and whether it is stored per turn and per river card."""

    nodes: list[Node]
    kind: np.ndarray
    player: np.ndarray
    street: np.ndarray
    pot: np.ndarray
    nact: np.ndarray
    child: np.ndarray
    pos: np.ndarray
    sub: np.ndarray
    next_sub: np.ndarray
    lnode: np.ndarray
    sub_roots: list[int]
    sub_nodes: list[list[int]]
    sub_street: list[int]
    exits: list[list[int]]

    @property
    def n_subtrees(self) -> int:
        return len(self.sub_roots)

    def sub_size(self, sub: int, counts: tuple[int, int]) -> int:
        """Numbers one instance of subtree ``sub`` stores: actions x hands of the player to act, summed."""
        return int(sum(self.nact[k] * counts[self.player[k]] for k in self.sub_nodes[sub] if self.kind[k] == ACTION))

    def sub_action_nodes(self, sub: int) -> int:
        return int(sum(1 for k in self.sub_nodes[sub] if self.kind[k] == ACTION))


def flatten(tree: ActionTree) -> Flat:
    """Cut the action tree into street subtrees and number everything the kernels index."""
    nodes = tree.nodes
    m = len(nodes)
    width = max(1, max(len(n.children) for n in nodes))
    kind = np.array([_KINDS[n.kind] for n in nodes], dtype=np.int8)
    player = np.array([max(n.player, 0) for n in nodes], dtype=np.int8)
    street = np.array([n.street for n in nodes], dtype=np.int8)
    pot = np.array([n.pot(tree.options.pot) for n in nodes], dtype=np.float64)
    nact = np.array([len(n.children) if n.kind == "action" else 0 for n in nodes], dtype=np.int64)
    child = np.full((m, width), -1, dtype=np.int64)
    for n in nodes:
        for a, c in enumerate(n.children):
            child[n.index, a] = c.index
    sub = np.full(m, -1, dtype=np.int64)  # every index the kernels carry is int64: one compiled version each
    pos = np.full(m, -1, dtype=np.int64)
    lnode = np.full(m, -1, dtype=np.int64)
    next_sub = np.full(m, -1, dtype=np.int64)
    roots = [tree.root.index]
    sub_nodes: list[list[int]] = []
    sub_street: list[int] = []
    exits: list[list[int]] = []
    s = 0
    while s < len(roots):
        members: list[int] = []
        chance: list[int] = []
        stack = [nodes[roots[s]]]
        while stack:  # preorder, not crossing a deal
            node = stack.pop()
            sub[node.index] = s
            pos[node.index] = len(members)
            members.append(node.index)
            if node.kind == "chance":
                chance.append(node.index)
                next_sub[node.index] = len(roots) + len(chance) - 1
                continue
            stack.extend(reversed(node.children))
        roots.extend(nodes[k].children[0].index for k in chance)
        actions = [k for k in members if kind[k] == ACTION]
        lnode[actions] = np.arange(len(actions))
        sub_nodes.append(members)
        sub_street.append(int(nodes[roots[s]].street))
        exits.append(chance)
        s += 1
    return Flat(nodes=nodes, kind=kind, player=player, street=street, pot=pot, nact=nact, child=child, pos=pos, sub=sub,
                next_sub=next_sub, lnode=lnode, sub_roots=roots, sub_nodes=sub_nodes, sub_street=sub_street,
                exits=exits)


def _instances(flat: Flat, start: int, n_turn: int) -> list[int]:
    """How many instances each subtree has: 1 on the starting street, one per turn (and river) index below."""
    counts = []
    for street in flat.sub_street:
        if street == start:
            counts.append(1)
        elif street == 1:
            counts.append(n_turn)
        else:
            counts.append(n_turn * MAX_RIVERS)
    return counts


@dataclass
class Layout:
    """Offsets of every instance and the totals: ``elements`` (numbers per array), ``action_nodes``."""

    klayout: tuple[np.ndarray, np.ndarray, np.ndarray]  # KLayout's fields
    offsets: np.ndarray  # (subtree) -> loc of each node within an instance block
    elements: int
    action_nodes: int


def make_layout(flat: Flat, counts: tuple[int, int], start: int, n_turn: int, n_river: np.ndarray) -> Layout:
    """Give every instance its block: per subtree, instances in (turn, river) order, river indices past the
    turn's river count left out."""
    loc = np.full(len(flat.nodes), -1, dtype=np.int64)
    for s in range(flat.n_subtrees):
        offset = 0
        for k in flat.sub_nodes[s]:
            if flat.kind[k] == ACTION:
                loc[k] = offset
                offset += int(flat.nact[k]) * counts[int(flat.player[k])]
    per_sub = _instances(flat, start, n_turn)
    inst_first = np.zeros(flat.n_subtrees, dtype=np.int64)
    inst_first[1:] = np.cumsum(per_sub)[:-1]
    total = int(sum(per_sub))
    inst_base = np.full(total, -1, dtype=np.int64)
    inst_node = np.full(total, -1, dtype=np.int64)
    elements = 0
    action_nodes = 0
    for s in range(flat.n_subtrees):
        size = flat.sub_size(s, counts)
        anodes = flat.sub_action_nodes(s)
        street = flat.sub_street[s]
        if street == start or street == 1 and start == 0:
            keys = [(t, 0) for t in range(per_sub[s])]
        else:
            keys = [(t, r) for t in range(n_turn if start == 0 else 1) for r in range(int(n_river[t]))]
        for t, r in keys:
            entry = inst_first[s] + (t * MAX_RIVERS + r if street == 2 and start < 2 else t)
            inst_base[entry] = elements
            inst_node[entry] = action_nodes
            elements += size
            action_nodes += anodes
    return Layout((inst_first, inst_base, inst_node), loc, elements, action_nodes)


def make_cards(hands: tuple[Hands, Hands], board: tuple[int, ...], deals: list[Deal], showdown: Showdown,
               runouts: dict[tuple[int, int], int]) -> tuple[np.ndarray | np.uint64, ...]:
    """:class:`KCards` of a spot (see there)."""
    n = np.array([len(hands[0]), len(hands[1])], dtype=np.int64)
    width = int(n.max())
    cards = np.zeros((2, width, 2), dtype=np.int64)
    mask = np.zeros((2, width), dtype=np.uint64)
    same = np.full((2, width), -1, dtype=np.int32)
    weights = np.zeros((2, width), dtype=np.float32)
    for p in range(2):
        cards[p, : n[p]] = hands[p].cards
        mask[p, : n[p]] = card_masks(hands[p].cards)
        same[p, : n[p]] = same_hands(hands[p], hands[p ^ 1])
        weights[p, : n[p]] = hands[p].weights
    board_mask = np.uint64(sum(1 << c for c in board))
    start = len(board) - 3
    if start == 0:
        turns = list(deals[0].cards)
        river_deals = deals[1:]
    elif start == 1:
        turns = [board[3]]
        river_deals = deals
    else:
        turns = [board[3]]
        river_deals = []
    n_turn = len(turns)
    turn_card = np.array(turns, dtype=np.int64)
    turn_mask = np.array([board_mask | np.uint64(1 << t) for t in turns], dtype=np.uint64)
    n_river = np.zeros(n_turn, dtype=np.int64)
    river_card = np.full((n_turn, MAX_RIVERS), -1, dtype=np.int64)
    river_mask = np.zeros((n_turn, MAX_RIVERS), dtype=np.uint64)
    runout = np.full((n_turn, MAX_RIVERS), -1, dtype=np.int32)
    rmap_n = np.zeros(n_turn, dtype=np.int64)
    rmap_rep = np.full((n_turn, MAX_RIVERS), -1, dtype=np.int32)
    rmap_swap = np.full((n_turn, MAX_RIVERS), -1, dtype=np.int32)
    for t, turn in enumerate(turns):
        rivers = [board[4]] if start == 2 else list(river_deals[t].cards)
        n_river[t] = len(rivers)
        for r, river in enumerate(rivers):
            river_card[t, r] = river
            river_mask[t, r] = turn_mask[t] | np.uint64(1 << river)
            runout[t, r] = runouts[(min(turn, river), max(turn, river))]
        if start < 2:
            mapped = river_deals[t].mapped
            rmap_n[t] = len(mapped)
            for m, (_, rep, pair) in enumerate(mapped):
                rmap_rep[t, m] = rep
                rmap_swap[t, m] = pair
    tmap = deals[0].mapped if start == 0 else ()
    tmap_rep = np.array([rep for _, rep, _ in tmap], dtype=np.int32)
    tmap_swap = np.array([pair for _, _, pair in tmap], dtype=np.int32)
    swaps = np.tile(np.arange(width, dtype=np.int32), (6, 2, 1))
    used = {pair for d in deals for _, _, pair in d.mapped}
    for pair in used:
        for p in range(2):
            swaps[pair, p, : n[p]] = swap_permutation(hands[p], pair)
    longest = max(len(showdown.order[0]), len(showdown.order[1]), 1)
    sd_order = np.zeros((2, longest), dtype=np.int32)
    sd_strength = np.zeros((2, longest), dtype=np.uint16)
    for p in range(2):
        sd_order[p, : len(showdown.order[p])] = showdown.order[p]
        sd_strength[p, : len(showdown.strength[p])] = showdown.strength[p]
    sd_start = np.stack(showdown.start).astype(np.int64)
    sd_card0 = np.stack([cards[p, sd_order[p], 0] for p in range(2)]).astype(np.uint8)
    sd_card1 = np.stack([cards[p, sd_order[p], 1] for p in range(2)]).astype(np.uint8)
    return (n, cards, mask, same, weights, board_mask, turn_card, turn_mask, n_river, river_card, river_mask, runout,
            tmap_rep, tmap_swap, rmap_n, rmap_rep, rmap_swap, swaps, sd_order, sd_strength, sd_card0, sd_card1, sd_start)


def make_buffers(elements: int, action_nodes: int, compressed: bool, lock_of: np.ndarray | None = None,
                 locks: np.ndarray | None = None) -> tuple[np.ndarray | bool, ...]:
    """Zeroed numbers for ``elements`` per array (float32, or 16-bit with a scale per action node instance)."""
    empty32 = np.zeros(0, dtype=np.float32)
    if compressed:
        regrets16 = np.zeros(elements, dtype=np.int16)
        strategy16 = np.zeros(elements, dtype=np.uint16)
        rscale = np.zeros(action_nodes, dtype=np.float32)
        sscale = np.zeros(action_nodes, dtype=np.float32)
        regrets = strategy = empty32
    else:
        regrets = np.zeros(elements, dtype=np.float32)
        strategy = np.zeros(elements, dtype=np.float32)
        regrets16 = np.zeros(0, dtype=np.int16)
        strategy16 = np.zeros(0, dtype=np.uint16)
        rscale = sscale = empty32
    if lock_of is None:
        lock_of = np.full(action_nodes, -1, dtype=np.int64)
    if locks is None:
        locks = np.zeros(0, dtype=np.float32)
    return (regrets, strategy, regrets16, strategy16, rscale, sscale, lock_of, locks, bool(compressed))


def _max_nodes(flat: Flat, street: int) -> int:
    return max([len(m) for m, s in zip(flat.sub_nodes, flat.sub_street, strict=True) if s == street] or [1])


def terminal_lists(flat: Flat) -> tuple[list[list[int]], list[list[int]]]:
    """Each subtree's folds and showdowns (node ids, preorder)."""
    folds = [[k for k in nodes if flat.kind[k] == FOLD] for nodes in flat.sub_nodes]
    showdowns = [[k for k in nodes if flat.kind[k] == SHOWDOWN] for nodes in flat.sub_nodes]
    return folds, showdowns


def _scratch_shapes(flat: Flat, width: int) -> list[tuple[tuple[int, ...], type]]:
    """The shape and type of each of :class:`KScratch`'s arrays, in order (:func:`make_scratch` allocates them,
    :func:`memory_estimate` counts them): the calling thread's rows (a slot of one where a thread has its own),
    and the deals' values for half the exits of the starting subtree at a time. Each worker thread allocates a
    slot of its own when it starts (:func:`per_thread` numbers these arrays): views of rows shared between threads
    would count references on one array from both, an atomic operation they would contend for."""
    start = flat.sub_street[0]
    f, t, r = _max_nodes(flat, 0), _max_nodes(flat, 1), _max_nodes(flat, 2)
    actions = max(1, int(flat.nact.max())) + 1  # a row more for the strategy's sums
    n_exits = max([len(e) for e in flat.exits] or [0])  # a subtree's most chance nodes
    deals = MAX_RIVERS + 1 if start == 0 else MAX_RIVERS  # most cards a deal below the start has: 49 turns, 48 rivers
    flop = start == 0  # a thread's own rivers are dealt only below a flop
    f32, i64 = np.float32, np.int64
    return [
        ((f, width), f32), ((f, width), f32), ((f,), i64),
        ((1, t, width), f32), ((1, t, width), f32), ((1, t), i64),
        ((1, r, width), f32), ((1, r, width), f32), ((1, r), i64),
        ((1, actions, width), f32), ((1, width), np.float64),
        ((max(n_exits, 1), width), f32), ((max((n_exits + 1) // 2 * deals, 1), width), f32),
        ((1, MAX_RIVERS, width) if flop else (1, 1, 1), f32),
        ((1, (width + 1) * LANES), f32), ((1, (56 + width) * LANES), np.float64),
        ((1, 7, max(width, actions, LANES)), i64),
    ]


def per_thread(start: int) -> tuple[int, ...]:
    """The :class:`KScratch` arrays a worker thread allocates a slot of for itself when the game starts on street
    ``start``: below a turn, river rows, a strategy and the folds' and showdowns' rows; below a flop also turn
    rows, sums and its rivers' values (a worker then traverses a turn); none on a river (no card is dealt).

    >>> per_thread(1)
    (6, 7, 8, 9, 14, 15, 16)
    """
    if start == 2:
        return ()
    rivers = (6, 7, 8, 9, 14, 15, 16)
    return tuple(sorted(rivers + (3, 4, 5, 10, 13))) if start == 0 else rivers


def make_scratch(flat: Flat, width: int) -> tuple[np.ndarray, ...]:
    """The calling thread's working rows (see :class:`KScratch`), each from a 64-byte boundary."""
    return tuple(aligned_zeros(shape, kind) for shape, kind in _scratch_shapes(flat, width))


def aligned_zeros(shape: tuple[int, ...], dtype: DTypeLike) -> np.ndarray:
    """Zeros whose first number starts a 64-byte cache line (numpy aligns to 16 bytes): the lanes of a fold or
    showdown (``LANES`` float64 numbers, 64 bytes) are then read as one line, not two. Without it a solve's time
    depended on where the allocator put the rows: the river spot of ``scripts/bench_solver.py`` took 1.27 or
    1.50 ms from one process to the next.

    >>> aligned_zeros((2, 3), np.float64).ctypes.data % 64
    0
    """
    kind = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * kind.itemsize
    raw = np.zeros(nbytes + ALIGNMENT, dtype=np.uint8)
    skip = -raw.ctypes.data % ALIGNMENT
    return raw[skip : skip + nbytes].view(kind).reshape(shape)



def memory_estimate(flat: Flat, counts: tuple[int, int], elements: int, action_nodes: int, compressed: bool,
                    threads: int, runouts: int) -> int:
    """Bytes a solve allocates: the two arrays of numbers (4 or 2 bytes each), scales, lock table, working rows
    and showdown orders."""
    per = 2 if compressed else 4
    numbers = 2 * per * elements + (8 if compressed else 0) * action_nodes + 8 * action_nodes
    shapes = _scratch_shapes(flat, max(counts))
    sizes = [int(np.prod(shape)) * np.dtype(kind).itemsize for shape, kind in shapes]
    workers = per_thread(flat.sub_street[0])  # each worker's rows, two of them from a boundary (see cfr._jobs)
    mine = sum(sizes[k] for k in workers) + (2 * ALIGNMENT if workers else 0)
    rows = sum(sizes) + ALIGNMENT * len(sizes) + threads * mine
    # per player and hand of a runout: order (4 bytes), strength (2) and both cards (1 each), the players' rows as
    # long as the longer one
    showdown = runouts * 2 * max(counts) * 8
    return int(numbers + rows + showdown)


def default_memory_limit() -> int:
    """The default bound: 80 % of the memory available now (``MemAvailable``), else 8 GB where that is unknown."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * 0.8)
    except OSError:
        pass
    return 8 * 1024**3 if os.name != "nt" else 4 * 1024**3


def check_memory(estimate: int, limit: int) -> None:
    """Refuse a solve whose estimate is over ``limit`` bytes, before anything is allocated.

    >>> check_memory(3 * 1024**3, 2 * 1024**3)
    Traceback (most recent call last):
    ...
    matchdb.errors.WorkLimitError: The tree needs about 3.22 GB (3,221,225,472 bytes) of memory; expected at most 2.15 GB: use fewer bet sizes, a later street, narrower ranges or compressed=True.
    """
    if estimate > limit:
        raise WorkLimitError(
            f"The tree needs about {estimate / 1e9:.2f} GB ({estimate:,} bytes) of memory; expected at most "
            f"{limit / 1e9:.2f} GB: use fewer bet sizes, a later street, narrower ranges or compressed=True."
        )
