"""The solver's numba kernels (private: :mod:`matchdb.solver.solve` and :mod:`matchdb.solver.solution` call them).

:mod:`~matchdb.solver._kernels.cfr` traverses the game tree (a DCFR update, a
best response, or the values of the average strategy);
:mod:`~matchdb.solver._kernels.terminal` values folds and showdowns.
"""
