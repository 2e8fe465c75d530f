"""Experiment 14: the time to train against the cluster size (ideal, and with checkpoints and
failures); the failure overhead at the largest size against the checkpoint cost and the MTBF."""
import glob
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
DAY, HOUR = 86400.0, 3600.0


def cases(pattern):
    found = []
    for f in glob.glob(os.path.join(out, pattern)):
        found.append((int(re.findall(r"\d+", os.path.basename(f))[0]), f))
    return sorted(found)


def overhead(s):
    total = s["time_to_train_s"]
    return 100 * (total / s["time_to_train_ideal_s"] - 1) if math.isfinite(total) else math.inf


rows_a = []
for _, f in cases("A-nodes*.h5"):
    s = px.summary(f)
    rows_a.append((s["chips"], s["tokens_per_s"], 100 * s["mfu"], s["time_to_train_ideal_s"] / HOUR,
                   s["time_to_train_s"] / HOUR, overhead(s), s["job_mtbf_s"] / HOUR,
                   s["checkpoint_interval_s"] / 60, s["time_to_train_s"] / s["job_mtbf_s"]))
header_a = ["chips", "tokens_per_s", "MFU_%", "ideal_h", "with_failures_h", "overhead_%", "job_mtbf_h",
            "checkpoint_every_min", "failures"]
print("A. 300B tokens on 64 to 16,384 A100s (a GPU fails every 50,000 h; 60 s checkpoints, 10 min restarts)")
px.print_table(header_a, rows_a, "%.4g")
px.write_csv(os.path.join(out, "size.csv"), header_a, rows_a)

def largest_cluster(pattern, minutes):
    """Parts B and C: per value of the swept knob, `minutes` of the summary (in minutes), the time
    to train with failures (h) and the failures' overhead (%)."""
    rows = []
    for value, f in cases(pattern):
        s = px.summary(f)
        rows.append((value, s[minutes] / 60, s["time_to_train_s"] / HOUR, overhead(s)))
    return rows


rows_b = largest_cluster("B-checkpoint*.h5", "checkpoint_interval_s")
print("\nB. The largest cluster: the checkpoint's cost")
px.print_table(["checkpoint_s", "checkpoint_every_min", "with_failures_h", "overhead_%"], rows_b, "%.4g")

rows_c = largest_cluster("C-mtbf*.h5", "job_mtbf_s")
print("\nC. The largest cluster: one GPU's MTBF")
px.print_table(["gpu_mtbf_h", "job_mtbf_min", "with_failures_h", "overhead_%"], rows_c, "%.4g")

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
chips = [r[0] for r in rows_a]
left.plot(chips, [r[3] for r in rows_a], marker="o", label="at the step's rate")
left.plot(chips, [r[4] for r in rows_a], marker="s", label="with checkpoints and failures")
left.set_xscale("log", base=2)
left.set_yscale("log")
left.set_xlabel("A100s")
left.set_ylabel("time to train 300B tokens (h)")
left.set_title("A. Time to train against cluster size")
left.legend()
right.plot(chips, [r[5] for r in rows_a], marker="o", color="C3")
right.set_xscale("log", base=2)
right.set_xlabel("A100s")
right.set_ylabel("checkpoints and failures (% of the ideal time)")
right.set_title("A. What failures add")
px.save(fig, os.path.join(out, "figure.png"))
