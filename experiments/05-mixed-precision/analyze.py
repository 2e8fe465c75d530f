"""Experiment 05: step time, tokens/s, MFU (against the dtype's peak and against bf16's) and the
memory of each precision configuration; a CSV and a figure."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out, names = sys.argv[1], sys.argv[2:]
GiB = 2**30
parts = ["weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes"]
rows, mems = [], []
base = peak_bf16 = None
for n in names:
    f = os.path.join(out, n + ".h5")
    s, b = px.summary(f), px.pacing(f)
    m = max(px.table(f, "memory"), key=lambda r: r["total_bytes"])
    chips = s["chips"]
    if n == "bf16":
        base = s["step_time_s"]
        # the bf16 peak from the bf16 row itself: MFU = model FLOPs / (step × chips × peak)
        peak_bf16 = s["model_flops"] / (s["step_time_s"] * s["chips"] * s["mfu"])
    rows.append([n, s["compute_dtype"], s["step_time_s"], s["tokens_per_s"], 100 * s["mfu"], s["model_flops"],
                 m["total_bytes"] / GiB, m["activations_bytes"] / GiB, b["bytes_dp"] / 1e9,
                 "yes" if s["fits_in_memory"] else "NO"])
    mems.append([m[p] / GiB for p in parts] + [s["hbm_capacity_bytes"] / GiB])
if base is None:
    sys.exit("the bf16 configuration is needed as the reference")
for r in rows:
    r[5] = 100 * r[5] / (r[2] * chips * peak_bf16)
    r.insert(3, base / r[2])
header = ["config", "gemm_dtype", "step_s", "speed_vs_bf16", "tokens_per_s", "MFU_own_peak_%", "MFU_bf16_peak_%",
          "mem_GiB", "activations_GiB", "dp_GB_sent", "fits"]
px.print_table(header, rows, "%.4g")
print("(MFU_own_peak: podsim's MFU, against the peak of the GEMM dtype; MFU_bf16_peak: the same model FLOPs"
      " against the bf16 peak, comparable across rows)")
px.write_csv(os.path.join(out, "precision.csv"), header, rows)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
x = list(range(len(rows)))
ax1.bar(x, [r[4] / 1e3 for r in rows], color=["#999999", "#bbbbbb", "#4c72b0", "#dd8452", "#c44e52"][:len(rows)])
for i, r in enumerate(rows):
    ax1.text(i, r[4] / 1e3, "%.2f×" % r[3], ha="center", va="bottom", fontsize=8)
ax1.set_xticks(x, [r[0] for r in rows], fontsize=8)
ax1.set_ylabel("thousand tokens/s (8 GPUs)")
ax1.set_title("throughput (labels: speed relative to bf16)")
bottom = [0.0] * len(rows)
for j, p in enumerate(parts):
    v = [mm[j] for mm in mems]
    ax2.bar(x, v, bottom=bottom, label=p.replace("_bytes", ""))
    bottom = [a + c for a, c in zip(bottom, v)]
ax2.axhline(mems[0][-1], color="k", ls="--", lw=1)
ax2.text(len(rows) - 0.5, mems[0][-1], "usable HBM %.1f GiB" % mems[0][-1], ha="right", va="bottom", fontsize=8)
ax2.set_xticks(x, [r[0] for r in rows], fontsize=8)
ax2.set_ylabel("GiB per GPU")
ax2.set_ylim(0, max(bottom) * 1.25)
ax2.set_title("memory per GPU (ZeRO-1 over 8)")
ax2.legend(fontsize=7, ncol=3, loc="upper right")
px.save(fig, os.path.join(out, "figure.png"))
