"""Run the Dask build on SLURM workers started by dask-jobqueue.

Edit the settings below (or pass them as options), then run this on a login
node: it submits worker jobs, runs ``matchdb build --scheduler`` against them,
and releases the jobs at the end. Needs ``pip install 'matchdb[slurm]'``.

    python slurm/dask_build.py --out /shared/matchdb.zarr --jobs 8
"""

from __future__ import annotations

import argparse
import os
import socket

# -- settings a cluster user edits ----------------------------------------------
PARTITION = None  # queue name; None = the cluster's default
ACCOUNT = None  # account to charge; None = your default
WALLTIME = "01:00:00"  # per worker job
MEMORY = "4GB"  # per worker job
CORES = 2  # cores per worker job; one single-threaded worker process each
JOBS = 4  # worker jobs to start
# --------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("MATCHDB_PATH", "data/matchdb.zarr"))
    parser.add_argument("--flops", default=None, help="tables to build (default all)")
    parser.add_argument("--jobs", type=int, default=JOBS)
    parser.add_argument("--cores", type=int, default=CORES)
    parser.add_argument("--partition", default=PARTITION)
    parser.add_argument("--account", default=ACCOUNT)
    parser.add_argument("--host", default=socket.gethostname(), help="address the workers reach the scheduler on")
    args = parser.parse_args()

    from dask_jobqueue import SLURMCluster

    from matchdb.db.build import WORKER_ENVIRON, build
    from matchdb.db.verify import verify
    from matchdb.storage.writer import create_store

    create_store(args.out)
    cluster = SLURMCluster(
        queue=args.partition,
        account=args.account,
        cores=args.cores,
        processes=args.cores,
        memory=MEMORY,
        walltime=WALLTIME,
        scheduler_options={"host": args.host, "dashboard_address": None},
        job_script_prologue=[
            # a private numba cache per job (compiling into one folder shared by nodes at once is unsafe), unless
            # the submitter set NUMBA_CACHE_DIR (one machine's folder is safe: matchdb/jit.py locks each kernel)
            'export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-${TMPDIR:-/tmp}/matchdb-numba-${SLURM_JOB_ID}}"',
            # the allocator settings of a local build (see matchdb.db.build.WORKER_ENVIRON)
            *(f"export {name}={value}" for name, value in WORKER_ENVIRON.items()),
        ],
        log_directory=os.environ.get("MATCHDB_SLURM_LOGS", "."),
    )
    try:
        cluster.scale(jobs=args.jobs)
        report = build(args.out, flops=args.flops, scheduler=cluster.scheduler_address, quiet=True)
        print(report.summary())
    finally:
        cluster.close()
    from matchdb.db.build import parse_flop_spec

    result = verify(args.out, sample=20, required=parse_flop_spec(args.flops))
    print("\n".join(result.lines()))
    raise SystemExit(0 if result.ok else 1)


if __name__ == "__main__":
    main()
