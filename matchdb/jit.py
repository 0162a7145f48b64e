"""The numba settings of every kernel in the package, defined once.

Kernels are cached to disk (compiled once per machine, loaded afterwards),
release the GIL, and use numpy's error model (no Python exception checks in
the hot loops; none of them divides by a value that can be zero). Importing
this module imports numba, which costs about a quarter of a second: modules
on the one-query path (cards, pairs, canonical, storage) do not import it.

Compiled once per machine, also when several processes start at once: numba's
disk cache does not stop two processes from compiling the same kernel side by
side (numba issues 4807 and 10128), which a build's Dask workers, a server's
worker processes or a test run's workers all do on a fresh machine (the
replay's kernel alone takes half a minute). So a kernel compiles under a lock
file beside its cache entry: a process that finds another compiling it waits,
then loads the other's machine code from the cache. The locks nest only down
the call graph, which has no cycles, and a process takes them one thread at a
time (under numba's own compiler lock), so they cannot deadlock.

Compiled once per type of the arguments, not per value: numba types a constant an
inner kernel is called with by its value (``Literal[int](0)``) and would compile the
kernel again for each constant (the compiled replay's ``_replay_hand``, called with
``False`` and ``True``, compiled twice); here it compiles for the constant's type. Two more helpers keep compiling
short (a fresh machine pays it once, the test suite every run): :func:`jit_inline`
for thin kernels between big ones, and :func:`as_read_only` where a kernel would
otherwise meet an argument once writable and once read-only.

Threads waiting at the end of a parallel loop spin for about a tenth of a
millisecond, then sleep (``OMP_WAIT_POLICY=PASSIVE`` with ``GOMP_SPINCOUNT=10000``
unless the environment says otherwise; OpenMP reads them when numba first starts
its threads). The solver runs two parallel loops per traversal of its tree,
hundreds a second: on a shared machine a thread spinning for long burns a core
while the thread it waits for is not running (OpenMP's default of about 3 ms:
under a load of 11 on 2 cores, the turn spot of ``scripts/bench_solver.py``
took twice the wall clock and 35 to 40 % more processor time than sleeping at
once), while a thread that sleeps at once is woken late (some 80 microseconds a
loop on these virtual machines: the same spot took 5 to 10 % longer on a quiet
machine than with the short spin, which costs 10 % under that load).

>>> from matchdb.core.evaluator import evaluate_with
>>> evaluate_with.__name__
'evaluate_with'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("GOMP_SPINCOUNT", "10000")  # GNU OpenMP's spins before sleeping (about 0.1 ms)

import numba  # after the settings above, which OpenMP reads when it starts
from numba.core import types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.imputils import impl_ret_borrowed
from numba.core.sigutils import normalize_signature
from numba.extending import intrinsic

if TYPE_CHECKING:
    from numba.core.dispatcher import Dispatcher

try:
    import fcntl
except ImportError:  # Windows: no flock; numba's cache alone (a kernel may compile twice there)
    fcntl = None  # type: ignore[assignment]

__all__ = ["as_read_only", "compiled_before", "jit", "jit_inline", "jit_parallel"]

_Kernel = TypeVar("_Kernel", bound=Callable[..., Any])

_serial = numba.njit(cache=True, nogil=True, error_model="numpy")
_parallel = numba.njit(cache=True, nogil=True, parallel=True, error_model="numpy")
_inline = numba.njit(inline="always", nogil=True, error_model="numpy")


def _index_path(dispatcher: Any) -> str | None:
    """The kernel's cache index in numba's disk cache, or None where numba's cache layout is not the one known here."""
    # numba's own private cache layout (0.60-0.68; read, never written), named by strings because these are numba's
    # attributes, not another matchdb package's (tests/test_layers.py reads attribute names)
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    folder, index = getattr(cache_file, "_cache_path", None), getattr(cache_file, "_index_name", None)
    if not isinstance(folder, str) or not isinstance(index, str):
        return None
    return os.path.join(folder, index)


def _lock_path(dispatcher: Any) -> str | None:
    """The lock file beside the kernel's cache index, or None where numba's cache layout is not the one known here."""
    index = _index_path(dispatcher)
    if index is None:
        return None
    return index[: -len(".nbi")] + ".lock" if index.endswith(".nbi") else index + ".lock"


def compiled_before(dispatcher: Any) -> bool:
    """Whether a kernel's first use in this process loads compiled code (this process or numba's disk cache holds
    some) rather than compiling it; True where that cannot be told. What a command says before a long first use
    (tested in tests/test_jit.py: a kernel's disk cache belongs to its file, which a doctest has not)."""
    if getattr(dispatcher, "overloads", None):
        return True
    index = _index_path(dispatcher)
    return index is None or os.path.exists(index)


def _compiled_once(dispatcher: Dispatcher[_Kernel]) -> Dispatcher[_Kernel]:
    """``dispatcher`` compiled once per type of its arguments, not once per constant value (a kernel called with
    ``False`` and with ``True``, or ``0`` and ``1``, compiles one version), and whose compilations wait for another
    process compiling the same kernel (see the module's text)."""
    path = _lock_path(dispatcher) if fcntl is not None else None
    compile_here = dispatcher.compile

    def compile_locked(sig: Any) -> Any:
        if path is None:
            return compile_here(sig)
        with global_compiler_lock:  # one thread of this process at a time takes the file locks
            if tuple(normalize_signature(sig)[0]) in dispatcher.overloads:  # type: ignore[no-untyped-call]  # numba
                return compile_here(sig)  # compiled here already (typing a caller asks again): no lock, no waiting
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                handle = open(path, "a+b")  # noqa: SIM115 (held across the compile, closed below)
            except OSError:  # a read-only cache folder: numba falls back to compiling in memory
                return compile_here(sig)
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                return compile_here(sig)  # loads from the cache what another process compiled meanwhile
            finally:
                handle.close()  # releases the lock

    def compile(sig: Any) -> Any:
        # a call from another kernel types a constant argument as its value (Literal[int](0)): compile for its type
        # (int64) instead, which the call then converts to; numba would compile a version per value otherwise
        if isinstance(sig, tuple):
            sig = tuple(types.unliteral(arg) for arg in sig)  # type: ignore[no-untyped-call]  # numba
        return compile_locked(sig)

    dispatcher.compile = compile  # type: ignore[method-assign]  # this one dispatcher, not its class
    return dispatcher


def jit(func: _Kernel) -> Dispatcher[_Kernel]:
    """A serial kernel."""
    return _compiled_once(_serial(func))


def jit_inline(func: _Kernel) -> Dispatcher[_Kernel]:
    """A kernel whose code numba copies into each kernel that calls it, instead of compiling it on its own.

    numba compiles each kernel with every kernel it calls linked in and optimised again, so a thin kernel between
    big ones costs as much to compile as all it calls. Callers must live in the same file (numba's disk cache
    of a caller does not see a change to code it copied from another file). Not for calls from Python.
    """
    return _inline(func)


def jit_parallel(func: _Kernel) -> Dispatcher[_Kernel]:
    """A kernel with ``numba.prange`` loops; callers run one at a time (not every threading layer is thread-safe)."""
    return _compiled_once(_parallel(func))


@intrinsic
def _as_read_only(typingctx: Any, array: Any) -> Any:
    """Inside a kernel: the same array typed read-only (no copy), so that a kernel handed both an array made in
    the kernel and a caller's read-only one compiles once, not once for each (numba types the two apart).

    >>> import numba, numpy as np
    >>> @numba.njit
    ... def first(a):
    ...     return as_read_only(a)[0]
    >>> int(first(np.arange(3)))
    0
    """
    if not isinstance(array, types.Array):
        return None
    result = array.copy(readonly=True)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])  # type: ignore[no-untyped-call]

    return result(array), codegen


#: :func:`_as_read_only` as kernels call it (one argument; numba passes the typing context itself).
as_read_only = cast("Callable[[Any], Any]", _as_read_only)
