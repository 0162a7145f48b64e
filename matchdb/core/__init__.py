"""The poker core: cards, hole cards and their classes, the table frame, canonical flops, ranges, the evaluator and one flop's match table.

Nothing here knows about stores, queries or bots; every other package builds on it.
Modules: :mod:`~matchdb.core.cards`, :mod:`~matchdb.core.hole_cards`, :mod:`~matchdb.core.pairs`,
:mod:`~matchdb.core.canonical`, :mod:`~matchdb.core.ranges`, :mod:`~matchdb.core.evaluator`,
:mod:`~matchdb.core.table` and :mod:`~matchdb.core.reference` (slow pure-Python twins for checks).
"""
