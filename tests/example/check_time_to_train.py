#!/usr/bin/env python3
"""The time to train in run, plan and sweep (docs/configuration.md, training.tokens and
training.failures; src/runtime/time_to_train.hpp).

Usage: check_time_to_train.py PODSIM WORK_DIR REPO_ROOT

- `podsim run --json` with training.tokens gives time_to_train_s = tokens / tokens_per_s, and
  with training.failures Young's first-order wall time; /summary holds the same columns and the
  text report a "time to train" line. Without training.tokens none of them appears;
- a resized cluster (--set topology.nodes) trains proportionally longer;
- `podsim plan --json` gives each ranked layout's time_to_train_s from its tokens_per_s;
- a sweep with training.tokens has a time_to_train_s column in /sweep; one without has none;
  over two chip counts the summary names each count's best point.
"""
import json
import math
import os
import subprocess
import sys

import h5py

PODSIM, WORK, ROOT = (os.path.abspath(a) for a in sys.argv[1:4])
os.makedirs(WORK, exist_ok=True)
SCENARIO = os.path.join(ROOT, "configs/examples/dp-gpt-1.7b-a100.yaml")
TOKENS = 30e9
FAILURES = "training.failures={chip_mtbf: 50000 h, checkpoint: 60 s, restart: 10 min}"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def podsim(*args):
    p = subprocess.run([PODSIM, *args], capture_output=True, text=True, cwd=WORK)
    if p.returncode != 0:
        sys.exit(f"podsim {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * abs(b)


# 1. run: the ideal time, then Young's model.
plain = json.loads(podsim("run", SCENARIO, "--json", "-o", "plain.h5"))
check("time_to_train_s" not in plain, "a run without training.tokens reports a time to train")
with h5py.File(os.path.join(WORK, "plain.h5")) as f:
    check("time_to_train_s" not in f["summary"].dtype.names, "/summary has time_to_train_s without training.tokens")
ideal = json.loads(podsim("run", SCENARIO, "--set", f"training.tokens={TOKENS:g}", "--json", "-o", "ideal.h5"))
check(close(ideal["time_to_train_s"], TOKENS / ideal["tokens_per_s"]), f"ideal time {ideal['time_to_train_s']}")
check(ideal["time_to_train_s"] == ideal["time_to_train_ideal_s"], "without failures the run takes its ideal time")
with_failures = json.loads(podsim("run", SCENARIO, "--set", f"training.tokens={TOKENS:g}", "--set", FAILURES,
                                  "--json", "-o", "failures.h5"))
chips = with_failures["chips"]
m = 50000 * 3600.0 / chips
c, r = 60.0, 600.0
tau = math.sqrt(2 * c * m)
work = TOKENS / with_failures["tokens_per_s"]
wall = work * (1 + c / tau) / (1 - (r + (tau + c) / 2) / m)
check(close(with_failures["job_mtbf_s"], m), f"job MTBF {with_failures['job_mtbf_s']} != {m}")
check(close(with_failures["checkpoint_interval_s"], tau), f"interval {with_failures['checkpoint_interval_s']} != {tau}")
check(close(with_failures["time_to_train_s"], wall, 1e-12), f"wall time {with_failures['time_to_train_s']} != {wall}")
with h5py.File(os.path.join(WORK, "failures.h5")) as f:
    row = f["summary"][0]
    check(close(float(row["time_to_train_s"]), wall, 1e-12), "/summary time_to_train_s differs from --json")
text = podsim("run", SCENARIO, "--set", f"training.tokens={TOKENS:g}", "--set", FAILURES, "-o", "text.h5")
check("time to train 30B tokens: " in text and "Young's first-order model" in text, f"no time-to-train line:\n{text}")

# 2. Half the cluster, twice the time (data parallelism on the same per-GPU batch).
half = json.loads(podsim("run", SCENARIO, "--set", "topology.nodes=4", "--set", "parallelism.dp=32",
                         "--set", "training.global_batch=256", "--set", f"training.tokens={TOKENS:g}", "--json",
                         "-o", "half.h5"))
check(half["topology"] == "a100-dgx-4x8", f"resized topology named {half['topology']}")
check(half["time_to_train_s"] > 1.9 * ideal["time_to_train_s"], "half the GPUs should take about twice as long")

# 3. plan: every ranked layout's time to train is its tokens / its tokens per second.
plan = json.loads(podsim("plan", "--model", "gpt-1.7b", "--hardware", "a100-80gb", "--topology",
                         os.path.join(ROOT, "topologies/a100-dgx-8x8.yaml"), "--global-batch", "512",
                         "--set", f"training.tokens={TOKENS:g}", "--top", "3", "--json", "-q", "-o", "plan.h5"))
for layout in plan["ranked"]:
    check(close(layout["time_to_train_s"], TOKENS / layout["tokens_per_s"]), f"plan layout {layout}")

# 4. sweep: a column only when the points give training.tokens.
for name, tokens in (("with", [TOKENS]), ("without", None)):
    axes = "  topology.nodes: [4, 8]\n" + (f"  training.tokens: [{tokens[0]:g}]\n" if tokens else "")
    sweep_file = os.path.join(WORK, f"sweep-{name}.yaml")
    with open(sweep_file, "w") as f:
        f.write(f"schema_version: 1\nname: {name}\nbase: {SCENARIO}\naxes:\n{axes}"
                "derive: { parallelism.dp: \"chips\" }\nskip_infeasible: true\n")
    out = os.path.join(WORK, f"sweep-{name}.h5")
    if os.path.exists(out):
        os.remove(out)
    printed = podsim("sweep", sweep_file, "-q", "-o", out)
    # Two chip counts: the summary names each count's best point, with its time to train.
    per_count = printed[printed.find("best point per chip count"):].splitlines()[1:]
    check(len(per_count) == 2 and per_count[0].split()[0] == "32" and per_count[1].split()[0] == "64",
          f"best point per chip count:\n{printed}")
    if tokens:
        check(all(" to train " in line for line in per_count), f"no time to train per chip count:\n{printed}")
    with h5py.File(out) as f:
        names = f["sweep"].dtype.names
        if tokens:
            rows = f["sweep"][:]
            check("time_to_train_s" in names, "a sweep with training.tokens has no time_to_train_s column")
            for row in rows:
                check(close(float(row["time_to_train_s"]), TOKENS / float(row["tokens_per_s"])), f"sweep row {row}")
        else:
            check("time_to_train_s" not in names, "a sweep without training.tokens has a time_to_train_s column")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("time to train: all checks passed")
