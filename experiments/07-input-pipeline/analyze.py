"""Experiment 07: step time and input stall against the host's rate and prefetch depth."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
header = ["layout", "prefetch", "host_rate", "host_s_per_step", "chips_step_s", "step_s", "slowdown",
          "input_stall_s", "stall_stage"]
rows = []
for kind in ("dp", "pp"):
    free = px.summary(os.path.join(out, kind + "-free.h5"))
    per_replica = free["global_batch"] / free["dp"]
    need = per_replica / free["step_time_s"]
    print("%s: the chips alone take %.4f s per step for %d samples per replica = %.4g samples/s"
          % (kind, free["step_time_s"], per_replica, need))
    for f in glob.glob(os.path.join(out, kind + "-pf*-r*.h5")):
        pf, rate = re.match(r".*-pf(\d+)-r([\d.]+)\.h5$", f).groups()
        s = px.summary(f)
        b = px.table(f, "breakdown")
        stall = max(b, key=lambda r: r["input_stall_s"])
        rows.append((kind, int(pf), float(rate), per_replica / float(rate), free["step_time_s"], s["step_time_s"],
                     s["step_time_s"] / free["step_time_s"], stall["input_stall_s"], stall["stage"]))
rows.sort()
print()
px.print_table(header, rows, "%.4g")
print("(host_s_per_step: the host's time to produce one step's samples; input_stall_s: the largest stall of any"
      " stage, at stall_stage)")
px.write_csv(os.path.join(out, "input.csv"), header, rows)

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
titles = {"dp": "A. data parallel, 4 microbatches/step", "pp": "B. 8-stage 1F1B pipeline, 32 microbatches"}
for ax, kind in zip(axes, ("dp", "pp")):
    r = [x for x in rows if x[0] == kind]
    if not r:
        continue
    chips = r[0][4]
    rates = sorted({x[2] for x in r})
    ax.plot(rates, [max(chips, x) for x in [r[0][3] * r[0][2] / q for q in rates]], color="k", lw=3, alpha=0.2,
            label="max(chips, host time)")
    for pf in sorted({x[1] for x in r}):
        v = [x for x in r if x[1] == pf]
        ax.plot([x[2] for x in v], [x[5] for x in v], marker="o", ms=3, lw=1, label="prefetch %d" % pf)
    ax.axhline(chips, color="gray", ls=":", lw=1)
    ax.set_xlabel("host rate (samples/s per replica)")
    ax.set_ylabel("step time (s)")
    ax.set_title(titles[kind])
    ax.legend(fontsize=7)
px.save(fig, os.path.join(out, "figure.png"))
