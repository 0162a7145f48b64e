"""Solving a spot: Discounted CFR until the exploitability is below a target, with a memory bound checked first.

:func:`prepare` turns the question (ranges, board, pot, stack, sizes, rake)
into a :class:`Spot`: the action tree, the hands, the deals and the showdown
orders read from the flop's match table, and the memory the numbers will
take, refused before anything is allocated when it is over the bound
(:func:`matchdb.solver.layout.check_memory`). :func:`run` then iterates:

- Discounted CFR (Brown and Sandholm 2019) with alternating updates, OOP then
  IP each iteration: at iteration t (from 0) positive regrets are discounted
  by ``(t - 1)^alpha / ((t - 1)^alpha + 1)``, negative ones by ``beta``, and the summed
  strategy by ``(t' / (t' + 1))^gamma`` where t' counts from the last power of 4
  (so it restarts at 1, 4, 16, 64, ...): alpha 1.5, beta 0.5, gamma 3, the
  choices of postflop-solver (``solver.rs``), whose loop this one follows step
  for step, so that iterations compare;
- the exploitability (:func:`exploitability`) is computed before the first
  iteration and after every tenth; the loop stops at the first one at most the
  target (in chips: ``target_pct`` % of the starting pot).

>>> [tuple(round(x, 4) for x in discounts(t)) for t in (0, 1, 2, 5)]
[(0.0, 0.5, 0.0), (0.0, 0.5, 0.0), (0.5, 0.5, 0.125), (0.8889, 0.5, 0.125)]
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

import numpy as np

from matchdb.core.cards import CardsLike, format_cards
from matchdb.core.ranges import RangeLike, describe_range, range_weights
from matchdb.errors import RangeError
from matchdb.jit import compiled_before
from matchdb.progress import logger, progress
from matchdb.solver.game import (
    Deal,
    Hands,
    canonical_frame,
    deals_of,
    num_combinations,
    parse_board,
    range_hands,
    showdown_order,
)
from matchdb.solver.layout import (
    MAX_RIVERS,
    Flat,
    KBuffers,
    KCards,
    KLayout,
    KScratch,
    KTree,
    Layout,
    Params,
    check_memory,
    default_memory_limit,
    flatten,
    make_buffers,
    make_cards,
    make_layout,
    make_scratch,
    memory_estimate,
    terminal_lists,
)
from matchdb.solver.sizes import SolverError
from matchdb.solver.tree import ActionTree, SizesLike, TreeOptions, build_tree, donk_sizes, street_sizes

__all__ = ["TableReader", "Spot", "SolveStats", "prepare", "run", "discounts", "exploitability", "values"]

UPDATE, BEST, AVERAGE = 0, 1, 2


class TableReader(Protocol):
    """Anything with ``.table(index)`` (the match table of flop ``index``): what a solve reads its table from.

    :class:`matchdb.MatchDB` is one. Not to be confused with :class:`matchdb.play.sources.TableSource`, which
    names where the bots' hand strengths come from.
    """

    def table(self, index: int) -> np.ndarray: ...


@dataclass
class SolveStats:
    """How a solve went: iterations run, seconds, exploitability in chips (and the history of its checks)."""

    iterations: int = 0
    seconds: float = 0.0
    exploitability: float = float("nan")
    history: list[tuple[int, float]] = field(default_factory=list)


@dataclass(kw_only=True)
class Spot:
    """A prepared spot: the question, its tree and cards, and the kernels' structures (see :mod:`matchdb.solver.layout`)."""

    options: TreeOptions
    tree: ActionTree
    flat: Flat
    board: tuple[int, ...]
    ranges: tuple[str, str]
    hands: tuple[Hands, Hands]
    deals: list[Deal]
    turn_cards: list[int]
    river_cards: list[list[int]]
    runouts: dict[tuple[int, int], int]
    numcomb: float
    layout: Layout
    memory: int
    compressed: bool
    threads: int
    kspot: tuple[Any, ...] = ()  # (KTree, KCards, KLayout) once allocated
    bufs: Any = None
    scratch: Any = None
    alpha: float = 1.5
    beta: float = 0.5
    gamma: float = 3.0
    flop_index: int = -1
    table: Any = None
    table_sha256: str = ""
    load_seconds: float = 0.0

    @property
    def street(self) -> int:
        return len(self.board) - 3

    def weights(self, player: int) -> np.ndarray:
        """The player's starting weights as the kernels take them (zeros past their hands)."""
        weights: np.ndarray = self.kspot[1].weights[player]
        return weights


def _threads(threads: int | None) -> int:
    import numba

    if threads is None:
        return int(numba.get_num_threads())
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # numba sets its config at import
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
        raise SolverError(f"threads is {threads!r}; expected a whole number 1..{most}.")
    return threads


def prepare(source: TableReader | Callable[[int], np.ndarray], oop: RangeLike, ip: RangeLike, board: CardsLike,
            pot: int, stack: int, bet: SizesLike = "", raise_: SizesLike = "", *, donk: SizesLike = None,
            rake: float = 0.0, rake_cap: float = 0.0, add_allin: float = 1.5, force_allin: float = 0.15,
            merge: float = 0.1, compressed: bool = False, max_memory: int | None = None,
            threads: int | None = None) -> Spot:
    """Check the question and build its spot; refuse it before allocating when the estimate is over ``max_memory``
    bytes (default :func:`matchdb.solver.layout.default_memory_limit`)."""
    cards = parse_board(board)
    options = TreeOptions(
        street=len(cards) - 3, pot=pot, stack=stack, sizes=street_sizes(bet, raise_), donk=donk_sizes(donk),
        add_allin=add_allin, force_allin=force_allin, merge=merge, rake_rate=rake, rake_cap=rake_cap,
    )
    w_oop = range_weights(oop)
    w_ip = range_weights(ip)
    hands = (range_hands(oop if isinstance(oop, str) else w_oop, cards, "OOP range"),
             range_hands(ip if isinstance(ip, str) else w_ip, cards, "IP range"))
    numcomb = num_combinations(*hands)
    if numcomb <= 0:
        raise RangeError(f"Every OOP hand of {describe_range(oop)!r} shares a card with every IP hand of "
                         f"{describe_range(ip)!r} on {format_cards(cards)!r}; expected at least one deal of both.")
    if not isinstance(compressed, bool):
        raise SolverError(f"compressed is {compressed!r}; expected True or False.")
    tree = build_tree(options)
    flat = flatten(tree)
    deals = deals_of(cards, w_oop, w_ip)
    if len(cards) == 3:
        turns = list(deals[0].cards)
        rivers = [list(d.cards) for d in deals[1:]]
    elif len(cards) == 4:
        turns, rivers = [cards[3]], [list(deals[0].cards)]
    else:
        turns, rivers = [cards[3]], [[cards[4]]]
    runouts: dict[tuple[int, int], int] = {}
    for t, riv in zip(turns, rivers, strict=True):
        for r in riv:
            runouts.setdefault((min(t, r), max(t, r)), len(runouts))
    counts = (len(hands[0]), len(hands[1]))
    n_river = np.array([len(r) for r in rivers], dtype=np.int32)
    layout = make_layout(flat, counts, options.street, len(turns), n_river)
    nthreads = _threads(threads)
    if options.street == 2:  # a river deals no card: nothing to spread over threads
        nthreads = 1
    memory = memory_estimate(flat, counts, layout.elements, layout.action_nodes, compressed, nthreads, len(runouts))
    limit = default_memory_limit() if max_memory is None else max_memory
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit <= 0:
        raise SolverError(f"max_memory is {max_memory!r}; expected a positive number of bytes.")
    check_memory(memory, int(limit))
    return Spot(options=options, tree=tree, flat=flat, board=cards, ranges=(describe_range(oop), describe_range(ip)),
                hands=hands, deals=deals, turn_cards=turns, river_cards=rivers, runouts=runouts, numcomb=numcomb,
                layout=layout, memory=memory, compressed=compressed, threads=nthreads)


def allocate(spot: Spot, source: TableReader | Callable[[int], np.ndarray], show_progress: bool = False) -> None:
    """Read the flop's table, sort every runout's hands, and allocate the numbers and working rows; with
    ``show_progress``, say so when the solver's kernels compile (their first use on a machine)."""
    read = source.table if hasattr(source, "table") else source
    index, _ = canonical_frame(spot.board)
    table = np.asarray(read(index))
    spot.table = table
    spot.flop_index = index
    spot.table_sha256 = hashlib.sha256(np.ascontiguousarray(table).tobytes()).hexdigest()
    ordered = sorted(spot.runouts.items(), key=lambda item: item[1])
    showdown = showdown_order(lambda _: table, spot.board, spot.hands, [pair for pair, _ in ordered])
    kcards = KCards(*make_cards(spot.hands, spot.board, spot.deals, showdown, spot.runouts))
    flat = spot.flat
    sub_first = np.zeros(flat.n_subtrees + 1, dtype=np.int64)
    sub_first[1:] = np.cumsum([len(m) for m in flat.sub_nodes])
    exit_first = np.zeros(flat.n_subtrees + 1, dtype=np.int64)
    exit_first[1:] = np.cumsum([len(e) for e in flat.exits])
    folds, showdowns = terminal_lists(flat)

    def csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        first = np.zeros(len(lists) + 1, dtype=np.int64)
        first[1:] = np.cumsum([len(x) for x in lists])
        return first, np.array([k for x in lists for k in x] or [0], dtype=np.int64)

    options = spot.options
    ktree = KTree(
        flat.kind, flat.player, flat.street, flat.pot, flat.nact, flat.child, spot.layout.offsets, flat.lnode, flat.pos,
        flat.sub, flat.next_sub, sub_first, np.array([k for m in flat.sub_nodes for k in m], dtype=np.int64),
        np.array(flat.sub_street, dtype=np.int64), exit_first,
        np.array([k for e in flat.exits for k in e] or [0], dtype=np.int64), *csr(folds), *csr(showdowns),
        float(options.rake_rate), float(options.rake_cap), float(spot.numcomb),
    )
    klayout = KLayout(*spot.layout.klayout)
    spot.kspot = (ktree, kcards, klayout)
    spot.bufs = KBuffers(*make_buffers(spot.layout.elements, spot.layout.action_nodes, spot.compressed))
    spot.scratch = KScratch(*make_scratch(flat, int(kcards.n.max())))
    began = time.perf_counter()
    if show_progress and not compiled_before(_kernels().iterate):
        logger.info("compiling the solver's kernels: once per machine, about a minute")
    nothing = _plan(spot, 0, 0, 0.0, 0.0, 0, raked=False, check_first=False)  # no iteration, no check
    _kernels().iterate(*spot.kspot, spot.bufs, spot.scratch, nothing, np.zeros((3, 2)))
    spot.load_seconds = time.perf_counter() - began  # numba reading (or compiling) the kernels, not solving


def discounts(t: int, alpha: float = 1.5, gamma: float = 3.0) -> tuple[float, float, float]:
    """DCFR's (positive regret, negative regret, summed strategy) discounts at iteration ``t`` (from 0), as float32."""
    return tuple(float(x) for x in _kernels().discounts(int(t), float(alpha), float(gamma)))  # type: ignore[return-value]


def values(spot: Spot, mode: int, player: int, at: tuple[int, int, int] = (0, 0, 0), reach: np.ndarray | None = None,
           params: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """One traversal for ``player`` of subtree instance ``at`` (default the whole game) from the opponent's
    ``reach`` at its root (default their starting weights): its nodes' values, a row per node position."""
    traverse = _kernels().traverse
    if reach is None:
        reach = spot.weights(1 - player)
    prm = Params(int(mode), int(player), np.float32(params[0]), np.float32(params[1]), np.float32(params[2]),
                 int(spot.threads))
    _set_threads(spot.threads)
    traverse(*spot.kspot, spot.bufs, prm, spot.scratch, (int(at[0]), int(at[1]), int(at[2])), reach)
    street = spot.flat.sub_street[at[0]]
    scratch = spot.scratch
    found: np.ndarray = scratch.V_river[-1] if street == 2 else scratch.V_turn[-1] if street == 1 else scratch.V_flop
    return found


def _kernels() -> ModuleType:
    """The compiled code (:mod:`matchdb.solver._kernels.cfr`), loaded (numba) on first use."""
    from matchdb.solver._kernels import cfr

    return cfr


def _set_threads(threads: int) -> None:
    import numba

    if numba.get_num_threads() != threads:
        numba.set_num_threads(threads)


def _plan(spot: Spot, start: int, stop: int, expl: float, target: float, last: int, *, raked: bool,
          check_first: bool) -> np.ndarray:
    """The ``plan`` array :func:`matchdb.solver._kernels.cfr.iterate` reads (its docstring names the entries)."""
    return np.array([start, stop, expl, target, last, spot.alpha, spot.gamma, float(raked), float(check_first),
                     spot.threads])


def exploitability(spot: Spot) -> float:
    """How much a best response gains against the average strategy, in chips: the mean over both players of
    (best response's value - the strategy's value); without rake the game is zero-sum and this is the mean of
    the two best responses' values (postflop-solver's ``compute_exploitability``)."""
    _set_threads(spot.threads)
    check_only = _plan(spot, 0, 0, math.inf, -math.inf, 0, raked=spot.options.raked, check_first=True)
    _, expl, _ = _kernels().iterate(*spot.kspot, spot.bufs, spot.scratch, check_only, np.zeros((1, 2)))
    return float(expl)


def run(spot: Spot, target: float, max_iterations: int = 1000, show_progress: bool = False,
        stats: SolveStats | None = None, start: int = 0,
        on_check: Callable[[int, float], object] | None = None) -> SolveStats:
    """Iterate DCFR on an allocated spot until the exploitability is at most ``target`` chips (checked before the
    first iteration and after every tenth) or ``max_iterations`` have run. The loop runs compiled: in one call
    when nobody follows it, else ten iterations per call (one exploitability check), so that a progress bar can
    follow it; ``on_check`` is then called with (iterations done, exploitability in chips) after each call (an
    exception it raises stops the solve). A call from Python costs a fraction of a millisecond, more than an
    iteration of a river spot."""
    dcfr = _kernels()
    stats = stats or SolveStats()
    _set_threads(spot.threads)
    began = time.perf_counter()
    done = start
    last = start + max_iterations
    step = 10 if show_progress or on_check is not None else max(max_iterations, 1)
    history = np.zeros((step // 10 + 3, 2))
    expl = math.inf
    chunks = range(start, max(last, start + 1), step)
    for first in progress(chunks, len(chunks), "solving", unit=f"{step} iterations", enabled=show_progress):
        if expl <= target:
            break
        plan = _plan(spot, first, min(first + step, last), expl, target, last, raked=spot.options.raked,
                     check_first=first == start)
        done, expl, checks = dcfr.iterate(*spot.kspot, spot.bufs, spot.scratch, plan, history)
        stats.history.extend((int(history[c, 0]), float(history[c, 1])) for c in range(checks))
        if on_check is not None:
            on_check(int(done), float(expl))
    stats.iterations = int(done)
    stats.seconds += time.perf_counter() - began
    stats.exploitability = float(expl)
    if show_progress:
        logger.info("exploitability %.4g chips (%.3f %% of the pot) after %d iterations, %.1f s", expl,
                    100 * expl / spot.options.pot, done, stats.seconds)
    return stats


__all__ += ["allocate", "MAX_RIVERS"]
