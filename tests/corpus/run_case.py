#!/usr/bin/python3
"""One case of tests/corpus: run podsim on a malformed or hostile input and check the refusal.

    run_case.py PODSIM CASE_FILE WORK_DIR

The case file's leading comment lines say what to run and what must happen:

    # args: run {case} -o {out}        podsim's arguments (shell words); placeholders below
    # exit: 2                          the exit code (2 bad input, 1 runtime failure)
    # expect: <text>                   a fragment stderr must contain (repeatable)
    # unchanged: {case}                a file whose bytes must not change (repeatable;
                                       default: the case file and every file it names)
    # device: /dev/full                a path that must still be a character device after
    # setup: <python statement>        run before podsim, with `work` and `case` defined
                                       (e.g. to write a 20 MiB file); repeatable
    # why: <text>                      what podsim once did with this input (not checked)

Placeholders: {case} the case file, {out} WORK_DIR/out.h5, {work} WORK_DIR, {root} the
repository. Every run must also: print "podsim: error: " (or "podsim: simulation failed: ")
at the start of stderr, on one line per message; leave no {out}, no *.tmp.* and no *.lock
file in WORK_DIR; hold no raw control character on stderr. Exit status 0 when every check
holds; else the failures, and 1.
"""
import hashlib
import os
import shlex
import shutil
import stat
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    podsim, case, work = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out.h5")
    fill = lambda s: s.replace("{case}", case).replace("{out}", out).replace("{work}", work).replace("{root}", ROOT)

    header = {"args": [], "exit": [], "expect": [], "unchanged": [], "device": [], "setup": []}
    with open(case, "rb") as f:
        for raw in f.read().split(b"\n"):
            line = raw.decode("utf-8", "replace")
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(": ")
            if key in header:
                header[key].append(value)
    if len(header["args"]) != 1 or len(header["exit"]) != 1 or not header["expect"]:
        print(f"{case}: needs one '# args:', one '# exit:' and at least one '# expect:' line")
        return 1
    for statement in header["setup"]:
        exec(statement, {"work": work, "case": case, "os": os})  # the case's own preparation
    args = [fill(a) for a in shlex.split(header["args"][0])]
    unchanged = [fill(u) for u in header["unchanged"]] or [case]
    before = {p: digest(p) for p in unchanged}

    run = subprocess.run([podsim] + args, cwd=work, capture_output=True, timeout=120)
    err = run.stderr.decode("utf-8", "replace")
    problems = []
    if str(run.returncode) != header["exit"][0]:
        problems.append(f"exit code {run.returncode}, expected {header['exit'][0]}")
    if not (err.startswith("podsim: error: ") or err.startswith("podsim: simulation failed: ")):
        problems.append("stderr does not start with 'podsim: error: ' or 'podsim: simulation failed: '")
    for fragment in header["expect"]:
        if fill(fragment) not in err:
            problems.append(f"stderr does not contain: {fill(fragment)}")
    if any(ch < " " and ch not in "\n\t" for ch in err) or "\x7f" in err:
        problems.append("stderr holds a raw control character (terminal escape codes must be shown escaped)")
    if "podsimpodsim" in err:
        problems.append("two messages ran into one line")
    for path, was in before.items():
        if not os.path.isfile(path) or digest(path) != was:
            problems.append(f"{path} changed")
    for path in (fill(d) for d in header["device"]):
        if not stat.S_ISCHR(os.stat(path).st_mode):
            problems.append(f"{path} is no longer a character device")
    for name in os.listdir(work):
        if name == "out.h5" or ".tmp." in name or name.endswith(".lock"):
            problems.append(f"left behind in the work folder: {name}")
    if problems:
        print(f"podsim {' '.join(shlex.quote(a) for a in args)}\nexit {run.returncode}\nstderr: {err}")
        print("\n".join("  - " + p for p in problems))
        return 1
    print(f"ok: {err.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
