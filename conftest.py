"""Shared fixtures (for tests/ and for the doctests of matchdb/, docs/ and README.md): match tables, a small store and the full database, each built once per test run.

The test run spreads over every core (pytest-xdist, ``-n auto`` in
``pyproject.toml``): the stores are built once per run, by whichever worker
needs one first, under a file lock in a folder the whole run shares
(``MATCHDB_TEST_SHARED``, made by the controlling process and removed when
the run ends); the other workers wait for it and open the same store.

The small store also backs every doctest: the package's, the docs' and the README's
examples run with ``db`` (and ``path``) naming it, ``matchdb.open()``
finding it through ``MATCHDB_PATH``, in a scratch folder of their own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

_SHARED = "MATCHDB_TEST_SHARED"
_shared_key = pytest.StashKey[str]()


def pytest_configure(config):
    """The controlling process (or a run without workers) makes the folder the run's workers share."""
    if hasattr(config, "workerinput") or os.environ.get(_SHARED):
        return  # an xdist worker inherits the controller's folder
    folder = tempfile.mkdtemp(prefix="matchdb-tests-")
    config.stash[_shared_key] = folder
    os.environ[_SHARED] = folder  # before the workers start: they inherit it


def pytest_xdist_auto_num_workers(config):
    """One worker more than there are cores: a worker waiting on a server, a browser or a store being built leaves
    its core to the others (``-n auto`` in ``pyproject.toml``)."""
    return (os.cpu_count() or 1) + 1


def pytest_unconfigure(config):
    """The run is over: its shared stores (the full one is 238 MB) are never left behind under /tmp."""
    for early in config.stash.get(_early_build_key, []):
        if early.poll() is None:  # a run that ended before the tests that need what it prepares
            early.kill()
            early.wait()
    folder = config.stash.get(_shared_key, None)
    if folder is not None:
        os.environ.pop(_SHARED, None)
        shutil.rmtree(folder, ignore_errors=True)


def built_once(name: str, make: Callable[[Path], None]) -> Path:
    """A folder ``name`` made by ``make(path)`` once per test run, whichever worker asks first; the others wait for it."""
    shared = Path(os.environ[_SHARED])
    path = shared / name
    with FileLock(str(shared / f"{name}.lock")):
        if not (shared / f"{name}.done").exists():
            shutil.rmtree(path, ignore_errors=True)  # a worker killed half-way left it unfinished
            path.mkdir()
            make(path)
            (shared / f"{name}.done").touch()
    return path


@pytest.fixture(scope="session")
def table_cache():
    """Memoised ``match_table`` so several tests can share a flop's table."""
    from matchdb.core.table import match_table

    cache: dict[str, object] = {}

    def get(flop: str):
        if flop not in cache:
            cache[flop] = match_table(flop)
        return cache[flop]

    return get


#: Tables the shared test store holds: the published references plus a few more.
SMALL_FLOPS = "AhTcTh,AsTs9h,2c7dJh,AhKhQh,7c7d2s,0-2"


def _make_small_store(folder: Path) -> None:
    from matchdb.db.build import build

    report = build(folder / "matchdb.zarr", flops=SMALL_FLOPS, workers=2, quiet=True)
    assert len(report.built) == 8


def build_small_store() -> Path:
    """The small store, built once per run through the default Dask cluster by whichever process asks first (the
    fixture, or the early process that :func:`pytest_collection_modifyitems` starts)."""
    return built_once("small", _make_small_store) / "matchdb.zarr"


@pytest.fixture(scope="session")
def small_store():
    """A real store of a few tables, built once per test run through the default Dask cluster."""
    return build_small_store()


@pytest.fixture(scope="session")
def small_db(small_store):
    """The small store, opened once."""
    import matchdb

    return matchdb.open(small_store)


@pytest.fixture(autouse=True)
def _doctest_setup(request, doctest_namespace, tmp_path, monkeypatch):
    """For doctests only: the small store as ``db``, ``path`` and the default database; a scratch folder as cwd and as
    the folder of temporary files (an example's ``tempfile.mkdtemp()`` then leaves nothing behind in /tmp)."""
    from _pytest.doctest import DoctestItem

    if not isinstance(request.node, DoctestItem):
        return
    import numpy as np

    import matchdb

    small_store = request.getfixturevalue("small_store")
    doctest_namespace.update(db=request.getfixturevalue("small_db"), path=str(small_store), matchdb=matchdb, np=np)
    monkeypatch.setenv("MATCHDB_PATH", str(small_store))
    samples = tmp_path / "tests" / "data"  # the sample hand histories where the docs name them (from the repo's root)
    samples.mkdir(parents=True)
    (samples / "hands").symlink_to(Path(__file__).resolve().parent / "tests" / "data" / "hands")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture(scope="session")
def small_flops(small_store):
    """Canonical indices of the tables in ``small_store``."""
    from matchdb.db.build import parse_flop_spec

    return sorted(parse_flop_spec(SMALL_FLOPS))


def _compile_solver(folder: Path) -> None:
    import matchdb

    db = matchdb.open(build_small_store())
    db.solve("AA,QQ", "KK", "2c7dJh3s8c", pot=100, stack=100, bet="a", target=0.1)
    db.solve("AA,QQ", "KK", "2c7dJh3s", pot=100, stack=100, bet="a", target=1, compressed=True)


def compile_solver() -> None:
    """The solver's kernels compiled into numba's disk cache once per run, by whichever process asks first."""
    built_once("solver-kernels", _compile_solver)


@pytest.fixture(scope="session")
def solver_compiled(small_store):
    """The solver's compiled kernels, compiled once per test run into numba's disk cache (about a minute and a half on
    a fresh machine) by the early process that :func:`pytest_collection_modifyitems` starts, or by whichever worker
    needs them first; the other workers wait and then load them, instead of compiling the same kernels side by side."""
    compile_solver()


@pytest.fixture
def own_full_store(full_store, tmp_path):
    """The full database as a test that edits its derived data needs it: its own copy (:func:`private_copy`), never
    the session's store, which the other workers read at the same time."""
    from tests.helpers import private_copy

    return private_copy(full_store, tmp_path / "own.zarr")


def _make_full_store(folder: Path) -> None:
    """Build the full store into ``folder`` (or copy ``MATCHDB_TEST_FULL_STORE`` and complete it), as the fixture does."""
    from matchdb.db.build import build

    root = folder / "matchdb.zarr"
    prebuilt = os.environ.get("MATCHDB_TEST_FULL_STORE")
    if prebuilt:
        shutil.copytree(prebuilt, root)
    # serial: in this process, beside the test workers (Dask would add its scheduler and worker processes, about a
    # quarter more processor time; the Dask build is tested in tests/db/test_build.py and tests/db/test_slurm.py).
    # With a copy it checks that the copy is complete and computes only the derived data it lacks.
    report = build(root, quiet=True, serial=True)
    assert len(report.built) + report.skipped == 1755


def build_full_store() -> Path:
    """The session's full store, built once per run by whichever process asks first (the fixture, or the early build
    that :func:`pytest_collection_modifyitems` starts)."""
    return built_once("full", _make_full_store) / "matchdb.zarr"


_early_build_key = pytest.StashKey[list[subprocess.Popen]]()


def _needs_full_store(item: pytest.Item) -> bool:
    return "full_store" in getattr(item, "fixturenames", ()) or item.get_closest_marker("full_store") is not None


def _has_module_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a module-scoped fixture (a server, a browser, a solve) that each worker running some of the
    module's tests would set up again. pytest has no public accessor for an item's fixture definitions."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(d.scope == "module" for defs in definitions.values() for d in defs)


@pytest.hookimpl(tryfirst=True)  # before xdist's worker renames grouped tests
def pytest_collection_modifyitems(session, config, items):
    """Tests on the full database run last and the solver's tests before them, the full build and the solver's
    compiling start at once in processes of their own; a module's tests that share a module-scoped fixture run on
    one worker.

    The build takes a few minutes and the compiling one and a half; a worker that reached a test needing either
    waited for it, and with two workers waiting a core stood idle. Now both run beside the other tests from the
    start (one process each for the whole run, under the same locks as the fixtures), and the tests that need them
    come after those that do not. Every worker reorders the same way, so xdist's workers agree on the order.

    A module-scoped fixture is set up once per worker that runs the module's tests: a page module spread over three
    workers started three servers and three browsers. Such a module's tests form one ``xdist_group`` (``--dist
    loadgroup`` in ``pyproject.toml``), its full-database tests a second one that runs last with the others.
    """
    full = [item for item in items if _needs_full_store(item)]
    for item in items:
        if _has_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0] + ("+full" if _needs_full_store(item) else "")))
    if _SHARED not in os.environ:
        return
    chosen = set(map(id, full))
    solver = [item for item in items if id(item) not in chosen and "solver_compiled" in getattr(item, "fixturenames", ())]
    chosen |= set(map(id, solver))
    items[:] = [item for item in items if id(item) not in chosen] + solver + full
    early = []
    if solver:
        early.append(_start_early("solver", "conftest.compile_solver()"))
    if full:
        early.append(_start_early("full", "conftest.build_full_store()"))
    config.stash[_early_build_key] = [process for process in early if process is not None]


def _start_early(name: str, call: str) -> subprocess.Popen | None:
    """Run ``call`` (a function of this module) in a process of its own, once per run (the first worker to collect
    starts it); None where another worker did."""
    try:
        marker = os.open(Path(os.environ[_SHARED]) / f"{name}.started", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return None
    os.close(marker)
    root = str(Path(__file__).resolve().parent)
    code = f"import sys; sys.path.insert(0, {root!r}); import conftest; {call}"
    return subprocess.Popen([sys.executable, "-c", code], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def full_store():
    """The whole database, built once per test run as ``matchdb build`` builds it, its derived data included (about 2 minutes on 2 cores).

    A developer who already has a full store built by this checkout's code can set
    ``MATCHDB_TEST_FULL_STORE`` to its path: the run then works on a copy of it
    (about 2 s) instead of building one. CI leaves it unset and builds.
    """
    return build_full_store()  # waits for the early build when it is running; builds itself when that one failed
