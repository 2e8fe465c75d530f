#!/usr/bin/env python3
"""podsim whatif keeps its promises (docs/whatif.md).

Usage: check_whatif.py PODSIM WORK_DIR REPO_ROOT

- every variant's step time is what `podsim run --set KEY=VALUE` gives for that value, and
  each elasticity is the finite difference d ln(step) / d ln(value) of those runs;
- for a compute-bound scenario (GPT 1.7B on 64 A100, data parallel) the peak FLOP/s knob
  has the largest elasticity; for a communication-bound one (Llama 2 13B with tp 4 on TPU
  v5e links slowed to 4 GB/s) the ICI link bandwidth has;
- the HDF5 file holds one /whatif row per variant, equal to the JSON; the same command
  on a new file writes the same bytes;
- --step 100% halves and doubles a knob, each variant still `podsim run`'s;
- a key that is not in the scenario and a step out of range are refused with exit code 2
  and leave no file.
"""
import json
import math
import os
import subprocess
import sys

import h5py

PODSIM, WORK, ROOT = (os.path.abspath(a) for a in sys.argv[1:4])
os.makedirs(WORK, exist_ok=True)
COMPUTE = os.path.join(ROOT, "configs/examples/dp-gpt-1.7b-a100.yaml")
COMM = os.path.join(ROOT, "configs/examples/dp-tp-llama2-13b-tpu-v5e.yaml")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def podsim(*args, code=0, cwd=None):
    p = subprocess.run([PODSIM, *args], capture_output=True, text=True, cwd=cwd)
    if p.returncode != code:
        sys.exit(f"podsim {' '.join(args)}: exit {p.returncode}, expected {code}\n{p.stderr}")
    return p


def whatif(scenario, *args):
    return json.loads(podsim("whatif", scenario, "-q", "--json", *args).stdout)


def run_step(scenario, sets):
    args = ["run", scenario, "--json"]
    for s in sets:
        args += ["--set", s]
    return json.loads(podsim(*args).stdout)["step_time_s"]


# 1. Finite differences of podsim run, on the compute-bound scenario.
study = whatif(COMPUTE)
base = study["base_step_time_s"]
check(base == run_step(COMPUTE, []), "base step = podsim run")
# podsim's error band for the scenario's chip, as `podsim run --json` gives it.
run_json = json.loads(podsim("run", COMPUTE, "--json").stdout)
check(study["error_band"] == run_json["error_band"] and study["error_band"] > 0
      and study["error_band_basis"] == run_json["error_band_basis"],
      f"whatif's error band {study.get('error_band')} ({study.get('error_band_basis')}) is not run's "
      f"{run_json.get('error_band')} ({run_json.get('error_band_basis')})")
for knob in study["knobs"]:
    runs = []
    for v in knob["variants"]:
        if not v["feasible"]:
            continue
        t = run_step(COMPUTE, [f"{knob['knob']}={v['value']}"])
        check(t == v["step_time_s"], f"{knob['knob']}={v['value']}: whatif {v['step_time_s']} != run {t}")
        runs.append((1 + v["change_percent"] / 100, t))
    if len(runs) == 2:
        (r0, t0), (r1, t1) = runs
        expected = math.log(t1 / t0) / math.log(r1 / r0)
    elif len(runs) == 1:
        (r1, t1), = runs
        expected = math.log(t1 / base) / math.log(r1)
    else:
        continue
    check(abs(knob["elasticity"] - expected) <= 1e-9 * max(1, abs(expected)),
          f"{knob['knob']}: elasticity {knob['elasticity']} != finite difference {expected}")
check(len(study["knobs"]) >= 6, "the default knobs cover FLOP/s, HBM, links, tile, micro batch")

# 2. What dominates: FLOP/s when compute-bound, the ICI link when communication-bound.
top = study["knobs"][0]
check(top["knob"].startswith("hardware.peak."), f"compute-bound: top knob is {top['knob']}, not a peak FLOP/s")
check(-1.0 <= top["elasticity"] < -0.5, f"compute-bound: FLOP/s elasticity {top['elasticity']} not in [-1, -0.5)")
comm = whatif(COMM, "--set", "topology.link.bandwidth=4 GB/s")
check(comm["knobs"][0]["knob"] == "topology.link.bandwidth",
      f"communication-bound: top knob is {comm['knobs'][0]['knob']}, not topology.link.bandwidth")
for k in comm["knobs"]:
    if k["elasticity"] is not None:
        check(k["elasticity"] <= 1e-12 or not k["knob"].endswith("bandwidth"),
              f"{k['knob']}: more bandwidth must not lengthen the step (elasticity {k['elasticity']})")

# 3. The HDF5 file: one row per variant, equal to the JSON; the same bytes twice.
# (The same command line in two folders: the file records it.)
dirs = [os.path.join(WORK, f"run{i}") for i in (1, 2)]
files = [os.path.join(d, "w.h5") for d in dirs]
for d, f in zip(dirs, files):
    os.makedirs(d, exist_ok=True)
    if os.path.exists(f):
        os.remove(f)
knobs = "hardware.peak.bf16,topology.link.bandwidth,training.micro_batch"
for d in dirs:
    out = podsim("whatif", COMM, "-q", "--json", "--knobs", knobs, "-o", "w.h5", cwd=d).stdout
small = json.loads(out)
with open(files[0], "rb") as a, open(files[1], "rb") as b:
    check(a.read() == b.read(), "the same whatif writes the same bytes")
with h5py.File(files[0], "r") as h:
    t = h["whatif"][()]
    rows = [(r["knob"].decode(), r["value"].decode(), r["step_time_s"], r["elasticity"]) for r in t]
expected = [(k["knob"], v["value"], v["step_time_s"], k["elasticity"]) for k in small["knobs"] for v in k["variants"]]
check(len(rows) == len(expected) == 5, f"/whatif rows {len(rows)}, JSON variants {len(expected)}, expected 5")
for got, want in zip(rows, expected):
    same = got[:2] == want[:2] and (got[2] == want[2] or (math.isnan(got[2]) and want[2] is None))
    check(same and got[3] == want[3], f"/whatif row {got} != JSON {want}")

# 4. --replan: the planner's best layout is no slower than the scenario's own (which is in
#    its search space), and more FLOP/s makes the re-planned step shorter.
plan = whatif(COMPUTE, "--replan", "--knobs", "hardware.peak.fp16")
check(plan["base_replanned_step_time_s"] <= plan["base_step_time_s"] * (1 + 1e-12),
      f"re-planned {plan['base_replanned_step_time_s']} s is slower than the scenario's {plan['base_step_time_s']} s")
faster = [v for v in plan["knobs"][0]["variants"] if v["change_percent"] > 0][0]
check(faster["replanned_step_time_s"] < plan["base_replanned_step_time_s"],
      f"+10 % FLOP/s re-planned {faster['replanned_step_time_s']} s, not below {plan['base_replanned_step_time_s']} s")
check(plan["knobs"][0]["replanned_elasticity"] < -0.5, f"re-planned FLOP/s elasticity {plan['knobs'][0]['replanned_elasticity']}")
check(faster["replanned_layout"].startswith("dp "), f"re-planned layout {faster['replanned_layout']!r}")

# 5. A variant out of its key's range (an ICI efficiency of 0.95 + 10 %) is reported, not
#    tried, and the study goes on.
edge = whatif(COMM, "--knobs", "hardware.efficiency.ici,hardware.peak.bf16")
ici = [k for k in edge["knobs"] if k["knob"] == "hardware.efficiency.ici"][0]
check(len(ici["refused"]) == 1 and "between" in ici["refused"][0], f"refused variants {ici['refused']}")
check([v["change_percent"] < 0 for v in ici["variants"]] == [True], f"tried variants {ici['variants']}")
check(ici["elasticity"] is not None, "the one variant left still gives an elasticity")
# The same with --replan: the refused variant gets no plan, the other one does.
memory = whatif(COMPUTE, "--set", "hardware.efficiency.memory=0.95", "--knobs", "hardware.efficiency.memory",
                "--replan")["knobs"][0]
check(len(memory["refused"]) == 1 and len(memory["variants"]) == 1
      and memory["variants"][0]["replanned_layout"].startswith("dp "),
      f"--replan with a refused variant: {memory}")

# 6. --step 100 %: every knob halved and doubled (×½ and ×2, not ×0), and the variants are
#    still what `podsim run` gives.
double_h5 = os.path.join(WORK, "double.h5")
if os.path.exists(double_h5):
    os.remove(double_h5)  # a file an earlier build wrote holds another sweep
double = json.loads(podsim("whatif", COMPUTE, "--step", "100%", "--knobs", "hardware.peak.fp16", "--json",
                           "-o", double_h5).stdout)["knobs"][0]
check([v["value"] for v in double["variants"]] == ["156 TFLOP/s", "624 TFLOP/s"],
      f"--step 100% varies peak to {[v['value'] for v in double['variants']]}, not 156 and 624 TFLOP/s")
for v in double["variants"]:
    t = run_step(COMPUTE, [f"hardware.peak.fp16={v['value']}"])
    check(t == v["step_time_s"], f"--step 100%: {v['value']}: whatif {v['step_time_s']} != run {t}")

# 7. Refusals.
bad = os.path.join(WORK, "bad.h5")
p = podsim("whatif", COMPUTE, "--knobs", "training.micro_btch", "-o", bad, code=2)
check("training.micro_btch" in p.stderr and "did you mean" in p.stderr, f"unknown knob message: {p.stderr.strip()}")
p = podsim("whatif", COMPUTE, "--step", "1001%", "-o", bad, code=2)
check("--step" in p.stderr, f"bad step message: {p.stderr.strip()}")
p = podsim("whatif", COMPUTE, "--step", "0%", "-o", bad, code=2)
check("--step" in p.stderr, f"bad step message: {p.stderr.strip()}")
check(not os.path.exists(bad), "a refused whatif leaves no file")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("whatif: all checks passed")
