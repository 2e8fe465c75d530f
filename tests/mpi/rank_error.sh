#!/usr/bin/env bash
# An error on any rank must stop the whole job with that error and a non-zero exit, not hang.
# The strict sweep fails at one point, on whichever rank is given it.
#   rank_error.sh PODSIM MPIEXEC N WORKDIR SWEEP.yaml EXPECTED-CODE EXPECTED-TEXT
set -uo pipefail
podsim=$1 mpiexec=$2 n=$3 work=$4 sweep=$5 code=$6 text=$7
rm -rf "$work"
mkdir -p "$work"
cd "$work"
timeout 120 "$mpiexec" -n "$n" "$podsim" sweep "$sweep" -q -o out.h5 > stdout 2> stderr
got=$?
fail=0
if [ "$got" = 124 ]; then
  echo "FAIL: the job hung (killed after 120 s)"; fail=1
elif [ "$got" != "$code" ]; then
  echo "FAIL: exit code $got, expected $code"; fail=1
fi
if ! grep -qF -- "$text" stderr; then
  echo "FAIL: stderr does not say: $text"; fail=1
fi
cat stderr
[ "$fail" = 0 ] && echo "the job stopped with the error and exit code $code (mpiexec -n $n)"
exit "$fail"
