#!/usr/bin/python3
"""Published measurements: `podsim validate --json` over the project's data file.

Asserts:
  (a) every row whose metric is a quantity podsim predicts is expressed and simulated; the only
      rows allowed to be skipped are those whose model is not published at all (no layers,
      hidden, ffn, heads: nothing to simulate) -- each named with its reason;
  (b) every row that reports a training run (a step quantity: time, throughput, FLOP/s, MFU,
      per-layer time) fits in its chip's usable HBM with the layout simulated ("a layout that
      ran must fit", DESIGN.md §3); memory figures such as Korthikanti's Fig. 1 are not runs;
  (c) the MAPE per hardware family and per source is reported (printed);
  (d) Korthikanti et al.'s activation-memory figures (kor22-f1-*) are predicted within 5 %;
  (e) guards: MAPE <= 5 % overall and <= 8 % for every hardware family (the issue's targets);
  (f) every collective row says what ran ("collective": op, bytes, algorithm; on a GPU cluster
      NCCL's protocol and its model's time, `podsim collective --json`'s keys), and its busbw is
      the row's prediction where the metric is busbw.

The guards in (e) are the targets, which the model reaches: 4.94 % overall, with one fitted matmul
efficiency per generation (Hopper's fitted on llm-foundry's own H100 runs, none of this file's; the
Triton attention rates derived from the FlashAttention-2 paper, docs/calibration.md), and per
family A100 4.2 %, H100 5.2 %, H200 1.6 %, TPU v5e 6.8 %, TPU v5p 5.5 % (docs/calibration.md,
"Result"). The margin under 5 % is thin (4.9 points of absolute error over 88 rows): a change that
crosses it says so here.
"""
import sys

from validate_report import runs_that_do_not_fit, validate

podsim = sys.argv[1]
report = validate(podsim)
keys = list(report.keys())
assert keys[-3:] == ["mape", "rows", "skipped"], f"--json must end with mape, rows, skipped: {keys}"
failures = []

# (a) expressed and simulated
for s in report["skipped_rows"]:
    if not s["reason"].startswith("model dimensions not published"):
        failures.append(f"row {s['id']} not simulated: {s['reason']}")
print(f"{report['rows']} rows simulated, {report['skipped']} skipped: "
      + ", ".join(f"{s['id']} ({s['reason']})" for s in report["skipped_rows"]))
assert report["rows"] + report["skipped"] >= 89, "the data file has 89 rows"

# (b) every run fits
failures += runs_that_do_not_fit(report)

# (c) report
print(f"overall MAPE {100 * report['mape']:.1f} %")
for family, mape in report["mape_by_family"].items():
    print(f"  {family}: {100 * mape:.1f} %")
for source, mape in report["mape_by_source"].items():
    print(f"  {source}: {100 * mape:.1f} %")

# (d) Korthikanti's activation memory
fig1 = [r for r in report["results"] if r["id"].startswith("kor22-f1-")]
if len(fig1) != 4:
    failures.append(f"expected the 4 kor22-f1 rows, got {len(fig1)}")
for r in fig1:
    if abs(r["error"]) > 0.05:
        failures.append(f"{r['id']}: activation memory {r['predicted']:.2f} GiB vs {r['measured']:.2f} (> 5 %)")

# (e) guards at the accuracy reached (see the docstring)
if report["mape"] > 0.05:
    failures.append(f"overall MAPE {100 * report['mape']:.2f} % > 5 %")
for family, mape in report["mape_by_family"].items():
    if mape > 0.08:
        failures.append(f"{family} MAPE {100 * mape:.1f} % > 8 %")

# (f) what a collective row ran
for r in report["results"]:
    c = r.get("collective")
    if not r["id"].startswith("coll-"):
        if c is not None:
            failures.append(f"{r['id']}: a training row with a collective record")
        continue
    if c is None or not c.get("algorithm") or c.get("bytes", 0) <= 0 or c.get("time_s", 0) <= 0:
        failures.append(f"{r['id']}: no record of what ran: {c}")
        continue
    gpu = r["family"] in ("A100", "H100", "H200")
    if gpu and (not c.get("protocol") or c.get("nccl_predicted_s", -1) <= 0):
        failures.append(f"{r['id']}: NCCL's protocol and model time missing: {c}")
    if r["metric"].startswith("busbw") and abs(c["busbw_Bps"] / 1e9 - r["predicted"]) > 1e-9 * r["predicted"]:
        failures.append(f"{r['id']}: busbw {c['busbw_Bps'] / 1e9} GB/s is not the prediction {r['predicted']}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
