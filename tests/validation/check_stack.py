#!/usr/bin/env python3
"""A validation row's software stack: its `stack` column, else read from its text, and the
defaults the stack's code has where the row is silent.

GPT-3 175B on 128 H100 (16 nodes; tp 4, pp 8, 12 virtual stages, micro batch 1, no recompute,
the distributed optimizer) ran under Megatron-Core; a row that says so and nothing about its
attention must get Transformer Engine's default fused attention and fit in 80 GB, where
Megatron-LM's unfused attention of 2021 (its s x s scores kept for the backward) does not.
The rows are written here, with measured_value 1: only the layout and its memory are checked,
never the prediction against the value. Checks:
  (a) stack megatron-core: flash attention by default (said among the assumptions), the stated
      layout, and it fits;
  (b) stack megatron-lm: no flash attention, and the same layout does not fit;
  (c) no stack cell, a source naming NVIDIA NeMo: read as megatron-core, as (a);
  (d) a stack word podsim does not know: the row is skipped with the words it accepts.

usage: check_stack.py PODSIM
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

podsim = sys.argv[1]
columns = ["id", "source", "hardware", "n_chips", "model", "params", "layers", "hidden", "ffn_hidden", "heads",
           "kv_heads", "seq_len", "vocab", "global_batch_seqs", "micro_batch", "tp", "pp", "dp", "cp_or_sp",
           "interleave_v", "zero_or_fsdp", "recompute", "precision", "measured_metric", "measured_value", "notes",
           "stack"]
gpt3 = {"hardware": "H100-SXM-80GB", "n_chips": "128", "model": "GPT-3 175B", "params": "175B", "layers": "96",
        "hidden": "12288", "ffn_hidden": "49152", "heads": "96", "kv_heads": "96", "seq_len": "2048",
        "vocab": "51200", "global_batch_seqs": "256", "micro_batch": "1", "tp": "4", "pp": "8", "dp": "4",
        "cp_or_sp": "sequence parallel", "interleave_v": "12", "zero_or_fsdp": "distributed optimizer",
        "recompute": "none", "precision": "bf16", "measured_metric": "iteration time (s)", "measured_value": "1",
        "notes": ""}
rows = [
    dict(gpt3, id="core", source="A test row (Megatron-Core layout)", stack="megatron-core"),
    dict(gpt3, id="lm", source="A test row (Megatron-LM layout)", stack="megatron-lm"),
    dict(gpt3, id="nemo", source="A test row run with NVIDIA NeMo", stack=""),
    dict(gpt3, id="other", source="A test row", stack="nemo-2"),
]

with tempfile.TemporaryDirectory() as tmp:
    data = os.path.join(tmp, "rows.csv")
    with open(data, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    out = subprocess.run([podsim, "validate", "--data", data, "--json"], capture_output=True, text=True)
if out.returncode != 0:
    sys.exit(f"validate failed ({out.returncode}): {out.stderr}")
report = json.loads(out.stdout)
results = {r["id"]: r for r in report["results"]}
skipped = {s["id"]: s["reason"] for s in report["skipped_rows"]}
failures = []

for row_id in ("core", "nemo"):
    r = results.get(row_id)
    if r is None:
        failures.append(f"{row_id}: not simulated: {skipped.get(row_id)}")
        continue
    said = " ".join(r["assumptions"])
    if "megatron-core's default fused attention" not in said:
        failures.append(f"{row_id}: no default flash attention in {r['assumptions']}")
    if not r["layout"].startswith("dp 4 × tp 4 × pp 8 · interleaved 1F1B v12 · micro batch 1"):
        failures.append(f"{row_id}: layout {r['layout']}")
    if not r["fits"]:
        failures.append(f"{row_id}: ran on 80 GB H100s, podsim says {r['memory_gib']:.1f} of {r['capacity_gib']:.1f} GiB")
    print(f"{row_id}: {r['memory_gib']:.1f} of {r['capacity_gib']:.1f} GiB, {r['layout']}")

lm = results.get("lm")
if lm is None:
    failures.append(f"lm: not simulated: {skipped.get('lm')}")
else:
    if "fused attention" in " ".join(lm["assumptions"]):
        failures.append(f"lm: Megatron-LM of 2021 has no default fused attention: {lm['assumptions']}")
    if lm["fits"]:
        failures.append(f"lm: unfused attention should not fit: {lm['memory_gib']:.1f} of {lm['capacity_gib']:.1f} GiB")
    print(f"lm: {lm['memory_gib']:.1f} of {lm['capacity_gib']:.1f} GiB (does not fit)")

reason = skipped.get("other", "")
if "stack \"nemo-2\" is not one podsim knows (megatron-lm, megatron-core" not in reason:
    failures.append(f"other: expected a skip naming the stack words, got {reason!r}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
