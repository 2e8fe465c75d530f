#!/usr/bin/env python3
"""Checks `podsim plan` against what the issue promises a planner does.

  check_plan.py PODSIM WORKDIR EXAMPLES_DIR -- PLAN-ARGS...

Runs `podsim plan PLAN-ARGS --json -o WORKDIR/plan.h5` and checks:
  - the JSON and the /plan table agree (counts, the ranked layouts, one row per layout);
  - every simulated row's time categories sum to its step time;
  - the ranking is sorted: contention-simulated layouts by that time, then the rest;
  - pure data parallelism (full replicas) is rejected for memory when --expect-dp-oom;
  - its winner is no slower than any example scenario (EXAMPLES_DIR/*.yaml) of the same
    model, hardware and chip count, on either network (and at least one such example exists).
Uses the system python for h5py. Exits 1 with a list of failures.
"""
import json
import math
import pathlib
import subprocess
import sys

import h5py

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(map(str, args))} exited {p.returncode}\n{p.stderr}")
    return p.stdout


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    podsim, work, examples = argv[0], pathlib.Path(argv[1]), pathlib.Path(argv[2])
    expect_dp_oom = "--expect-dp-oom" in argv[3:split]
    plan_args = argv[split + 1:]
    work.mkdir(parents=True, exist_ok=True)
    out = work / "plan.h5"
    if out.exists():
        out.unlink()
    plan = json.loads(run([podsim, "plan", *plan_args, "-q", "--json", "-o", str(out)]))
    ranked = plan["ranked"]
    check(len(ranked) > 0, "no layout ranked")
    winner = ranked[0]

    with h5py.File(out, "r") as f:
        t = f["plan"][:]
    n = len(t)
    layouts = plan["layouts"]
    check(n == layouts["enumerated"], f"/plan has {n} rows, JSON says {layouts['enumerated']} layouts")
    verdicts = [v.decode() for v in t["verdict"]]
    for name, key in [("simulate", "simulated"), ("cannot run", "cannot_run"), ("does not fit", "do_not_fit"),
                      ("dominated", "dominated"), ("pruned", "pruned")]:
        check(verdicts.count(name) == layouts[key], f"{verdicts.count(name)} rows '{name}', JSON says {layouts[key]}")
    check(list(t["index"]) == list(range(n)), "/plan index is not 0..n-1")
    categories = [c for c in t.dtype.names if c.startswith(("compute_", "comm_")) or c in ("bubble_s", "input_stall_s", "idle_s")]
    check(len(categories) == 11, f"expected 11 time categories, got {categories}")
    rows = list(t)
    simulated = [r for r in t if r["verdict"].decode() == "simulate"]
    for r in simulated:
        total = sum(float(r[c]) for c in categories)
        check(math.isclose(total, r["step_time_s"], rel_tol=1e-9),
              f"row {r['index']}: categories sum to {total}, step is {r['step_time_s']}")
        check(r["rank"] >= 1, f"simulated row {r['index']} has no rank")
        check(bool(r["reason"]) is False, f"simulated row {r['index']} has a reason")
    for r in t:
        if r["verdict"].decode() != "simulate":
            check(r["rank"] == 0 and r["reason"], f"row {r['index']} ({r['verdict'].decode()}) has rank or no reason")
    ranks = sorted(int(r["rank"]) for r in simulated)
    check(ranks == list(range(1, len(simulated) + 1)), "ranks are not 1..simulated")
    by_rank = sorted(simulated, key=lambda r: r["rank"])
    contention = [r for r in by_rank if not math.isnan(r["contention_step_time_s"])]
    rest = by_rank[len(contention):]
    check(all(not math.isnan(r["contention_step_time_s"]) for r in by_rank[:len(contention)]),
          "contention-simulated layouts are not ranked first")
    check(all(a["contention_step_time_s"] <= b["contention_step_time_s"] for a, b in zip(contention, contention[1:])),
          "contention-simulated layouts are not sorted by their step time")
    check(all(a["analytical_step_time_s"] <= b["analytical_step_time_s"] for a, b in zip(rest, rest[1:])),
          "the other layouts are not sorted by their analytical step time")
    if contention and rest:
        worst_in = max(r["analytical_step_time_s"] for r in contention)
        check(worst_in <= rest[0]["analytical_step_time_s"],
              "a layout re-simulated on the contention network was not among the best analytical ones")
    top = by_rank[0]
    check(abs(top["step_time_s"] - winner["step_time_s"]) == 0 and top["dp"] == winner["dp"] and
          top["tp"] == winner["tp"] and top["pp"] == winner["pp"], "JSON winner differs from /plan rank 1")
    best_analytical = min(r["analytical_step_time_s"] for r in simulated)
    check(top["tp_overlap"].decode() == winner["tp_overlap"], "JSON winner's tp_overlap differs from /plan rank 1")
    check(top["tp_axes"].decode() == winner["tp_axes"], "JSON winner's tp_axes differs from /plan rank 1")

    # Collective matmul is a knob of the stack (maxtext, megatron-core, torchtitan): the winner's
    # layout (in podsim's placement of tp) is also a layout with the other setting, simulated and
    # no faster, or pruned by a lower bound slower than the winner's step.
    knobs = ("dp", "tp", "pp", "schedule", "virtual_stages", "microbatch_group", "micro_batch", "zero", "zero_group",
             "sequence_parallel", "recompute")
    if winner["tp"] > 1 and plan.get("stack") in ("maxtext", "megatron-core", "torchtitan"):
        twins = [r for r in rows if all(
            (r[k].decode() if isinstance(r[k], bytes) else r[k]) == (winner[k] if k != "sequence_parallel" else int(winner[k]))
            for k in knobs) and r["tp_overlap"].decode() != winner["tp_overlap"] and not r["tp_axes"].decode()]
        check(len(twins) == 1, f"the winner's layout with the other tp_overlap is not a layout ({len(twins)} rows)")
        for r in twins:
            verdict = r["verdict"].decode()
            if verdict == "pruned":
                check(r["lower_bound_s"] > winner["analytical_step_time_s"],
                      f"the winner with tp_overlap {r['tp_overlap'].decode()} was pruned by a bound "
                      f"({r['lower_bound_s']} s) below the winner's step")
                print(f"winner with tp_overlap {r['tp_overlap'].decode()}: pruned, at least {r['lower_bound_s']:.3f} s")
                continue
            check(r["step_time_s"] >= winner["step_time_s"],
                  f"the winner with tp_overlap {r['tp_overlap'].decode()} is faster: {r['step_time_s']} s")
            print(f"winner with tp_overlap {r['tp_overlap'].decode()}: {r['step_time_s']:.3f} s "
                  f"(winner, {winner['tp_overlap']}: {winner['step_time_s']:.3f} s)")

    # Branch and bound: a simulated layout's step is never below its bound, and every pruned
    # layout's bound is above the last exactly ranked step (the table's --top rows).
    for r in simulated:
        check(r["lower_bound_s"] <= r["analytical_step_time_s"] * (1 + 1e-12),
              f"a bound above its simulated step: {r['lower_bound_s']} > {r['analytical_step_time_s']}")
    pruned = [r for r in rows if r["verdict"].decode() == "pruned"]
    if pruned and len(by_rank) >= 10:
        tenth = max(r["analytical_step_time_s"] for r in by_rank[:10])
        check(min(r["lower_bound_s"] for r in pruned) > tenth, "a pruned layout could have been among the top 10")
    # The pruned counted by the bound that ruled them out, as their reasons say.
    by_programs = [r for r in pruned if "its stage programs" in r["reason"].decode()]
    check(len(by_programs) == layouts["pruned_by_programs"],
          f"{len(by_programs)} pruned by their programs' bound, JSON says {layouts['pruned_by_programs']}")
    print(f"{len(simulated)} simulated, {len(pruned)} pruned by their lower bounds "
          f"({len(by_programs)} by their built programs')")

    if expect_dp_oom:
        line = plan["pure_data_parallelism"]
        check(line.startswith("pure data parallelism") and "never fits in memory" in line,
              f"pure data parallelism is not rejected for memory: {line}")

    compared = 0
    for example in sorted(examples.glob("*.yaml")):
        if example.stem.endswith("-contention"):
            continue
        a = json.loads(run([podsim, "run", str(example), "--json", "--set", "network.model=analytical"]))
        if (a["model"], a["hardware"], a["chips"]) != (plan["model"], plan["hardware"], plan["chips"]):
            continue
        c = json.loads(run([podsim, "run", str(example), "--json", "--set", "network.model=contention"]))
        compared += 1
        check(winner["step_time_s"] <= c["step_time_s"],
              f"winner {winner['step_time_s']} s (contention) is slower than {example.name}: {c['step_time_s']} s")
        check(best_analytical <= a["step_time_s"],
              f"best analytical {best_analytical} s is slower than {example.name}: {a['step_time_s']} s")
        print(f"{example.name}: {a['step_time_s']:.3f} s analytical, {c['step_time_s']:.3f} s contention; "
              f"plan: {best_analytical:.3f} s analytical, winner {winner['step_time_s']:.3f} s contention")
    check(compared > 0, f"no example in {examples} has {plan['model']} on {plan['chips']} {plan['hardware']} chips")

    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"ok: {n} layouts, {len(simulated)} simulated, winner: {winner['layout']} "
          f"({winner['step_time_s']:.3f} s/step); {plan['pure_data_parallelism']}")


if __name__ == "__main__":
    main()
