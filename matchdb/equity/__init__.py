"""Equities computed from decoded match tables: heads-up, multiway, distributions, reports over every flop, preflop tables.

The numba kernels live in the private :mod:`matchdb.equity._kernels`; the public modules here check
their input and call them. Nothing here opens a store: a table arrives as an array.
"""
