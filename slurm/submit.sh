#!/usr/bin/env bash
# Submit a cluster build: create the store, run a job array in which every task
# builds one slice of the tables, then one job that builds whatever is still
# missing (a task that died, a node that failed) and verifies the store.
# Usage: slurm/submit.sh            (settings in slurm/settings.sh or the environment)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/settings.sh"
export MATCHDB_SLURM_DIR="$here"

options=(--time="$TIME" --mem="$MEM" --export=ALL)
[ -n "$PARTITION" ] && options+=(--partition="$PARTITION")
[ -n "$ACCOUNT" ] && options+=(--account="$ACCOUNT")

"$PYTHON" -m matchdb init --out "$MATCHDB_PATH"
array=$(sbatch --parsable "${options[@]}" --array=0-$((TASKS - 1)) "$here/build_array.sbatch")
finish=$(sbatch --parsable "${options[@]}" --dependency=afterany:"$array" "$here/finish.sbatch")
echo "submitted build array $array and finishing job $finish into $MATCHDB_PATH"
echo "watch with: squeue -j $array,$finish; the finishing job's log says whether verify passed"
