#!/usr/bin/env python3
"""Ctrl-C stops `podsim plan` with the best layouts so far.

  check_interrupt.py PODSIM WORKDIR

Starts an exhaustive plan of GPT-3 175B on 1024 TPU v4 chips (thousands of simulations: it
cannot end by itself before the signal), with its progress line on a pseudo-terminal; once the
line says a first simulation is done, sends SIGINT, and checks that the plan:
  - exits with 130 (128 + SIGINT), having printed a ranking of what it simulated, which it says
    stopped early ("interrupted after N simulations") and counts the layouts it did not reach;
  - writes its -o file whole: one /plan row per layout, the ranked ones with their step times,
    the others "not searched" (or ruled out before the search).
Nothing here waits for a time: the signal follows the progress line, and the plan follows the
signal at its next batch.
"""
import os
import pathlib
import pty
import re
import signal
import subprocess
import sys

import h5py

podsim, work = sys.argv[1], pathlib.Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)
out_file = work / "interrupted.h5"
out_file.unlink(missing_ok=True)
failures = []

master, slave = pty.openpty()
p = subprocess.Popen([podsim, "plan", "--model", "gpt3-175b", "--hardware", "tpu-v4", "--topology",
                      "tpu-v4-8x8x16-twisted", "--global-batch", "1536", "--top", "3", "--exhaustive", "--force",
                      "-o", str(out_file)], stdout=subprocess.PIPE, stderr=slave, text=True)
os.close(slave)
seen = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # the plan closed its side: it ended without a progress line
        break
    if not chunk:
        break
    seen += chunk
    done = re.findall(rb"\[plan\] (\d+)/\d+ simulations", seen)
    if done and int(done[-1]) >= 1:
        p.send_signal(signal.SIGINT)
        break
stdout, _ = p.communicate(timeout=600)
os.close(master)

if p.returncode != 130:
    failures.append(f"exit code {p.returncode}, not 130; progress seen: {seen[-300:]!r}")
m = re.search(r"the search stopped early \(interrupted after (\d+) simulations\)", stdout)
if not m:
    failures.append("the text does not say the search was interrupted:\n" + stdout[:1500])
else:
    simulated = int(m.group(1))
    if not re.search(rf"\b{simulated} simulated on the analytical network, none again", stdout):
        failures.append(f"the summary line does not count the {simulated} simulated layouts:\n" + stdout[:800])
    if not re.search(r"\d+ not searched", stdout):
        failures.append("the summary line does not count the layouts not searched")
    if not re.search(r"^1 +- +\d+\.\d{3} ", stdout, re.M):
        failures.append("no ranked layout #1 with its analytical step time:\n" + stdout[:1500])
    if out_file.exists():
        with h5py.File(out_file, "r") as f:
            plan = f["/plan"][:]
        verdicts = [v.decode() if isinstance(v, bytes) else v for v in plan["verdict"]]
        ranked = sum(1 for r in plan["rank"] if r > 0)
        if ranked != simulated:
            failures.append(f"/plan ranks {ranked} layouts, the text says {simulated} were simulated")
        if "not searched" not in verdicts:
            failures.append("/plan has no layout 'not searched'")
    else:
        failures.append(f"{out_file} was not written")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"ok: interrupted after {m.group(1)} simulations, exit 130, the best so far printed and written")
