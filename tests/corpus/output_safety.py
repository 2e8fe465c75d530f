#!/usr/bin/python3
"""Outputs podsim must not destroy, and resumes it must refuse (issue 7).

    output_safety.py PODSIM WORK_DIR

Each check prepares files in its own folder, runs podsim, and checks the exit code, the
message, and that the files named in it are unchanged:
  lock       another process holds out.h5's lock (flock, as a running podsim does): a sweep and
             a run on out.h5 are refused (exit 2, the holder's process id named), out.h5 untouched;
  stale      a lock file and a temporary left by killed writers do not block, and are removed;
  resume     a finished sweep over two hardware files; one file's bf16 peak is halved; the rerun
             on the same output refuses to resume (exit 2, the edited file named), out.h5
             untouched; a new output computes the new numbers.
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def podsim(args, cwd):
    run = subprocess.run([PODSIM] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    return run.returncode, run.stderr


def expect(name, condition, detail):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else ": " + detail))
    if not condition:
        failures.append(name)


def folder(name):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def scenario(dir):
    """A small scenario with absolute includes, in `dir`."""
    text = open(os.path.join(ROOT, "tests/sweep/base-llama2-7b-v5e-128.yaml")).read()
    text = text.replace("../../", ROOT + "/").replace("network: contention", "network: analytical")
    path = os.path.join(dir, "base.yaml")
    open(path, "w").write(text)
    return path


def check_lock():
    d = folder("lock")
    base = scenario(d)
    code, _ = podsim(["run", base, "-o", "out.h5"], d)
    expect("lock: a first run writes out.h5", code == 0 and os.path.exists(os.path.join(d, "out.h5")), f"exit {code}")
    before = digest(os.path.join(d, "out.h5"))
    open(os.path.join(d, "sweep.yaml"), "w").write(
        "schema_version: 1\nbase: base.yaml\naxes:\n  training.micro_batch: [1, 2]\n")
    with open(os.path.join(d, "out.h5.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("4242\n")
        lock.flush()
        for args in (["sweep", "sweep.yaml", "-q", "-o", "out.h5"], ["run", base, "-o", "out.h5"]):
            code, err = podsim(args, d)
            expect(f"lock: {args[0]} refused while another process writes", code == 2 and
                   "another podsim (process 4242) is writing it now" in err, f"exit {code}: {err}")
    expect("lock: out.h5 untouched", digest(os.path.join(d, "out.h5")) == before, "changed")


def check_stale():
    d = folder("stale")
    base = scenario(d)
    dead = subprocess.Popen(["true"])
    dead.wait()  # its process id now names no process
    temp = os.path.join(d, f"out.h5.tmp.{dead.pid}")
    open(temp, "w").close()
    open(os.path.join(d, "out.h5.lock"), "w").write(f"{dead.pid}\n")  # no flock held: a dead writer's
    code, err = podsim(["run", base, "-o", "out.h5"], d)
    expect("stale: a dead writer's lock file does not block", code == 0, f"exit {code}: {err}")
    expect("stale: its temporary is removed", not os.path.exists(temp), "still there")
    expect("stale: the lock file is removed at the end", not os.path.exists(os.path.join(d, "out.h5.lock")), "still there")


def check_resume():
    d = folder("resume")
    scenario(d)
    hw = open(os.path.join(ROOT, "configs/hardware/tpu-v5e.yaml")).read()
    for name in ("hw-a.yaml", "hw-b.yaml"):
        open(os.path.join(d, name), "w").write(hw)
    open(os.path.join(d, "sweep.yaml"), "w").write(
        "schema_version: 1\nbase: base.yaml\naxes:\n  hardware: [hw-a.yaml, hw-b.yaml]\n")
    code, err = podsim(["sweep", "sweep.yaml", "-q", "-o", "out.h5"], d)
    expect("resume: the sweep runs", code == 0, f"exit {code}: {err}")
    before = digest(os.path.join(d, "out.h5"))
    code, err = podsim(["sweep", "sweep.yaml", "-q", "-o", "out.h5"], d)
    expect("resume: the same inputs resume (nothing left to do)", code == 0, f"exit {code}: {err}")
    edited = hw.replace("bf16: 197 TFLOP/s", "bf16: 98.5 TFLOP/s")
    assert edited != hw
    open(os.path.join(d, "hw-b.yaml"), "w").write(edited)
    code, err = podsim(["sweep", "sweep.yaml", "-q", "-o", "out.h5"], d)
    expect("resume: an edited input is refused, named", code == 2 and "cannot resume: hw-b.yaml changed since its rows "
           "were computed" in err, f"exit {code}: {err}")
    expect("resume: out.h5 untouched", digest(os.path.join(d, "out.h5")) == before, "changed")
    code, err = podsim(["sweep", "sweep.yaml", "-q", "-o", "new.h5"], d)
    expect("resume: a new output computes the new inputs", code == 0, f"exit {code}: {err}")


if __name__ == "__main__":
    PODSIM, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(WORK, exist_ok=True)
    check_lock()
    check_stale()
    check_resume()
    sys.exit(1 if failures else 0)
