"""The abstraction dataset: its figures, its files (zarr and HDF5) and its indexing."""

from __future__ import annotations

import numpy as np
import pytest

from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES
from matchdb.core.cards import parse_cards
from matchdb.core.pairs import PAIRS, board_columns, pair_row
from matchdb.core.table import match_table
from matchdb.db.abstraction import (
    DATASET_FORMAT,
    compute_dataset,
    locate,
    read_dataset,
    write_dataset,
)
from matchdb.equity.distributions import board_distributions, hand_distribution
from matchdb.errors import CardError, MatchdbError

PUBLISHED = [("TcQd", "7h9hQh", 0.683), ("5c9d", "3d5d7d", 0.679)]


@pytest.fixture(scope="module")
def small(full_db):
    """The dataset of the published flops and two more, from the session's full store."""
    indices = sorted({locate(hole, flop)[0] for hole, flop, _ in PUBLISHED} | {0, 1754})
    return compute_dataset(full_db.tables(indices))


def test_figures_are_the_distributions(small):
    assert small.histogram.shape == (4, 1176, 50) and small.histogram.dtype == np.uint16
    assert (small.histogram.sum(axis=2) == 1081).all()
    for e, index in enumerate(small.indices):
        flop = tuple(int(c) for c in CANONICAL_FLOPS[index])
        every = board_distributions(match_table(flop), flop, board_columns(()))
        assert (small.histogram[e] == every.river_counts).all()
        for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
            np.testing.assert_array_equal(getattr(small, name)[e], getattr(every, name))
    for hole, flop, ehs in PUBLISHED:
        index, row = locate(hole, flop)
        e = int(np.flatnonzero(small.indices == index)[0])
        assert round(float(small.ehs[e, row]), 3) == ehs
        # the histogram's mean is the exact equity: every runout is as likely against a random hand
        d = hand_distribution(match_table(CANONICAL_FLOPS[index]), CANONICAL_FLOPS[index], row, board_columns(()))
        assert d.river_equities.mean() == pytest.approx(float(small.ehs[e, row]), abs=1e-12)


def test_files_round_trip(small, tmp_path):
    report = write_dataset(small, tmp_path / "a.zarr", tmp_path / "a.h5", source="test")
    assert report.zarr_bytes > 0 and report.hdf5_bytes > 0 and "MB" in report.summary()
    assert not list(tmp_path.glob("*.partial"))
    zarr_data, hdf5_data = read_dataset(tmp_path / "a.zarr"), read_dataset(tmp_path / "a.h5")
    for data in (zarr_data, hdf5_data):
        assert data["attrs"]["format"] == DATASET_FORMAT and data["attrs"]["bins"] == 50
        np.testing.assert_array_equal(data["histogram"], small.histogram)
        for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
            np.testing.assert_array_equal(data[name], getattr(small, name))
        np.testing.assert_array_equal(data["flops"], CANONICAL_FLOPS[small.indices])
        np.testing.assert_array_equal(data["orbit_sizes"], ORBIT_SIZES[small.indices])
        np.testing.assert_array_equal(data["pairs"], PAIRS)
        # the documented indexing: entry [i, r] is the hand cards[i, pairs[r]]
        np.testing.assert_array_equal(data["hands"], data["cards"][:, PAIRS])
        for i in range(len(small.indices)):
            flop = tuple(int(c) for c in data["flops"][i])
            for r in (0, 600, 1175):
                assert pair_row(flop, data["hands"][i, r]) == r
    import h5py
    import zarr

    group = zarr.open_group(tmp_path / "a.zarr", mode="r")
    with h5py.File(tmp_path / "a.h5", "r") as h5:
        for name, array in group.arrays():
            assert array.attrs["description"] and h5[name].attrs["description"] == array.attrs["description"]


def test_files_are_never_half_written(small, tmp_path):
    out = tmp_path / "d.zarr"
    write_dataset(small, out)
    with pytest.raises(MatchdbError, match="exists"):
        write_dataset(small, out)
    (tmp_path / "d.zarr.partial").mkdir()  # what a killed run leaves: removed by the next one
    write_dataset(small, out, overwrite=True)
    assert not (tmp_path / "d.zarr.partial").exists() and not (tmp_path / "d.zarr.old").exists()
    assert read_dataset(out)["histogram"].shape == small.histogram.shape
    with pytest.raises(MatchdbError, match="No output"):
        write_dataset(small)
    (tmp_path / "other.h5").write_bytes(b"")
    with pytest.raises(MatchdbError, match="cannot be read as a dataset"):
        read_dataset(tmp_path / "other.h5")


def test_locate(small):
    """Renaming suits finds the same flop and a hand with the same figures (on a monotone flop the
    other three suits can be renamed several ways, so the row may be another suit variant)."""
    (i, r), (j, q) = locate("TcQd", "7h9hQh"), locate("TsQh", "7d9dQd")
    assert i == j
    e = int(np.flatnonzero(small.indices == i)[0])
    for name in ("ehs", "ehs2", "hs", "ppot", "npot"):
        assert getattr(small, name)[e, r] == getattr(small, name)[e, q]
    assert (small.histogram[e, r] == small.histogram[e, q]).all()
    index, row = locate("AhKh", "2c7dJh")
    assert CANONICAL_FLOPS[index].tolist() == list(parse_cards("2c7dJh")) and row == pair_row(parse_cards("2c7dJh"), parse_cards("AhKh"))
    with pytest.raises(CardError, match="expected 3"):
        locate("AhKh", "2c7dJh3s")
    with pytest.raises(CardError):
        locate("AhKh", "AhKd2c")


@pytest.mark.slow
def test_full_dataset(full_db, tmp_path):
    """All 1,755 x 1,176 flop hands from the full database (minutes)."""
    from matchdb.db.abstraction import build_dataset

    report = build_dataset(full_db, tmp_path / "full.zarr", tmp_path / "full.h5")
    data = read_dataset(tmp_path / "full.zarr")
    assert data["histogram"].shape == (1755, 1176, 50) and (data["histogram"].sum(axis=2) == 1081).all()
    # weighted by orbit size, the mean EHS over every flop and hand is one half
    weights = data["orbit_sizes"].astype(float)[:, None] * np.ones((1, 1176))
    assert (weights * data["ehs"]).sum() / weights.sum() == pytest.approx(0.5, abs=1e-12)
    assert report.compute_seconds < 600
