#!/usr/bin/python3
"""Outputs podsim must not destroy, and resumes it must refuse (issue 7).

    output_safety.py PODSIM WORK_DIR

Each check prepares files in its own folder, runs podsim, and checks the exit code, the
message, and that the files named in it are unchanged:
  lock       another process holds out.h5's lock (flock, as a running podsim does): a sweep and
             a run on out.h5 are refused (exit 2, the holder's process id named), out.h5 untouched;
  stale      a lock file and the temporary it records, left by a killed writer, do not block,
             and are removed;
  planted    files planted where podsim puts its lock and temporaries: a symbolic link at the
             lock name (to a victim, to the sweep's own input, beside a --trace file), a user's
             own file of that name, links at the temporary names the next process ids would
             use; the victims keep their bytes, the links stay links, the user's file stays;
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
        lock.write("podsim output lock\npid 4242\n")
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
    temp = os.path.join(d, f"out.h5.tmp.{dead.pid}.k1ll3d00")
    open(temp, "w").close()
    # What a podsim killed while writing leaves (lock_file.hpp): no flock held any more.
    open(os.path.join(d, "out.h5.lock"), "w").write(
        f"podsim output lock\npid {dead.pid}\ntemporary out.h5.tmp.{dead.pid}.k1ll3d00\n")
    code, err = podsim(["run", base, "-o", "out.h5"], d)
    expect("stale: a dead writer's lock file does not block", code == 0, f"exit {code}: {err}")
    expect("stale: its temporary is removed", not os.path.exists(temp), "still there")
    expect("stale: the lock file is removed at the end", not os.path.exists(os.path.join(d, "out.h5.lock")), "still there")


def check_planted():
    d = folder("planted")
    base = scenario(d)
    victim = os.path.join(d, "victim.txt")
    open(victim, "w").write("precious\n")
    open(os.path.join(d, "sweep.yaml"), "w").write(
        "schema_version: 1\nbase: base.yaml\naxes:\n  training.micro_batch: [1, 2]\n")
    inputs = [victim, base, os.path.join(d, "sweep.yaml")]
    before = {p: digest(p) for p in inputs}
    cases = (
        ("run, lock linked to a victim", ["run", base, "-o", "out.h5"], "out.h5.lock", "victim.txt"),
        ("sweep, lock linked to its own input", ["sweep", "sweep.yaml", "-q", "-o", "o.h5"], "o.h5.lock", "sweep.yaml"),
        ("trace, lock linked to a victim", ["run", base, "--trace", "t.json"], "t.json.lock", "victim.txt"),
        ("run, lock linked to nothing", ["run", base, "-o", "out.h5"], "out.h5.lock", "nowhere.txt"),
    )
    for name, args, lock, target in cases:
        os.symlink(target, os.path.join(d, lock))
        code, err = podsim(args, d)
        expect(f"planted: {name}: refused", code == 2 and f"{lock} is a symbolic link" in err, f"exit {code}: {err}")
        expect(f"planted: {name}: the link stays", os.readlink(os.path.join(d, lock)) == target, "changed")
        expect(f"planted: {name}: nothing created", not os.path.exists(os.path.join(d, "nowhere.txt")), "created")
        os.remove(os.path.join(d, lock))
    # The user's own file at the lock name: neither overwritten nor deleted.
    mine = os.path.join(d, "out.h5.lock")
    open(mine, "w").write("12345\n")
    code, err = podsim(["run", base, "-o", "out.h5"], d)
    expect("planted: a user's file at the lock name is refused", code == 2 and "is not a podsim lock file" in err,
           f"exit {code}: {err}")
    expect("planted: the user's lock-named file stays as it was", open(mine).read() == "12345\n", "changed")
    os.remove(mine)
    # Links at "<output>.tmp.<pid>" for the process ids that come next, for -o and --trace.
    probe = subprocess.Popen(["true"])
    probe.wait()
    for out in ("out.h5", "t.json"):
        for pid in range(probe.pid, probe.pid + 64):
            os.symlink("victim.txt", os.path.join(d, f"{out}.tmp.{pid}"))
    code, err = podsim(["run", base, "-o", "out.h5", "--trace", "t.json"], d)
    expect("planted: links at the next temporary names do not stop a run", code == 0, f"exit {code}: {err}")
    for out in ("out.h5", "t.json"):
        path = os.path.join(d, out)
        expect(f"planted: {out} is a file of its own", os.path.isfile(path) and not os.path.islink(path), "a link")
    expect("planted: out.h5 is an HDF5 file", open(os.path.join(d, "out.h5"), "rb").read(4) == b"\x89HDF", "not HDF5")
    links = [n for n in os.listdir(d) if ".tmp." in n]
    expect("planted: the planted links stay links, none added",
           len(links) == 128 and all(os.path.islink(os.path.join(d, n)) for n in links), f"{len(links)} names")
    for path, was in before.items():
        expect(f"planted: {os.path.basename(path)} unchanged", digest(path) == was, "changed")


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
    check_planted()
    check_resume()
    sys.exit(1 if failures else 0)
