"""Decoded tables kept in memory for the query layer: bounded, least recently used first out, thread-safe.

The cache holds single inner chunks (168 rows: what a row query needs) and
whole tables (what exact equities need); its capacity is counted in chunks,
a whole table counting for all seven. A whole table is decoded straight
into its own buffer, taking over chunks already cached, so it is never
assembled by concatenating.

Memory is reused: when an entry leaves the cache and no caller still holds
its buffer, the next entry of that size decodes into it. Fresh memory costs
a page fault per 4 KiB (measured here: up to 300 us for one chunk's 395 kB,
about as long as decoding it); memory already touched costs nothing.

>>> from matchdb.store import ShardReader, directory_source
>>> cache = TableCache(ShardReader(directory_source("data/matchdb.zarr"), "db"), tables=8)  # doctest: +SKIP
>>> cache.chunk(677, 3).shape, cache.table(677).shape                                         # doctest: +SKIP
((168, 1176), (1176, 1176))
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

import numpy as np

from matchdb.pairs import N_PAIRS
from matchdb.store import CHUNK_ROWS, N_CHUNKS, ShardReader

__all__ = ["TableCache"]

_WHOLE = N_CHUNKS  # the chunk number under which a whole table is cached
_SHAPES = {1: (CHUNK_ROWS, N_PAIRS), N_CHUNKS: (N_PAIRS, N_PAIRS)}
#: Most spare buffers kept for reuse, by size in chunks.
_SPARE_MOST = {1: N_CHUNKS, N_CHUNKS: 1}


class TableCache:
    """Up to ``tables`` x 7 decoded chunks of the tables ``reader`` reads (``tables`` >= 1).

    Everything it returns is a read-only view; it is safe to share between threads.
    """

    def __init__(self, reader: ShardReader, tables: int) -> None:
        self._reader = reader
        self._capacity = tables * N_CHUNKS
        self._held = 0  # chunks' worth of entries
        self._entries: OrderedDict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()  # (buffer, view)
        self._located: OrderedDict[int, tuple] = OrderedDict()  # shard places and indexes, a bounded few
        self._spare: dict[int, list[np.ndarray]] = {1: [], N_CHUNKS: []}  # reusable buffers by size in chunks
        self._lock = threading.Lock()

    def chunk(self, index: int, chunk: int) -> np.ndarray:
        """Rows ``chunk * 168`` to ``chunk * 168 + 167`` of table ``index``."""
        with self._lock:
            whole = self._get((index, _WHOLE))
            if whole is not None:
                return whole[chunk * CHUNK_ROWS : (chunk + 1) * CHUNK_ROWS]
            view = self._get((index, chunk))
            if view is None:
                self._make_room(1)
                buffer = self._buffer(1)
                self._decode(index, [chunk], [buffer])
                view = self._put((index, chunk), buffer)
            return view

    def table(self, index: int) -> np.ndarray:
        """The whole table ``index``."""
        with self._lock:
            view = self._get((index, _WHOLE))
            if view is None:
                cached = [self._take((index, chunk)) for chunk in range(N_CHUNKS)]
                self._make_room(N_CHUNKS)
                buffer = self._buffer(N_CHUNKS)
                parts = buffer.reshape(N_CHUNKS, CHUNK_ROWS, N_PAIRS)
                for chunk, rows in enumerate(cached):
                    if rows is not None:
                        parts[chunk] = rows  # a copy is 6x faster than decoding again
                missing = [chunk for chunk, rows in enumerate(cached) if rows is None]
                del cached, rows
                self._decode(index, missing, [parts[chunk] for chunk in missing])
                view = self._put((index, _WHOLE), buffer)
            return view

    def __len__(self) -> int:
        """Entries held (single chunks and whole tables)."""
        return len(self._entries)

    @property
    def chunks_held(self) -> int:
        """Chunks' worth of decoded data held, a whole table counting seven."""
        return self._held

    def _get(self, key: tuple[int, int]) -> np.ndarray | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def _put(self, key: tuple[int, int], buffer: np.ndarray) -> np.ndarray:
        view = buffer.view()
        view.flags.writeable = False
        self._entries[key] = (buffer, view)
        self._held += _size(key)
        return view

    def _take(self, key: tuple[int, int]) -> np.ndarray | None:
        """Remove an entry without reusing its buffer; return its view, or None."""
        entry = self._entries.pop(key, None)
        if entry is None:
            return None
        self._held -= _size(key)
        return entry[1]

    def _make_room(self, chunks: int) -> None:
        """Evict the least recently used entries until ``chunks`` more fit (before allocating, so their memory is reused)."""
        while self._entries and self._held + chunks > self._capacity:
            key = next(iter(self._entries))
            buffer = self._entries.pop(key)[0]  # the entry and its own view go here
            self._held -= _size(key)
            # Reuse the buffer only when nobody else holds it: a caller still
            # computing on the entry keeps a view, and a view counts.
            spare = self._spare[_size(key)]
            if sys.getrefcount(buffer) == 2 and len(spare) < _SPARE_MOST[_size(key)]:  # 2: ``buffer`` and getrefcount's argument
                spare.append(buffer)

    def _buffer(self, chunks: int) -> np.ndarray:
        spare = self._spare[chunks]
        return spare.pop() if spare else np.empty(_SHAPES[chunks], dtype=np.uint16)

    def _decode(self, index: int, chunks: list[int], outs: list[np.ndarray]) -> None:
        if not chunks:
            return
        located = self._located.get(index)
        located = self._reader.decode_chunks(index, chunks, outs, located)
        self._located[index] = located
        self._located.move_to_end(index)
        if len(self._located) > self._capacity:
            self._located.popitem(last=False)


def _size(key: tuple[int, int]) -> int:
    return N_CHUNKS if key[1] == _WHOLE else 1

