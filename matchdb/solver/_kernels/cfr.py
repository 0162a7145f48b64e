"""The solver's compiled code: rows of hands, folds and showdowns, the traversal of the game tree (a DCFR update,
a best response, or the values of the average strategy) and the DCFR loop (private: :mod:`matchdb.solver.solve`
and :mod:`matchdb.solver.solution` call it).

One module on purpose: numba's disk cache of a function is invalidated only when the function's own source file
changes, not when a function it calls in another file does, so code that calls each other lives in one file.

**Rows.** Operations on rows of hands, one simple loop each over 1-D arrays, so that the compiler vectorises them.

**Ends of the game.** A value is the player's chips won, per deal weight, times the opponent's reach of every
hand that shares no card with theirs or the board: card removal by inclusion and exclusion (the opponent's total
reach, less the reach of the hands holding either of the player's two cards, plus that of the very same hand,
which was taken away twice). A showdown is one linear sweep over both players' hands sorted by strength.

**The traversal.** A street subtree is traversed in two sweeps over its nodes in preorder: down, the opponent's
reach of each node (its reach at the parent times its strategy's share of the action); then up, in reverse, the
player's value of each node (a fold or a showdown from the opponent's reach there, a deal from the next street's
subtrees, an action node from its children's values). Between the two, the values of the subtree's deals are
computed: for each card dealt (one of each isomorphic pair), the next street's subtree with the reach divided by
the cards that can come (45 turns, 44 rivers); a card dealt as another's image takes that card's values with the
suits swapped. The top of a traversal spreads the deals below its subtree over the threads (:func:`traverse`);
below that each thread works on its own rows. Functions take the spot (the layout's ``KTree``, ``KCards``,
``KLayout`` as one tuple), the numbers (``KBuffers``), the traversal's ``Params``, and working rows.

**Calls.** numba passes a tuple by copying each of its arrays' fields onto the stack (the spot and rows are some
ninety arrays), and counts a reference on each array a variable takes. So a river subtree instance, valued
thousands of times an iteration, has its traversal copied in (:data:`top_down_here`), the kernels below it are
given only the arrays they read, and :func:`iterate` borrows every array (:func:`_borrowed`): reference counts on
Python's arrays are atomic operations, which the threads contend for. Together with the folds' and showdowns'
lanes as vectors (:func:`_add_lanes`), this took the public turn spot from 1.30 to 0.88 s on one thread. The
lanes' rows start at a cache line (:func:`_from_boundary`), else each vector of them is read from two lines.

**Threads.** The deals below the subtree a traversal starts at are jobs the threads take one at a time
(:func:`_take_job`), each writing its values to a row of its own; they are summed in one order afterwards, so
that the numbers do not depend on the threads or on which thread took which job.

**The loop.** A call from Python costs a fraction of a millisecond (numba checks every array it is given), more
than a whole iteration of a small river spot: :func:`iterate` runs iterations, discounts and exploitability
checks without returning to Python.

**Compile time.** numba compiles a kernel with every kernel it calls linked in and optimised once more, so each
level of calls above the traversal costs as much as the traversal itself. The thin levels (a subtree instance, a
river or turn pass) are copied into their callers (:func:`matchdb.jit.jit_inline`), and the exploitability is
computed inside :func:`iterate`. Copying the river instance's traversal in (three times: :func:`_jobs`' rivers,
:func:`turn_pass`' and a river spot's in :func:`traverse`) costs compile time: about 45 s of processor time on
the 2-core machine instead of 27 (the third copy 5 s of it, for a river spot 8 % faster: 1.33 -> 1.23 ms,
postflop-solver's 1.27).
:func:`_jobs` stays a kernel of its own: copied into the parallel loop of :func:`traverse`, its answers were wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from matchdb.jit import jit, jit_inline, jit_parallel
from matchdb.solver.layout import KScratch, Params

# copies of matchdb.solver.layout's constants, not imports: numba's disk cache of a kernel is invalidated by
# this file's changes only (tests/solver/test_tree.py checks that the copies agree)
ACTION, FOLD, SHOWDOWN, CHANCE = 0, 1, 2, 3
MAX_RIVERS = 48
LANES = 8
ALIGNMENT = 64
UPDATE, BEST, AVERAGE = 0, 1, 2


# -- rows -------------------------------------------------------------------------------------------------

@jit
def fill_row(dst, value, n):
    for i in range(n):
        dst[i] = value


@jit
def copy_row(dst, src, n):
    for i in range(n):
        dst[i] = src[i]


@jit
def add_row(dst, src, n):
    for i in range(n):
        dst[i] += src[i]


@jit
def max_row(dst, src, n):
    for i in range(n):
        dst[i] = max(dst[i], src[i])


@jit
def product_row(dst, a, b, n):
    """``dst = a * b``."""
    for i in range(n):
        dst[i] = a[i] * b[i]


@jit
def add_product_row(dst, a, b, n):
    """``dst += a * b``."""
    for i in range(n):
        dst[i] += a[i] * b[i]


@jit
def positive_part(dst, src, first, total, n):
    """``dst = max(src[first:first + n], 0)`` and ``total += dst``: regret matching's numerators and their sum.
    ``src`` is read in place: a slice of an array the threads share would count a reference on it, an atomic
    operation every thread contends for."""
    zero = np.float32(0.0)
    for i in range(n):
        x = np.float32(src[np.uint64(first + i)])  # unsigned: no check for an index counted from the end
        x = x if x > zero else zero
        dst[i] = x
        total[i] += x


@jit
def with_total(dst, src, first, total, n):
    """``dst = src[first:first + n]`` and ``total += dst``, read in place (see :func:`positive_part`)."""
    for i in range(n):
        x = np.float32(src[np.uint64(first + i)])
        dst[i] = x
        total[i] += x


@jit
def share(dst, total, n, even):
    """``dst /= total``, or ``even`` where the total is 0."""
    for i in range(n):
        t = total[i]
        dst[i] = dst[i] / t if t != 0.0 else even


@jit
def discount_sum(summed, first, current, gamma, n):
    """The summed strategy ``summed[first:first + n]``: ``summed * gamma + current``, in place (see
    :func:`positive_part`)."""
    for i in range(n):
        k = np.uint64(first + i)
        summed[k] = summed[k] * gamma + current[i]


@jit
def discount_regret(regret, first, action, node, alpha, beta, n):
    """Regrets ``regret[first:first + n]``: ``regret * (alpha if regret >= 0 else beta) + action's value - node's
    value``, in place (see :func:`positive_part`)."""
    for i in range(n):
        k = np.uint64(first + i)
        x = regret[k]
        regret[k] = x * (alpha if x >= 0.0 else beta) + action[i] - node[i]


# -- borrowed arrays -------------------------------------------------------------------------------

#: numba's ``intrinsic``, typed for mypy as giving what kernels call with their own arguments (mypy would check the
#: calls against the typing function's, which take numba's typing context first).
_intrinsic = cast(Callable[[Callable[..., Any]], Any], intrinsic)


def _borrow(context: Any, builder: Any, typ: Any, value: Any) -> Any:
    """``value`` with every array in it (through tuples) made a borrowed one: no memory manager, so that numba's
    reference counts on it (and on views of it) are a test for null, not an atomic operation."""
    if isinstance(typ, types.Array):
        array = context.make_array(typ)(context, builder, value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    tuple_type: Any = typ  # numba's annotations do not name a tuple type's members
    if isinstance(typ, types.BaseTuple):
        for i, member in enumerate(tuple_type.types):
            value = builder.insert_value(value, _borrow(context, builder, member, builder.extract_value(value, i)), i)
    return value


@_intrinsic
def _borrowed(typingctx: Any, value: Any) -> Any:
    """``value`` (an array or a tuple holding arrays) with its arrays borrowed: their memory stays the caller's,
    which must keep them alive while the result is used. numba counts a reference on an array each time a
    variable takes it (an argument, a member of a tuple unpacked, a view): on arrays from Python each count is an
    atomic operation (about 190 of them per river subtree valued, a sixth of the solve's time), and on arrays
    the threads share the threads contend for it."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _borrow(context, builder, sig.args[0], args[0])

    return value(value), codegen


@_intrinsic
def _keep_alive(typingctx: Any, value: Any) -> Any:
    """Nothing, but a use of ``value``: numba frees an array after its variable's last use, so a kernel that
    borrows its own arrays (:func:`_borrowed`) names them here once it is done with them."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return context.get_dummy_value()

    return types.void(value), codegen


@_intrinsic
def _take_job(typingctx: Any, counter: Any) -> Any:
    """``counter[0]`` before adding 1 to it, as one atomic operation: the next job for the thread that asks, so
    that threads share a loop's jobs as they come free (a thread slowed by the machine takes fewer)."""
    if not isinstance(counter, types.Array) or counter.dtype != types.int64:
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        first = context.make_array(sig.args[0])(context, builder, args[0]).data
        return builder.atomic_rmw("add", first, ir.Constant(ir.IntType(64), 1), "monotonic")

    return types.int64(counter), codegen


@_intrinsic
def _from_boundary(typingctx: Any, raw: Any, n: Any) -> Any:
    """The ``n`` numbers of 1-D ``raw`` from its first 64-byte boundary (``raw`` holds 64 bytes more), borrowed
    (the caller keeps ``raw`` alive): lanes read as whole cache lines, since numba allocates at 32 bytes (see
    :func:`matchdb.solver.layout.aligned_zeros`)."""
    if not isinstance(raw, types.Array) or raw.ndim != 1 or raw.layout != "C":
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array = context.make_array(sig.args[0])(context, builder, args[0])
        word = context.get_value_type(types.intp)
        address = builder.ptrtoint(array.data, word)
        start = builder.and_(builder.add(address, word(ALIGNMENT - 1)), word(-ALIGNMENT))
        size = context.get_abi_sizeof(context.get_data_type(sig.args[0].dtype))
        out = context.make_array(sig.return_type)(context, builder)
        populate_array(out, data=builder.inttoptr(start, array.data.type), shape=[args[1]], strides=[word(size)],
                       itemsize=word(size), meminfo=None)
        return out._getvalue()

    return raw(raw, types.intp), codegen


# -- lanes -----------------------------------------------------------------------------------------
# Folds and showdowns valued together keep a number per lane in rows of ``LANES`` numbers (see :func:`fold_lanes`).
# numba leaves a loop over the lanes scalar (its SLP vectoriser is off: numba PR 8852), so the lanes are added
# and multiplied as one LLVM vector each; each lane's arithmetic is the scalar code's, in the same order.


def _lanes_at(context: Any, builder: Any, array_type: Any, array: Any, first: Any) -> tuple[Any, Any]:
    """A pointer to the ``LANES`` numbers of 1-D ``array`` from ``first``, typed as one vector, and the vector's
    type."""
    data = context.make_array(array_type)(context, builder, array).data
    element = context.get_data_type(array_type.dtype)
    vector = ir.VectorType(element, LANES)
    at = builder.gep(data, [first], source_etype=element)
    return builder.bitcast(at, vector.as_pointer()), vector


def _load_lanes(context: Any, builder: Any, array_type: Any, array: Any, first: Any) -> Any:
    at, vector = _lanes_at(context, builder, array_type, array, first)
    return builder.load(at, typ=vector, align=array_type.dtype.bitwidth // 8)


@_intrinsic
def _add_lanes(typingctx: Any, work: Any, gather: Any, g: Any, total: Any, a: Any, b: Any) -> Any:
    """``work[x:x + LANES] += gather[g:g + LANES]`` (float32 made float64) for x in ``total``, ``a`` and ``b``:
    a hand's reach at each lane added to the lanes' totals and to its two cards' sums."""
    u64 = types.uint64
    signature = types.void(work, gather, u64, u64, u64, u64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        rows, reach, g_at, *at = args
        wide = ir.VectorType(ir.DoubleType(), LANES)
        x = builder.fpext(_load_lanes(context, builder, sig.args[1], reach, g_at), wide)
        for first in at:
            row, _ = _lanes_at(context, builder, sig.args[0], rows, first)
            builder.store(builder.fadd(builder.load(row, typ=wide, align=8), x), row, align=8)
        return context.get_dummy_value()

    return signature, codegen


@_intrinsic
def _lane_values(typingctx: Any, work: Any, out: Any, scale: Any, total: Any, gather: Any, g: Any, a: Any,
                 b: Any) -> Any:
    """``work[out:out + LANES] = scale * (total + gather[g:g + LANES] - a - b)``, each but ``gather`` (float32 made
    float64) a row of ``work`` from the offset given: a hand's value at each lane from the lanes' payoffs, the
    opponent's total reach, the reach of the very same hand (taken away twice below; zeros where none is) and
    the sums of the hand's two cards."""
    u64 = types.uint64
    signature = types.void(work, u64, u64, u64, gather, u64, u64, u64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        rows, out_at, scale_at, total_at, reach, g_at, a_at, b_at = args
        held = builder.fpext(_load_lanes(context, builder, sig.args[4], reach, g_at), ir.VectorType(ir.DoubleType(), LANES))
        return _store_values(context, builder, sig.args[0], rows, out_at, scale_at, total_at, held, a_at, b_at)

    return signature, codegen


@_intrinsic
def _showdown_lane_values(typingctx: Any, work: Any, out: Any, scale: Any, total: Any, a: Any, b: Any) -> Any:
    """:func:`_lane_values` where no hand of the opponent is the very same hand (a showdown's sums hold only
    hands strictly weaker, or strictly stronger): ``scale * (total - a - b)``."""
    u64 = types.uint64
    signature = types.void(work, u64, u64, u64, u64, u64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        rows, out_at, scale_at, total_at, a_at, b_at = args
        return _store_values(context, builder, sig.args[0], rows, out_at, scale_at, total_at, None, a_at, b_at)

    return signature, codegen


@_intrinsic
def _showdown_lane_totals(typingctx: Any, work: Any, out: Any, scale: Any, total: Any, a: Any, b: Any) -> Any:
    """``work[out:out + LANES] = f32(work[out:...]) + f32(scale * (total - a - b))``: a hand's value lost (the
    down sweep's, see :func:`_showdown_lane_values`) added to its value won, as float32 like the scalar code's
    (kept in float64: exactly the float32 sum)."""
    u64 = types.uint64
    signature = types.void(work, u64, u64, u64, u64, u64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        rows, out_at, scale_at, total_at, a_at, b_at = args
        array = sig.args[0]
        lost = _values(context, builder, array, rows, scale_at, total_at, None, a_at, b_at)
        narrow = ir.VectorType(ir.FloatType(), LANES)
        won = builder.fptrunc(_load_lanes(context, builder, array, rows, out_at), narrow)
        at, vector = _lanes_at(context, builder, array, rows, out_at)
        builder.store(builder.fpext(builder.fadd(won, builder.fptrunc(lost, narrow)), vector), at, align=8)
        return context.get_dummy_value()

    return signature, codegen


def _values(context: Any, builder: Any, array: Any, rows: Any, scale_at: Any, total_at: Any, held: Any, a_at: Any,
            b_at: Any) -> Any:
    """The lanes' ``scale * (total + held - a - b)`` (``held`` None: nothing added back), as one vector."""
    scale_, total_, a_, b_ = (_load_lanes(context, builder, array, rows, first)
                              for first in (scale_at, total_at, a_at, b_at))
    if held is not None:
        total_ = builder.fadd(total_, held)
    return builder.fmul(scale_, builder.fsub(builder.fsub(total_, a_), b_))


def _store_values(context: Any, builder: Any, array: Any, rows: Any, out_at: Any, scale_at: Any, total_at: Any,
                  held: Any, a_at: Any, b_at: Any) -> Any:
    """The code of :func:`_lane_values`: :func:`_values` stored at ``out_at``."""
    at, _ = _lanes_at(context, builder, array, rows, out_at)
    builder.store(_values(context, builder, array, rows, scale_at, total_at, held, a_at, b_at), at, align=8)
    return context.get_dummy_value()


@_intrinsic
def _any_lane(typingctx: Any, gather: Any, g: Any) -> Any:
    """Whether any of ``gather[g:g + LANES]`` is not 0."""
    signature = types.boolean(gather, types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        lanes = _load_lanes(context, builder, sig.args[0], args[0], args[1])
        nonzero = builder.fcmp_unordered("!=", lanes, ir.Constant(lanes.type, None))
        bits = builder.bitcast(nonzero, ir.IntType(LANES))
        return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(LANES), 0))

    return signature, codegen


# -- ends of the game ------------------------------------------------------------------------------

@jit
def showdown_values_tied(cards, player, runout, win, tie, lose, reach, out):
    """Showdown where a tie has a value (rake): one upward pass keeps the reach below and below-or-equal."""
    opp = 1 - player
    for i in range(cards.n[player]):
        out[i] = 0.0
    p0, p1 = cards.sd_start[player, runout], cards.sd_start[player, runout + 1]
    o0, o1 = cards.sd_start[opp, runout], cards.sd_start[opp, runout + 1]
    minus = np.zeros(52)
    total = 0.0
    for j in range(o0, o1):
        h = cards.sd_order[opp, j]
        r = reach[h]
        total += r
        minus[cards.cards[opp, h, 0]] += r
        minus[cards.cards[opp, h, 1]] += r
    below = np.zeros(52)
    upto = np.zeros(52)
    total_below = 0.0
    total_upto = 0.0
    j = o0
    k = o0
    for q in range(p0, p1):
        s = cards.sd_strength[player, q]
        while j < o1 and cards.sd_strength[opp, j] < s:
            h = cards.sd_order[opp, j]
            r = reach[h]
            total_below += r
            below[cards.cards[opp, h, 0]] += r
            below[cards.cards[opp, h, 1]] += r
            j += 1
        if k < j:
            k = j
            total_upto = total_below
            for c in range(52):  # a loop, not upto[:] = below: a slice assignment compiles seconds of error text
                upto[c] = below[c]
        while k < o1 and cards.sd_strength[opp, k] <= s:
            h = cards.sd_order[opp, k]
            r = reach[h]
            total_upto += r
            upto[cards.cards[opp, h, 0]] += r
            upto[cards.cards[opp, h, 1]] += r
            k += 1
        i = cards.sd_order[player, q]
        c0, c1 = cards.cards[player, i, 0], cards.cards[player, i, 1]
        sh = cards.same[player, i]
        same = reach[sh] if sh >= 0 else 0.0
        r_below = total_below - below[c0] - below[c1]
        r_upto = total_upto - upto[c0] - upto[c1] + same
        r_all = total - minus[c0] - minus[c1] + same
        out[i] = win * r_below + tie * (r_upto - r_below) + lose * (r_all - r_upto)


@jit
def fold_values(hands, p, board, payoff, R, row, V, at, minus):
    """The values of one fold (``payoff`` per unit of reach ``R[row]``, into ``V[at]``): the peer's sweep, one pass
    over the opponent's hands for their total reach and its 52 sums per card (float64, in registers and a short
    row; hands out of reach skipped), one over the player's. Card indices are unsigned (no check for wrapping
    around) and no row is taken as a view of its own (each view counts a reference, an atomic operation)."""
    n, mask, hand_cards, same = hands
    opp = 1 - p
    for c in range(52):
        minus[c] = 0.0
    total = 0.0
    for j in range(n[opp]):
        x = np.float64(R[row, j])
        if x == 0.0 or mask[opp, j] & board:
            continue
        total += x
        minus[np.uint64(hand_cards[opp, j, 0])] += x
        minus[np.uint64(hand_cards[opp, j, 1])] += x
    for i in range(n[p]):
        if mask[p, i] & board:
            V[at, i] = 0.0
            continue
        sh = same[p, i]
        held = np.float64(R[row, np.uint32(sh)]) if sh >= 0 else 0.0
        V[at, i] = payoff * (total + held - minus[np.uint64(hand_cards[p, i, 0])]
                             - minus[np.uint64(hand_cards[p, i, 1])])


@jit
def fold_lanes(hands, p, board, R, V, m, rows, ats, G, work, keep):
    """The values of ``m`` (at most ``LANES``) folds at once, lane ``s`` from reach row ``rows[s]`` of R into row
    ``ats[s]`` of V with payoff ``work[53 * LANES + s]``: :func:`fold_values`'s sums, each lane's in the same order,
    one pass over the opponent's hands for all of them. The opponent's reach is first copied into ``G``, a number
    per hand and lane (0 in lanes from ``m``), then a vector of lanes at a time is added, for the hands in reach of
    some lane (``keep``: the others would add zeros). ``work`` holds a number per (row, lane): rows 0-51 the
    reach per card, 52 the total, 53 the payoffs, from 56 each of the player's hands' values."""
    n, mask, hand_cards, same = hands
    opp = 1 - p
    width = np.uint64(LANES)
    total, payoff, out = np.uint64(52) * width, np.uint64(53) * width, np.uint64(56) * width
    n_opp = n[opp]
    for s in range(LANES):
        lane = np.uint64(s)
        if s < m:
            row = rows[s]
            for j in range(n_opp):
                G[np.uint64(j) * width + lane] = R[row, j]
        else:
            for j in range(n_opp):
                G[np.uint64(j) * width + lane] = 0.0
    none = np.uint64(n_opp) * width  # zeros: the reach of the very same hand where the opponent has none
    for s in range(LANES):
        G[none + np.uint64(s)] = 0.0
    kept = 0
    for j in range(n_opp):
        keep[kept] = j
        kept += (mask[opp, j] & board) == 0 and _any_lane(G, np.uint64(j) * width)
    for c in range(53 * LANES):
        work[c] = 0.0
    for k in range(kept):
        j = keep[k]
        a, b = np.uint64(hand_cards[opp, j, 0]) * width, np.uint64(hand_cards[opp, j, 1]) * width
        _add_lanes(work, G, np.uint64(j) * width, total, a, b)
    for i in range(n[p]):
        at = out + np.uint64(i) * width
        if mask[p, i] & board:
            for s in range(LANES):
                work[at + np.uint64(s)] = 0.0
            continue
        sh = same[p, i]
        held = np.uint64(sh) * width if sh >= 0 else none
        a, b = np.uint64(hand_cards[p, i, 0]) * width, np.uint64(hand_cards[p, i, 1]) * width
        _lane_values(work, at, payoff, total, G, held, a, b)
    for s in range(m):
        row = ats[s]
        lane = out + np.uint64(s)
        for i in range(n[p]):
            V[row, i] = work[lane + np.uint64(i) * width]


@jit_inline
def batch_folds(tree, cards, prm, inst, rows, board):
    """The values of every fold of a subtree instance: one at a time (:func:`fold_values`) where it has one,
    else ``LANES`` at a time (:func:`fold_lanes`)."""
    sub = inst[0]
    f0 = tree.fold_first[sub]
    count = tree.fold_first[sub + 1] - f0
    if count == 0:
        return
    R, V, src, _, _, work, index = rows
    p = prm.player
    hands = (cards.n, cards.mask, cards.cards, cards.same)  # the arrays it reads: a call copies every array given
    if count == 1:
        node = tree.folds[f0]
        at = tree.pos[node]
        fold_values(hands, p, board, _fold_payoff(tree, node, p), R, src[at], V, at, work[:52])
        return
    lane_rows, lane_ats = index[0], index[1]
    for first in range(0, count, LANES):
        m = min(LANES, count - first)
        for s in range(LANES):
            node = tree.folds[f0 + first + min(s, m - 1)]
            at = tree.pos[node]
            lane_rows[s] = src[at]
            lane_ats[s] = at
            work[53 * LANES + s] = _fold_payoff(tree, node, p)
        fold_lanes(hands, p, board, R, V, m, lane_rows, lane_ats, rows[4], work, index[2])


@jit
def _fold_payoff(tree, node, p):
    """A fold's chips to player ``p`` per unit of reach and deal weight."""
    pot = tree.pot[node]
    rake = min(pot * tree.rake_rate, tree.rake_cap)
    return (0.5 * pot - rake) / tree.numcomb if tree.player[node] != p else -0.5 * pot / tree.numcomb


@jit
def showdown_values(ranked, p, runout, win, lose, R, row, V, at, minus):
    """The values of one showdown without rake (reach ``R[row]``, values into ``V[at]``): the peer's two sweeps
    over the runout's hands sorted by strength, up (the opponent's reach below each hand) and down (above), each a
    running total and 52 sums per card in float64; opponent's hands out of reach are skipped (adding zeros changes
    no sum). Positions are unsigned, so that no index is checked for wrapping around, and the 2-D arrays are
    indexed in place: a view would count a reference (an atomic operation) each time."""
    n, sd_start, order, strength, first, second = ranked
    opp = 1 - p
    p0, p1 = sd_start[p, runout], sd_start[p, runout + 1]
    o0, o1 = sd_start[opp, runout], sd_start[opp, runout + 1]
    for i in range(n[p]):
        V[at, i] = 0.0
    for c in range(52):
        minus[c] = 0.0
    one = np.uint64(1)
    total = 0.0
    j, end = np.uint64(o0), np.uint64(o1)
    for q in range(p0, p1):
        u = np.uint64(q)
        s = strength[p, u]
        while j < end and strength[opp, j] < s:
            x = np.float64(R[row, np.uint32(order[opp, j])])
            if x != 0.0:
                total += x
                minus[first[opp, j]] += x
                minus[second[opp, j]] += x
            j += one
        V[at, np.uint32(order[p, u])] = win * (total - minus[first[p, u]] - minus[second[p, u]])
    for c in range(52):
        minus[c] = 0.0
    total = 0.0
    j, start = np.uint64(o1), np.uint64(o0)
    for q in range(p1 - 1, p0 - 1, -1):
        u = np.uint64(q)
        s = strength[p, u]
        while j > start and strength[opp, j - one] > s:
            j -= one
            x = np.float64(R[row, np.uint32(order[opp, j])])
            if x != 0.0:
                total += x
                minus[first[opp, j]] += x
                minus[second[opp, j]] += x
        h = np.uint32(order[p, u])
        V[at, h] += np.float32(lose * (total - minus[first[p, u]] - minus[second[p, u]]))


@jit
def showdown_lanes(ranked, p, runout, R, V, m, rows, ats, G, work, index):
    """The values of ``m`` (at most ``LANES``) showdowns of one runout at once, lane ``s`` from reach row
    ``rows[s]`` of R into row ``ats[s]`` of V with payoffs ``work[53 * LANES + s]`` (win) and
    ``work[54 * LANES + s]`` (lose): :func:`showdown_values`'s two sweeps, each lane's sums in the same order, the
    sorted hands read once for all of them. The opponent's reach is first copied into ``G`` in sorted order, a
    number per hand and lane (0 in lanes from ``m``), and the hands in reach of some lane listed in ``index``
    (the others would add zeros): row 2 where their lanes start in ``G``, row 4 their strength, rows 5-6 where
    their cards' sums start in ``work``. ``work`` holds a number per (row, lane): rows 0-51 the reach per card, 52
    the total, 53-54 the payoffs, from 56 the player's sorted hands' values won (after the second sweep, won and
    lost). Each lane's arithmetic is the scalar code's: a value won, one lost, each rounded to float32 and added.
    Positions are unsigned (no check for an index counted from the end)."""
    n, sd_start, order, strength, first, second = ranked
    opp = 1 - p
    p0, p1 = sd_start[p, runout], sd_start[p, runout + 1]
    o0, o1 = sd_start[opp, runout], sd_start[opp, runout + 1]
    width = np.uint64(LANES)
    one, zero = np.uint64(1), np.uint64(0)
    total, win, lose = np.uint64(52) * width, np.uint64(53) * width, np.uint64(54) * width
    n_opp, n_own = o1 - o0, p1 - p0
    won = np.uint64(56) * width
    for s in range(LANES):
        lane = np.uint64(s)
        if s < m:
            row = rows[s]
            for j in range(n_opp):
                G[np.uint64(j) * width + lane] = R[row, np.uint32(order[opp, np.uint64(o0 + j)])]
        else:
            for j in range(n_opp):
                G[np.uint64(j) * width + lane] = 0.0
    kept = zero
    for j in range(n_opp):
        u = np.uint64(o0 + j)
        at = np.uint64(j) * width
        index[2, kept] = at
        index[4, kept] = strength[opp, u]
        index[5, kept] = np.uint64(first[opp, u]) * width
        index[6, kept] = np.uint64(second[opp, u]) * width
        kept += np.uint64(_any_lane(G, at))
    for c in range(53 * LANES):
        work[c] = 0.0
    k = zero
    for q in range(n_own):
        u = np.uint64(p0 + q)
        level = np.int64(strength[p, u])
        while k < kept and index[4, k] < level:
            _add_lanes(work, G, np.uint64(index[2, k]), total, np.uint64(index[5, k]), np.uint64(index[6, k]))
            k += one
        a, b = np.uint64(first[p, u]) * width, np.uint64(second[p, u]) * width
        _showdown_lane_values(work, won + np.uint64(q) * width, win, total, a, b)
    for c in range(53 * LANES):
        work[c] = 0.0
    k = kept
    for q in range(n_own - 1, -1, -1):
        u = np.uint64(p0 + q)
        level = np.int64(strength[p, u])
        while k > zero and index[4, k - one] > level:
            k -= one
            _add_lanes(work, G, np.uint64(index[2, k]), total, np.uint64(index[5, k]), np.uint64(index[6, k]))
        a, b = np.uint64(first[p, u]) * width, np.uint64(second[p, u]) * width
        _showdown_lane_totals(work, won + np.uint64(q) * width, lose, total, a, b)
    for s in range(m):
        row = ats[s]
        for i in range(n[p]):
            V[row, i] = 0.0
    for q in range(n_own):
        h = np.uint32(order[p, np.uint64(p0 + q)])
        at = won + np.uint64(q) * width
        for s in range(m):
            V[ats[s], h] = np.float32(work[at + np.uint64(s)])


@jit_inline
def batch_showdowns(tree, cards, prm, inst, rows):
    """The values of every showdown of a river subtree instance (no rake): one at a time
    (:func:`showdown_values`) where it has one, else ``LANES`` at a time (:func:`showdown_lanes`)."""
    sub, _, _, t, r = inst
    s0 = tree.sd_first[sub]
    count = tree.sd_first[sub + 1] - s0
    if count == 0:
        return
    R, V, src, _, gather, work, index = rows
    p = prm.player
    runout = cards.runout[t, r]
    ranked = (cards.n, cards.sd_start, cards.sd_order, cards.sd_strength, cards.sd_card0, cards.sd_card1)
    if count == 1:
        node = tree.sds[s0]
        at = tree.pos[node]
        pot = tree.pot[node]
        showdown_values(ranked, p, runout, 0.5 * pot / tree.numcomb, -0.5 * pot / tree.numcomb, R, src[at], V, at,
                        work[:52])
        return
    lane_rows, lane_ats = index[0], index[1]
    for first in range(0, count, LANES):
        m = min(LANES, count - first)
        for s in range(LANES):
            node = tree.sds[s0 + first + min(s, m - 1)]
            at = tree.pos[node]
            pot = tree.pot[node]
            lane_rows[s] = src[at]
            lane_ats[s] = at
            work[53 * LANES + s] = 0.5 * pot / tree.numcomb
            work[54 * LANES + s] = -0.5 * pot / tree.numcomb
        showdown_lanes(ranked, p, runout, R, V, m, lane_rows, lane_ats, gather, work, index)


# -- the traversal ---------------------------------------------------------------------------------



@jit_inline
def instance_entry(tree, layout, sub, t, r):
    """Entry of instance (subtree ``sub``, turn index ``t``, river index ``r``) in the layout's tables."""
    street = tree.sub_street[sub]
    start = tree.sub_street[0]
    if street == start:
        return layout.inst_first[sub]
    if street == 1:
        return layout.inst_first[sub] + t
    return layout.inst_first[sub] + t * MAX_RIVERS + r


@jit
def regret_matching(regrets, count, offset, n, out):
    """:func:`node_strategy` of an unlocked node from float32 regrets (``count`` rows of ``n`` from ``offset``):
    only the arrays it reads are passed, since a call copies every array it is given (the spot's named tuples
    hold dozens)."""
    total = out[out.shape[0] - 1]
    fill_row(total, np.float32(0.0), n)
    for a in range(count):
        first = offset + a * n
        positive_part(out[a], regrets, first, total, n)
    even = np.float32(1.0) / np.float32(count)
    for a in range(count):
        share(out[a], total, n, even)


@jit
def node_strategy(tree, bufs, prm, k, base, nodes, n, out):
    """The strategy at action node ``k`` of an instance (numbers from ``base``, action nodes from ``nodes``) that
    the traversal plays: regret matching when updating, else the summed strategy normalised; locked hands keep
    their lock. ``out`` keeps one row more than the most actions: the sums."""
    count = tree.nact[k]
    offset = base + tree.loc[k]
    total = out[out.shape[0] - 1]
    fill_row(total, np.float32(0.0), n)
    for a in range(count):
        first = offset + a * n
        if prm.mode == UPDATE:
            if bufs.compressed:
                positive_part(out[a], bufs.regrets16, first, total, n)
            else:
                positive_part(out[a], bufs.regrets, first, total, n)
        elif bufs.compressed:
            with_total(out[a], bufs.strategy16, first, total, n)
        else:
            with_total(out[a], bufs.strategy, first, total, n)
    even = np.float32(1.0) / np.float32(count)
    for a in range(count):
        share(out[a], total, n, even)
    lock = bufs.lock_of[nodes + tree.lnode[k]]
    if lock >= 0:
        for a in range(count):
            for i in range(n):
                x = bufs.locks[lock + a * n + i]
                if x >= 0.0:
                    out[a, i] = x


def _top_down(spot, bufs, prm, inst, reach, rows):
    """The opponent's reach of every node of one subtree instance ``inst`` = (sub, base, nodes, t, r), from
    ``reach`` at its root, into ``rows`` = (R, V, src, strat): node at position q reads row ``src[q]`` of R."""
    tree, cards, _ = spot
    sub, base, nodes, _, _ = inst
    R, _, src, strat, _, _, _ = rows
    opp = 1 - prm.player
    n_opp = cards.n[opp]
    first = tree.sub_first[sub]
    count = tree.sub_first[sub + 1] - first
    copy_row(R[0], reach, n_opp)
    src[0] = 0
    for q in range(count):
        k = tree.sub_nodes[first + q]
        if tree.kind[k] != ACTION:
            continue
        if tree.player[k] == prm.player:
            for a in range(tree.nact[k]):
                src[tree.pos[tree.child[k, a]]] = src[q]
            continue
        if prm.mode == UPDATE and not bufs.compressed and bufs.lock_of[nodes + tree.lnode[k]] < 0:
            regret_matching(bufs.regrets, tree.nact[k], base + tree.loc[k], n_opp, strat)
        else:
            node_strategy(tree, bufs, prm, k, base, nodes, n_opp, strat)
        parent = R[src[q]]
        for a in range(tree.nact[k]):
            c = tree.pos[tree.child[k, a]]
            src[c] = c
            product_row(R[c], parent, strat[a], n_opp)


@jit
def update_plain(regrets, strategy, count, offset, n, children, V, strat, out, alpha, beta, gamma):
    """:func:`_update` of an unlocked node with float32 numbers, given only the arrays it reads."""
    product_row(out, strat[0], V[children[0]], n)
    for a in range(1, count):
        add_product_row(out, strat[a], V[children[a]], n)
    for a in range(count):
        discount_sum(strategy, offset + a * n, strat[a], gamma, n)
    for a in range(count):
        discount_regret(regrets, offset + a * n, V[children[a]], out, alpha, beta, n)


@jit
def _update(tree, bufs, prm, k, base, nodes, n, children, V, strat, out):
    """DCFR at one of the player's nodes: the node's value under the current strategy, the summed strategy
    discounted by gamma plus the current one, regrets discounted (alpha when positive, beta when not) plus
    each action's value less the node's."""
    count = tree.nact[k]
    offset = base + tree.loc[k]
    product_row(out, strat[0], V[children[0]], n)
    for a in range(1, count):
        add_product_row(out, strat[a], V[children[a]], n)
    lock = bufs.lock_of[nodes + tree.lnode[k]]
    if not bufs.compressed:
        for a in range(count):
            discount_sum(bufs.strategy, offset + a * n, strat[a], prm.gamma, n)
        for a in range(count):
            discount_regret(bufs.regrets, offset + a * n, V[children[a]], out, prm.alpha, prm.beta, n)
        return
    index = nodes + tree.lnode[k]
    decoder = prm.gamma * bufs.sscale[index] / np.float32(65535.0)
    largest = np.float32(0.0)
    for a in range(count):
        row = offset + a * n
        for i in range(n):
            x = strat[a, i] + np.float32(bufs.strategy16[row + i]) * decoder
            if lock >= 0 and bufs.locks[lock + a * n + i] >= 0.0:
                x = np.float32(0.0)
            strat[a, i] = x
            largest = max(largest, x)
    scale = largest if largest > 0.0 else np.float32(1.0)
    encoder = np.float32(65535.0) / scale
    for a in range(count):
        row = offset + a * n
        for i in range(n):
            bufs.strategy16[row + i] = np.uint16(np.int32(strat[a, i] * encoder + np.float32(0.49999997)))
    bufs.sscale[index] = largest
    alpha = prm.alpha * bufs.rscale[index] / np.float32(32767.0)
    beta = prm.beta * bufs.rscale[index] / np.float32(32767.0)
    largest = np.float32(0.0)
    for a in range(count):
        row = offset + a * n
        c = children[a]
        for i in range(n):
            y = bufs.regrets16[row + i]
            x = V[c, i] + np.float32(y) * (alpha if y >= 0 else beta) - out[i]
            if lock >= 0 and bufs.locks[lock + a * n + i] >= 0.0:
                x = np.float32(0.0)
            strat[a, i] = x
            largest = max(largest, abs(x))
    scale = largest if largest > 0.0 else np.float32(1.0)
    encoder = np.float32(32767.0) / scale
    for a in range(count):
        row = offset + a * n
        for i in range(n):
            bufs.regrets16[row + i] = np.int16(np.int32(np.round(strat[a, i] * encoder)))
    bufs.rscale[index] = largest


def _bottom_up(spot, bufs, prm, inst, rows):
    """The player's value of every node of one subtree instance, leaves first (see :func:`top_down`); the
    values of its deals must already be in their rows of V."""
    tree, cards, _ = spot
    sub, base, nodes, t, r = inst
    R, V, src, strat, _, _, index = rows
    p = prm.player
    n = cards.n[p]
    first = tree.sub_first[sub]
    count = tree.sub_first[sub + 1] - first
    children = index[3]
    street = tree.sub_street[sub]
    board = cards.board_mask if street == 0 else cards.turn_mask[t] if street == 1 else cards.river_mask[t, r]
    batch_folds(tree, cards, prm, inst, rows, board)
    raked = tree.rake_rate > 0.0 and tree.rake_cap > 0.0
    if not raked:
        batch_showdowns(tree, cards, prm, inst, rows)
    for q in range(count - 1, -1, -1):
        k = tree.sub_nodes[first + q]
        kind = tree.kind[k]
        if kind == CHANCE or kind == FOLD or (kind == SHOWDOWN and not raked):
            continue
        if kind == SHOWDOWN:
            pot = tree.pot[k]
            rake = min(pot * tree.rake_rate, tree.rake_cap)
            win = (0.5 * pot - rake) / tree.numcomb
            lose = -0.5 * pot / tree.numcomb
            showdown_values_tied(cards, p, cards.runout[t, r], win, -0.5 * rake / tree.numcomb, lose, R[src[q]], V[q])
            continue
        nact = tree.nact[k]
        for a in range(nact):
            children[a] = tree.pos[tree.child[k, a]]
        if tree.player[k] != p:
            copy_row(V[q], V[children[0]], n)
            for a in range(1, nact):
                add_row(V[q], V[children[a]], n)
            continue
        if prm.mode == BEST:
            lock = bufs.lock_of[nodes + tree.lnode[k]]
            copy_row(V[q], V[children[0]], n)
            for a in range(1, nact):
                max_row(V[q], V[children[a]], n)
            if lock >= 0:
                for i in range(n):
                    if bufs.locks[lock + i] >= 0.0:
                        x = np.float32(0.0)
                        for a in range(nact):
                            x += bufs.locks[lock + a * n + i] * V[children[a], i]
                        V[q, i] = x
            continue
        if prm.mode == UPDATE and not bufs.compressed and bufs.lock_of[nodes + tree.lnode[k]] < 0:
            offset = base + tree.loc[k]
            regret_matching(bufs.regrets, nact, offset, n, strat)
            update_plain(bufs.regrets, bufs.strategy, nact, offset, n, children, V, strat, V[q], prm.alpha, prm.beta,
                         prm.gamma)
            continue
        node_strategy(tree, bufs, prm, k, base, nodes, n, strat)
        if prm.mode == UPDATE:
            _update(tree, bufs, prm, k, base, nodes, n, children, V, strat, V[q])
        else:
            product_row(V[q], strat[0], V[children[0]], n)
            for a in range(1, nact):
                add_product_row(V[q], strat[a], V[children[a]], n)


#: :func:`_top_down` and :func:`_bottom_up` as kernels of their own (a subtree instance on the turn or flop, once
#: per thousands of rivers) and copied into the caller (each river instance, and a river spot's: a call copies
#: every array of the spot onto the stack, some ninety of them, which took longer than a small river's folds)
top_down, bottom_up = jit(_top_down), jit(_bottom_up)
top_down_here, bottom_up_here = jit_inline(_top_down), jit_inline(_bottom_up)


@jit_inline
def _instance(spot, sub, t, r):
    tree, _, layout = spot
    entry = instance_entry(tree, layout, sub, t, r)
    return (sub, layout.inst_base[entry], layout.inst_node[entry], t, r)


@jit_inline
def river_pass(spot, bufs, prm, scr, at, reach):
    """One river subtree instance ``at`` = (sub, t, r, slot) on the slot's rows; its root's value ends in
    ``scr.V_river[slot][0]`` (the last river rows for the calling thread's slot)."""
    sub, t, r, slot = at
    inst = _instance(spot, sub, t, r)
    own = min(slot, scr.R_river.shape[0] - 1)  # the calling thread shares the last river rows (never at once)
    rows = (scr.R_river[own], scr.V_river[own], scr.src_river[own], scr.strat[slot], scr.gather[slot], scr.work[slot],
            scr.index[slot])
    top_down_here(spot, bufs, prm, inst, reach, rows)
    bottom_up_here(spot, bufs, prm, inst, rows)


@jit
def _sum_deal(cards, p, out, n_cards, rep, swap, row, n_mapped, acc):
    """``acc`` = the sum over a deal's cards of their values (rows of ``out``), in float64: the cards dealt for
    themselves in order, then each card taken from another (``rep[row]``) with the suits of ``swap[row]``
    exchanged. The spot's arrays are indexed in place (no views: see :func:`positive_part`)."""
    n = cards.n[p]
    for i in range(n):  # the last card first: the order postflop-solver's sums come out in, bit for bit
        acc[i] = out[n_cards - 1, i]
    for card in range(n_cards - 2, -1, -1):
        for i in range(n):
            acc[i] += out[card, i]
    for m in range(n_mapped):
        pair, source = swap[row, m], rep[row, m]
        for i in range(n):
            acc[i] += out[source, cards.swaps[pair, p, i]]


@jit_inline
def turn_pass(spot, bufs, prm, scr, at, reach):
    """One turn subtree instance ``at`` = (sub, t, 0, slot), its rivers one after another on the slot's rows;
    its root's value ends in ``scr.V_turn[slot][0]``."""
    tree, cards, _ = spot
    sub, t, _, slot = at
    inst = _instance(spot, sub, t, np.int64(0))
    own = min(slot, scr.R_turn.shape[0] - 1)
    R, V, src = scr.R_turn[own], scr.V_turn[own], scr.src_turn[own]
    rows = (R, V, src, scr.strat[slot], scr.gather[slot], scr.work[slot], scr.index[slot])
    top_down(spot, bufs, prm, inst, reach, rows)
    p = prm.player
    n = cards.n[p]
    n_opp = cards.n[1 - p]
    divided = np.empty(n_opp, dtype=np.float32)
    below = _borrowed(divided)
    acc = scr.acc[slot]
    factor = np.float32(1.0 / 44.0)
    for x in range(tree.exit_first[sub], tree.exit_first[sub + 1]):
        c = tree.exits[x]
        qc = tree.pos[c]
        row = src[qc]
        for i in range(n_opp):
            below[i] = R[row, i] * factor
        for i in range(n):
            acc[i] = 0.0
        out = scr.deal_out[slot]
        for rr in range(cards.n_river[t]):
            river_pass(spot, bufs, prm, scr, (tree.next_sub[c], t, rr, slot), below)
            values = scr.V_river[slot][0]
            for i in range(n):
                out[rr, i] = values[i]
        _sum_deal(cards, p, out, cards.n_river[t], cards.rmap_rep, cards.rmap_swap, t, cards.rmap_n[t], acc)
        for i in range(n):
            V[qc, i] = acc[i]
    bottom_up(spot, bufs, prm, inst, rows)
    _keep_alive(divided)


@jit
def _jobs(tree, cards, layout, bufs, prm, scr, counter, where):
    """A thread's share of the deals below exits ``x0`` on of a subtree (their reach from row ``e0`` of
    ``exit_reach``): the (exit, card) jobs it takes from ``counter`` (:func:`_take_job`) until none is left, on
    rows of its own shaped like ``scr``'s; each job's values go to its row of ``job_out``, whichever thread
    computes them."""
    spot = (tree, cards, layout)
    street, t, x0, n_exits, n_cards, e0 = where
    n = cards.n[prm.player]
    n_jobs = n_exits * n_cards
    # the thread's own rows, allocated here: views of rows the threads shared would count references on one array
    # from every thread, an atomic operation they contend for (the solve took a fifth longer on 2 threads); turn
    # rows only where it traverses turns (layout.per_thread: what the memory estimate counts)
    turns = street == 0
    lanes32 = np.empty(scr.gather.shape[1] + ALIGNMENT // 4, np.float32)  # the lanes' rows from a cache line
    lanes64 = np.empty(scr.work.shape[1] + ALIGNMENT // 8, np.float64)
    turn_shape = scr.R_turn.shape[1:] if turns else (1, 1)
    mine = KScratch(scr.R_flop, scr.V_flop, scr.src_flop,
                   np.empty((1,) + turn_shape, np.float32), np.empty((1,) + turn_shape, np.float32),
                   np.empty((1, turn_shape[0]), np.int64),
                   np.empty((1,) + scr.R_river.shape[1:], np.float32), np.empty((1,) + scr.V_river.shape[1:], np.float32),
                   np.empty((1,) + scr.src_river.shape[1:], np.int64),
                   np.empty((1,) + scr.strat.shape[1:], np.float32),
                   np.empty((1, scr.acc.shape[1] if turns else 1), np.float64),
                   scr.exit_reach, scr.job_out, np.empty((1,) + scr.deal_out.shape[1:], np.float32),
                   _from_boundary(lanes32, scr.gather.shape[1]).reshape((1, scr.gather.shape[1])),
                   _from_boundary(lanes64, scr.work.shape[1]).reshape((1, scr.work.shape[1])),
                   np.zeros((1,) + scr.index.shape[1:], np.int64))
    own = _borrowed(mine)  # kept alive below
    zero = np.int64(0)
    n_opp = cards.n[1 - prm.player]
    copied = np.empty(n_opp, np.float32)  # the exit's reach copied, not a view (see :func:`positive_part`)
    reach = _borrowed(copied)
    j = _take_job(counter)
    while j < n_jobs:
        x = j // n_cards
        card = j - x * n_cards
        nsub = tree.next_sub[tree.exits[x0 + x]]
        for i in range(n_opp):
            reach[i] = scr.exit_reach[e0 + x, i]
        if street == 1:
            river_pass(spot, bufs, prm, own, (nsub, t, card, zero), reach)
            values = own.V_river[0][0]
        else:
            turn_pass(spot, bufs, prm, own, (nsub, card, zero, zero), reach)
            values = own.V_turn[0][0]
        for i in range(n):
            scr.job_out[j, i] = values[i]
        j = _take_job(counter)
    _keep_alive((mine, copied, lanes32, lanes64))


@jit_parallel
def traverse(tree, cards, layout, bufs, prm, scr, at, reach):
    """Traverse subtree instance ``at`` = (sub, t, r) from ``reach`` at its root, the deals below it spread over
    numba's threads; the values of its nodes end in the calling thread's rows (``V_river``/``V_turn`` at the last
    slot, or ``V_flop``), its root's first. The deals' values wait in ``job_out`` until summed: as many exits
    at a time as it holds (half of them, to halve its memory)."""
    spot = (tree, cards, layout)
    sub, t, r = at
    street = tree.sub_street[sub]
    top = scr.strat.shape[0] - 1
    threads = prm.threads
    if street == 2:  # a river spot: its one instance (copied here: a river spot's iteration is a few calls)
        river_pass(spot, bufs, prm, scr, (sub, t, r, top), reach)
        return
    if street == 1:
        last = scr.R_turn.shape[0] - 1
        R, V, src = scr.R_turn[last], scr.V_turn[last], scr.src_turn[last]
        factor = np.float32(1.0 / 44.0)
        n_cards = cards.n_river[t]
    else:
        R, V, src = scr.R_flop, scr.V_flop, scr.src_flop
        factor = np.float32(1.0 / 45.0)
        n_cards = cards.turn_card.shape[0]
    inst = _instance(spot, sub, t, r)
    rows = (R, V, src, scr.strat[top], scr.gather[top], scr.work[top], scr.index[top])
    top_down(spot, bufs, prm, inst, reach, rows)
    p = prm.player
    n = cards.n[p]
    n_opp = cards.n[1 - p]
    x0 = tree.exit_first[sub]
    n_exits = tree.exit_first[sub + 1] - x0
    for x in range(n_exits):
        row = src[tree.pos[tree.exits[x0 + x]]]
        for i in range(n_opp):
            scr.exit_reach[x, i] = R[row, i] * factor
    acc = scr.acc[top]
    per = max(1, scr.job_out.shape[0] // n_cards)
    counter = np.zeros(1, np.int64)
    for g0 in range(0, n_exits, per):
        g = min(per, n_exits - g0)
        where = (np.int64(street), np.int64(t), np.int64(x0 + g0), np.int64(g), np.int64(n_cards), np.int64(g0))
        counter[0] = 0
        for _ in numba.prange(threads):
            _jobs(tree, cards, layout, bufs, prm, scr, counter, where)
        for x in range(g):
            out = scr.job_out[x * n_cards : (x + 1) * n_cards]
            if street == 1:
                _sum_deal(cards, p, out, n_cards, cards.rmap_rep, cards.rmap_swap, t, cards.rmap_n[t], acc)
            else:
                _sum_deal(cards, p, out, n_cards, cards.tmap_rep.reshape(1, cards.tmap_rep.size),
                          cards.tmap_swap.reshape(1, cards.tmap_swap.size), np.int64(0), cards.tmap_rep.shape[0], acc)
            q = tree.pos[tree.exits[x0 + g0 + x]]
            for i in range(n):
                V[q, i] = acc[i]
    bottom_up(spot, bufs, prm, inst, rows)


# -- the loop --------------------------------------------------------------------------------------



@jit
def discounts(t, alpha, gamma):
    """DCFR's (positive regret, negative regret, summed strategy) discounts at iteration ``t`` (from 0), as
    postflop-solver computes them (``DiscountParams::new``)."""
    if t == 0:
        power4 = 0
    else:
        power4 = 1
        while power4 * 4 <= t:
            power4 *= 4
    ta = max(t - 1, 0)
    pa = float(ta) ** alpha
    tg = float(t - power4)
    return np.float32(pa / (pa + 1.0)), np.float32(0.5), np.float32((tg / (tg + 1.0)) ** gamma)


@jit
def _root_total(tree, cards, scr, player):
    """The player's value at the root over their starting weights, from the rows a traversal of the whole game
    left (chips less half the starting pot)."""
    street = tree.sub_street[0]
    if street == 2:
        row = scr.V_river[scr.V_river.shape[0] - 1][0]
    elif street == 1:
        row = scr.V_turn[scr.V_turn.shape[0] - 1][0]
    else:
        row = scr.V_flop[0]
    total = 0.0
    for i in range(cards.n[player]):
        total += np.float64(row[i]) * np.float64(cards.weights[player, i])
    return total


@jit
def iterate(tree, cards, layout, bufs, scr, plan, history):
    """Run iterations ``plan[0]`` up to ``plan[1]`` (exclusive) unless the exploitability ``plan[2]`` (the last
    checked; checked first when ``plan[8]`` is nonzero) is at most the target ``plan[3]``; check it after every
    tenth iteration and at ``plan[4]`` (the last iteration of the whole solve). ``plan[5]``/``plan[6]`` are alpha
    and gamma, ``plan[7]`` nonzero when raked, ``plan[9]`` the threads to spread the deals over. Each check is
    written to ``history`` as (iteration, exploitability). Returns (iterations done, exploitability, checks
    written).

    The exploitability is the mean over both players of the best response's gain over the average strategy, in
    chips (without rake, half the sum of the best responses' values). It is computed here, not in a kernel of its
    own: numba compiles every caller of :func:`traverse` with the whole of it again (an extra level costs about 6 s
    of compiling on a fresh machine), so ``traverse`` has one caller besides Python.
    """
    # every array borrowed (Python holds them): no atomic reference counts below, which the threads would contend for
    tree, cards, layout, bufs, scr = _borrowed((tree, cards, layout, bufs, scr))
    start, stop, expl, target, last = int(plan[0]), int(plan[1]), plan[2], plan[3], int(plan[4])
    alpha, gamma, raked = plan[5], plan[6], plan[7] != 0.0
    threads = np.int64(plan[9])
    zero = np.float32(0.0)
    root = (np.int64(0), np.int64(0), np.int64(0))
    done = start
    checks = 0
    check = plan[8] != 0.0
    while True:
        if check:
            best = 0.0
            own = 0.0
            for player in range(2):
                prm = Params(np.int64(BEST), np.int64(player), zero, zero, zero, threads)
                traverse(tree, cards, layout, bufs, prm, scr, root, cards.weights[1 - player])
                best += _root_total(tree, cards, scr, player)
                if raked:
                    prm = Params(np.int64(AVERAGE), np.int64(player), zero, zero, zero, threads)
                    traverse(tree, cards, layout, bufs, prm, scr, root, cards.weights[1 - player])
                    own += _root_total(tree, cards, scr, player)
            expl = 0.5 * (best - own) if raked else 0.5 * best
            history[checks, 0] = done
            history[checks, 1] = expl
            checks += 1
        if done >= stop or expl <= target:
            break
        a, b, g = discounts(done, alpha, gamma)
        for player in range(2):
            prm = Params(np.int64(UPDATE), np.int64(player), a, b, g, threads)
            traverse(tree, cards, layout, bufs, prm, scr, root, cards.weights[1 - player])
        done += 1
        check = done % 10 == 0 or done == last
    return done, expl, checks
