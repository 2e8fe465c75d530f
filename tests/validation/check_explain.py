#!/usr/bin/python3
"""`podsim validate --explain ID`: one row validated, and the step podsim simulated for it.

Asserts:
  (a) the row's MFU in the comparison table is the MFU of the step report printed under it
      (the step shown is the step validated, not a second guess);
  (b) the report says what the row left open and which layout ran (its header line);
  (c) a collective row says it has no training step and what ran instead (NCCL's ring, Simple, at 1 GiB);
  (d) an unknown id is an input error: exit code 2, the file named, the closest id suggested.
"""
import re
import subprocess
import sys

podsim = sys.argv[1]


def run(*args):
    return subprocess.run([podsim, "validate", *args], capture_output=True, text=True)


failures = []

# (a), (b): an MPT row, whose metric is MFU itself.
r = run("--explain", "mpt-7b-8-a100")
if r.returncode != 0:
    sys.exit(f"--explain mpt-7b-8-a100 failed ({r.returncode}): {r.stderr}")
out = r.stdout
row = re.search(r"^mpt-7b-8-a100\s+A100\s+MFU \(%\)\s+64\.23\s+([0-9.]+)", out, re.M)
step = re.search(r"^step [0-9.]+ s .* MFU ([0-9.]+) %", out, re.M)
if not row or not step:
    failures.append(f"expected the row and a step report:\n{out}")
elif abs(float(row.group(1)) - float(step.group(1))) > 0.051:
    failures.append(f"table MFU {row.group(1)} != step report MFU {step.group(1)}")
if "the step podsim simulated for mpt-7b-8-a100:" not in out or "dp 8 × tp 1 × pp 1" not in out:
    failures.append(f"the report does not name the row and its layout:\n{out}")
if "1 rows:" in out or "89 rows" in out:
    failures.append("--explain must validate that row alone")

# (c) a collective row
r = run("--explain", "coll-a100x8-ar-1G")
if (r.returncode != 0 or "is a collective benchmark, so there is no training step" not in r.stdout
        or "algorithm ring · NCCL protocol simple" not in r.stdout):
    failures.append(f"collective row: {r.returncode} {r.stdout} {r.stderr}")

# (d) an unknown id
r = run("--explain", "mpt-7b-8-a10")
if r.returncode != 2 or 'has no row with id "mpt-7b-8-a10" (did you mean "mpt-7b-8-a100"?)' not in r.stderr \
        or "published.csv" not in r.stderr or r.stdout:
    failures.append(f"unknown id: exit {r.returncode}, stderr {r.stderr!r}, stdout {r.stdout[:200]!r}")

if failures:
    sys.exit("\n".join(failures))
print("validate --explain: row and step agree; collective rows and unknown ids handled")
