#!/usr/bin/env python3
"""A precision cell that says fp8 runs fp8, never bf16 without a word.

The nine Megatron-Core H100 runs (configs/validation/megatron-core-h100-2024.csv, bf16) are
validated again with their precision cell set to `fp8`, and once to `nvfp4`. Checks:

  (a) each fp8 row says what it ran (Transformer Engine's fp8 GEMMs in the linear layers) and
      predicts more TFLOP/s per GPU than the same row in bf16, but less than twice as much: only
      the linear GEMMs run at the fp8 peak (2x bf16's on H100), with a cast before each, while
      attention, element-wise ops, communication and the bubble do not speed up;
  (b) the same mesh ran (dp x tp x pp; the planner may pick another interleaving where a row
      leaves it open, as the faster GEMMs change the balance of bubble and p2p);
  (c) a format podsim has no kernels for is skipped with the words a precision cell may say,
      and a file whose every row is skipped reports no error rather than 0.0 %.

usage: check_fp8.py PODSIM CSV
"""
import csv
import os
import subprocess
import sys
import tempfile

from validate_report import validate

podsim, data = sys.argv[1], sys.argv[2]
with open(data, newline="") as f:
    reader = csv.DictReader(f)
    columns = reader.fieldnames
    rows = list(reader)

failures = []
with tempfile.TemporaryDirectory() as tmp:
    def report_with(precision):
        path = os.path.join(tmp, precision + ".csv")
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=columns)
            w.writeheader()
            for r in rows:
                w.writerow(dict(r, precision=precision))
        return validate(podsim, path)

    bf16 = {r["id"]: r for r in report_with("bf16")["results"]}
    fp8 = {r["id"]: r for r in report_with("fp8")["results"]}
    unknown = report_with("nvfp4")
    text = subprocess.run([podsim, "validate", "--data", os.path.join(tmp, "nvfp4.csv")],
                          capture_output=True, text=True, check=True).stdout

if len(fp8) != len(rows) or len(bf16) != len(rows):
    failures.append(f"expected {len(rows)} rows simulated in both precisions: {len(bf16)} bf16, {len(fp8)} fp8")
for row_id, r in sorted(fp8.items()):
    b = bf16.get(row_id)
    if b is None:
        continue
    if not any(a.startswith("fp8: Transformer Engine") for a in r["assumptions"]):
        failures.append(f"{row_id}: the fp8 row does not say it ran fp8 GEMMs: {r['assumptions']}")
    speedup = r["predicted"] / b["predicted"]
    if not 1.05 < speedup < 2.0:
        failures.append(f"{row_id}: fp8 / bf16 throughput {speedup:.3f}, expected between 1.05 and 2")
    if r["layout"].split(" · ")[0] != b["layout"].split(" · ")[0]:
        failures.append(f"{row_id}: meshes differ: bf16 {b['layout']}, fp8 {r['layout']}")
    print(f"{row_id}: {b['predicted']:.1f} -> {r['predicted']:.1f} TFLOP/s per GPU (x{speedup:.2f})")

if unknown["skipped"] != len(rows) or not all(
        "names no number format podsim models (fp8, fp16, bf16" in s["reason"] for s in unknown["skipped_rows"]):
    failures.append(f"nvfp4 rows should be skipped with the accepted words: {unknown['skipped_rows'][:2]}")

if "no row was simulated, so there is no error to report" not in text or "overall" in text:
    failures.append("a file whose every row is skipped should report no error, not a mean of none:\n" + text)

if failures:
    print("\n".join(failures))
    sys.exit(1)
