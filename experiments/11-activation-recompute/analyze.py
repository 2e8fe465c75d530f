"""Experiment 11: step time, recompute time and memory per remat policy; a CSV and a figure."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
GiB = 2**30
ORDER = ["none", "selective", "minimal_flash", "minimal", "save_dot_except_mlpwi", "save_dot_except_mlp",
         "save_qkv_proj", "save_out_proj", "qkv_proj_offloaded", "nothing_saveable", "full", "minimal_offloaded"]
rows = []
for f in glob.glob(os.path.join(out, "flash-*.h5")):
    fl, policy = re.match(r"flash-(true|false)-(.+)\.h5$", os.path.basename(f)).groups()
    s, b = px.summary(f), px.pacing(f)
    m = max(px.table(f, "memory"), key=lambda r: r["total_bytes"])
    rows.append((fl == "false", ORDER.index(policy), fl, policy, s["step_time_s"], b["compute_recompute_s"],
                 100 * s["mfu"], 100 * s["hfu"], m["activations_bytes"] / GiB, m["temporary_bytes"] / GiB,
                 m["total_bytes"] / GiB, s["hbm_capacity_bytes"] / GiB, "yes" if s["fits_in_memory"] else "NO"))
rows.sort()
header = ["flash", "policy", "step_s", "recompute_s", "MFU_%", "HFU_%", "activations_GiB", "temporary_GiB",
          "total_GiB", "capacity_GiB", "fits"]
px.print_table(header, [r[2:] for r in rows], "%.4g")
px.write_csv(os.path.join(out, "remat.csv"), header, [r[2:] for r in rows])

number = {p: i + 1 for i, p in enumerate(ORDER)}
fig, axes = plt.subplots(1, 2, figsize=(12, 4.4), sharey=True)
for ax, fl in zip(axes, ("true", "false")):
    v = [r for r in rows if r[2] == fl]
    if not v:
        ax.set_visible(False)
        continue
    # Policies at the same point share one label.
    groups = {}
    for r in v:
        groups.setdefault((round(r[8], 2), round(r[4], 1)), []).append(r)
    for _, rs in sorted(groups.items()):
        x, y = rs[0][8], rs[0][4]
        fits = all(r[12] == "yes" for r in rs)
        ax.scatter(x, y, s=28, color="tab:blue" if fits else "tab:red",
                   marker="s" if any("offloaded" in r[3] for r in rs) else "o", zorder=3)
        ax.annotate(",".join(str(number[r[3]]) for r in rs), (x, y), textcoords="offset points", xytext=(5, 3),
                    fontsize=8)
    ax.set_xscale("log")
    ax.set_xticks([0.2, 0.5, 1, 2, 5, 10], ["0.2", "0.5", "1", "2", "5", "10"])
    ax.minorticks_off()
    ax.set_xlim(0.15, 15)
    ax.set_xlabel("activations kept in HBM per chip (GiB, log scale)")
    ax.set_title("flash attention %s" % ("on" if fl == "true" else "off"))
axes[0].set_ylabel("step time (s)")
fig.suptitle("remat policies: memory against time (red: does not fit in HBM; squares: offloaded to host memory)",
             fontsize=10)
fig.tight_layout(rect=(0, 0, 0.83, 1))
fig.text(0.84, 0.5, "\n".join("%2d  %s" % (number[p], p) for p in ORDER), fontsize=8, va="center",
         family="monospace")
px.save(fig, os.path.join(out, "figure.png"))
