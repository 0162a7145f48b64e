"""matchdb.jit: a kernel is compiled once per machine, also when several processes ask for it at the same moment."""

from __future__ import annotations

import os
import subprocess
import sys
import time

KERNEL = '''
from matchdb.jit import jit

@jit
def total(values):
    out = 0
    for v in values:
        out += v * v - v // 3
    return out
'''

CALLER = '''
import os, sys, time
from pathlib import Path
import numpy as np
import kernel
start = Path(sys.argv[1])
while not start.exists():  # every process waits here, then all ask for the kernel at once
    time.sleep(0.01)
assert kernel.total(np.arange(10, dtype=np.int64)) == sum(v * v - v // 3 for v in range(10))
stats = kernel.total.stats
print(sum(stats.cache_misses.values()), sum(stats.cache_hits.values()))
'''


def test_processes_asking_at_once_compile_a_kernel_once(tmp_path):
    (tmp_path / "kernel.py").write_text(KERNEL)
    (tmp_path / "caller.py").write_text(CALLER)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    start = tmp_path / "start"
    callers = [subprocess.Popen([sys.executable, str(tmp_path / "caller.py"), str(start)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    time.sleep(0.5)  # not needed for the assertion: only to have the three imports done before the start
    start.touch()
    answers = []
    for caller in callers:
        out, err = caller.communicate(timeout=300)
        assert caller.returncode == 0, err
        answers.append(tuple(int(n) for n in out.split()))
    assert sorted(answers) == [(0, 1), (0, 1), (1, 0)]  # one compiled; the others waited and loaded its machine code
    assert list((tmp_path / "cache").rglob("*.lock"))


CONSTANTS = '''
from matchdb.jit import as_read_only, jit, jit_inline

@jit
def scaled(value, factor, twice):
    return value * factor * (2 if twice else 1)

@jit_inline
def first(values):
    return values[0]

@jit
def caller(value, values):
    # constants of one type, and an array made here beside a caller's read-only one
    made = values.copy()
    return (scaled(value, 0, False) + scaled(value, 1, True) + scaled(value, 2, False)
            + first(as_read_only(made)) + first(values))
'''


def test_a_kernel_compiles_once_per_argument_type_not_per_constant(tmp_path):
    """Called with 0, 1 and 2 and with False and True, a kernel is compiled once (numba would compile three
    versions); as_read_only types a kernel's own array as a caller's read-only one."""
    (tmp_path / "constants.py").write_text(CONSTANTS)
    probe = ("import numpy as np, constants; values = np.arange(3); values.flags.writeable = False; "
             "print(constants.caller(5, values), len(constants.scaled.signatures))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "1"]  # 5*0 + 5*1*2 + 5*2 + 0 + 0


def test_compiled_before_says_whether_a_first_use_compiles(tmp_path):
    """False on a fresh cache, True once compiled, and True in a new process that loads it from the disk cache."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    probe = ("import numpy as np, kernel; from matchdb.jit import compiled_before; before = compiled_before(kernel.total); "
             "kernel.total(np.arange(3)); print(before, compiled_before(kernel.total))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    said = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    assert [done.stdout.split() for done in said] == [["False", "True"], ["True", "True"]], said[0].stderr
