#!/usr/bin/python3
"""Processes started with different commands or different files must stop, not hang or mix.

    disagree.py PODSIM MPIEXEC WORK_DIR

Each case runs `mpiexec -n 1 -wdir A podsim ARGS_A : -n 1 -wdir B podsim ARGS_B` (MPMD):
two folders holding files of the same names, in one of which a file differs (a hardware
file's bf16 peak halved, a topology's link slower), or two different commands. podsim must
exit with code 2 within the timeout, say which input or command differs and which processes
hold which, and write no output file; the inputs keep their bytes. A control case with equal
files in both folders must run (exit 0), so the check cannot pass by refusing everything.
"""
import hashlib
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def expect(name, condition, detail):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else ": " + detail))
    if not condition:
        failures.append(name)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def folders(case, edit=None):
    """Folders A and B with base.yaml (llama2-7b on 128 v5e), hw.yaml, topo.yaml, sweep.yaml;
    `edit(folder_b)` makes B differ."""
    base = open(os.path.join(ROOT, "tests/sweep/base-llama2-7b-v5e-128.yaml")).read()
    base = base.replace("../../", ROOT + "/").replace("network: contention", "network: analytical")
    lines = [("hardware: hw.yaml" if l.startswith("hardware:") else "topology: topo.yaml" if l.startswith("topology:")
              else l) for l in base.splitlines()]
    topology = next(l for l in base.splitlines() if l.startswith("topology:")).split(":", 1)[1].strip()
    dirs = []
    for name in ("A", "B"):
        d = os.path.join(WORK, case, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        open(os.path.join(d, "base.yaml"), "w").write("\n".join(lines) + "\n")
        shutil.copy(os.path.join(ROOT, "configs/hardware/tpu-v5e.yaml"), os.path.join(d, "hw.yaml"))
        shutil.copy(topology, os.path.join(d, "topo.yaml"))
        open(os.path.join(d, "sweep.yaml"), "w").write(
            "schema_version: 1\nbase: base.yaml\naxes:\n  training.micro_batch: [1, 2, 4, 8]\n")
        dirs.append(d)
    if edit:
        edit(dirs[1])
    return dirs


def halve_peak(d):
    path = os.path.join(d, "hw.yaml")
    text = open(path).read()
    assert "bf16: 197 TFLOP/s" in text
    open(path, "w").write(text.replace("bf16: 197 TFLOP/s", "bf16: 98.5 TFLOP/s"))


def mpmd(dirs, args_a, args_b):
    command = [MPIEXEC, "-n", "1", "-wdir", dirs[0], PODSIM] + args_a + [":", "-n", "1", "-wdir", dirs[1], PODSIM] + args_b
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "hung: killed after 120 s"
    return run.returncode, run.stderr


def case(name, dirs, args_a, args_b, fragment, outputs=("out.h5",)):
    inputs = {os.path.join(d, f): digest(os.path.join(d, f)) for d in dirs for f in os.listdir(d)}
    code, err = mpmd(dirs, args_a, args_b)
    expect(f"{name}: exit 2, no hang", code == 2, f"exit {code}: {err}")
    expect(f"{name}: says what differs", fragment in err, f"not '{fragment}' in: {err}")
    left = [os.path.join(d, o) for d in dirs for o in outputs if os.path.exists(os.path.join(d, o))]
    expect(f"{name}: no output written", not left, f"{left}")
    expect(f"{name}: inputs unchanged", all(digest(p) == h for p, h in inputs.items()), "an input changed")


def main():
    sweep = ["sweep", "sweep.yaml", "-q", "-o", "out.h5"]
    dirs = folders("control")
    code, err = mpmd(dirs, sweep, sweep)
    expect("control: equal files in two folders run", code == 0, f"exit {code}: {err}")

    dirs = folders("sweep", halve_peak)
    case("sweep, hardware differs", dirs, sweep, sweep,
         "the processes disagree on their input files (hw.yaml: process 0 has SHA-256")
    plan = ["plan", "-m", "llama2-7b", "--hardware", "hw.yaml", "-t", "topo.yaml", "--root", ROOT, "-b", "256", "-q",
            "--micro-batches", "1", "-o", "out.h5"]
    case("plan, hardware differs", dirs, plan, plan, "disagree on their input files (hw.yaml")
    whatif = ["whatif", "base.yaml", "--knobs", "hardware.hbm.bandwidth", "-q", "-o", "out.h5"]
    case("whatif, hardware differs", dirs, whatif, whatif, "disagree on their input files (hw.yaml")

    def slower_links(d):
        path = os.path.join(d, "topo.yaml")
        text = open(path).read()
        assert "bandwidth: 45 GB/s" in text
        open(path, "w").write(text.replace("bandwidth: 45 GB/s", "bandwidth: 22.5 GB/s"))
    dirs = folders("collective", slower_links)
    collective = ["collective", "-t", "topo.yaml", "--axes", "all", "--sizes", "1MiB", "--network", "contention",
                  "-o", "out.h5"]
    case("collective, topology differs", dirs, collective, collective, "disagree on their input files (topo.yaml")

    dirs = folders("commands")
    case("run against sweep", dirs, ["run", "base.yaml", "--set", "network.model=contention", "-o", "out.h5"], sweep,
         'the processes disagree on the command they run (command: process 0 has "run base.yaml')

    def small(d):
        path = os.path.join(d, "base.yaml")
        text = open(path).read()
        open(path, "w").write(text.replace("global_batch: 256", "global_batch: 32"))
    dirs = folders("contention-vs-small", small)
    run = ["run", "base.yaml", "--set", "network.model=contention", "-o", "out.h5"]
    case("a contention run against a smaller one", dirs, run, run, "disagree on their input files (base.yaml")
    return 1 if failures else 0


if __name__ == "__main__":
    PODSIM, MPIEXEC, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    sys.exit(main())
