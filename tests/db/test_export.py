"""HDF5 export: plain h5py reads back every table bit-identical, with the frame arrays beside them."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from matchdb.cli.main import main
from matchdb.db.export import export_hdf5
from matchdb.errors import DatabaseError
from matchdb.storage import ShardReader, open_database


def test_hdf5_export_reads_back_bit_identical(small_store, small_flops, tmp_path, capsys):
    out = tmp_path / "small.h5"
    assert main(["export", "--format", "hdf5", "--db", str(small_store), "--out", str(out), "--quiet"]) == 0
    assert "exported 8 tables" in capsys.readouterr().out
    reader = ShardReader(open_database(small_store))
    with h5py.File(out, "r") as h5:  # plain h5py, no plugin
        assert h5["W"].compression == "gzip" and h5["W"].chunks == (1, 168, 1176)
        assert h5.attrs["format_version"] == 2 and h5.attrs["sentinel"] == 65535
        assert sorted(np.flatnonzero(h5["built"][...])) == small_flops
        for index in small_flops:
            assert np.array_equal(h5["W"][index], reader.read_table(index))
        assert (h5["W"][3] == 65535).all()  # not built: the fill value
        from matchdb.core.canonical import CANONICAL_FLOPS
        from matchdb.core.pairs import COLLISION, PAIRS

        assert np.array_equal(h5["collision"][...], COLLISION)
        assert np.array_equal(h5["flops"][...], CANONICAL_FLOPS)
        assert np.array_equal(h5["pairs"][...], PAIRS)


# -- the full database: preflop tables and the shipped size ---------------------------


def test_export_errors_leave_nothing_behind(small_db, tmp_path):
    with pytest.raises(DatabaseError, match="in a folder that does not exist"):
        export_hdf5(small_db, tmp_path / "missing" / "x.h5")
    (tmp_path / "dir.h5").mkdir()
    with pytest.raises(DatabaseError, match="is a folder; expected a file name"):
        export_hdf5(small_db, tmp_path / "dir.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.h5"]
