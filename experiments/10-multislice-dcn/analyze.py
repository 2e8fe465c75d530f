"""Experiment 10: weak scaling over pods per collective algorithm; the DCN bandwidth sweep; FSDP across pods."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
ALGS = ["hierarchical", "dimension-ordered", "ring"]


def dcn_stats(f):
    links = px.table(f, "links")
    dcn = [l for l in links if l["tier"] == "dcn"]
    if not dcn:
        return 0.0, 0.0
    return max(l["bytes"] for l in dcn), max(l["utilization"] for l in dcn)


A = []
for f in glob.glob(os.path.join(out, "A-*-slices*.h5")):
    alg, n = re.match(r"A-(.+)-slices(\d+)\.h5$", os.path.basename(f)).groups()
    s, b = px.summary(f), px.pacing(f)
    dcn_bytes, dcn_util = dcn_stats(f)
    A.append((ALGS.index(alg), int(n), alg, s["chips"], s["step_time_s"], s["tokens_per_s"] / s["chips"],
              100 * s["mfu"], b["comm_dp_s"], b["comm_tp_s"], dcn_bytes / 1e6, dcn_util))
A.sort()
base = {r[2]: r[5] for r in A if r[1] == 1}
hier1 = base.get("hierarchical")
rows_a = [(alg, n, chips, step, tpc, (tpc / hier1 * 100) if hier1 else float("nan"), mfu, dp, tp, mb, u)
          for _, n, alg, chips, step, tpc, mfu, dp, tp, mb, u in A]
header_a = ["algorithm", "pods", "chips", "step_s", "tokens_per_s_per_chip", "vs_1pod_hier_%", "MFU_%",
            "exposed_dp_s", "exposed_tp_s", "max_MB_per_DCN_link", "max_DCN_util"]
print("A. Weak scaling, 512 sequences per pod")
px.print_table(header_a, rows_a, "%.4g")
px.write_csv(os.path.join(out, "scaling.csv"), header_a, rows_a)

B = []
for f in glob.glob(os.path.join(out, "B-dcn*.h5")):
    bw = float(re.match(r"B-dcn([\d.]+)\.h5$", os.path.basename(f)).group(1))
    s, b = px.summary(f), px.pacing(f)
    dcn_bytes, dcn_util = dcn_stats(f)
    B.append((bw, s["step_time_s"], 100 * s["mfu"], b["comm_dp_s"], b["overlapped_dp_s"], dcn_bytes / 1e6, dcn_util))
B.sort()
header_b = ["dcn_GBps_per_chip", "step_s", "MFU_%", "exposed_dp_s", "hidden_dp_s", "max_MB_per_DCN_link", "max_DCN_util"]
print("\nB. 4 pods (1024 chips), DCN bandwidth per chip")
px.print_table(header_b, B, "%.4g")
px.write_csv(os.path.join(out, "dcn.csv"), header_b, B)

MODES = ["zero1", "flat", "hybrid"]
C = []
for f in glob.glob(os.path.join(out, "C-*-slices*.h5")):
    mode, n = re.match(r"C-(.+)-slices(\d+)\.h5$", os.path.basename(f)).groups()
    s, b = px.summary(f), px.pacing(f)
    dcn_bytes, dcn_util = dcn_stats(f)
    C.append((int(n), MODES.index(mode), mode, s["zero"], s["zero_group"], s["step_time_s"],
              s["tokens_per_s"] / s["chips"], b["comm_dp_s"], dcn_bytes / 1e6, dcn_util,
              s["memory_peak_bytes"] / 2**30))
C.sort()
rows_c = [r[:1] + r[2:] for r in C]
header_c = ["pods", "sharding", "zero", "zero_group", "step_s", "tokens_per_s_per_chip", "exposed_dp_s",
            "max_MB_per_DCN_link", "max_DCN_util", "memory_GiB_per_chip"]
print("\nC. ZeRO-1, ZeRO-3 over all replicas (flat), ZeRO-3 inside each pod (hybrid); 512 sequences per pod")
px.print_table(header_c, rows_c, "%.4g")
px.write_csv(os.path.join(out, "fsdp.csv"), header_c, rows_c)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
for k, alg in enumerate(ALGS):
    v = [r for r in rows_a if r[0] == alg]
    if v:
        ax1.plot([r[1] for r in v], [r[5] for r in v], marker="os^"[k], label=alg)
pods = sorted({r[1] for r in rows_a})
ax1.set_xscale("log", base=2)
ax1.set_xticks(pods, [str(p) for p in pods])
ax1.minorticks_off()
ax1.set_xlabel("pods of 256 TPU v5e (512 sequences each)")
ax1.set_ylabel("tokens/s per chip (% of 1 pod, hierarchical)")
ax1.set_title("A. weak scaling over DCN (3.125 GB/s per chip)")
ax1.legend(fontsize=8)
ax2.semilogx([r[0] for r in B], [r[1] for r in B], "o-", label="step time")
ax2.semilogx([r[0] for r in B], [r[3] for r in B], "s--", label="exposed data-parallel comm")
ax2.axvline(3.125, color="gray", ls=":", lw=1)
ax2.text(3.125, ax2.get_ylim()[1] * 0.95, " shipped", fontsize=8, va="top")
ax2.set_xlabel("DCN bandwidth per chip (GB/s)")
ax2.set_ylabel("seconds")
ax2.set_title("B. 4 pods, hierarchical all-reduce")
ax2.legend(fontsize=8, loc="center right")
px.save(fig, os.path.join(out, "figure.png"))
