#!/usr/bin/env bash
# Two processes on a step with nothing to share out (the analytical network) say so on
# stderr, once; a contention-aware step that shares its simulations out does not.
#   idle_note.sh PODSIM MPIEXEC WORKDIR SCENARIO
set -euo pipefail
podsim=$1 mpiexec=$2 work=$3 scenario=$4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$mpiexec" -n 2 "$podsim" run "$scenario" --set network.model=analytical -o a.h5 > /dev/null 2> analytical.err
"$mpiexec" -n 2 "$podsim" run "$scenario" --set network.model=contention -o c.h5 > /dev/null 2> contention.err
fail=0
if [ "$(grep -c 'nothing to share out' analytical.err)" != 1 ]; then
  echo "FAIL: an analytical step on 2 processes should say once that it had nothing to share out:"
  cat analytical.err
  fail=1
fi
if grep -q 'podsim: note' contention.err; then
  echo "FAIL: a contention-aware step that shares its simulations out should not note idle processes:"
  cat contention.err
  fail=1
fi
[ "$fail" = 0 ] && echo "idle processes noted where they are, and only there"
exit "$fail"
