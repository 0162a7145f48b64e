"""Heavy questions in a small pool of worker processes, each stopped (killed) the moment its answer is no longer wanted.

A thread cannot be stopped, so a question that is abandoned by its client or
runs past its deadline used to burn a core to the end (issue 20). Heavy
questions (:mod:`matchdb.service.costs`) are sent instead to one of at most
:data:`HEAVY_PROCESSES` worker processes, each with the database open; at most
:data:`HEAVY_QUEUE` more wait their turn (beyond, 503 at once). A worker whose
question is cancelled is killed (SIGKILL: its CPU is free at once) and a new
one forked in its place from a preloaded fork server (the server's log says which
process was killed). Workers run at a lower
priority (nice :data:`NICE`), so cheap questions answered by the server's own
threads keep their throughput, and they exit when the server is gone.

A job is a function of the module level taking the database first,
``call(db, *args)``: the same function the server's threads call for cheap questions.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
import time
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from matchdb.errors import DatabaseError, MatchdbError

__all__ = ["HEAVY_PROCESSES", "HEAVY_QUEUE", "NICE", "HeavyPool", "stop_all"]

#: Worker processes answering heavy questions at once (per server process).
HEAVY_PROCESSES = 2
#: Heavy questions that may wait for a worker; more are refused with 503 at once.
HEAVY_QUEUE = 16
#: The workers' scheduling priority (0 normal, 19 lowest): heavy work yields the CPU to cheap answers.
NICE = 15

#: Every pool of this process, stopped together when the server shuts down.
_POOLS: weakref.WeakSet[HeavyPool] = weakref.WeakSet()
#: What the fork server imports once, so that a new worker starts in milliseconds.
_PRELOAD = ["matchdb.db.query", "matchdb.equity.multiway", "matchdb.equity.reports", "matchdb.service.questions",
            "matchdb.service.batch", "matchdb.service.page"]


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, process: Any, connection: Connection, generation: int = 0) -> None:
        self.process, self.connection, self.generation = process, connection, generation

    def kill(self, close: bool = True) -> None:
        """Kill the process; ``close=False`` keeps the pipe open for the request waiting on it, which then reads its end."""
        with contextlib.suppress(Exception):
            self.process.kill()
        if close:
            with contextlib.suppress(Exception):
                self.connection.close()


class HeavyPool:
    """Answers ``call(db, *args)`` in worker processes that open the database at ``path`` themselves."""

    def __init__(self, path: str, jit: bool = True, processes: int = HEAVY_PROCESSES, queue: int = HEAVY_QUEUE) -> None:
        self.path, self.jit, self.processes, self.queue = path, jit, processes, queue
        self._derived: dict[str, bytes] = {}  # derived data the server prepared, given to every worker it starts
        self._generation = 0  # how many times it changed: a worker started before is not reused
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._waiting = 0
        self._slots: Any = None  # an anyio.Semaphore, made in the event loop on first use
        self._lock = threading.Lock()
        self._closed = False
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_PRELOAD)  # no effect once the fork server runs
        _POOLS.add(self)

    async def run(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(db, *args)`` in a worker; on cancellation (a deadline, a client gone) the worker is killed at once."""
        import anyio

        if self._closed:
            raise DatabaseError("The server is shutting down; expected the question again once it is back.")
        if self._slots is None:
            self._slots = anyio.Semaphore(self.processes)
        if self._waiting >= self.queue:
            raise DatabaseError(
                f"The server is busy with {self.processes + self.queue} heavy questions; expected a retry in a few seconds."
            )
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        try:
            if self._closed:
                raise DatabaseError("The server is shutting down; expected the question again once it is back.")
            while not self._idle:  # a new worker joins the idle ones, even if this request is abandoned meanwhile
                await anyio.to_thread.run_sync(self._start, abandon_on_cancel=True)
                if self._closed:  # stopped while the worker started
                    raise DatabaseError("The server is shutting down; expected the question again once it is back.")
            worker = self._idle.pop()
            self._busy.add(worker)
            finished = False
            try:
                worker.connection.send((call, args))
                await anyio.wait_readable(worker.connection.fileno())
                status, value = worker.connection.recv()
                finished = True
            except (EOFError, OSError):
                if self._closed:
                    raise DatabaseError("The server is shutting down; expected the question again once it is back.") from None
                raise DatabaseError("The process answering the question stopped; expected the question again.") from None
            finally:
                self._busy.discard(worker)
                if finished and not self._closed and worker.generation == self._generation:
                    self._idle.append(worker)
                else:
                    if not finished and not self._closed:
                        logging.getLogger("uvicorn.error").warning(
                            "A heavy question was stopped before its answer (its deadline passed or its client went "
                            "away); its worker process %d was killed.", worker.process.pid)
                    worker.kill()
        finally:
            self._slots.release()
        if status == "ok":
            return value
        if status == "error":
            raise value
        raise RuntimeError(value)

    def _start(self) -> None:
        """Start one more worker, among the idle ones (killed at once if the pool was stopped meanwhile)."""
        with self._lock:
            multiprocessing.active_children()  # reaps the workers killed so far, closing their descriptors
            mine, theirs = self._context.Pipe()
            process = self._context.Process(
                target=_work, args=(theirs, self.path, self.jit, os.getpid(), self._derived), daemon=True, name="matchdb-heavy"
            )
            process.start()
            theirs.close()
            worker = _Worker(process, mine, self._generation)
            if self._closed:
                worker.kill()
            else:
                self._idle.append(worker)

    def share(self, derived: dict[str, bytes]) -> None:
        """Give every worker started from now on the derived data the server prepared (``kind: file bytes``); the idle
        workers, started without it, are let go (a store that cannot be written does not hold it for them)."""
        with self._lock:
            self._derived = {**self._derived, **derived}
            self._generation += 1
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def stop(self) -> None:
        """Kill every worker, busy or idle; questions in flight fail with 503, later ones are refused."""
        self._closed = True
        for worker in self._idle:
            worker.kill()
        for worker in self._busy:
            worker.kill(close=False)  # its request is waiting on the pipe: it reads the end and answers 503
        self._idle.clear()


def stop_all() -> None:
    """Stop every pool of this process (the server is shutting down)."""
    for pool in list(_POOLS):
        pool.stop()


def _work(connection: Connection, path: str, jit: bool, server: int, derived: dict[str, bytes] | None = None) -> None:
    """A worker's life: open the database, then answer ``(call, args)`` until the pipe closes or the server is gone.

    It never computes derived data on first use (the server prepares it at start-up, :mod:`matchdb.service.app`):
    it reads it from the store, or takes it from ``derived`` (what the server prepared).
    """
    with contextlib.suppress(OSError):
        os.nice(NICE)
    parent = os.getppid()

    def watch() -> None:  # the fork server, our parent, exits when the server does; so do we, even mid-answer
        while True:
            time.sleep(0.25)
            try:
                os.kill(server, 0)
            except OSError:
                os._exit(0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    from matchdb.db.query import open as open_database

    db = open_database(path, jit=jit)
    db.compute_on_first_use = False
    for kind, data in (derived or {}).items():
        with contextlib.suppress(MatchdbError):  # one it cannot take is read or refused when a question needs it
            db.adopt_derived(kind, data)
    while True:
        try:
            call, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[str, Any] = ("ok", call(db, *args))
        except MatchdbError as error:
            reply = ("error", error)
        except Exception as error:
            reply = ("crash", f"{type(error).__name__}: {error}")
        try:
            connection.send(reply)
        except (EOFError, OSError):
            return
        except Exception as error:
            connection.send(("crash", f"{type(error).__name__}: {error}"))
