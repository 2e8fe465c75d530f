#!/usr/bin/env python3
"""Doubling InfiniBand from 400 to 800 Gb/s does not make these steps slower.

faster_network.yaml (Llama-2 70B, 512 H100, ZeRO-2, tp 2: the issue's case) and two variants
(tp 8 × pp 4 with ZeRO-1; tp 4 with selective recompute) run on 64 nodes at 200, 400, 800 and
1600 Gb/s per GPU, on the analytical and the contention network. At 800 Gb/s each step must be
no longer than at 400 (to 1 ns): a collective whose rate NCCL's channels cap loads the links at
that rate all through its time, so a faster NIC cannot squeeze its bytes into a denser burst
beside the compute. The other doublings are printed, not checked: some still add a few
milliseconds (docs/runtime.md §4, "More bandwidth, a slower step"), and `podsim whatif` must
say so: from 200 Gb/s, its 399.8 Gb/s variant (--step 99.9 %) of the first layout is listed under
`slower_with_more` with the categories that moved, which add up to the step's change.

usage: check_faster_network.py PODSIM
"""
import json
import os
import subprocess
import sys

podsim = sys.argv[1]
scenario = os.path.join(os.path.dirname(os.path.abspath(__file__)), "faster_network.yaml")
VARIANTS = {
    "tp 2, ZeRO-2": [],
    "tp 8 x pp 4, ZeRO-1": ["parallelism.tp=8", "parallelism.pp=4", "parallelism.zero=1", "parallelism.schedule=1f1b",
                            "training.overlap.param_gather=false"],
    "tp 4, selective": ["parallelism.tp=4", "training.recompute=selective"],
}
failures = []
for name, sets in VARIANTS.items():
    for network in ("analytical", "contention"):
        steps = []
        for gbps in (200, 400, 800, 1600):
            args = [podsim, "run", scenario, "--json", "--set", "topology.nodes=64",
                    "--set", f"topology.scale_out.bandwidth={gbps} Gbps", "--set", f"network.model={network}"]
            for s in sets:
                args += ["--set", s]
            out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
            steps.append(json.loads(out)["step_time_s"])
        print(f"{name}, {network}: " + " -> ".join(f"{s:.6f}" for s in steps) + " s at 200/400/800/1600 Gb/s")
        for (a, b), gbps in zip(zip(steps, steps[1:]), (400, 800, 1600)):
            if gbps == 800 and b > a + 1e-9:
                failures.append(f"{name}, {network}: {gbps} Gb/s takes {b:.6f} s, {1e3 * (b - a):.3f} ms more than "
                                f"half of it ({a:.6f} s)")
# podsim whatif explains the 200 -> 400 Gb/s case of the first layout.
out = subprocess.run([podsim, "whatif", scenario, "--json", "-q", "--set", "topology.nodes=64",
                      "--set", "topology.scale_out.bandwidth=200 Gbps", "-k", "topology.scale_out.bandwidth",
                      "--step", "99.9%"], check=True, capture_output=True, text=True).stdout
study = json.loads(out)
slower = [s for s in study["slower_with_more"] if s["knob"] == "topology.scale_out.bandwidth"]
if len(slower) != 1 or not slower[0]["value"].startswith("399.8"):
    failures.append(f"whatif does not list the 399.8 Gb/s variant as slower with more: {study['slower_with_more']}")
else:
    s = slower[0]
    moved = sum(s["changes_s"].values())
    step_change = s["step_change"] * study["base_step_time_s"]
    print(f"whatif, 200 -> 399.8 Gb/s: {100 * s['step_change']:+.4f} %; moved: " +
          ", ".join(f"{k} {1e3 * v:+.1f} ms" for k, v in s["changes_s"].items()))
    if not step_change > 0 or abs(moved - step_change) > 1e-7:
        failures.append(f"whatif's categories moved by {moved:.6f} s, the step by {step_change:.6f} s")
    if not s["changes_s"].get("comm_tp_s", 0) > 0 or not s["changes_s"].get("comm_dp_s", 0) < 0:
        failures.append(f"expected more exposed tensor-parallel and less data-parallel time: {s['changes_s']}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
