"""Experiment 08: memory, data-parallel bytes and step time of ZeRO 0-3; the ZeRO-3 prefetch depth;
ZeRO-3 per tensor (DeepSpeed 2021) against flat gathers as the GPUs grow."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
GiB = 2**30
parts = ["weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes"]


def load(pattern):
    found = []
    for f in glob.glob(os.path.join(out, pattern)):
        nic, k = (int(x) for x in re.findall(r"\d+", os.path.basename(f))[:2])
        s, b = px.summary(f), px.pacing(f)
        m = max(px.table(f, "memory"), key=lambda r: r["total_bytes"])
        found.append((nic, k, s, b, m))
    return sorted(found, key=lambda x: (-x[0], x[1]))


A = load("A-nic*-zero*.h5")
B = load("B-nic*-prefetch*.h5")
header = ["nic_Gbps", "zero", "step_s", "MFU_%", "exposed_dp_s", "hidden_dp_s", "dp_GB_sent", "weights", "grads",
          "optimizer", "activations", "temporary", "total_GiB", "fits"]
rows = [(nic, z, s["step_time_s"], 100 * s["mfu"], b["comm_dp_s"], b["overlapped_dp_s"], b["bytes_dp"] / 1e9)
        + tuple(m[p] / GiB for p in parts) + (m["total_bytes"] / GiB, "yes" if s["fits_in_memory"] else "NO")
        for nic, z, s, b, m in A]
print("A. ZeRO stages (GiB per GPU; 64-way data parallelism, 4 microbatches per step)")
px.print_table(header, rows, "%.3f")
px.write_csv(os.path.join(out, "zero.csv"), header, rows)
header_b = ["nic_Gbps", "fsdp_prefetch", "step_s", "MFU_%", "exposed_dp_s", "temporary_GiB", "total_GiB"]
rows_b = [(nic, pf, s["step_time_s"], 100 * s["mfu"], b["comm_dp_s"], m["temporary_bytes"] / GiB,
           m["total_bytes"] / GiB) for nic, pf, s, b, m in B]
print("\nB. ZeRO-3 prefetch depth")
px.print_table(header_b, rows_b, "%.3f")
px.write_csv(os.path.join(out, "prefetch.csv"), header_b, rows_b)

C = []
for f in glob.glob(os.path.join(out, "C-dp*-*.h5")):
    m = re.match(r"C-dp(\d+)-(flat|per-tensor)\.h5", os.path.basename(f))
    C.append((int(m[1]), m[2], px.summary(f), px.pacing(f)))
C.sort(key=lambda x: (x[1], x[0]))
header_c = ["zero3_collectives", "dp", "step_s", "MFU_%", "exposed_dp_s", "dp_GB_sent"]
rows_c = [(how, dp, s["step_time_s"], 100 * s["mfu"], b["comm_dp_s"], b["bytes_dp"] / 1e9) for dp, how, s, b in C]
print("\nC. ZeRO-3 flat against per tensor (DeepSpeed 2021), 4 microbatches per GPU, 200 Gb/s")
px.print_table(header_c, rows_c, "%.3f")
px.write_csv(os.path.join(out, "deepspeed.csv"), header_c, rows_c)

fig, axes = plt.subplots(1, 4, figsize=(17, 3.8))
ax = axes[0]
nic0 = A[0][0]
mem = [x for x in A if x[0] == nic0]
bottom = [0.0] * len(mem)
for p in parts:
    v = [x[4][p] / GiB for x in mem]
    ax.bar(range(len(mem)), v, bottom=bottom, label=p.replace("_bytes", ""))
    bottom = [a + c for a, c in zip(bottom, v)]
cap = mem[0][2]["hbm_capacity_bytes"] / GiB
ax.axhline(cap, color="k", ls="--", lw=1)
ax.text(len(mem) - 0.5, cap, "usable HBM %.0f GiB" % cap, ha="right", va="top", fontsize=8)
ax.set_ylim(0, max(bottom) * 1.3)
ax.set_xticks(range(len(mem)), ["ZeRO-%d" % x[1] for x in mem])
ax.set_ylabel("GiB per GPU")
ax.set_title("memory per GPU")
ax.legend(fontsize=7, ncol=3, loc="upper right")
ax = axes[1]
for nic, style in ((200, "o-"), (25, "s--")):
    v = [x for x in A if x[0] == nic]
    if v:
        ax.plot([x[1] for x in v], [x[2]["step_time_s"] for x in v], style, label="step, %d Gb/s NIC" % nic)
ax.set_xticks(sorted({x[1] for x in A}), ["ZeRO-%d" % z for z in sorted({x[1] for x in A})])
ax.set_ylabel("step time (s)")
ax.set_title("step time; bars: GB sent per GPU per step")
ax.legend(fontsize=7, loc="upper left")
ax2 = ax.twinx()
ax2.bar([x[1] for x in mem], [x[3]["bytes_dp"] / 1e9 for x in mem], width=0.4, alpha=0.25, color="gray")
ax2.set_ylabel("data-parallel GB sent per GPU", color="gray")
ax2.grid(False)
ax.set_zorder(ax2.get_zorder() + 1)
ax.patch.set_visible(False)
ax = axes[2]
for nic, style in ((200, "o-"), (25, "s--")):
    v = [x for x in B if x[0] == nic]
    if v:
        ax.plot([x[1] for x in v], [x[2]["step_time_s"] for x in v], style, label="%d Gb/s NIC" % nic)
        for x in v:
            ax.annotate("%.1f" % (x[4]["temporary_bytes"] / GiB), (x[1], x[2]["step_time_s"]),
                        textcoords="offset points", xytext=(0, 5), fontsize=7, ha="center")
ax.set_xlabel("training.overlap.fsdp_prefetch (labels: temporary GiB)")
ax.margins(x=0.1, y=0.12)
ax.set_ylabel("step time (s)")
ax.set_title("ZeRO-3: gathering ahead")
ax.legend(fontsize=7)
ax = axes[3]
for how, style in (("flat", "o-"), ("per-tensor", "s--")):
    v = [x for x in C if x[1] == how]
    if v:
        ax.plot([x[0] for x in v], [100 * x[2]["mfu"] for x in v], style, label=how)
ax.set_xscale("log", base=2)
ax.set_xticks(sorted({x[0] for x in C}), [str(x) for x in sorted({x[0] for x in C})])
ax.set_xlabel("GPUs (data-parallel degree)")
ax.set_ylabel("MFU (%)")
ax.set_ylim(bottom=0)
ax.set_title("ZeRO-3: flat gathers vs DeepSpeed 2021")
ax.legend(fontsize=7)
fig.tight_layout()
px.save(fig, os.path.join(out, "figure.png"))
