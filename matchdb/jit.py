"""The numba settings of every kernel in the package, defined once.

Kernels are cached to disk (compiled once per machine, loaded afterwards),
release the GIL, and use numpy's error model (no Python exception checks in
the hot loops; none of them divides by a value that can be zero). Importing
this module imports numba, which costs about a quarter of a second: modules
on the one-query path (cards, pairs, canonical, storage) do not import it.
"""

from __future__ import annotations

import numba

__all__ = ["jit", "jit_parallel"]

#: Serial kernels.
jit = numba.njit(cache=True, nogil=True, error_model="numpy")
#: Kernels with ``numba.prange`` loops; callers run one at a time (not every threading layer is thread-safe).
jit_parallel = numba.njit(cache=True, nogil=True, parallel=True, error_model="numpy")
