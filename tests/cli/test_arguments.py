"""Arguments checked before work starts (issue 20 item 5), each refusal one sentence on stderr and exit status 2.

Numbers bounded (seeds non-negative, players, samples, opponents), flop specs
deduplicated and bounded in length, output paths checked before the run (a
folder that exists, not the database being read nor inside it), and a full disk
during a write said so, with no partial file left. Each case failed before.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

import matchdb
from matchdb.cli.main import main
from matchdb.db.build import parse_flop_spec


def _refused(argv: list[str], capsys) -> str:
    """Run ``argv``; it must exit with status 2 and one line on stderr, which is returned."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("matchdb: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["verify", "--seed", "-1", "--sample", "3"], "--seed is -1; expected 0..9,223,372,036,854,775,807."),
        (["verify", "--sample", "-5"], "--sample is -5; expected 0..10,000,000."),
        (["arena", "--games", "1", "--seed", "-1"], "--seed is -1; expected 0..4,294,967,295."),
        (["query", "AhKh", "2c7dJh", "--opponents", "2", "--samples", str(10**30)], "--samples is 1" + "0" * 30),
        (["query", "AhKh", "2c7dJh", "--opponents", "2", "--seed", "-1"], "--seed is -1; expected 0.."),
        (["query", "AhKh", "2c7dJh", "--opponents", "0"], "--opponents is 0 and no --villain is given"),
        (["preflop", "--players", "2..10000000000"], "--players is '2..10000000000'; preflop win rates cover 2..10 players"),
        (["preflop", "--players", "5..3"], "--players is '5..3'; preflop win rates cover 2..10 players"),
    ],
)
def test_numbers_are_bounded_before_any_work(argv, said, small_store, capsys):
    started = time.perf_counter()
    assert said in _refused([*argv, "--db", str(small_store)], capsys)
    assert time.perf_counter() - started < 5


def test_flop_specs_are_deduplicated_and_bounded(small_store, capsys):
    """'0-1754' repeated 18,000 times made verify and build use 1.2 GB; now it is refused, and repeats cost nothing."""
    err = _refused(["verify", str(small_store), "--flops", ",".join(["0-1754"] * 18_000)], capsys)
    assert "The flop spec is 125,999 characters long; expected at most 16,384" in err
    tracemalloc.start()
    try:
        assert parse_flop_spec(",".join(["0-1754"] * 2_000)) == list(range(1755))
        assert parse_flop_spec(",".join(["2c7dJh", "2d7cJs", "326"] * 500)) == [326]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak


def test_outputs_inside_the_store_are_refused_before_anything_is_written(small_store, tmp_path, capsys):
    """'pack --db STORE --out STORE/zarr.json' used to overwrite the store's metadata with the zip."""
    store = tmp_path / "copy.zarr"
    shutil.copytree(small_store, store)
    before = {p: p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}
    for argv in (
        ["pack", "--db", str(store), "--out", str(store / "zarr.json"), "--no-preflop"],
        ["pack", "--db", str(store), "--out", str(store / "W" / "x.zip"), "--no-preflop"],
        ["export", "--db", str(store), "--out", str(store / "x.h5")],
        ["abstraction", "--db", str(store), "--zarr", str(store / "a.zarr")],
        ["abstraction", "--db", str(store), "--hdf5", str(store / "manifest" / "a.h5")],
        ["report", "QQ+", "--db", str(store), "--out", str(store / "r.csv")],
        ["plot", "grid", "2c7dJh", "--db", str(store), "--out", str(store / "g.png")],
    ):
        err = _refused(argv, capsys)
        assert f"is inside the database '{store}' being read; expected a path outside it." in err, err
    assert {p: p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()} == before
    assert matchdb.open(store).equity("AhKh", "2c7dJh") == matchdb.open(small_store).equity("AhKh", "2c7dJh")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["arena", "--games", "50", "--out", "missing/dir/r.csv"], "The output 'missing/dir/r.csv' is in a folder that does not exist"),
        (["arena", "--games", "50", "--plot", "o.csv"], "--plot is 'o.csv'; expected a file name ending in .png"),
        (["report", "QQ+", "--out", "missing/r.csv"], "The output 'missing/r.csv' is in a folder that does not exist"),
        (["preflop", "--out", "missing/p.csv"], "The output 'missing/p.csv' is in a folder that does not exist"),
        (["abstraction", "--hdf5", "missing/a.h5"], "The output 'missing/a.h5' is in a folder that does not exist"),
        (["abstraction", "--zarr", "missing/a.zarr"], "The output 'missing/a.zarr' is in a folder that does not exist"),
    ],
)
def test_outputs_are_checked_before_the_run(argv, said, small_store, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    started = time.perf_counter()
    assert said in _refused([*argv, "--db", str(small_store)], capsys)
    assert time.perf_counter() - started < 5  # before the games, the report or the dataset
    assert list(tmp_path.iterdir()) == []


# -- a full disk: said so, nothing partial left -------------------------------------------------------------------


@contextlib.contextmanager
def _small_disk(folder: Path, size: str = "96k"):
    """A tmpfs of ``size`` mounted on ``folder`` (as root); yields None for a real full disk, else the byte limit that
    RLIMIT_FSIZE puts on a subprocess instead (where mounting is not allowed)."""
    folder.mkdir()
    mounted = os.geteuid() == 0 and shutil.which("mount") is not None and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True).returncode == 0
    try:
        yield None if mounted else 2048
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=False)


def _run_limited(argv: list[str], limit: int | None) -> subprocess.CompletedProcess:
    def limit_files() -> None:
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "matchdb", *argv], capture_output=True, text=True, timeout=300,
                          preexec_fn=limit_files if limit else None, cwd=Path(__file__).resolve().parents[2])


def _said_once(stderr: str) -> bool:
    """matchdb said one sentence (one ``matchdb:`` line) and no traceback. A library's own first-use notes
    (matplotlib's "building the font cache" in a new HOME, on a slow machine) may stand beside it: they are not matchdb's."""
    return sum(line.startswith("matchdb: ") for line in stderr.splitlines()) == 1 and "Traceback" not in stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["abstraction", "--zarr", "{out}/a.zarr", "--quiet"],
        ["abstraction", "--hdf5", "{out}/a.h5", "--quiet"],
        ["pack", "--out", "{out}/s.zip", "--no-preflop", "--quiet"],
        ["export", "--out", "{out}/s.h5", "--quiet"],
        pytest.param(["report", "AA", "--out", "{out}/r.json", "--quiet"], marks=pytest.mark.full_store),
        ["plot", "grid", "2c7dJh", "--out", "{out}/g.svg"],
    ],
    ids=["abstraction-zarr", "abstraction-hdf5", "pack", "export", "report", "plot"],
)
def test_a_full_disk_is_said_and_leaves_no_partial_file(argv, request, tmp_path):
    """'abstraction --zarr' on a full disk computed 56 s, failed with OSError and left a.zarr.partial."""
    if argv[0] == "plot":
        pytest.importorskip("matplotlib")
    db = str(request.getfixturevalue("full_store" if argv[0] == "report" else "small_store"))  # a report reads every flop
    out = tmp_path / "disk"
    with _small_disk(out) as limit:
        if limit is None:
            (out / "ballast").write_bytes(b"x" * 80_000)  # leave less room than any of the outputs needs
        done = _run_limited([a.replace("{out}", str(out)) for a in argv] + ["--db", db], limit)
        left = sorted(p.name for p in out.iterdir() if p.name != "ballast")
    assert done.returncode == 2, done.stderr
    assert _said_once(done.stderr), done.stderr
    assert "failed: the disk is full" in done.stderr or "failed: the file is larger than this system allows" in done.stderr
    assert "nothing was left behind" in done.stderr
    assert left == [], left


def test_a_full_disk_under_a_streamed_log_is_one_sentence(tmp_path):
    """Files written as the work goes (tune's --log) cannot be renamed into place, but a full disk is still one sentence."""
    out = tmp_path / "disk"
    with _small_disk(out, size="64k") as limit:
        if limit is None:
            (out / "ballast").write_bytes(b"x" * (60 * 1024))
        done = _run_limited(["tune", "preflop", "--critical", "AA:950,AKs:800,72o:10", "--cycles", "3000", "--patience", "0",
                             "--log", str(out / "x.log"), "--quiet"], limit and 1024)
    assert done.returncode == 2, done.stderr
    assert _said_once(done.stderr), done.stderr
    assert done.stderr.startswith("matchdb: the disk is full or the file too large (")
