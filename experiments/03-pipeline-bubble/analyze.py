"""Experiment 03: the simulated bubble next to (p - 1)/(v m), activation memory, a CSV and a figure."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out, cases = sys.argv[1], sys.argv[2:]
rows = []
for case in cases:
    f = os.path.join(out, case + ".h5")
    s = px.summary(f)
    b = px.table(f, "breakdown")
    mem = px.table(f, "memory")
    busy = px.pacing(f)          # the stage with the most compute paces the pipeline
    step = s["step_time_s"]
    p, v, m = s["pp"], s["virtual_stages"], s["microbatches"]
    others = max(r["bubble_s"] for r in b if r["stage"] != busy["stage"])
    rows.append((s["schedule"], m, step, busy["stage"], busy["bubble_s"] / (step - busy["bubble_s"]),
                 (p - 1) / (v * m), busy["bubble_s"], others,
                 max(r["activations_bytes"] for r in mem) / 2**30, max(r["bytes_pp"] for r in b) / 2**30))
header = ["schedule", "m", "step_s", "busiest", "bubble/rest", "(p-1)/(v*m)", "bubble_s", "max_bubble_other_s",
          "act_GiB", "pp_GiB_sent"]
px.print_table(header, rows, "%.3f")
print("(busiest: the stage with the most compute; bubble/rest: its bubble over the rest of its step;"
      " max_bubble_other_s: the largest bubble of any other stage;\n act_GiB: activations on the fullest"
      " stage; pp_GiB_sent: pipeline bytes sent by the chip that sends most)")
px.write_csv(os.path.join(out, "bubble.csv"), header, rows)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
styles = {"gpipe": ("tab:blue", "o", 7), "1f1b": ("tab:orange", "x", 5), "interleaved": ("tab:green", "s", 4)}
for sched, (c, mk, ms) in styles.items():
    r = [x for x in rows if x[0] == sched]
    if not r:
        continue
    ms_ = [x[1] for x in r]
    ax1.loglog(ms_, [x[4] for x in r], marker=mk, ms=ms, color=c, lw=1, label=sched + " (simulated)")
    ax1.loglog(ms_, [x[5] for x in r], ls="--", color=c, lw=0.8, label=sched + ": (p−1)/(v·m)")
    ax2.plot(ms_, [x[8] for x in r], marker=mk, ms=ms, color=c, label=sched)
ax1.set_xlabel("microbatches m")
ax1.set_ylabel("bubble / rest of the step (busiest stage)")
ax1.set_title("pipeline bubble, p = 8")
ax1.legend(fontsize=7)
ax2.set_xscale("log", base=2)
ax2.set_xlabel("microbatches m")
ax2.set_ylabel("activations, fullest stage (GiB)")
ax2.set_title("activation memory")
ax2.legend(fontsize=7)
px.save(fig, os.path.join(out, "figure.png"))
