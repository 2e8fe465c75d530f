#!/usr/bin/python3
"""Work podsim must refuse, or prune, before it builds it (issue 33): each case once ran out of
memory at 5-8 GB or for minutes with no output.

    work_budget.py PODSIM WORK_DIR

Every podsim runs with its address space capped at 4 GiB (not under AddressSanitizer) and a
120 s timeout, so a regression fails here instead of exhausting the machine. Checked: the exit code, a fragment of the message
(stderr for a refusal, stdout for a plan that prunes), and that no output file is left.
  (the "rings" of 8191 and 1,048,573 chips are open lines: a wrapped ring runs as a ring of two)
  run        dp 8191 with ZeRO-3 on an 8191-chip ring (analytical): exit 2, located at
             parallelism.dp, with the estimate; dp 2^20 on a 1024 x 1024 mesh (contention-aware)
  collective a 1 GiB all-reduce over the 8191-chip ring: exit 2
  plan       the 8191-chip ring and a prime ring of 1,048,573 chips: every layout whose largest
             collective is beyond the budget is pruned with that reason (exit 0); GPT-3 on the
             1024 x 1024 torus with batch 2^20 (the search's estimate), GPT 1.7B there and on 2^20
             single-GPU nodes with --exhaustive: exit 2, the plan's estimate
  sweep      a point beyond the budget is recorded infeasible with the reason; 90,000 points of
             the GPT-3 pod example: exit 2, the sweep's estimate, before simulating any; 10,001
             values of one key are checked with a progress line
  forced     the same ring with --force is simulated (small enough: 1024 chips) as proof that
             --force reaches the simulation
"""
import os
import resource
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def expect(name, condition, detail):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else ": " + detail))
    if not condition:
        failures.append(name)


def capped():
    # AddressSanitizer reserves terabytes of address space for its shadow: under it the
    # timeout alone guards (PODSIM_SANITIZED is set by the sanitize presets' CMake).
    if not os.environ.get("PODSIM_SANITIZED"):
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def podsim(args, cwd):
    try:
        run = subprocess.run([PODSIM] + args, cwd=cwd, capture_output=True, text=True, timeout=120,
                             preexec_fn=capped)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after 120 s"
    return run.returncode, run.stdout, run.stderr


def topology(path, name, dims, kind="torus", wrap=True):
    with open(path, "w") as f:
        if kind == "switch":
            f.write(f"schema_version: 1\nname: {name}\nkind: switch\nnodes: {dims}\nchips_per_node: 1\n"
                    "intra: { bandwidth: 300 GB/s, latency: 0.3 us }\nscale_out: { bandwidth: 200 Gbps, latency: 1.35 us }\n"
                    "nccl: { arch: ampere, nvls: false, collnet: false, launch: 5.1 us }\n")
        else:
            flags = ", ".join(["true" if wrap else "false"] * len(dims))
            f.write(f"schema_version: 1\nname: {name}\nkind: torus\ndims: {dims}\nwraparound: [{flags}]\n"
                    "link: { bandwidth: 45 GB/s, latency: 1 us }\n")


def scenario(path, topo, dp, network="analytical", zero=3, batch=None):
    with open(path, "w") as f:
        f.write(f"schema_version: 1\nname: budget\nmodel: {ROOT}/configs/models/llama3-8b.yaml\n"
                f"hardware: {ROOT}/configs/hardware/tpu-v5p.yaml\ntopology: {topo}\nnetwork: {network}\n"
                f"parallelism: {{ dp: {dp}, tp: 1, pp: 1, zero: {zero} }}\n"
                f"training:\n  global_batch: {batch or dp}\n  micro_batch: 1\n  seq_len: 2048\n  recompute: full\n"
                "  precision: { compute: bf16, params: fp32, grads: bf16, optimizer: fp32, comm: bf16 }\n")


def case(name, args, code, fragment, where="stderr"):
    got, out, err = podsim(args, WORK)
    text = out if where == "stdout" else err
    expect(f"{name}: exit {code}", got == code, f"exit {got}: {err[-600:]}")
    expect(f"{name}: says {fragment!r}", fragment in text, f"{where}: {text[-800:]}")
    left = [n for n in os.listdir(WORK) if n.endswith(".h5") or ".tmp." in n or n.endswith(".lock")]
    expect(f"{name}: no output left", not left, f"{left}")
    for n in left:
        os.remove(os.path.join(WORK, n))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    w = lambda n: os.path.join(WORK, n)
    # Open lines: a wrapped ring's collectives run as a ring of two (docs/collectives.md,
    # "Symmetric collectives") and cost nothing; an open line's folded ring is not symmetric.
    topology(w("ring8191.yaml"), "ring8191", [8191], wrap=False)
    topology(w("ring1024.yaml"), "ring1024", [1024])
    topology(w("torus1k.yaml"), "torus1k", [1024, 1024])
    topology(w("mesh1k.yaml"), "mesh1k", [1024, 1024], wrap=False)
    topology(w("ringprime.yaml"), "ringprime", [1048573], wrap=False)
    topology(w("gpu1m.yaml"), "gpu1m", 1048576, kind="switch")
    scenario(w("ring.yaml"), "ring8191.yaml", 8191)
    # On the torus the same step runs in about 40 s: every line alike, one per axis is simulated
    # (docs/collectives.md, "Symmetric collectives"); a mesh's folded rings are not alike.
    scenario(w("mesh.yaml"), "mesh1k.yaml", 1048576, network="contention")
    scenario(w("small-ring.yaml"), "ring1024.yaml", 1024, zero=1, batch=1024)

    case("run: dp 8191 ZeRO-3 on a ring", ["run", "ring.yaml", "-o", "out.h5"], 2,
         "ring.yaml:7:20: parallelism.dp: simulating this step's communication would take about")
    case("run: dp 2^20 on a 1024 x 1024 mesh, contention", ["run", "mesh.yaml"], 2, "or pass --force")
    case("collective: 1 GiB over the 8191-chip ring", ["collective", "-t", "ring8191.yaml", "--axes", "all", "--sizes",
                                                      "1GiB", "-o", "out.h5"], 2, "collective.sizes: these sizes would take")
    plan = ["plan", "-m", "gpt-1.7b", "--hardware", "tpu-v4", "--root", ROOT, "-q"]
    case("plan: the 8191-chip ring", plan + ["-t", "ring8191.yaml", "-b", "8191"], 0,
         "beyond the work budget: its largest collective, dp all-reduce on 1 group of 8191 chips", where="stdout")
    case("plan: a prime ring of 1,048,573 chips", plan + ["-t", "ringprime.yaml", "-b", "1048573"], 0,
         "beyond the work budget", where="stdout")
    # The search: what it expects to simulate (the best layouts' bounds and those within the error
    # band of the lowest) is beyond the budget for GPT-3 on 2^20 chips; exhaustively, even GPT 1.7B is.
    case("plan: GPT-3 on a 1024 x 1024 torus, batch 2^20",
         ["plan", "-m", "gpt3-175b", "--hardware", "tpu-v4", "--root", ROOT, "-q", "-t", "torus1k.yaml", "-b", "1048576",
          "-o", "out.h5"], 2, "this plan would take about")
    case("plan: exhaustive on a 1024 x 1024 torus, batch 2^20",
         plan + ["-t", "torus1k.yaml", "-b", "1048576", "-o", "out.h5", "--exhaustive"], 2,
         "this exhaustive plan would take about")
    case("plan: 2^20 single-GPU nodes, exhaustive", ["plan", "-m", "gpt-1.7b", "--hardware", "a100-80gb", "--root", ROOT, "-q",
                                                     "-t", "gpu1m.yaml", "-b", "1048576", "--exhaustive"], 2,
         "podsim's budget for a plan is")

    with open(w("point.yaml"), "w") as f:
        f.write("schema_version: 1\nbase: ring.yaml\naxes:\n  parallelism.zero: [1, 3]\n")
    got, out, err = podsim(["sweep", "point.yaml", "-q", "-o", "points.h5"], WORK)
    expect("sweep: points beyond the budget run as infeasible", got == 0, f"exit {got}: {err[-600:]}")
    got, out, err = podsim(["report", "points.h5", "--csv", "sweep"], WORK)
    expect("sweep: each says why", out.count("beyond the work budget: parallelism.dp:") == 2, out[-800:])
    os.remove(w("points.h5"))
    with open(w("many.yaml"), "w") as f:
        values = ", ".join(str(v) for v in range(1, 301))
        f.write(f"schema_version: 1\nbase: {ROOT}/configs/examples/gpt3-175b-tpu-v4.yaml\naxes:\n"
                f"  training.input.samples_per_s: [{values}]\n  training.input.prefetch: [{values}]\n")
    case("sweep: 90,000 points of the GPT-3 pod", ["sweep", "many.yaml", "-o", "out.h5"], 2,
         "this sweep would take about")

    # 10,001 values of one key: checked before any point, with a progress line (10^6 values
    # once printed nothing for ten minutes); every point then refused cheaply as infeasible.
    with open(w("values.yaml"), "w") as f:
        values = ", ".join(str(v) for v in range(2, 10003))
        f.write(f"schema_version: 1\nbase: {ROOT}/configs/examples/dp-gpt-1.7b-a100.yaml\naxes:\n"
                f"  training.global_batch: [{values}]\n")
    got, out, err = podsim(["sweep", "values.yaml", "-o", "values.h5"], WORK)
    expect("sweep: 10,001 values are checked with progress", got == 0 and "[sweep] 10001/10001 values checked" in err,
           f"exit {got}: {err[-600:]}")
    os.remove(w("values.h5"))

    got, out, err = podsim(["run", "small-ring.yaml", "--force"], WORK)
    expect("forced: --force reaches the simulation", got == 0 and "step " in out, f"exit {got}: {err[-600:]}")
    return 1 if failures else 0


if __name__ == "__main__":
    PODSIM, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sys.exit(main())
