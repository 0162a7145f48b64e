"""Decoded tables kept in memory for the query layer: bounded, least recently used first out, thread-safe.

The cache holds single inner chunks (168 rows: what a row query needs) and
whole tables (what exact equities need); its capacity is counted in chunks,
a whole table counting for all seven. A whole table is decoded straight
into its own buffer, taking over chunks already cached, so it is never
assembled by concatenating.

No lock is held while a shard is read or decoded: the lock only guards the
bookkeeping, so one slow or failing read never stalls questions about other
tables, nor cached answers. Two threads that miss on the same chunk at once
may both decode it; the first to finish is kept.

Memory is reused: when an entry leaves the cache and no caller still holds
its buffer, the next entry of that size decodes into it. Fresh memory costs
a page fault per 4 KiB (measured here: up to 300 us for one chunk's 395 kB,
about as long as decoding it); memory already touched costs nothing.

>>> from matchdb.storage import ShardReader, open_database
>>> cache = TableCache(ShardReader(open_database(path)), tables=8)
>>> cache.chunk(326, 3).shape, cache.table(326).shape  # 2c7dJh
((168, 1176), (1176, 1176))
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

import numpy as np

from matchdb.core.pairs import N_PAIRS
from matchdb.storage import CHUNK_ROWS, N_CHUNKS, Location, ShardReader

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
        self._held = 0  # chunks' worth of entries, and of buffers reserved for decodes in progress
        self._entries: OrderedDict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()  # (buffer, view)
        self._located: OrderedDict[int, Location] = OrderedDict()  # shard places, a bounded few
        self._spare: dict[int, list[np.ndarray]] = {1: [], N_CHUNKS: []}  # reusable buffers by size in chunks
        self._lock = threading.Lock()

    def chunk(self, index: int, chunk: int) -> np.ndarray:
        """Rows ``chunk * 168`` to ``chunk * 168 + 167`` of table ``index``."""
        with self._lock:
            whole = self._get((index, _WHOLE))
            if whole is not None:
                return whole[chunk * CHUNK_ROWS : (chunk + 1) * CHUNK_ROWS]
            view = self._get((index, chunk))
            if view is not None:
                return view
            buffer = self._reserve(1)
            location = self._located.get(index)
        location = self._decode(index, [chunk], [buffer], location, 1)
        return self._keep((index, chunk), buffer, location)

    def table(self, index: int) -> np.ndarray:
        """The whole table ``index``."""
        with self._lock:
            view = self._get((index, _WHOLE))
            if view is not None:
                return view
            buffer = self._reserve(N_CHUNKS)
            parts = buffer.reshape(N_CHUNKS, CHUNK_ROWS, N_PAIRS)
            missing = []
            for chunk in range(N_CHUNKS):
                rows = self._get((index, chunk))
                if rows is None:
                    missing.append(chunk)
                else:
                    parts[chunk] = rows  # a copy is 6x faster than decoding again
            location = self._located.get(index)
        location = self._decode(index, missing, [parts[chunk] for chunk in missing], location, N_CHUNKS)
        with self._lock:
            for chunk in range(N_CHUNKS):  # the whole table takes over its single chunks
                self._drop((index, chunk))
        return self._keep((index, _WHOLE), buffer, location)

    def __len__(self) -> int:
        """Entries held (single chunks and whole tables)."""
        return len(self._entries)

    @property
    def chunks_held(self) -> int:
        """Chunks' worth of decoded data held (a whole table counting seven), decodes in progress included."""
        return self._held

    # -- under the lock ----------------------------------------------------------

    def _get(self, key: tuple[int, int]) -> np.ndarray | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def _reserve(self, chunks: int) -> np.ndarray:
        """Make room for ``chunks`` more (evicting first, so evicted memory is reused) and hand out a buffer."""
        while self._entries and self._held + chunks > self._capacity:
            key = next(iter(self._entries))
            self._held -= _size(key)
            self._recycle(self._entries.pop(key)[0], _size(key))  # the entry and its own view go here
        self._held += chunks
        spare = self._spare[chunks]
        return spare.pop() if spare else np.empty(_SHAPES[chunks], dtype=np.uint16)

    def _recycle(self, buffer: np.ndarray, chunks: int) -> None:
        """Keep ``buffer`` for reuse if nobody else holds it (callers pass it without keeping a reference)."""
        # A caller still computing on an entry keeps a view, and a view counts.
        spare = self._spare[chunks]
        if sys.getrefcount(buffer) == 2 and len(spare) < _SPARE_MOST[chunks]:  # 2: ``buffer`` and getrefcount's argument
            spare.append(buffer)

    def _drop(self, key: tuple[int, int]) -> None:
        """Remove an entry without reusing its buffer (a caller may hold its view)."""
        if self._entries.pop(key, None) is not None:
            self._held -= _size(key)

    # -- around the read -------------------------------------------------------------

    def _decode(
        self, index: int, chunks: list[int], outs: list[np.ndarray], location: Location | None, reserved: int
    ) -> Location | None:
        """Decode chunks into ``outs`` without the lock; on failure give the reservation back and raise."""
        if not chunks:
            return location
        try:
            return self._reader.decode_chunks(index, chunks, outs, location)
        except BaseException:
            with self._lock:
                self._held -= reserved
                self._located.pop(index, None)  # a table that failed is located afresh next time
            raise

    def _keep(self, key: tuple[int, int], buffer: np.ndarray, location: Location | None) -> np.ndarray:
        """Record a decoded buffer (or return the entry another thread recorded meanwhile)."""
        index = key[0]
        with self._lock:
            if location is not None:
                self._located[index] = location
                self._located.move_to_end(index)
                if len(self._located) > self._capacity:
                    self._located.popitem(last=False)
            existing = self._get(key)
            if existing is not None:  # another thread decoded the same meanwhile; its buffer is left to the collector
                self._held -= _size(key)
                return existing
            view = buffer.view()
            view.flags.writeable = False
            self._entries[key] = (buffer, view)
            return view


def _size(key: tuple[int, int]) -> int:
    return N_CHUNKS if key[1] == _WHOLE else 1
