"""Storage: shard bytes equal zarr's, every byte read is bound to its table, files are written safely.

The identity tests damage copies of the small store the way the adversarial
review did (a shard in the wrong place, a manifest entry copied with it, a
FIFO or a folder where a shard should be, flipped bits in a manifest entry)
and require each case to answer correctly or be refused: never a number
from another table.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import zarr

from matchdb.core.canonical import CANONICAL_FLOPS, flop_index
from matchdb.core.table import match_table
from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    DatabaseNotFoundError,
    FormatVersionError,
    MatchdbError,
)
from matchdb.storage import ShardReader, open_database
from matchdb.storage.digests import table_digest
from matchdb.storage.files import (
    PARTIAL_SUFFIX,
    read_small_file,
    remove_stale_partials,
    write_atomically,
)
from matchdb.storage.folder import FolderStore
from matchdb.storage.layout import (
    check_attrs,
    check_index,
    manifest_member,
    shard_member,
)
from matchdb.storage.shards import encode_shard
from matchdb.storage.writer import create_store, table_is_done, write_table


@pytest.fixture
def copy(small_store, tmp_path):
    """A private copy of the small store to damage."""
    target = tmp_path / "copy.zarr"
    shutil.copytree(small_store, target)
    return target


@pytest.fixture(scope="module")
def truth(small_store, small_flops):
    reader = ShardReader(open_database(small_store))
    return {index: reader.read_table(index) for index in small_flops}


def _answer_or_refusal(root, index, expected):
    """Read table ``index`` from ``root``: it must equal ``expected`` or be refused with a MatchdbError."""
    try:
        table = ShardReader(open_database(root)).read_table(index)
    except MatchdbError as error:
        refusal = str(error)
    else:
        assert np.array_equal(table, expected), f"table {index} served with wrong content"
        return "correct"
    assert refusal.endswith(".") and "\n" not in refusal
    return "refused"


# -- writing ------------------------------------------------------------------------


def test_shards_are_the_bytes_zarr_writes(tmp_path):
    """The writer encodes shards itself: byte for byte what zarr's sharding codec writes."""
    root = tmp_path / "z.zarr"
    create_store(root)
    array = zarr.open_array(root / "W", mode="r+")
    for index in (0, flop_index("2c7dJh"), 1754):
        table = match_table(CANONICAL_FLOPS[index].tolist())
        array[index] = table
        data, chunks = encode_shard(table)
        assert (root / shard_member(index)).read_bytes() == data
        assert len(chunks) == 7 and chunks[0][0] == 0


def test_written_tables_read_back_through_plain_zarr_and_carry_their_identity(small_store, truth):
    store = FolderStore(small_store)
    array = zarr.open_array(small_store / "W", mode="r")
    for index, table in truth.items():
        assert np.array_equal(array[index], table)
        entry = store.manifest(index)
        assert entry["index"] == index and entry["table_sha256"] == table_digest(table) and len(entry["chunks"]) == 7


def test_concurrent_writers_of_one_table_never_fail(tmp_path):
    """Cleanups of dead writers' temp files never remove a live writer's (issue 16: 125 of 200 writes failed)."""
    root = tmp_path / "race.zarr"
    create_store(root)
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.starmap(_write_and_clean, [(str(root), 7)] * 40)
    assert all(results) and table_is_done(root, 7)
    assert not [p for p in (root / shard_member(7)).parent.iterdir() if p.name.endswith(PARTIAL_SUFFIX)]


def _write_and_clean(root: str, index: int) -> bool:
    from matchdb.storage.writer import clean_partials

    table = match_table(CANONICAL_FLOPS[index].tolist())
    for _ in range(5):
        clean_partials(root, index)
        write_table(root, index, table)
    return True


def test_temp_files_of_dead_writers_go_and_of_live_ones_stay(tmp_path):
    host = os.uname().nodename.replace(".", "-")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    live = tmp_path / f".0.{host}.{os.getpid()}.abc{PARTIAL_SUFFIX}"
    gone = tmp_path / f".0.{host}.{int(dead.stdout)}.abc{PARTIAL_SUFFIX}"
    other_host = tmp_path / f".0.elsewhere.1.abc{PARTIAL_SUFFIX}"
    for path in (live, gone, other_host):
        path.write_bytes(b"x")
    assert remove_stale_partials(tmp_path) == 1
    assert live.exists() and other_host.exists() and not gone.exists()


def test_temp_files_of_killed_writers_not_yet_reaped_go(tmp_path):
    """A build resumed right after a kill: the killed writer may still be a zombie, which writes nothing more."""
    host = os.uname().nodename.replace(".", "-")
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        left = tmp_path / f".0.{host}.{writer.pid}.abc{PARTIAL_SUFFIX}"
        left.write_bytes(b"x")
        assert remove_stale_partials(tmp_path) == 0  # at work: kept
        writer.kill()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and remove_stale_partials(tmp_path) == 0:  # killed, not yet waited for
            time.sleep(0.01)
        assert not left.exists()
    finally:
        writer.kill()
        writer.wait()


def test_atomic_write_leaves_old_content_or_new(tmp_path):
    target = tmp_path / "f.json"
    write_atomically(target, b"old")
    with pytest.raises(TypeError):
        write_atomically(target, "not bytes")  # fails inside the write
    assert target.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_a_full_disk_during_a_build_says_so_keeps_what_is_finished_and_resumes(tmp_path):
    """A real full disk: the build stops with one sentence, finished tables stay, a resume completes them."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=700k", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here to fill a disk ({done.stderr.strip()})")
    try:
        root = mount / "db.zarr"
        command = [sys.executable, "-m", "matchdb", "build", "--out", str(root), "--flops", "0-19", "--serial", "--quiet"]
        failed = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert failed.returncode == 2, failed.stdout + failed.stderr
        assert failed.stderr.startswith("matchdb: Writing table ") and "No space left on device" in failed.stderr
        assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
        kept = FolderStore(root).built()
        assert 0 < len(kept) < 20 and all(table_is_done(root, i) for i in kept)
        moved = tmp_path / "db.zarr"
        shutil.copytree(root, moved)  # free space by moving the store to a roomy disk, then resume there
        resumed = subprocess.run(command[:5] + [str(moved)] + command[6:], capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        assert f"skipped {len(kept)}" in resumed.stdout and len(FolderStore(moved).built()) == 20
    finally:
        subprocess.run(["umount", str(mount)], check=False)


@pytest.mark.parametrize("where", ["file", "proc"])
def test_a_store_path_that_cannot_be_a_store_is_refused(tmp_path, where):
    target = tmp_path / "a-file" if where == "file" else "/proc/matchdb-store"
    if where == "file":
        target.write_text("x")
    with pytest.raises(DatabaseError) as caught:
        create_store(target)
    assert str(caught.value).startswith(f"The path '{target}' is a file" if where == "file" else f"The store '{target}' cannot be created")


def test_a_version_1_store_is_upgraded_in_place(copy, truth):
    """Version 1 stored the same shards without chunk ranges in the manifest: a build upgrades it, dropping damaged tables."""
    group = json.loads((copy / "zarr.json").read_text())
    group["attributes"]["format_version"] = 1
    (copy / "zarr.json").write_text(json.dumps(group))
    for index in truth:
        path = copy / manifest_member(index)
        entry = json.loads(path.read_text())
        del entry["chunks"]
        path.write_text(json.dumps(entry))
    damaged = flop_index("2c7dJh")
    shard = copy / shard_member(damaged)
    data = bytearray(shard.read_bytes())
    data[100] ^= 1
    shard.write_bytes(bytes(data))
    with pytest.raises(FormatVersionError, match="upgrades a store folder in place"):
        open_database(copy)
    from matchdb.db.build import build

    report = build(copy, flops=sorted(truth), serial=True, quiet=True)
    assert report.built == [damaged] and report.skipped == len(truth) - 1
    reader = ShardReader(open_database(copy))
    for index, table in truth.items():
        assert np.array_equal(reader.read_table(index), table)


# -- reading: every byte bound to its table ---------------------------------------------------


def test_a_valid_shard_in_the_wrong_place_is_refused(copy, truth):
    """cp W/c/327/0/0 W/c/326/0/0 answered AhKh on 2c7dJh with 0.5804 instead of 0.5726 (issue 16)."""
    target, source = flop_index("2c7dJh"), flop_index("AhTcTh")
    shutil.copy(copy / shard_member(source), copy / shard_member(target))
    with pytest.raises(CorruptDatabaseError, match=f"table {target} .*(crc32c|records)"):
        ShardReader(open_database(copy)).read_table(target)


def test_a_shard_and_manifest_entry_copied_together_are_refused(copy):
    target, source = flop_index("2c7dJh"), flop_index("AhTcTh")
    shutil.copy(copy / shard_member(source), copy / shard_member(target))
    shutil.copy(copy / manifest_member(source), copy / manifest_member(target))
    with pytest.raises(CorruptDatabaseError, match=f"manifest entry of table {target} .* describes \\({source}, 'TcAcTd'\\)"):
        ShardReader(open_database(copy)).read_table(target)


def test_every_swap_of_shards_and_entries_answers_correctly_or_is_refused(copy, truth, small_store):
    outcomes = []
    for source in truth:
        for target in truth:
            if source == target:
                continue
            for parts in (("shard",), ("manifest",), ("shard", "manifest")):
                for index in (source, target):
                    for name in (shard_member(index), manifest_member(index)):
                        shutil.copy(small_store / name, copy / name)
                if "shard" in parts:
                    shutil.copy(small_store / shard_member(source), copy / shard_member(target))
                if "manifest" in parts:
                    shutil.copy(small_store / manifest_member(source), copy / manifest_member(target))
                outcomes.append(_answer_or_refusal(copy, target, truth[target]))
    assert outcomes.count("refused") == len(outcomes) == 8 * 7 * 3


def test_every_bit_of_a_manifest_entry_flipped_answers_correctly_or_is_refused(copy, truth):
    index = flop_index("AhKhQh")
    path = copy / manifest_member(index)
    original = path.read_bytes()
    outcomes = {"correct": 0, "refused": 0}
    for bit in range(len(original) * 8):
        data = bytearray(original)
        data[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(data))
        outcomes[_answer_or_refusal(copy, index, truth[index])] += 1
    path.write_bytes(original)
    assert outcomes["refused"] > 0 and sum(outcomes.values()) == len(original) * 8


def test_flipped_bits_in_a_shard_are_refused(copy, truth):
    index = flop_index("7c7d2s")
    path = copy / shard_member(index)
    original = path.read_bytes()
    rng = np.random.default_rng(16)
    for bit in rng.choice(len(original) * 8, size=300, replace=False):
        data = bytearray(original)
        data[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(data))
        assert _answer_or_refusal(copy, index, truth[index]) in ("correct", "refused")
    path.write_bytes(original)


def test_a_fifo_or_a_folder_in_a_shard_s_place_is_refused_at_once(copy):
    """A FIFO in place of a shard hung query and verify forever (issue 16)."""
    fifo, folder = flop_index("2c7dJh"), flop_index("AhTcTh")
    (copy / shard_member(fifo)).unlink()
    os.mkfifo(copy / shard_member(fifo))
    (copy / shard_member(folder)).unlink()
    (copy / shard_member(folder)).mkdir()
    reader = ShardReader(open_database(copy))
    outcome = {}

    def read(index):
        try:
            reader.read_table(index)
        except MatchdbError as error:
            outcome[index] = str(error)

    for index in (fifo, folder):
        worker = threading.Thread(target=read, args=(index,), daemon=True)
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive(), "the read blocked"
    assert "not a regular file" in outcome[fifo] and "not a regular file" in outcome[folder]


def test_a_truncated_shard_is_refused(copy):
    index = flop_index("2c7dJh")
    path = copy / shard_member(index)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(CorruptDatabaseError, match="is .* bytes; its manifest records"):
        ShardReader(open_database(copy)).read_table(index)


def test_damaged_metadata_gets_one_sentence(copy, tmp_path):
    (copy / "zarr.json").unlink()
    (copy / "zarr.json").mkdir()
    with pytest.raises(CorruptDatabaseError, match="is not a regular file"):
        open_database(copy)
    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        open_database(tmp_path / "none")
    with pytest.raises(FormatVersionError, match="not a matchdb database"):
        check_attrs({"format": "other"}, "x")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(CorruptDatabaseError, match="not a regular file"):
        read_small_file(fifo, "file")


@pytest.mark.parametrize("bad", [1.5, "3", None, True, -1, 1755])
def test_table_indices_are_whole_numbers_in_range(bad):
    with pytest.raises(MatchdbError, match="table index"):
        check_index(bad)
    assert check_index(np.int64(3)) == 3
