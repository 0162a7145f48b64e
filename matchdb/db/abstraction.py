"""The abstraction dataset: every flop hand's strength distribution, ready to cluster.

For every canonical flop and every hand on it (1,755 x 1,176), against a
uniformly random opponent hand, card removal exact (see
:mod:`matchdb.equity.distributions` for the definitions): EHS, EHS^2, the current
hand strength HS, Billings' PPot and NPot, and the histogram of the river
equity over the 1,081 turn-and-river runouts (50 bins by default, counts
summing to 1,081). Card abstractions in poker AI are built by clustering
exactly these (Johanson et al. 2013; Ganzfried and Sandholm 2014); this file
saves writing an enumerator.

Layout (the same in the zarr store and the HDF5 file; every array carries a
``description`` attribute, the group/file its conventions)::

    histogram    (1755, 1176, bins) uint16   runouts whose river equity falls in each bin
    ehs, ehs2    (1755, 1176) float64        mean river equity and mean of its square (ehs = exact equity)
    hs           (1755, 1176) float64        current strength on the flop, ahead + tied / 2
    ppot, npot   (1755, 1176) float64        Billings' positive and negative potential
    hands        (1755, 1176, 2) uint8       the card ids of each entry's hand
    flops        (1755, 3) uint8             the canonical flops, ascending (matchdb.core.canonical.CANONICAL_FLOPS)
    orbit_sizes  (1755,) uint8               how many of the 22,100 flops each stands for
    pairs        (1176, 2) uint8             local card indices (low, high) of each row
    cards        (1755, 49) uint8            card id of each local index, per flop

Indexing: entry ``[i, r]`` is canonical flop ``i`` and the hand
``cards[i, pairs[r]]`` (= ``hands[i, r]``). Card id = suit x 13 + rank, rank
0..12 = 2..A, suit 0..3 = c d h s. Bin b holds equities in [b/bins,
(b+1)/bins), the last bin also 1. Any real flop and hand is found by
renaming suits to the canonical flop (:func:`locate`); the figures are the
same for every flop of an orbit. Weight an entry by ``orbit_sizes[i]`` to
count it as often as it is dealt.

>>> part = compute_dataset(db.tables([0, 326]), bins=10)     # the whole dataset: build_dataset(matchdb.open(), ...)
>>> part.histogram.shape, int(part.histogram[1].sum(axis=1).min())
((2, 1176, 10), 1081)
>>> locate("TcQd", "7h9hQh")[0] == locate("TsQh", "7d9dQd")[0]
True
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS, N_FLOPS, ORBIT_SIZES, canonicalize
from matchdb.core.cards import CardsLike
from matchdb.core.pairs import (
    N_PAIRS,
    PAIR_INDEX,
    PAIRS,
    board_columns,
    local_index,
    remaining_cards,
)
from matchdb.equity.distributions import DEFAULT_BINS, board_distributions, check_bins
from matchdb.equity.reports import as_items
from matchdb.errors import CardError, MatchdbError
from matchdb.outputs import write_whole
from matchdb.storage.files import check_outside

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = [
    "DATASET_FORMAT",
    "DATASET_VERSION",
    "Dataset",
    "DatasetReport",
    "compute_dataset",
    "write_dataset",
    "build_dataset",
    "read_dataset",
    "locate",
]

DATASET_FORMAT = "matchdb-abstraction"
DATASET_VERSION = 1
#: zarr and HDF5 compression (the export's conventions: zstd in zarr, gzip 4 in HDF5 for every reader).
ZSTD_LEVEL = 10
GZIP_LEVEL = 4
#: Canonical flops per chunk along the first axis (1,755 = 39 x 45).
CHUNK_FLOPS = 45

_DESCRIPTIONS = {
    "histogram": "runouts (turn and river, 1,081 per hand) whose river equity against a random hand falls in each "
    "of the bins equal bins over [0, 1]; bin b holds [b/bins, (b+1)/bins), the last also 1",
    "ehs": "expected hand strength: the mean river equity over the runouts, which is the exact flop equity "
    "against a uniformly random hand (card removal exact)",
    "ehs2": "mean of the squared river equity over the runouts (Johanson et al. 2013)",
    "hs": "current hand strength on the flop: the 5-card hand against every opponent hand, ahead + tied / 2",
    "ppot": "Billings' positive potential: behind (or tied) on the flop, ahead (or tied) on the river, "
    "over every opponent hand and runout, ties counting half",
    "npot": "Billings' negative potential: ahead (or tied) on the flop, behind (or tied) on the river",
    "hands": "card ids of the hand of each entry: cards[flop, pairs[row]]",
    "flops": "the canonical flops as card ids, ascending (entry i is CANONICAL_FLOPS[i])",
    "orbit_sizes": "how many of the 22,100 flops each canonical flop stands for (suit renamings)",
    "pairs": "local card indices (low, high) of each row",
    "cards": "card id of each of the 49 local indices, per flop",
}


@dataclass(frozen=True, eq=False)
class Dataset:
    """The dataset's arrays in memory, aligned with ``indices`` (all 1,755 canonical flops for a full build)."""

    indices: np.ndarray
    bins: int
    histogram: np.ndarray
    ehs: np.ndarray
    ehs2: np.ndarray
    hs: np.ndarray
    ppot: np.ndarray
    npot: np.ndarray
    seconds: float

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array the files hold, frame arrays included."""
        cards = np.stack([remaining_cards(CANONICAL_FLOPS[i]) for i in self.indices]).astype(np.uint8)
        return {
            "histogram": self.histogram,
            "ehs": self.ehs,
            "ehs2": self.ehs2,
            "hs": self.hs,
            "ppot": self.ppot,
            "npot": self.npot,
            "hands": cards[:, PAIRS],
            "flops": CANONICAL_FLOPS[self.indices],
            "orbit_sizes": ORBIT_SIZES[self.indices].astype(np.uint8),
            "pairs": PAIRS,
            "cards": cards,
        }


def _figures(table: np.ndarray, flop: tuple[int, ...], bins: int) -> tuple[np.ndarray, np.ndarray]:
    every = board_distributions(table, flop, board_columns(()), bins=bins, parallel=False)
    return every.river_counts.astype(np.uint16), np.stack([every.ehs, every.ehs2, every.hs, every.ppot, every.npot])


def compute_dataset(tables: Iterable[object], bins: int = DEFAULT_BINS, quiet: bool = True, workers: int | None = None) -> Dataset:
    """Every hand's figures on every flop the tables cover (:data:`matchdb.equity.reports.TableItem` tuples).

    One :func:`matchdb.equity.distributions.board_distributions` per table, each on
    one core, ``workers`` tables at a time (default: one per core; tables
    are copied, so the iterable may reuse its buffer). A progress bar shows
    on a terminal unless ``quiet``.
    """
    from tqdm import tqdm

    bins = check_bins(bins)
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MatchdbError(f"workers is {workers!r}; expected a whole number of at least 1.")
    started = time.perf_counter()
    items = as_items(tables)
    indices, results = [], []
    bar = tqdm(total=N_FLOPS, desc="dataset", unit="flop", disable=True if quiet else None)
    with bar:
        if workers == 1:
            for index, flop, _, table in items:
                indices.append(int(index))
                results.append(_figures(table, tuple(flop), bins))
                bar.update(1)
        else:
            with ThreadPoolExecutor(workers) as pool:  # the kernels release the GIL
                pending: deque[Future[tuple[np.ndarray, np.ndarray]]] = deque()
                for index, flop, _, table in items:
                    indices.append(int(index))
                    pending.append(pool.submit(_figures, np.array(table), tuple(flop), bins))
                    while len(pending) > 2 * workers:
                        results.append(pending.popleft().result())
                        bar.update(1)
                while pending:
                    results.append(pending.popleft().result())
                    bar.update(1)
    if not indices:
        raise MatchdbError("No table was given; expected (index, flop, orbit size, table) tuples, e.g. from iter_tables(db).")
    stacked = np.stack([figures for _, figures in results])
    return Dataset(
        indices=np.array(indices, dtype=np.int64),
        bins=bins,
        histogram=np.stack([counts for counts, _ in results]),
        ehs=stacked[:, 0],
        ehs2=stacked[:, 1],
        hs=stacked[:, 2],
        ppot=stacked[:, 3],
        npot=stacked[:, 4],
        seconds=time.perf_counter() - started,
    )


def _attributes(dataset: Dataset, source: str) -> dict[str, Any]:
    return {
        "format": DATASET_FORMAT,
        "format_version": DATASET_VERSION,
        "bins": dataset.bins,
        "opponent": "a uniformly random hand, card removal exact",
        "indexing": "entry [i, r]: canonical flop i (flops[i]) and hand cards[i, pairs[r]] (= hands[i, r]); "
        "card id = suit * 13 + rank, rank 0..12 = 2..A, suit 0..3 = c d h s",
        "canonical_indices": "all" if len(dataset.indices) == N_FLOPS else dataset.indices.tolist(),
        "source": source,
        "seconds": round(dataset.seconds, 1),
        "description": "matchdb abstraction dataset: per canonical flop and hand, the river-equity histogram over "
        "the 1,081 runouts, EHS, EHS^2, HS, PPot and NPot against a random hand",
    }


@dataclass(frozen=True)
class DatasetReport:
    """What :func:`write_dataset` wrote: paths, sizes in bytes, seconds."""

    zarr_path: Path | None
    hdf5_path: Path | None
    zarr_bytes: int
    hdf5_bytes: int
    compute_seconds: float
    write_seconds: float

    def summary(self) -> str:
        parts = [f"computed in {self.compute_seconds:.1f} s"]
        if self.zarr_path is not None:
            parts.append(f"zarr {self.zarr_path} {self.zarr_bytes / 1e6:.1f} MB")
        if self.hdf5_path is not None:
            parts.append(f"HDF5 {self.hdf5_path} {self.hdf5_bytes / 1e6:.1f} MB")
        return "abstraction dataset: " + ", ".join(parts) + f", written in {self.write_seconds:.1f} s"


def _chunks(array: np.ndarray) -> tuple[int, ...]:
    if array.ndim >= 2 and array.shape[0] > CHUNK_FLOPS and array.shape[1] == N_PAIRS:
        return (CHUNK_FLOPS,) + array.shape[1:]
    return array.shape


def _write_zarr(arrays: dict[str, np.ndarray], attrs: dict[str, Any], path: Path) -> None:
    import zarr
    from zarr.codecs import ZstdCodec

    group = zarr.open_group(path, mode="w", attributes=attrs)
    for name, data in arrays.items():
        array = group.create_array(
            name, shape=data.shape, chunks=_chunks(data), dtype=data.dtype,
            compressors=ZstdCodec(level=ZSTD_LEVEL, checksum=True),
        )
        array[...] = np.ascontiguousarray(data)
        array.attrs["description"] = _DESCRIPTIONS[name]


def _write_hdf5(arrays: dict[str, np.ndarray], attrs: dict[str, Any], path: Path) -> None:
    """The HDF5 file is made in memory (67 MB for every flop), then written: HDF5 failing to write a full disk at
    close leaves h5py's objects broken (freeing them crashes the process), a plain write fails cleanly."""
    import io

    import h5py

    memory = io.BytesIO()
    with h5py.File(memory, "w") as h5:
        for key, value in attrs.items():
            h5.attrs[key] = value if isinstance(value, (str, int, float)) else json.dumps(value)
        for name, data in arrays.items():
            dataset = h5.create_dataset(
                name, data=np.ascontiguousarray(data), chunks=_chunks(data) if data.ndim else None,
                compression="gzip", compression_opts=GZIP_LEVEL,
            )
            dataset.attrs["description"] = _DESCRIPTIONS[name]
    with open(path, "wb") as handle:
        handle.write(memory.getbuffer())
        handle.flush()
        os.fsync(handle.fileno())


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def write_dataset(dataset: Dataset, zarr_path: str | Path | None = None, hdf5_path: str | Path | None = None,
                  source: str = "", overwrite: bool = False) -> DatasetReport:
    """Write a computed dataset as a zarr store and/or an HDF5 file, each appearing only when complete.

    Each is written under ``NAME.partial`` and renamed into place; an
    existing output is an error unless ``overwrite``.
    """
    outputs = _check_outputs(zarr_path, hdf5_path, overwrite)
    started = time.perf_counter()
    arrays = dataset.arrays()
    attrs = _attributes(dataset, source)
    for out, writer in zip(outputs, (_write_zarr, _write_hdf5), strict=True):
        if out is None:
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        _remove(partial)
        write_whole(out, partial, lambda: writer(arrays, attrs, partial))  # noqa: B023 - called at once
        if out.exists():
            old = out.with_name(out.name + ".old")
            _remove(old)
            os.replace(out, old)
            os.replace(partial, out)
            _remove(old)
        else:
            os.replace(partial, out)
    z, h = outputs
    return DatasetReport(
        zarr_path=z, hdf5_path=h,
        zarr_bytes=_size(z) if z is not None else 0, hdf5_bytes=_size(h) if h is not None else 0,
        compute_seconds=dataset.seconds, write_seconds=time.perf_counter() - started,
    )


def _check_outputs(zarr_path: str | Path | None, hdf5_path: str | Path | None, overwrite: bool,
                   reading: str | Path | None = None) -> list[Path | None]:
    """The outputs as Paths, checked before any work: at least one, new unless ``overwrite``, outside ``reading``."""
    if zarr_path is None and hdf5_path is None:
        raise MatchdbError("No output was named; expected a zarr path, an HDF5 path or both.")
    outputs = [Path(p) if p is not None else None for p in (zarr_path, hdf5_path)]
    for out in outputs:
        if out is not None and out.exists() and not overwrite:
            raise MatchdbError(f"The output '{out}' exists; expected a new path, or overwrite=True.")
        if out is not None:
            check_outside(out, reading)
    return outputs


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def build_dataset(db: MatchDB, zarr_path: str | Path | None = None, hdf5_path: str | Path | None = None,
                  bins: int = DEFAULT_BINS, quiet: bool = True, overwrite: bool = False,
                  workers: int | None = None) -> DatasetReport:
    """Compute the dataset from every table of a :class:`matchdb.MatchDB` and write it (zarr, HDF5 or both).

    The outputs are checked first (new unless ``overwrite``, not inside the database), so a bad path costs no work.
    """
    _check_outputs(zarr_path, hdf5_path, overwrite, reading=getattr(db, "path", None))
    dataset = compute_dataset(db.tables(show_progress=not quiet), bins=bins, quiet=True, workers=workers)
    return write_dataset(dataset, zarr_path, hdf5_path, source=str(getattr(db, "path", "")), overwrite=overwrite)


def read_dataset(path: str | Path) -> dict[str, Any]:
    """Every array of a dataset file (zarr folder or HDF5 file) as numpy arrays, with ``attrs`` for its conventions."""
    path = Path(path)
    try:
        if path.is_dir():
            import zarr

            group = zarr.open_group(path, mode="r")
            out: dict[str, Any] = {name: np.asarray(array[...]) for name, array in group.arrays()}
            out["attrs"] = dict(group.attrs)
        else:
            import h5py

            with h5py.File(path, "r") as h5:
                out = {name: h5[name][...] for name in h5}
                out["attrs"] = dict(h5.attrs)
    except (OSError, ValueError, KeyError) as error:  # not a zarr group or an HDF5 file, or unreadable
        if isinstance(error, MatchdbError):
            raise
        raise MatchdbError(
            f"The file '{path}' cannot be read as a dataset ({error}); expected a zarr folder or an HDF5 file "
            "written by 'matchdb abstraction'."
        ) from None
    if out["attrs"].get("format") != DATASET_FORMAT:
        raise MatchdbError(f"The file '{path}' is not a matchdb abstraction dataset; expected format {DATASET_FORMAT!r}.")
    return out


def locate(hole: CardsLike, flop: CardsLike) -> tuple[int, int]:
    """(canonical index, row) of real hole cards on a real flop: the dataset entry that holds their figures.

    >>> i, r = locate("AhKh", "2c7dJh")
    >>> int(i), int(r)
    (326, 768)
    """
    canon = canonicalize(flop, hole=hole)
    if len(canon.extra):
        raise CardError(f"The flop {flop!r} has {3 + len(canon.extra)} cards; expected 3.")
    if len(canon.hole) != 2:
        raise CardError(f"The hole cards {hole!r} are {len(canon.hole)} cards; expected 2.")
    local = local_index(canon.flop)
    return canon.index, int(PAIR_INDEX[local[canon.hole[0]], local[canon.hole[1]]])
