"""The local Dask cluster that every parallel part of matchdb runs on, set up in one place.

``matchdb build`` (:mod:`matchdb.db.build`), the arena (:mod:`matchdb.play.arena`)
and bot tuning (:mod:`matchdb.play.tuning`) spread work over worker processes on
this machine with :func:`local_cluster`:

- one single-threaded worker process per worker (numba's random generator is
  per thread, so one thread a worker keeps seeded runs exact, and numba's
  kernels release the GIL anyway);
- the scheduler and the workers bound to 127.0.0.1, the dashboard on a free
  port of 127.0.0.1 (``None`` does not disable it, dask/distributed#8136, and
  8787 may be taken);
- Dask's own logging silenced (about 30 lines a run: "Start Nanny at",
  "Register worker", "To route to workers diagnostics web server please
  install jupyter-server-proxy", ...) unless ``verbose``: the ``distributed``
  logger is set to ERROR while the cluster lives, in this process and in the
  workers, and restored afterwards;
- ``environ``: variables set in each worker process before it starts (the
  build's heap settings); this process's own environment, which Dask's nanny
  writes those variables into, is restored.

Dask and distributed are imported only when a cluster starts::

    with local_cluster(2) as client:
        totals = client.gather(client.map(sum, [[1, 2], [3, 4]]))   # [3, 7]
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping
from typing import Any

from matchdb.errors import MatchdbError

__all__ = ["local_cluster"]


def _quiet_worker_logs() -> None:
    """Run on each worker before closing: closing races the workers' heartbeats (dask/distributed#7105)."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


@contextlib.contextmanager
def local_cluster(workers: int, *, environ: Mapping[str, str] | None = None, verbose: bool = False
                  ) -> Iterator[Any]:  # a distributed.Client (Any: play.tuning's close() relies on a None-typed client)
    """A ``distributed.Client`` of a LocalCluster of ``workers`` single-threaded processes on 127.0.0.1.

    The cluster and the client are closed when the ``with`` block ends,
    whatever happens inside it.

    Parameters
    ----------
    workers : worker processes, at least 1.
    environ : variables set in every worker process (Dask's nanny pre-spawn environment).
    verbose : let Dask log at its own levels (default: errors only).

    Examples
    --------
    >>> with local_cluster(0):
    ...     pass
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The number of workers 0 is not a whole number of at least 1.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MatchdbError(f"The number of workers {workers!r} is not a whole number of at least 1.")
    import dask
    from distributed import Client, LocalCluster  # importing distributed sets its loggers' levels: save them after

    level = logging.INFO if verbose else logging.ERROR
    logger = logging.getLogger("distributed")
    saved_level = logger.level
    saved_environ = dict(os.environ)
    if not verbose:
        logger.setLevel(logging.ERROR)
    config = {f"distributed.nanny.pre-spawn-environ.{key}": value for key, value in dict(environ or {}).items()}
    try:
        with dask.config.set(config):
            # distributed leaves LocalCluster, Client and close unannotated
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",  # type: ignore[no-untyped-call]
                                   dashboard_address="127.0.0.1:0", silence_logs=level)
        os.environ.clear()  # the nanny wrote its pre-spawn variables here, where later clusters would take them over
        os.environ.update(saved_environ)
        try:
            client = Client(cluster)  # type: ignore[no-untyped-call]
            try:
                yield client
            finally:
                if not verbose:
                    with contextlib.suppress(Exception):  # workers that are already gone need no quieting
                        client.run(_quiet_worker_logs)
                client.close()  # type: ignore[no-untyped-call]
        finally:
            cluster.close()
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)
        logger.setLevel(saved_level)
