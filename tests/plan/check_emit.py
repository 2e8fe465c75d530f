#!/usr/bin/env python3
"""`podsim plan --emit N` prints the N-th ranked layout as a scenario `podsim run` takes.

  check_emit.py PODSIM WORKDIR

Plans Llama-2 7B on 16 TPU v5e chips (batch 64, --top 400, the contention-aware network for the
best 3) and checks:
  - for N = 1, 2 and 5, the emitted scenario runs, on the network it names, to the step time the
    plan ranked it at (to the microsecond), with the plan's layout (dp, tp, pp, recompute);
    #1 and #2 come from the contention-aware network, #5 from the analytical one;
  - so does the best-ranked variant the refinement tried with TP blocking (MaxText's default is
    collective matmul), and every emitted scenario sets the training.overlap.tp it was ranked with;
  - --emit beyond the ranked layouts is an error (exit 2) naming how many were ranked.
"""
import json
import pathlib
import subprocess
import sys

podsim, work = sys.argv[1], pathlib.Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)
plan_args = ["plan", "--model", "llama2-7b", "--hardware", "tpu-v5e", "--topology", "tpu-v5e-4x4",
             "--global-batch", "64", "--top", "400", "--contention-top", "3", "-q"]
failures = []

plan = json.loads(subprocess.run([podsim, *plan_args, "--json"], check=True, capture_output=True, text=True).stdout)
ranked = plan["ranked"]
# A refinement's variant (TP blocking, where MaxText's default is collective matmul) runs as ranked too.
variants = [i + 1 for i, row in enumerate(ranked) if row["tp"] > 1 and row["tp_overlap"] == "none"]
if not variants:
    failures.append("no layout with TP blocking among the ranked: the refinement tried nothing")
for n in [1, 2, 5] + variants[:1]:
    r = subprocess.run([podsim, *plan_args, "--emit", str(n)], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"--emit {n} failed ({r.returncode}): {r.stderr}")
        continue
    scenario = work / f"emitted-{n}.yaml"
    scenario.write_text(r.stdout)
    run = subprocess.run([podsim, "run", str(scenario), "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(f"podsim run of --emit {n} failed ({run.returncode}): {run.stderr}")
        continue
    got = json.loads(run.stdout)
    row = ranked[n - 1]
    contention = row["network"] == "contention"
    want = row["step_time_s"]  # on the network it was ranked on
    if abs(got["step_time_s"] - want) > 1e-6:
        failures.append(f"--emit {n}: run gives {got['step_time_s']} s, the plan ranked it at {want} s")
    if f"tp: {row['tp_overlap']}" not in r.stdout:
        failures.append(f"--emit {n}: the scenario does not set training.overlap.tp: {row['tp_overlap']}")
    if n in (1, 2, 5) and (n <= 2) != contention:
        failures.append(f"--emit {n}: expected it {'on' if n <= 2 else 'off'} the contention-aware network")
    if f"network:\n  model: {row['network']}\n" not in r.stdout:
        failures.append(f"--emit {n}: the scenario does not run on the {row['network']} network it was ranked on")
    header = r.stdout.splitlines()[0]
    if not header.startswith(f"# podsim plan --emit {n}: layout #{n} of "):
        failures.append(f"--emit {n}: the scenario does not say where it comes from: {header}")
    for key in ("dp", "tp", "pp"):
        if f"{key} {row[key]}" not in header:
            failures.append(f"--emit {n}: header {header!r} does not name {key} {row[key]}")
    if f"recompute {row['recompute']}" not in header:
        failures.append(f"--emit {n}: header {header!r} does not name recompute {row['recompute']}")
    print(f"--emit {n}: {got['step_time_s']:.6f} s run, {want:.6f} s ranked")

beyond = subprocess.run([podsim, *plan_args, "--emit", "100000"], capture_output=True, text=True)
if beyond.returncode != 2 or "the plan ranked" not in beyond.stderr:
    failures.append(f"--emit beyond the ranking: exit {beyond.returncode}, {beyond.stderr!r}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
