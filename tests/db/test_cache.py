"""The decoded-table cache: right rows from recycled memory, never memory a caller still holds, never a damaged chunk."""

from __future__ import annotations

import numpy as np
import pytest
from numcodecs import Zstd

from matchdb.db.cache import TableCache
from matchdb.errors import CorruptDatabaseError, IncompleteDatabaseError
from matchdb.storage import CHUNK_ROWS, N_CHUNKS, ShardReader, open_database
from matchdb.storage.shards import decode_chunk_into


@pytest.fixture(scope="module")
def reader(small_store):
    return ShardReader(open_database(small_store))


@pytest.fixture(scope="module")
def tables(reader, small_flops):
    return {index: reader.read_table(index) for index in small_flops}


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def test_chunks_and_tables_equal_a_fresh_decode_in_any_order(reader, tables):
    cache = TableCache(reader, tables=2)  # 14 chunks: constant eviction over 8 tables
    rng = np.random.default_rng(3)
    for _ in range(300):
        index = int(rng.choice(list(tables)))
        if rng.random() < 0.2:
            assert np.array_equal(cache.table(index), tables[index])
        else:
            chunk = int(rng.integers(N_CHUNKS))
            assert np.array_equal(cache.chunk(index, chunk), tables[index][chunk * CHUNK_ROWS : (chunk + 1) * CHUNK_ROWS])
        assert cache.chunks_held <= 14


def test_an_evicted_buffer_is_reused_only_when_nobody_holds_it(reader, tables):
    first, second, third = list(tables)[:3]
    cache = TableCache(reader, tables=1)
    held = cache.table(first)  # a caller keeps this view
    expected = held.copy()
    address = _address(held)
    cache.table(second)  # evicts the first table while its view is held
    assert np.array_equal(held, expected)
    cache.table(third)  # evicts the second: nobody holds it, so its buffer is reused
    assert np.array_equal(held, expected) and _address(held) == address
    del held
    fourth = cache.table(first)  # the first table's old buffer was not kept, so this is decoded afresh
    assert np.array_equal(fourth, tables[first])
    for index in (second, third):
        assert np.array_equal(cache.table(index), tables[index])


def test_recycled_chunk_buffers_hold_the_new_rows(reader, tables):
    index = list(tables)[0]
    cache = TableCache(reader, tables=1)
    address = _address(cache.chunk(index, 0))  # the least recently used once the others are in
    for chunk in range(1, N_CHUNKS):
        cache.chunk(index, chunk)
    other = list(tables)[1]
    view = cache.chunk(other, 3)  # evicts chunk 0 of the first table, then decodes into its buffer
    assert _address(view) == address
    assert np.array_equal(view, tables[other][3 * CHUNK_ROWS : 4 * CHUNK_ROWS])
    assert not view.flags.writeable


def test_a_whole_table_takes_over_cached_chunks(reader, tables):
    index = list(tables)[2]
    cache = TableCache(reader, tables=2)
    for chunk in (1, 5):
        cache.chunk(index, chunk)
    whole = cache.table(index)
    assert np.array_equal(whole, tables[index])
    assert cache.chunks_held == 7 and len(cache) == 1  # the single chunks left the cache
    assert np.shares_memory(cache.chunk(index, 5), whole)


def test_a_missing_table_leaves_nothing_behind(reader, tables):
    cache = TableCache(reader, tables=1)
    index = list(tables)[0]
    cache.chunk(index, 2)
    for _ in range(2):  # the second call fails the same way: no half-made entry answers it
        with pytest.raises(IncompleteDatabaseError, match="lacks table 3"):
            cache.chunk(3, 0)
        with pytest.raises(IncompleteDatabaseError, match="lacks table 3"):
            cache.table(3)
    assert cache.chunks_held == len(cache) <= 1
    assert np.array_equal(cache.table(index), tables[index])


def test_a_frame_of_another_size_is_refused_before_writing():
    out = np.full((CHUNK_ROWS, 1176), 7, dtype=np.uint16)
    short = Zstd(checksum=True).encode(np.zeros((CHUNK_ROWS - 1, 1176), dtype=np.uint16))
    with pytest.raises(CorruptDatabaseError, match=r"declares 392784 bytes; expected a zstd frame of 395136"):
        decode_chunk_into(short, out, "0 of table 0")
    assert (out == 7).all()  # untouched: nothing of a previous table could be served as this one
    with pytest.raises(CorruptDatabaseError, match="declares -1 bytes"):
        decode_chunk_into(b"not zstd at all", out, "0 of table 0")


def test_a_damaged_truncated_or_extended_frame_is_refused():
    """The read path (python-zstandard) refuses what zarr's codec (numcodecs) would: a bad checksum, a cut frame, extra bytes."""
    rows = np.random.default_rng(0).integers(0, 2161, size=(CHUNK_ROWS, 1176)).astype(np.uint16)
    frame = Zstd(level=10, checksum=True).encode(rows)
    out = np.zeros_like(rows)
    decode_chunk_into(frame, out, "0 of table 0")
    assert np.array_equal(out, rows)
    bad_checksum = frame[:-1] + bytes([frame[-1] ^ 1])
    with pytest.raises(CorruptDatabaseError, match="cannot be decoded .*checksum"):
        decode_chunk_into(bad_checksum, out, "0 of table 0")
    with pytest.raises(CorruptDatabaseError, match="decodes to 393216 bytes; expected one zstd frame of 395136"):
        decode_chunk_into(frame[:-10], out, "0 of table 0")
    with pytest.raises(CorruptDatabaseError, match=r"decodes to 395137\+ bytes"):
        decode_chunk_into(frame + Zstd().encode(b"abc"), out, "0 of table 0")
    with pytest.raises(CorruptDatabaseError, match="cannot be decoded"):
        decode_chunk_into(frame + b"xx", out, "0 of table 0")
    assert Zstd().decode(frame) == rows.tobytes()
