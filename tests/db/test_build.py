import json
import os
import signal
import subprocess
import sys
import time

import pytest
import zarr

from matchdb.core.canonical import CANONICAL_FLOPS, flop_index
from matchdb.core.table import match_table
from matchdb.db.build import build, parse_flop_spec
from matchdb.db.verify import verify
from matchdb.errors import DatabaseError, MatchdbError
from matchdb.storage import ShardReader, open_database
from matchdb.storage.digests import table_digest
from matchdb.storage.folder import FolderStore
from matchdb.storage.layout import manifest_member


def test_flop_spec_forms():
    assert parse_flop_spec("0-3,10") == [0, 1, 2, 3, 10]
    assert parse_flop_spec("AhTcTh") == [flop_index("AhTcTh")] == parse_flop_spec("AsTdTs")
    assert parse_flop_spec(None) == list(range(1755))
    for bad, fragment in [("", "empty"), ("5-2", "backwards"), ("1755", "0..1754"), ("AhKh", "neither"), ("x", "neither")]:
        with pytest.raises(MatchdbError, match=fragment):
            parse_flop_spec(bad)


def test_store_holds_exact_tables_and_metadata(small_store):
    indices = parse_flop_spec("AhTcTh,AsTs9h,2c7dJh,AhKhQh,7c7d2s,0-2")
    reader = ShardReader(open_database(small_store))
    array = zarr.open_array(small_store / "W", mode="r")
    for index in indices:
        expected = match_table(CANONICAL_FLOPS[index].tolist())
        assert (reader.read_table(index) == expected).all()
        assert (array[index] == expected).all()  # plain zarr reads the same bytes
        entry = FolderStore(small_store).manifest(index)
        assert entry["table_sha256"] == table_digest(expected)
    group = zarr.open_group(small_store, mode="r")
    assert group.attrs["format_version"] == 2
    assert (group["flops"][...] == CANONICAL_FLOPS).all()
    assert group["collision"][...].sum() == 111_720


def test_pinned_digest_of_one_table(small_store):
    # The digest of the AcAd/AhTcTh reference flop's table, pinned so any change to the
    # kernel, the pair order or the contract shows up here.
    entry = FolderStore(small_store).manifest(flop_index("AhTcTh"))
    assert entry["table_sha256"] == PINNED_AHTCTH


PINNED_AHTCTH = "9f3da63c39629c2b230ed941b5b592fcc023c2d6553af10cc379db31dd5ad577"


def test_second_run_finishes_at_once(small_store):
    report = build(small_store, flops="AhTcTh,AsTs9h,2c7dJh,AhKhQh,7c7d2s,0-2", serial=True, quiet=True)
    assert report.built == [] and report.skipped == 8
    assert report.derived == [] and "derived" not in report.summary()  # a partial store: no derived data to compute


def test_a_complete_build_computed_the_derived_data(full_store):
    """`matchdb build` computes the preflop tables and matchups once every table is there (the session's full store
    was built so); building again computes nothing."""
    import matchdb

    assert sorted(p.name for p in (full_store / "derived").iterdir()) == [
        "preflop.json", "preflop_matchups.json", "preflop_multiway.json"]
    assert matchdb.open(full_store).missing_derived() == []
    report = build(full_store, quiet=True)
    assert report.built == [] and report.skipped == 1755 and report.derived == []


def test_build_refuses_a_folder_that_is_not_a_store(tmp_path):
    (tmp_path / "other.txt").write_text("x")
    with pytest.raises(DatabaseError, match="not a matchdb store"):
        build(tmp_path, flops="0", serial=True, quiet=True)


def test_verify_names_a_missing_database(tmp_path):
    report = verify(tmp_path / "nothing.zarr")
    assert not report.ok and "No database" in report.problems[0]


def _kill_when(root, done, process):
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        finished = len(list((root / "manifest").glob("*.json"))) if (root / "manifest").exists() else 0
        if finished >= done or process.poll() is not None:
            break
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def test_killed_builds_resume_to_identical_tables(tmp_path):
    """SIGKILL the whole build (main process and Dask workers) twice, then resume."""
    root = tmp_path / "killed.zarr"
    spec = "0-39"
    command = [sys.executable, "-m", "matchdb", "build", "--out", str(root), "--flops", spec, "--quiet"]
    for done in (3, 17):
        process = subprocess.Popen(command + ["--workers", "2"], start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _kill_when(root, done, process)
    finished_before = len(list((root / "manifest").glob("*.json")))
    assert 3 <= finished_before < 40, "the kills should land mid-build"
    result = subprocess.run(command + ["--serial"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert f"skipped {finished_before}" in result.stdout
    reader = ShardReader(open_database(root))
    for index in parse_flop_spec(spec):
        expected = match_table(CANONICAL_FLOPS[index].tolist())
        assert (reader.read_table(index) == expected).all()
        assert json.loads((root / manifest_member(index)).read_text())["table_sha256"] == table_digest(expected)
    assert not list(root.rglob("*.partial"))
    assert verify(root, sample=3).bad == {}


def test_worker_count_must_be_a_whole_number(tmp_path):
    for workers in (0, -2, 1.5, True):
        with pytest.raises(MatchdbError, match=f"workers {workers!r} is not a whole number of at least 1"):
            build(tmp_path / "w.zarr", flops="0", workers=workers, quiet=True)
    assert not (tmp_path / "w.zarr").exists()  # refused before anything is written


def test_local_workers_get_the_build_allocator_settings():
    """Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536, which made the 2-worker build slower than a serial one."""
    from matchdb.cluster import local_cluster
    from matchdb.db.build import WORKER_ENVIRON

    with local_cluster(1, environ=WORKER_ENVIRON) as client:
        seen = client.run(lambda: {name: os.environ.get(name) for name in WORKER_ENVIRON})
    assert list(seen.values()) == [WORKER_ENVIRON]


def test_a_manifest_entry_left_half_written_by_a_killed_build_is_removed_on_resume(tmp_path):
    """A build killed while writing a manifest entry left its temporary file in manifest/ for good (seen in the test above)."""
    root = tmp_path / "s.zarr"
    build(root, flops="0", serial=True, quiet=True)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = os.uname().nodename.replace(".", "-")
    left = root / "manifest" / f".0001.json.{host}.{int(gone.stdout)}.0123456789ab.partial"
    left.write_text("{")
    build(root, flops="0", serial=True, quiet=True)
    assert not left.exists() and sorted(p.name for p in (root / "manifest").iterdir()) == ["0000.json"]
