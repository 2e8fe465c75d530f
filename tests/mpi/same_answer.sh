#!/usr/bin/env bash
# Runs one podsim command alone and under `mpiexec -n N`, in two scratch folders, and checks
# that both give byte-identical output files (and identical stdout): the answer must not
# depend on the number of processes.
#   same_answer.sh PODSIM MPIEXEC N WORKDIR podsim-args...   (args write -o out.h5)
set -euo pipefail
podsim=$1 mpiexec=$2 n=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work/alone" "$work/mpi"
(cd "$work/alone" && "$podsim" "$@" > stdout)
(cd "$work/mpi" && "$mpiexec" -n "$n" "$podsim" "$@" > stdout)
fail=0
for f in stdout out.h5; do
  if ! cmp -s "$work/alone/$f" "$work/mpi/$f"; then
    echo "FAIL: $f differs between 1 process and mpiexec -n $n: podsim $*"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "same answer on 1 process and on $n: podsim $*"
exit "$fail"
