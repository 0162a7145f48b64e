"""The one local Dask cluster helper: bound to 127.0.0.1, quiet, the environment restored, used by build, arena and tuning."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from matchdb.cluster import local_cluster
from matchdb.errors import MatchdbError


def test_a_cluster_runs_work_on_localhost_and_leaves_no_trace():
    import distributed  # noqa: F401 - importing it sets its loggers' levels

    before = dict(os.environ)
    level = logging.getLogger("distributed").level
    with local_cluster(1, environ={"MATCHDB_TEST_VARIABLE": "7"}) as client:
        assert client.submit(sum, [1, 2]).result() == 3
        assert client.run(lambda: os.environ.get("MATCHDB_TEST_VARIABLE")) == dict.fromkeys(client.scheduler_info()["workers"], "7")
        assert all(address.startswith("tcp://127.0.0.1:") for address in client.scheduler_info()["workers"])
        assert client.scheduler.address.startswith("tcp://127.0.0.1:")
    assert dict(os.environ) == before  # the nanny's pre-spawn variables do not stay in this process
    assert logging.getLogger("distributed").level == level


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_the_worker_count_is_checked(workers):
    with (pytest.raises(MatchdbError, match=f"The number of workers {workers!r} is not a whole number of at least 1."),
          local_cluster(workers)):
        pass


def test_build_quiet_prints_nothing_of_dasks_logging(tmp_path):
    """Issue 19: 'matchdb build --quiet' printed about 30 lines of Dask's logging ('Start Nanny at', ...)."""
    command = [sys.executable, "-m", "matchdb", "build", "--out", str(tmp_path / "q.zarr"), "--flops", "0",
               "--workers", "1", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert done.stdout.startswith("built 1 table,"), done.stdout
