"""A real single-node SLURM cluster on this machine runs the cluster build.

Starts munged, slurmctld and slurmd from Debian's slurm-wlm and munge packages
(installed by .ci/run), submits slurm/submit.sh's job array and the
dask-jobqueue build, and verifies what they wrote. Skips, saying why, only when
the packages or root are not available.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from matchdb.core.canonical import CANONICAL_FLOPS
from matchdb.core.table import match_table
from matchdb.db.build import parse_flop_spec
from matchdb.db.verify import verify
from matchdb.storage import ShardReader, open_database

REPO = Path(__file__).resolve().parents[2]
NEEDED = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"]


def _wait(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"SLURM test needs Debian's slurm-wlm and munge ({', '.join(missing)} not found); .ci/run installs them")
    if os.geteuid() != 0:
        pytest.skip("SLURM test needs root to start munged, slurmctld and slurmd")
    base = tmp_path_factory.mktemp("slurm")
    host = socket.gethostname().split(".")[0]
    munge_dir = base / "munge"
    munge_dir.mkdir()
    key = munge_dir / "munge.key"
    socket_path = munge_dir / "munge.socket"
    subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True)
    os.chmod(key, 0o600)
    munged = subprocess.Popen([
        "munged", "--foreground", "--force", f"--key-file={key}", f"--socket={socket_path}",
        f"--pid-file={munge_dir / 'munged.pid'}", f"--log-file={munge_dir / 'munged.log'}",
        f"--seed-file={munge_dir / 'munged.seed'}",
    ])
    _wait(socket_path.exists, 30, "munged's socket")
    for folder in ("state", "spool"):
        (base / folder).mkdir()
    conf = base / "slurm.conf"
    conf.write_text(f"""\
ClusterName=matchdbtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket={socket_path}
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation={base / 'state'}
SlurmdSpoolDir={base / 'spool'}
SlurmctldPidFile={base / 'slurmctld.pid'}
SlurmdPidFile={base / 'slurmd.pid'}
SlurmctldLogFile={base / 'slurmctld.log'}
SlurmdLogFile={base / 'slurmd.log'}
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=20000 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
    env = dict(os.environ, SLURM_CONF=str(conf))
    daemons = [munged]
    daemons.append(subprocess.Popen(["slurmctld", "-D", "-i", "-f", str(conf)], env=env))
    daemons.append(subprocess.Popen(["slurmd", "-D", "-f", str(conf)], env=env))

    def node_ready():
        out = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True)
        return out.returncode == 0 and out.stdout.strip() in ("idle", "mix")

    try:
        _wait(node_ready, 60, "the SLURM node to become idle")
        yield env, base
    finally:
        for daemon in reversed(daemons):
            daemon.terminate()
        for daemon in reversed(daemons):
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()


def _queue_empty(env):
    out = subprocess.run(["squeue", "-h"], env=env, capture_output=True, text=True)
    return out.returncode == 0 and not out.stdout.strip()


def _check_store(root, spec):
    reader = ShardReader(open_database(root))
    for index in parse_flop_spec(spec):
        assert (reader.read_table(index) == match_table(CANONICAL_FLOPS[index].tolist())).all()
    report = verify(root, sample=3, required=parse_flop_spec(spec))
    assert report.ok, report.lines()


def _run_array(script: str, run_env: dict[str, str], base: Path, what: str, finish_logs: str) -> str:
    """Submit ``slurm/<script>`` (it says ``submitted <what> array``), wait for the queue to empty and return the
    newest finishing job's log."""
    result = subprocess.run(["bash", str(REPO / "slurm" / script)], env=run_env, cwd=base,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"submitted {what} array" in result.stdout
    _wait(lambda: _queue_empty(run_env), 600, f"the {what} array and finishing jobs")
    logs = sorted(base.glob(finish_logs))
    assert logs, "the finishing job wrote no log"
    return logs[-1].read_text()


def test_job_array_builds_and_verifies(slurm):
    env, base = slurm
    store = base / "array.zarr"
    run_env = dict(env, MATCHDB_PATH=str(store), FLOPS="100-111", TASKS="3", PYTHON=sys.executable, TIME="00:10:00", MEM="1G")
    finish_log = _run_array("submit.sh", run_env, base, "build", "matchdb-finish-*.out")
    assert "OK" in finish_log.splitlines()[-1], finish_log
    task_logs = sorted(base.glob("matchdb-build-*_*.out"))
    assert len(task_logs) == 3 and all("tables" in log.read_text() for log in task_logs)
    _check_store(store, "100-111")


def test_dask_jobqueue_builds_on_slurm_workers(slurm):
    pytest.importorskip("dask_jobqueue")
    env, base = slurm
    store = base / "dask.zarr"
    run_env = dict(env, MATCHDB_SLURM_LOGS=str(base))
    result = subprocess.run(
        [sys.executable, str(REPO / "slurm" / "dask_build.py"), "--out", str(store), "--flops", "200-205",
         "--jobs", "1", "--cores", "2", "--host", "127.0.0.1"],
        env=run_env, cwd=base, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "built 6 tables" in result.stdout and "OK" in result.stdout
    _check_store(store, "200-205")


@pytest.mark.usefixtures("solver_compiled")
def test_a_library_job_array_solves_and_verifies(slurm, small_store):
    """slurm/library_submit.sh: the library made for the spec, two array tasks solving a slice of the flops each into
    it side by side, the finishing job resuming and verifying; every flop stored equals a solve here.

    The jobs share one numba cache (the run's, where the solver's kernels are compiled already; else one in the run's
    shared folder, compiled once under matchdb's lock) instead of compiling the solver once each."""
    from matchdb.library import LibrarySpec, open_library, solve_flop
    from matchdb.library.store import FolderFiles, read_flop

    env, base = slurm
    spec = base / "toy.toml"
    spec.write_text('name = "toy"\noop = "AA,KK,AK"\nip = "QQ,JJ,AQs,T9s"\npot = 100\nstack = 100\nbet = "50%, a"\n'
                    "target = 3.0\n")
    library = base / "toy.zarr"
    run_env = dict(env, MATCHDB_PATH=str(small_store), SPEC=str(spec), LIBRARY=str(library), FLOPS="0-2", TASKS="2",
                   PYTHON=sys.executable, TIME="00:10:00", MEM="1G",
                   NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR") or str(Path(os.environ["MATCHDB_TEST_SHARED"]) / "numba"))
    finish_log = _run_array("library_submit.sh", run_env, base, "library", "matchdb-library-finish-*.out")
    last = finish_log.rstrip().splitlines()[-1]
    assert ": 3 flops checked, 2 solved again" in last and last.endswith(": OK"), finish_log
    task_logs = sorted(base.glob("matchdb-library-*_*.out"))
    assert len(task_logs) == 2 and all("flops" in log.read_text() for log in task_logs)
    stored = open_library(library)
    assert stored.flops() == [0, 1, 2]
    keys = LibrarySpec.from_toml(spec.read_text()).to_dict()
    for index in (0, 2):
        fresh = solve_flop(str(small_store), index, keys)
        entry = read_flop(FolderFiles(library), index)
        assert all((entry.arrays()[k] == fresh.arrays()[k]).all() for k in ("strategy", "combos", "categories")), index
