"""Equities computed from decoded match tables: heads-up, multiway, distributions, reports over every flop, preflop tables.

One module per concern: :mod:`~matchdb.equity.checks` (the input checks every module
shares), :mod:`~matchdb.equity.heads_up` (a hand, every hand, range against range),
:mod:`~matchdb.equity.multiway` (1 to 9 opponents), :mod:`~matchdb.equity.opponents`
(the articles' opponent models), :mod:`~matchdb.equity.distributions`,
:mod:`~matchdb.equity.reports`, :mod:`~matchdb.equity.preflop`, :mod:`~matchdb.equity.matchups`
(heads-up preflop), :mod:`~matchdb.equity.derived` (every derived item in one pass over the
tables), :mod:`~matchdb.equity.enumeration` and :mod:`~matchdb.equity.preflop_hands`. The numba kernels
live in the private :mod:`matchdb.equity._kernels`; the public modules check their
input and call them. The answers they return live in :mod:`matchdb.answers`. Nothing
here opens a store: a table arrives as an array.
"""
