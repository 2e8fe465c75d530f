"""Experiment 09: all-gather bus bandwidth per machine; exposed tensor-parallel time against tp."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
A_ORDER = ["a100-nvlink", "h100-nvlink", "v4-x4-torus", "v4-x8-torus", "v4-x4-twisted", "v4-x4-untwisted"]
B_ORDER = ["a100-dgx", "v4-4x4x4", "v4-4x4x8-tw", "v4-4x4x8"]

coll = {}
csv_a = []
for name in A_ORDER:
    f = os.path.join(out, "A-%s.h5" % name)
    rows = px.table(f, "collectives")
    coll[name] = rows
    csv_a += [(name, r["group_size"], r["groups"], r["algorithm"], r["protocol"], r["bytes"], r["time_s"],
               r["busbw_Bps"], r["max_link_utilization"]) for r in rows]
px.write_csv(os.path.join(out, "collectives.csv"),
             ["machine", "group_size", "groups", "algorithm", "protocol", "bytes", "time_s", "busbw_Bps",
              "max_link_utilization"], csv_a)
print("A. All-gather, every group at once, contention-aware network: bus bandwidth (GB/s)")
sizes = [r["bytes"] for r in coll[A_ORDER[0]]]
px.print_table(["MiB"] + ["%s (n=%d)" % (n, coll[n][0]["group_size"]) for n in A_ORDER],
               [(s / 2**20,) + tuple(coll[n][i]["busbw_Bps"] / 1e9 for n in A_ORDER) for i, s in enumerate(sizes)],
               "%.4g")

print("\nC. All-to-all of 64 MiB over all 128 chips of the 4x4x8 (pairwise exchange, contention-aware network)")
px.print_table(["twisted", "time_ms", "busbw_GBps", "busiest_link"],
               [(tw,) + (lambda r: (r["time_s"] * 1e3, r["busbw_Bps"] / 1e9, r["max_link_utilization"]))(
                   px.table(os.path.join(out, "C-twisted-%s.h5" % tw), "collectives")[0]) for tw in ("true", "false")],
               "%.4g")

runs = []
for f in glob.glob(os.path.join(out, "B-*-tp*-*.h5")):
    name, tp, ov = re.match(r"B-(.+)-tp(\d+)-(none|collective-matmul)\.h5$", os.path.basename(f)).groups()
    s, b = px.summary(f), px.pacing(f)
    runs.append((B_ORDER.index(name), name, int(tp), ov, s["mesh"].split(";")[0], s["step_time_s"], 100 * s["mfu"],
                 b["comm_tp_s"], 100 * b["comm_tp_s"] / s["step_time_s"], b["bytes_tp"] / 1e9,
                 s["busiest_link_utilization"], s["memory_peak_bytes"] / 2**30,
                 "yes" if s["fits_in_memory"] else "NO"))
runs.sort()
header = ["machine", "tp", "tp_overlap", "tp_placement", "step_s", "MFU_%", "exposed_tp_s", "exposed_tp_%",
          "tp_GB_sent", "busiest_link", "GiB", "fits"]
print("\nB. GPT 7.5B, 8 sequences per chip per step")
px.print_table(header, [r[1:] for r in runs], "%.4g")
px.write_csv(os.path.join(out, "layouts.csv"), header, [r[1:] for r in runs])

fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
ax = axes[0]
for n in A_ORDER:
    r = coll[n]
    ax.semilogx([x["bytes"] / 2**20 for x in r], [x["busbw_Bps"] / 1e9 for x in r], marker="o", ms=3,
                ls="--" if "twisted" in n else "-", label="%s (%d)" % (n, r[0]["group_size"]), base=2)
ax.set_xticks([1, 4, 16, 64, 256], ["1", "4", "16", "64", "256"])
ax.minorticks_off()
ax.set_xlabel("all-gather size (MiB)")
ax.set_ylabel("bus bandwidth (GB/s)")
ax.set_title("A. one TP all-gather, all groups at once")
ax.legend(fontsize=7)
for ax, ov in zip(axes[1:], ("none", "collective-matmul")):
    for k, name in enumerate(B_ORDER):
        v = [r for r in runs if r[1] == name and r[3] == ov]
        ax.plot([r[2] for r in v], [r[8] for r in v], marker="os^v"[k], ms=4, label=name,
                ls="--" if name.endswith("-tw") else "-")
    ax.set_xscale("log", base=2)
    tps = sorted({r[2] for r in runs})
    ax.set_xticks(tps, [str(t) for t in tps])
    ax.minorticks_off()
    ax.set_xlabel("tensor-parallel degree")
    ax.set_ylabel("exposed TP comm (% of step)")
    ax.set_title("B. GPT 7.5B, TP overlap: %s" % ov)
    ax.legend(fontsize=7)
ymax = max(r[8] for r in runs) * 1.1
axes[1].set_ylim(0, ymax)
axes[2].set_ylim(0, ymax)
fig.tight_layout()
px.save(fig, os.path.join(out, "figure.png"))
