#!/usr/bin/env bash
# A sweep killed mid-way (SIGKILL to mpiexec and every rank at once) and run again must end
# with exactly one row per point and the same file, byte for byte, as a run never killed.
#   kill_resume.sh PODSIM MPIEXEC N WORKDIR SWEEP.yaml
set -euo pipefail
podsim=$1 mpiexec=$2 n=$3 work=$4 sweep=$5
rm -rf "$work"
mkdir -p "$work/whole" "$work/killed"
# Both runs use the same command line (it is recorded in the file), flushing rows often.
args=(sweep "$sweep" -q --flush-every 0.2 -o out.h5)

(cd "$work/whole" && "$mpiexec" -n "$n" "$podsim" "${args[@]}" > stdout)
total=$(sed -n 's/.*: \([0-9]*\) points in out.h5.*/\1/p' "$work/whole/stdout")

cd "$work/killed"
"$mpiexec" -n "$n" "$podsim" "${args[@]}" > first.stdout 2>&1 &
launcher=$!
# Kill as soon as the first rows are in the file: the sweep is then well under way.
for _ in $(seq 1 1200); do
  [ -e out.h5 ] && break
  sleep 0.05
done
[ -e out.h5 ] || { echo "FAIL: no rows written after 60 s"; kill -KILL "$launcher"; exit 1; }
# The launcher and every rank of this run: they work in this folder (other tests may run the
# same sweep at the same time, elsewhere).
ours() {
  local p
  for p in $(pgrep -f -- "$sweep" || true); do
    case "$(cat "/proc/$p/comm" 2>/dev/null)" in
      podsim | mpiexec | mpirun | orterun | prterun) ;;
      *) continue ;;  # this script, for one
    esac
    [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$PWD" ] && echo "$p"
  done
  return 0
}
kill -KILL $(ours) 2>/dev/null || true
wait "$launcher" 2>/dev/null || true
for _ in $(seq 1 100); do
  [ -z "$(ours)" ] && break
  sleep 0.05
done
if [ -n "$(ours)" ]; then
  echo "FAIL: processes of the killed sweep are still running: $(ours)"; exit 1
fi
if grep -q "points in out.h5" first.stdout; then
  echo "FAIL: the sweep finished before it could be killed; make it longer"; exit 1
fi

"$mpiexec" -n "$n" "$podsim" "${args[@]}" > stdout
resumed=$(sed -n 's/.*(\([0-9]*\) resumed from the file.*/\1/p' stdout)
echo "killed after $resumed of $total points had been written; the rerun did the rest"
fail=0
if ! [ "$resumed" -gt 0 ] || ! [ "$resumed" -lt "$total" ]; then
  echo "FAIL: the rerun resumed $resumed of $total points; expected some but not all"
  fail=1
fi
if ! cmp -s out.h5 "$work/whole/out.h5"; then
  echo "FAIL: the resumed file differs from the file of an uninterrupted run"
  fail=1
fi
if ls out.h5.tmp.* > /dev/null 2>&1; then
  echo "FAIL: temporary files left behind: $(ls out.h5.tmp.*)"
  fail=1
fi
[ "$fail" = 0 ] && echo "resumed sweep = uninterrupted sweep ($total points, mpiexec -n $n)"
exit "$fail"
