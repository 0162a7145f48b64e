"""The solver's numba code (private: :mod:`matchdb.solver.solve` and :mod:`matchdb.solver.solution` call it).

:mod:`~matchdb.solver._kernels.cfr` holds all of it, in one file so that numba's cache of a function is renewed
whenever any code it calls changes (see its docstring).
"""
