#!/usr/bin/python3
"""One link model: `podsim collective --hardware` gives the busbw `podsim validate` predicts.

The 8 x A100 NCCL all-reduce rows of configs/validation/published.csv (1 MiB to 8 GiB) are
validated, and each size is timed again with `podsim collective` on topologies/a100-dgx-8x8.yaml
(its NVLink axis) and `--hardware a100-80gb`. Asserts:
  (a) every size's busbw agrees to 1e-6 (the same NCCL model, the same link efficiency);
  (b) without --hardware the links run at their nominal bandwidth and the command says so: at
      1 GiB, busbw is above validate's by about 1/efficiency.ici (links 25 % faster, the NCCL
      bandwidth cap and latency unchanged), and the header names the missing flag;
  (c) the JSON names the hardware and the link efficiency it applied.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

podsim = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
published = os.path.join(root, "configs", "validation", "published.csv")
topology = os.path.join(root, "topologies", "a100-dgx-8x8.yaml")

with open(published, newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    rows = [r for r in reader if r and r[0].startswith("coll-a100x8-ar-")]
if len(rows) < 5:
    sys.exit(f"expected the 8 x A100 all-reduce rows in {published}, found {len(rows)}")

with tempfile.TemporaryDirectory() as tmp:
    data = os.path.join(tmp, "rows.csv")
    with open(data, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    v = subprocess.run([podsim, "validate", "--data", data, "--json"], capture_output=True, text=True)
if v.returncode != 0:
    sys.exit(f"validate failed ({v.returncode}): {v.stderr}")
validated = {r["id"]: r["collective"] for r in json.loads(v.stdout)["results"]}


def collective(size, *extra):
    r = subprocess.run([podsim, "collective", "--topology", topology, "--axes", "gpu", "--sizes", f"{size}B", "--json",
                        *extra], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"collective {size} B failed ({r.returncode}): {r.stderr}")
    return json.loads(r.stdout)


failures = []
for row_id, c in sorted(validated.items()):
    out = collective(c["bytes"], "--hardware", "a100-80gb")
    busbw = out["results"][0]["busbw_Bps"]
    if abs(busbw - c["busbw_Bps"]) > 1e-6 * c["busbw_Bps"]:
        failures.append(f"{row_id}: collective busbw {busbw / 1e9:.3f} GB/s, validate {c['busbw_Bps'] / 1e9:.3f} GB/s")
    if out["hardware"] != "a100-80gb" or abs(out["link_efficiency_fast"] - 0.8) > 1e-12:
        failures.append(f"{row_id}: the JSON does not name the hardware and its efficiency: {out}")

# (b) nominal links, said so.
gib = [c for c in validated.values() if c["bytes"] == 1 << 30]
if not gib:
    failures.append("no 1 GiB row to compare nominal links with")
else:
    nominal = collective(1 << 30)
    ratio = nominal["results"][0]["busbw_Bps"] / gib[0]["busbw_Bps"]
    if not 1.1 < ratio < 1.25 + 1e-9:
        failures.append(f"nominal links should be faster by up to 1/0.8 at 1 GiB; ratio {ratio:.3f}")
    if nominal["hardware"] is not None or nominal["link_efficiency_fast"] != 1.0:
        failures.append(f"without --hardware the JSON should say hardware null, efficiency 1: {nominal}")
    text = subprocess.run([podsim, "collective", "--topology", topology, "--axes", "gpu", "--sizes", "1GiB"],
                          capture_output=True, text=True).stdout
    if "links at their nominal bandwidth (--hardware" not in text:
        failures.append(f"the text should say the links ran at their nominal bandwidth:\n{text}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"{len(validated)} sizes: podsim collective --hardware a100-80gb gives validate's busbw")
