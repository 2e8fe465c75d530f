"""Experiment 13: read podsim's Chrome trace, check that each stage's compute thread tiles the step
and matches /breakdown, summarise the critical path per stage, and draw a per-stream Gantt chart."""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
with open(os.path.join(out, "step.json")) as f:
    trace = json.load(f)
step = trace["otherData"]["step_time_s"]
events = trace["traceEvents"]
threads = {}            # (pid, tid) -> thread name, from the metadata events (do not assume the ids)
stages = {}
for e in events:
    if e.get("ph") == "M" and e["name"] == "thread_name":
        threads[e["pid"], e["tid"]] = e["args"]["name"]
    if e.get("ph") == "M" and e["name"] == "process_name" and e["args"]["name"].startswith("stage"):
        stages[e["pid"]] = e["args"]["name"]
spans = [e for e in events if e.get("ph") == "X"]
flows = [e for e in events if e.get("ph") in ("s", "f")]
if trace["otherData"].get("truncated"):
    print("note: the trace is truncated")

# 1. The compute thread of every stage tiles the step, and per category it equals /breakdown.
breakdown = {r["stage"]: r for r in px.table(os.path.join(out, "step.h5"), "breakdown")}
rows = []
for pid in sorted(stages):
    tid = next(t for (p, t), n in threads.items() if p == pid and n == "compute")
    mine = [e for e in spans if e["pid"] == pid and e["tid"] == tid]
    per = collections.defaultdict(float)
    for e in mine:
        per[e["cat"]] += e["dur"] * 1e-6
    total = sum(per.values())
    worst = max(abs(per.get(c[:-2].replace("_", ".", 1), 0.0) - breakdown[pid][c]) for c in px.CATEGORIES)
    rows.append((pid, len(mine), total, step, worst) + tuple(per.get(k, 0.0) for k in
                ("compute.forward", "compute.backward", "compute.recompute", "comm.tp", "comm.dp", "bubble")))
print("Compute thread per stage (seconds): it tiles the step, and each category equals /breakdown")
px.print_table(["stage", "intervals", "sum_s", "step_s", "max_diff_vs_breakdown_s", "forward", "backward",
                "recompute", "comm.tp", "comm.dp", "bubble"], rows, "%.6g")

# 2. The critical path: where it runs, per stage and category.
crit = [e for e in spans if threads.get((e["pid"], e["tid"])) == "critical path"]
cp = collections.defaultdict(float)
for e in crit:
    cp[e["pid"], e["cat"]] += e["dur"] * 1e-6
print("\nCritical path: %d pieces, %.6f s in all (step %.6f s); per stage and category:" %
      (len(crit), sum(e["dur"] for e in crit) * 1e-6, step))
px.print_table(["stage", "category", "seconds"], [(p, c, v) for (p, c), v in sorted(cp.items())], "%.4f")
segments = []          # consecutive pieces on one stage, in time order
for e in sorted(crit, key=lambda e: e["ts"]):
    if segments and segments[-1][0] == e["pid"]:
        segments[-1][2] = (e["ts"] + e["dur"]) * 1e-6
        segments[-1][3].add(e["cat"])
    else:
        segments.append([e["pid"], e["ts"] * 1e-6, (e["ts"] + e["dur"]) * 1e-6, {e["cat"]}])
print("\nCritical path, stage by stage in time order:")
px.print_table(["stage", "from_s", "to_s", "categories"],
               [(p, a, b, " ".join(sorted(c))) for p, a, b, c in segments], "%.4f")
print("\n%d pipeline-message flow events (arrows from a send to where the next stage takes it)" % len(flows))

with open(os.path.join(out, "timeline.csv"), "w") as f:
    f.write("stage,thread,name,category,start_s,duration_s\n")
    for e in sorted(spans, key=lambda e: (e["pid"], e["tid"], e["ts"])):
        f.write("%d,%s,%s,%s,%.9f,%.9f\n" % (e["pid"], threads.get((e["pid"], e["tid"]), e["tid"]), e["name"],
                                             e.get("cat", ""), e["ts"] * 1e-6, e["dur"] * 1e-6))

# 3. Gantt chart: one row per (stage, thread that has intervals), coloured by category.
colors = {k[:-2].replace("_", ".", 1): v for k, v in px.CATEGORY_COLORS.items()}
colors.update({"idle": "#dddddd"})
lanes = []
for pid in sorted(stages):
    for (p, t), name in sorted(threads.items()):
        if p == pid and any(e["pid"] == p and e["tid"] == t for e in spans):
            lanes.append((p, t, name))
fig, (ax, zoom) = plt.subplots(2, 1, figsize=(12, 7.5), gridspec_kw={"height_ratios": [3, 1.3]})


def draw(axis, lane_list, t0=0.0, t1=None):
    span = ((t1 if t1 is not None else step * 1e3) - t0)
    for i, (p, t, name) in enumerate(lane_list):
        by_cat = collections.defaultdict(list)
        for e in spans:
            if e["pid"] == p and e["tid"] == t:
                s, d = e["ts"] * 1e-3, e["dur"] * 1e-3          # ms
                if t1 is not None and (s + d < t0 or s > t1):
                    continue
                # on the communication streams, very short intervals (pipeline messages) are drawn 0.15 %
                # of the span wide to be seen; the compute and critical-path rows are drawn as they are
                if name not in ("compute", "critical path"):
                    d = max(d, 0.0015 * span)
                by_cat[e.get("cat", "")].append((s, d))
        for cat, segs in by_cat.items():
            axis.broken_barh(segs, (i - 0.4, 0.8), facecolors=colors.get(cat, "#333333"), linewidth=0)
    axis.set_yticks(range(len(lane_list)), ["stage %d · %s" % (p, n) for p, t, n in lane_list], fontsize=7)
    axis.invert_yaxis()
    axis.set_xlabel("time in the step (ms)")


draw(ax, lanes)
ax.set_xlim(0, step * 1e3)
used = sorted({e.get("cat", "") for e in spans})
handles = [plt.Rectangle((0, 0), 1, 1, color=colors.get(c, "#333333")) for c in used]
ax.legend(handles, used, fontsize=7, ncol=len(used), loc="lower center", bbox_to_anchor=(0.5, 1.0),
          title="one training step: every stream of every pipeline stage (communication intervals shorter than 0.15 % of"
                " the axis drawn that wide)", title_fontsize=8)
# Zoom: 10 % of the step in the middle, stage 1's compute, tp comm and pipeline streams.
t0, t1 = 0.45 * step * 1e3, 0.55 * step * 1e3
zl = [l for l in lanes if l[0] == 1 and l[2] in ("compute", "tp comm", "pp forward", "pp backward")] or lanes[:3]
draw(zoom, zl, t0, t1)
zoom.set_xlim(t0, t1)
zoom.set_title("zoom: stage 1, 45–55 % of the step", fontsize=9)
fig.tight_layout()
px.save(fig, os.path.join(out, "figure.png"))
