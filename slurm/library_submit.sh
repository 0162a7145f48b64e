#!/usr/bin/env bash
# Submit a solution library build (matchdb library build, issue 33): make the library folder for the spec, run a
# job array in which every task solves one slice of the flops, then one job that solves whatever is still missing
# (a task that died, a node that failed) and verifies the library.
# Usage: SPEC=data/library/3bet-100bb.toml LIBRARY=$PWD/3bet.zarr slurm/library_submit.sh
# (the other settings as for the tables, in slurm/settings.sh or the environment; MATCHDB_PATH is the database the
# flops are solved on, built before; a flop of the 3-bet spec takes about 75 s on one core, so give TIME room:
# TASKS=35 solves 51 flops a task, about an hour)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/settings.sh"
: "${SPEC:?set SPEC to the spec of the library, a TOML file like data/library/3bet-100bb.toml}"
: "${LIBRARY:?set LIBRARY to the library folder to fill, on a filesystem every node shares}"
SPEC=$(cd "$(dirname "$SPEC")" && pwd)/$(basename "$SPEC")
export SPEC LIBRARY

options=(--time="$TIME" --mem="$MEM" --export=ALL)
[ -n "$PARTITION" ] && options+=(--partition="$PARTITION")
[ -n "$ACCOUNT" ] && options+=(--account="$ACCOUNT")

"$PYTHON" -m matchdb library init --spec "$SPEC" --out "$LIBRARY"
array=$(sbatch --parsable "${options[@]}" --array=0-$((TASKS - 1)) "$here/library_array.sbatch")
finish=$(sbatch --parsable "${options[@]}" --dependency=afterany:"$array" "$here/library_finish.sbatch")
echo "submitted library array $array and finishing job $finish into $LIBRARY"
echo "watch with: squeue -j $array,$finish; the finishing job's log says whether verify passed"
