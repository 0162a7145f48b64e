"""The packed reader: a file read in place, and no flipped bit or replaced member ever served as a number.

A one-bit flip in the central directory once renamed table 1683's shard to
1681's and the reader answered AcAd on AhTcTh with 0.9058 instead of 0.9947
(issue 16). Here every bit of the central directory and of every local
header of a small packed store is flipped in turn: each copy must open and
serve every table exactly, or refuse with one sentence.
"""

from __future__ import annotations

import os
import shutil
import struct
import zipfile

import numpy as np
import pytest

import matchdb
from matchdb.db.pack import pack
from matchdb.db.verify import verify
from matchdb.errors import CorruptDatabaseError, MatchdbError
from matchdb.storage import ShardReader, open_database
from matchdb.storage.layout import shard_member


@pytest.fixture(scope="module")
def packed(small_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("packed") / "small.zip"
    pack(small_store, out)
    return out


@pytest.fixture(scope="module")
def truth(small_store, small_flops):
    reader = ShardReader(open_database(small_store))
    return {index: reader.read_table(index) for index in small_flops}


def _member_start(path, name):
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    with open(path, "rb") as handle:
        handle.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", handle.read(4))
    return info.header_offset + 30 + name_length + extra_length, info.file_size


def _central_directory(path) -> tuple[int, int]:
    """(start, end) of the central directory and end record."""
    data = path.read_bytes()
    end = data.rindex(b"PK\x05\x06")
    size, offset = struct.unpack("<II", data[end + 12 : end + 20])
    return offset, len(data)


def _local_headers(path) -> list[tuple[int, int]]:
    with zipfile.ZipFile(path) as archive:
        return [(info.header_offset, info.header_offset + 30 + len(info.filename.encode())) for info in archive.infolist()]


def test_packed_file_answers_exactly_like_the_folder(small_store, packed, small_flops):
    folder, shipped = matchdb.open(small_store), matchdb.open(packed)
    assert shipped.info()["packed"] and shipped.info()["tables_built"] == 8
    for index in small_flops:
        assert np.array_equal(shipped.table(index), folder.table(index))
    for hole, board in [("AhKh", "2c7dJh"), ("AcAd", "AhTcTh5s"), ("AhTh", "AsTs9h2d3c")]:
        assert shipped.win_rate(hole, board, 4) == folder.win_rate(hole, board, 4)
        assert shipped.outcome(hole, board, "QQ+,AK") == folder.outcome(hole, board, "QQ+,AK")
    assert np.array_equal(shipped.equities("AsTs9h").values, folder.equities("AsTs9h").values, equal_nan=True)


def _sweep(packed, truth, tmp_path, bits) -> dict:
    """Flip each bit in turn; every copy must open and serve each table exactly, or refuse with a MatchdbError."""
    good = open_database(packed)
    locations = {index: good.locate(index) for index in truth}
    attrs = good.attrs
    copy = tmp_path / "flipped.zip"
    shutil.copy(packed, copy)
    original = packed.read_bytes()
    outcomes = {"opened": 0, "refused": 0, "tables served": 0, "tables refused": 0}
    fd = os.open(copy, os.O_RDWR)
    try:
        for bit in bits:
            byte = original[bit // 8]
            os.pwrite(fd, bytes([byte ^ (1 << (bit % 8))]), bit // 8)  # flip one bit of the copy in place
            try:
                _check_copy(copy, truth, locations, attrs, packed, outcomes)
            finally:
                os.pwrite(fd, bytes([byte]), bit // 8)
    finally:
        os.close(fd)
    assert outcomes["refused"] + outcomes["opened"] == len(bits)
    return outcomes


def _check_copy(copy, truth, locations, attrs, packed, outcomes) -> None:
    try:
        store = open_database(copy)
    except MatchdbError:
        outcomes["refused"] += 1
        return
    outcomes["opened"] += 1
    assert store.attrs == attrs
    for index, table in truth.items():
        try:
            location = store.locate(index)
            if location is None:
                raise CorruptDatabaseError("missing")
            if location._replace(path=str(packed)) != locations[index]:
                # the reader reads exactly these ranges: anything else must fail its checks or hold the same bytes
                assert np.array_equal(ShardReader(store).read_table(index), table)
        except MatchdbError:
            outcomes["tables refused"] += 1
            continue
        outcomes["tables served"] += 1


def test_every_flipped_bit_of_the_central_directory_answers_correctly_or_is_refused(packed, truth, tmp_path):
    start, end = _central_directory(packed)
    outcomes = _sweep(packed, truth, tmp_path, range(start * 8, end * 8))
    assert end - start > 1000 and outcomes["refused"] > 0 and outcomes["tables served"] > 0


def test_flipped_bits_of_local_headers_answer_correctly_or_are_refused(packed, truth, tmp_path):
    bits = [bit for start, end in _local_headers(packed) for bit in range(start * 8, end * 8)]
    sample = np.random.default_rng(16).choice(bits, size=2000, replace=False)
    outcomes = _sweep(packed, truth, tmp_path, [int(bit) for bit in sample])
    assert outcomes["tables refused"] > 0


def test_a_duplicated_member_name_is_refused(packed, tmp_path):
    """The flip that renamed W/c/1683/0/0 to .../1681/...: two members of one name."""
    with zipfile.ZipFile(packed) as archive:
        names = [info.filename for info in archive.infolist()]
    shards = [n for n in names if n.startswith("W/c/") and len(n) == len("W/c/326/0/0")]
    first, second = shards[:2]
    data = bytearray(packed.read_bytes())
    cd_start, _ = _central_directory(packed)
    position = data.index(second.encode(), cd_start)
    assert len(first) == len(second)
    data[position : position + len(second)] = first.encode()
    copy = tmp_path / "twice.zip"
    copy.write_bytes(bytes(data))
    with pytest.raises(CorruptDatabaseError, match=f"names the member '{first}' twice"):
        open_database(copy)


def test_a_member_replaced_by_another_table_s_shard_is_refused(small_store, truth, tmp_path):
    """Another valid shard written into the zip under this table's name."""
    from matchdb.core.canonical import flop_index

    target, source = flop_index("2c7dJh"), flop_index("AhTcTh")
    folder = tmp_path / "swapped.zarr"
    shutil.copytree(small_store, folder)
    shutil.copy(folder / shard_member(source), folder / shard_member(target))
    out = tmp_path / "swapped.zip"
    pack(folder, out, preflop=False)
    with pytest.raises(CorruptDatabaseError, match=f"table {target}"):
        ShardReader(open_database(out)).read_table(target)
    assert np.array_equal(ShardReader(open_database(out)).read_table(source), truth[source])


def test_truncated_pack_is_refused(packed, tmp_path):
    for keep in (0.5, 0.999):
        cut = tmp_path / f"cut{keep}.zip"
        data = packed.read_bytes()
        cut.write_bytes(data[: int(len(data) * keep)])
        with pytest.raises(CorruptDatabaseError, match="is truncated or damaged"):
            matchdb.open(cut)
        report = verify(cut, sample=0)
        assert not report.ok and "truncated or damaged" in report.problems[0]


def test_altered_shard_byte_gives_an_error_never_a_wrong_answer(packed, tmp_path):
    from matchdb.core.canonical import flop_index

    index = flop_index("AhTcTh")
    altered = tmp_path / "altered.zip"
    shutil.copy(packed, altered)
    start, size = _member_start(altered, shard_member(index))
    data = bytearray(altered.read_bytes())
    data[start + size // 3] ^= 0x10  # inside the first compressed chunks
    altered.write_bytes(bytes(data))
    db = matchdb.open(altered)  # the directory is intact, so it opens
    with pytest.raises(CorruptDatabaseError, match=f"table {index}"):
        db.equity("AcAd", "AhTcTh")
    report = verify(altered, sample=0)
    assert not report.ok
    assert any("SHA-256" in p for p in report.problems)  # the .sha256 beside it and SHA256SUMS both disagree
    assert "SHA-256" in report.bad[index]


def test_altered_metadata_is_refused(packed, tmp_path):
    altered = tmp_path / "meta.zip"
    shutil.copy(packed, altered)
    start, size = _member_start(altered, "zarr.json")
    data = bytearray(altered.read_bytes())
    position = data.index(b'"format_version": 2', start, start + size) + len(b'"format_version": ')
    data[position] = ord("7")
    altered.write_bytes(bytes(data))
    with pytest.raises(CorruptDatabaseError, match="zarr.json"):
        matchdb.open(altered)


def test_missing_pack_is_named(tmp_path):
    from matchdb.errors import DatabaseNotFoundError

    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        matchdb.open(tmp_path / "none.zip")
