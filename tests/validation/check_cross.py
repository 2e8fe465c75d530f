#!/usr/bin/env python3
"""`podsim validate --cross` does what it says, checked from outside on a small file.

Nine rows of configs/validation/published.csv (A100 from three sources, TPU v5p from one) are
written as a file named published.csv, so the constants configs/validation/fitted.csv says were
fitted on that file's rows (the training of A100, TPU v5e and TPU v5p) are refitted. Checks:

  (a) the in-sample errors are `podsim validate`'s on the same file;
  (b) every refitted constant is a multiple of 0.005 in [0.40, 1.00]; a family whose rows all
      come from the left-out source (TPU v5p without google/maxtext; TPU v5e, which has none)
      takes the mean of the other families' training (A100's refit and H100's, fitted
      elsewhere) where its constant is training, and the mean of their matmul rates in
      training, matmul × training, divided by its training, where its constant is matmul;
  (c) each source's leave-one-source-out errors are what `podsim validate` gives on that
      source's rows in a copy of the repository whose hardware files hold those constants;
  (d) the baseline is the constant MFU per family (0.1 % grid) minimising the family's MAPE,
      recomputed here from `podsim validate`'s predictions and MFUs;
  (e) the summaries are the means of the row errors.

usage: check_cross.py PODSIM ROOT
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

podsim, root = sys.argv[1], sys.argv[2]
IDS = ["kor22-t4-22B-baseline-no-recompute", "kor22-t4-22B-full-recompute", "kor22-t5-22B-full",
       "mlm21-t1-01", "mlm21-t1-02", "mpt-7b-8-a100", "mpt-30b-8-a100",
       "maxtext-v5p-32B-1x64", "maxtext-v5p-64B-1x64"]
REFITTED = ("training", "matmul")


def line_of(constant):
    return re.compile(r"^(\s*" + constant + r":\s*)([0-9.]+)(.*)$", re.M)
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def run(*args):
    return json.loads(subprocess.run([podsim, *args], check=True, capture_output=True, text=True).stdout)


def mape(errors):
    return sum(abs(e) for e in errors) / len(errors)


with open(os.path.join(root, "configs", "validation", "published.csv"), newline="") as f:
    reader = csv.DictReader(f)
    columns, rows = reader.fieldnames, [r for r in reader if r["id"] in IDS]
fitted = list(csv.DictReader(open(os.path.join(root, "configs", "validation", "fitted.csv"), newline="")))
refit = {f["family"]: (f["constant"], f["file"]) for f in fitted
         if f["constant"] in REFITTED and f["fitted_on"] == "published.csv"}


def value_of(constant, file):
    """The hardware file's efficiency.<constant> (training: 1 where the file has none)."""
    found = line_of(constant).search(open(os.path.join(root, file)).read())
    return float(found.group(2)) if found else 1.0


def other_of(constant, file):
    """The other factor of the matmul rate in training (matmul × training)."""
    return value_of("matmul" if constant == "training" else "training", file)


elsewhere = [(f["constant"], f["file"], value_of(f["constant"], f["file"]))
             for f in fitted if f["constant"] in REFITTED and f["fitted_on"] != "published.csv"]

with tempfile.TemporaryDirectory() as tmp:
    def write(path, subset):
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=columns)
            w.writeheader()
            w.writerows(subset)

    data = os.path.join(tmp, "published.csv")
    write(data, rows)
    cross = run("validate", "--cross", "--data", data, "--json", "-q", "--root", root)
    plain = {r["id"]: r for r in run("validate", "--data", data, "--json", "--root", root)["results"]}
    check(len(plain) == len(IDS), f"{len(plain)} of {len(IDS)} rows simulated")
    by_id = {r["id"]: r for r in cross["rows"]}
    # (a)
    for i, r in plain.items():
        check(i in by_id and abs(by_id[i]["in_sample"] - r["error"]) < 1e-12, f"{i}: in-sample error differs from validate's")
    # (b) and (c)
    copy = os.path.join(tmp, "root")
    for d in ("configs", "topologies"):
        shutil.copytree(os.path.join(root, d), os.path.join(copy, d))
    sources = sorted({r["source"] for r in plain.values()})
    check(sorted(cross["constants_without_source"]) == sources, f"sources {sorted(cross['constants_without_source'])}")
    for source in sources:
        chosen = cross["constants_without_source"].get(source, {})
        check(sorted(chosen) == sorted(refit), f"{source}: refitted {sorted(chosen)}, expected {sorted(refit)}")
        def has_rows(family):
            return any(r["family"] == family and r["source"] != source for r in plain.values())
        for family, value in chosen.items():
            check(0.40 <= value <= 1.00 and abs(value / 0.005 - round(value / 0.005)) < 1e-6,
                  f"{source}: {family} {value} is not a multiple of 0.005 in [0.40, 1.00]")
        known = [(refit[f][0], v, other_of(*refit[f])) for f, v in chosen.items() if has_rows(f)]
        known += [(c, v, other_of(c, file)) for c, file, v in elsewhere]
        rates = [v * other for _, v, other in known]
        trainings = [v for c, v, _ in known if c == "training"]
        for family in chosen:
            if has_rows(family):
                continue
            if refit[family][0] == "training" and trainings:
                mean = round(sum(trainings) / len(trainings) / 0.005) * 0.005
            else:
                mean = round(sum(rates) / len(rates) / other_of(*refit[family]) / 0.005) * 0.005
            check(abs(chosen[family] - mean) < 1e-9, f"{source}: {family} {chosen[family]}, expected the mean {mean}")
        for family, value in chosen.items():
            constant, file = refit[family]
            text = open(os.path.join(root, file)).read()
            open(os.path.join(copy, file), "w").write(
                line_of(constant).sub(lambda m: f"{m.group(1)}{value!r}{m.group(3)}", text, count=1))
        left_out = os.path.join(tmp, "left-out.csv")
        write(left_out, [r for r in rows if plain.get(r["id"], {}).get("source") == source])
        for r in run("validate", "--data", left_out, "--json", "--root", copy)["results"]:
            got = by_id.get(r["id"], {}).get("leave_one_source_out")
            check(got is not None and abs(got - r["error"]) < 1e-9,
                  f"{r['id']}: leave-one-source-out {got}, validate with {source}'s constants gives {r['error']}")
        print(f"{source}: " + ", ".join(f"{f} {v:.3f}" for f, v in sorted(chosen.items())))

# (d)
for family, c in cross["baseline_mfu"].items():
    training = [r for r in plain.values() if r["family"] == family and r["mfu"] > 0 and "memory" not in r["metric"].lower()]

    def errors(m):
        return [(r["predicted"] * r["mfu"] / m if "time" in r["metric"].lower() else r["predicted"] * m / r["mfu"])
                / r["measured"] - 1 for r in training]
    best = min((k / 1000 for k in range(50, 1000)), key=lambda m: mape(errors(m)))
    check(abs(best - c) < 1e-9, f"{family}: baseline MFU {c}, expected {best}")
    for r, e in zip(training, errors(best)):
        check(abs(by_id[r["id"]]["baseline"] - e) < 1e-9, f"{r['id']}: baseline error {by_id[r['id']]['baseline']}, expected {e}")
    print(f"{family}: one constant MFU {100 * c:.1f} %")
# (e)
o = cross["overall"]
check(o["rows"] == len(plain), f"overall rows {o['rows']}")
check(abs(o["in_sample"] - mape([r["in_sample"] for r in cross["rows"]])) < 1e-12, "overall in-sample is not the mean")
check(abs(o["leave_one_source_out"] - mape([r["leave_one_source_out"] for r in cross["rows"]])) < 1e-12,
      "overall leave-one-source-out is not the mean")
print(f"in sample {100 * o['in_sample']:.1f} %, leave one source out {100 * o['leave_one_source_out']:.1f} %")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
