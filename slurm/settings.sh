# Settings for a cluster build. Edit them here, or set any of them in the
# environment before running slurm/submit.sh (the environment wins).
: "${PARTITION:=}"                 # partition (queue); empty = the cluster's default
: "${ACCOUNT:=}"                   # account to charge; empty = your default
: "${TIME:=00:30:00}"              # wall time per job
: "${MEM:=4G}"                     # memory per job (a task needs about 300 MB)
: "${TASKS:=35}"                   # array tasks; each builds about 1755 / TASKS tables
: "${FLOPS:=0-1754}"               # the tables to build, as a range first-last
: "${MATCHDB_PATH:=$PWD/data/matchdb.zarr}"  # the store, on a filesystem every node shares
: "${PYTHON:=python3}"             # a Python with matchdb installed, on every node
export PARTITION ACCOUNT TIME MEM TASKS FLOPS MATCHDB_PATH PYTHON
