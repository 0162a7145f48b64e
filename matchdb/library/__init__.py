"""The solution library: one spot solved on every flop, built on a cluster, stored, queried and reported.

A *spec* (a TOML file: ranges, pot, stack, sizes, target exploitability)
is solved by :mod:`matchdb.solver` on each of the 1,755 canonical flops
(:func:`build_library`, in this process or on Dask workers, resumable); each
flop's decisions are stored in 16 bits in a zarr folder with a manifest of
checksums (:mod:`~matchdb.library.store`); :class:`Library` answers any
flop's stored decisions by real cards and reports over every flop by texture
and hand category; :func:`verify_library` checks it and solves a sample of
flops again; :class:`Trainer` deals decisions from it and grades picks.

Modules: :mod:`~matchdb.library.spec`, :mod:`~matchdb.library.store`,
:mod:`~matchdb.library.build`, :mod:`~matchdb.library.query`,
:mod:`~matchdb.library.verify`, :mod:`~matchdb.library.packed` (one file, by path or URL),
:mod:`~matchdb.library.trainer`.
"""

from __future__ import annotations

from matchdb.library.build import LibraryReport, build_library, solve_flop
from matchdb.library.query import Library, LibraryFlop, LibraryNode, open_library
from matchdb.library.spec import FlopNotStoredError, LibraryError, LibrarySpec, read_spec
from matchdb.library.trainer import Drill, Grade, Trainer, TrainerSummary
from matchdb.library.verify import LibraryCheck, verify_library

__all__ = ["LibrarySpec", "LibraryError", "FlopNotStoredError", "read_spec", "build_library", "LibraryReport", "solve_flop", "Library",
           "LibraryFlop", "LibraryNode", "open_library", "verify_library", "LibraryCheck", "Trainer", "Drill", "Grade",
           "TrainerSummary"]
