"""Experiment 04: MFU against the global batch (two NIC speeds); step and memory against the
micro batch at a fixed global batch."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
GiB = 2**30


def cases(pattern, key):
    found = []
    for f in glob.glob(os.path.join(out, pattern)):
        found.append((key(os.path.basename(f)), f))
    return sorted(found)


rows_a = []
for (nic, gb), f in cases("A-nic*-gb*.h5", lambda n: tuple(int(x) for x in re.findall(r"\d+", n)[:2])):
    s, b = px.summary(f), px.pacing(f)
    rows_a.append((nic, gb, s["microbatches"], s["step_time_s"], 100 * s["mfu"], b["comm_dp_s"],
                   b["overlapped_dp_s"], b["compute_optimizer_s"], s["tokens_per_s"]))
header_a = ["nic_Gbps", "global_batch", "microbatches", "step_s", "MFU_%", "exposed_dp_s", "hidden_dp_s",
            "optimizer_s", "tokens_per_s"]
print("A. Global batch (micro batch 1, 64 data-parallel replicas)")
px.print_table(header_a, rows_a, "%.4g")
px.write_csv(os.path.join(out, "batch.csv"), header_a, rows_a)

rows_b = []
for mb, f in cases("B-mb*.h5", lambda n: int(re.findall(r"\d+", n)[0])):
    s = px.summary(f)
    m = max(px.table(f, "memory"), key=lambda r: r["total_bytes"])
    rows_b.append((mb, s["global_batch"], s["microbatches"], s["step_time_s"], 100 * s["mfu"],
                   m["activations_bytes"] / GiB, m["total_bytes"] / GiB, s["hbm_capacity_bytes"] / GiB,
                   "yes" if s["fits_in_memory"] else "NO"))
header_b = ["micro_batch", "global_batch", "microbatches", "step_s", "MFU_%", "activations_GiB", "total_GiB",
            "capacity_GiB", "fits"]
print("\nB. Micro batch at a fixed global batch")
px.print_table(header_b, rows_b, "%.4g")
px.write_csv(os.path.join(out, "micro.csv"), header_b, rows_b)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
for nic, style in ((200, "o-"), (25, "s--")):
    r = [x for x in rows_a if x[0] == nic]
    ax1.semilogx([x[1] for x in r], [x[4] for x in r], style, base=2, label="%d Gb/s NIC per GPU" % nic)
ax1.set_xlabel("global batch (64 replicas × micro batch 1 × microbatches)")
ax1.set_ylabel("MFU (%)")
ax1.set_title("gradient accumulation amortises per-step costs")
ax1.set_xticks([x[1] for x in rows_a if x[0] == 200], [str(x[1]) for x in rows_a if x[0] == 200])
ax1.legend()
mb = [x[0] for x in rows_b]
ax2.semilogx(mb, [x[6] for x in rows_b], "o-", base=2, color="tab:red", label="HBM per GPU (GiB)")
ax2.axhline(rows_b[0][7], color="k", ls="--", lw=1)
ax2.text(mb[0], rows_b[0][7], "usable HBM %.0f GiB" % rows_b[0][7], va="bottom", fontsize=8)
ax2.set_xlabel("micro batch (global batch %d)" % rows_b[0][1])
ax2.set_ylabel("GiB per GPU", color="tab:red")
ax2.set_title("larger micro batch: a bit faster, much more memory")
ax2.set_xticks(mb, [str(x) for x in mb])
ax3 = ax2.twinx()
ax3.semilogx(mb, [x[3] for x in rows_b], "s-", base=2, color="tab:blue")
ax3.set_ylabel("step time (s)", color="tab:blue")
lo, hi = min(x[3] for x in rows_b), max(x[3] for x in rows_b)
ax3.set_ylim(lo - 0.05 * hi, hi + 0.05 * hi)
ax3.grid(False)
ax3.set_xticks(mb, [str(x) for x in mb])
ax3.minorticks_off()
ax2.minorticks_off()
px.save(fig, os.path.join(out, "figure.png"))
