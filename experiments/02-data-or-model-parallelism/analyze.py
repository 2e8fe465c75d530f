"""Experiment 02: one line per layout (step time, MFU, memory, exposed communication), a CSV and
a figure: where the step goes and what each chip holds."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out, names = sys.argv[1], sys.argv[2:]
GiB = 2**30
rows, data = [], []
for n in names:
    f = os.path.join(out, n + ".h5")
    s, b = px.summary(f), px.pacing(f)
    m = max(px.table(f, "memory"), key=lambda r: r["total_bytes"])
    compute = sum(b[c] for c in px.CATEGORIES if c.startswith("compute"))
    rows.append((n, s["step_time_s"], 100 * s["mfu"], m["total_bytes"] / GiB, b["comm_tp_s"], b["comm_dp_s"],
                 b["bubble_s"], compute, b["compute_optimizer_s"], "yes" if s["fits_in_memory"] else "NO"))
    data.append((n, s, b, m))
header = ["layout", "step_s", "MFU_%", "mem_GiB", "comm_tp", "comm_dp", "bubble", "compute", "optimizer", "fits"]
px.print_table(header, rows, "%.2f")
print("(seconds per step; breakdown of the busiest stage; mem_GiB: the fullest stage's chip, of %.1f GiB)"
      % (data[0][1]["hbm_capacity_bytes"] / GiB))
px.write_csv(os.path.join(out, "layouts.csv"), header, rows)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
x = range(len(data))
bottom = [0.0] * len(data)
for c in px.CATEGORIES:
    v = [d[2][c] for d in data]
    if max(v) <= 0:
        continue
    ax1.bar(x, v, bottom=bottom, color=px.CATEGORY_COLORS[c], label=c[:-2].replace("_", "."))
    bottom = [a + b for a, b in zip(bottom, v)]
ax1.set_xticks(list(x), [d[0] for d in data], rotation=20, fontsize=8)
ax1.set_ylabel("seconds per step (busiest stage)")
ax1.set_title("where the step goes")
ax1.set_ylim(0, max(bottom) * 1.45)
ax1.legend(fontsize=7, loc="upper left", ncol=3)
parts = ["weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes"]
cap = data[0][1]["hbm_capacity_bytes"] / GiB
ylim = 4 * cap
bottom = [0.0] * len(data)
for p in parts:
    v = [d[3][p] / GiB for d in data]
    ax2.bar(x, v, bottom=bottom, label=p.replace("_bytes", ""))
    bottom = [a + b for a, b in zip(bottom, v)]
for i, t in enumerate(bottom):
    if t > ylim:
        ax2.annotate("%.0f GiB ↑" % t, (i, ylim * 0.97), ha="center", va="top", fontsize=8)
ax2.axhline(cap, color="k", ls="--", lw=1)
ax2.text(len(data) - 0.5, cap, " HBM %.0f GiB" % cap, va="bottom", ha="right", fontsize=8)
ax2.set_ylim(0, ylim)
ax2.set_xticks(list(x), [d[0] for d in data], rotation=20, fontsize=8)
ax2.set_ylabel("GiB per chip (fullest stage)")
ax2.set_title("what a chip holds")
ax2.legend(fontsize=7, loc="upper right")
px.save(fig, os.path.join(out, "figure.png"))
