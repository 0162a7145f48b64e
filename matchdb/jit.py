"""The numba settings of every kernel in the package, defined once.

Kernels are cached to disk (compiled once per machine, loaded afterwards),
release the GIL, and use numpy's error model (no Python exception checks in
the hot loops; none of them divides by a value that can be zero). Importing
this module imports numba, which costs about a quarter of a second: modules
on the one-query path (cards, pairs, canonical, storage) do not import it.

Threads waiting at the end of a parallel loop sleep instead of spinning
(``OMP_WAIT_POLICY=PASSIVE`` unless the environment says otherwise; OpenMP
reads it when numba first starts its threads): the solver runs two parallel
loops per traversal of its tree, and on a shared machine a spinning thread
burns a core while the thread it waits for is not running (the turn spot of
``scripts/bench_solver.py``: 35 to 40 % less processor time, half the wall
clock, under a load of 11 on 2 cores).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # after the setting above, which OpenMP reads when it starts

__all__ = ["jit", "jit_parallel"]

#: Serial kernels.
jit = numba.njit(cache=True, nogil=True, error_model="numpy")
#: Kernels with ``numba.prange`` loops; callers run one at a time (not every threading layer is thread-safe).
jit_parallel = numba.njit(cache=True, nogil=True, parallel=True, error_model="numpy")
