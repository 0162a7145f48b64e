"""The database as a whole: building it, opening and querying it, its caches, checking, packing and exporting it, and the abstraction dataset.

:func:`matchdb.open` (:mod:`matchdb.db.query`) is the entry point most users need.
"""
