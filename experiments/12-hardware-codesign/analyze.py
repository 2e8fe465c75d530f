"""Experiment 12: elasticities of the three scenarios; tornado charts of the step change per knob."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
SCEN = [("compute", "A100 ×64, ZeRO-1: compute-bound"), ("network", "A100 ×64, ZeRO-3, 25 Gb/s NICs"),
        ("tpu", "TPU v5e ×256, tp 8 + collective matmul")]
studies = {}
csv = []
for name, _ in SCEN:
    for step in ("10", "50"):
        f = os.path.join(out, "%s-%s.h5" % (name, step))
        if not os.path.exists(f):
            continue
        rows = px.table(f, "whatif")
        studies[name, step] = rows
        for r in rows:
            csv.append((name, step, r["knob"], r["base_value"], r["value"], r["change_percent"], r["feasible"],
                        r["reason"], r["step_time_s"], r["base_step_time_s"], r["step_change_percent"],
                        r["elasticity"]))
px.write_csv(os.path.join(out, "elasticities.csv"),
             ["scenario", "step_percent", "knob", "base_value", "value", "change_percent", "feasible", "reason",
              "step_time_s", "base_step_time_s", "step_change_percent", "elasticity"], csv)

for name, title in SCEN:
    r10 = studies.get((name, "10"))
    if not r10:
        continue
    knobs = list(dict.fromkeys(r["knob"] for r in r10))
    print("%s (base %.4f s/step)" % (title, r10[0]["base_step_time_s"]))
    rows = []
    for k in knobs:
        line = [k]
        for step in ("10", "50"):
            v = [r for r in studies.get((name, step), []) if r["knob"] == k]
            lo = next((r for r in v if r["change_percent"] < 0), None)
            hi = next((r for r in v if r["change_percent"] > 0), None)
            line += [v[0]["elasticity"] if v else float("nan"),
                     lo["step_change_percent"] if lo and lo["feasible"] else float("nan"),
                     hi["step_change_percent"] if hi and hi["feasible"] else float("nan")]
        rows.append(line)
    px.print_table(["knob", "elast_10", "lower_10_%", "higher_10_%", "elast_50", "lower_50_%", "higher_50_%"], rows,
                   "%+.3f")
    print()

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
for ax, (name, title) in zip(axes, SCEN):
    r10 = studies.get((name, "10"))
    if not r10:
        ax.set_visible(False)
        continue
    knobs = list(dict.fromkeys(r["knob"] for r in r10))[::-1]     # largest |elasticity| on top
    for step, alpha, h in (("50", 0.35, 0.7), ("10", 1.0, 0.4)):
        for i, k in enumerate(knobs):
            for r in studies.get((name, step), []):
                if r["knob"] != k or not r["feasible"]:
                    continue
                # a bar from 0 to the step change of this variant; green when the step gets shorter
                color = "tab:green" if r["step_change_percent"] < 0 else "tab:red"
                ax.barh(i, r["step_change_percent"], height=h, color=color, alpha=alpha)
    ax.axvline(0, color="k", lw=0.8)
    elasticity = {r["knob"]: r["elasticity"] for r in r10}
    ax.set_yticks(range(len(knobs)), ["%s (%+.2f)" % (k.replace("hardware.", "hw.").replace("topology.", "topo.")
                                                       .replace("training.", ""), elasticity[k]) for k in knobs],
                  fontsize=8)
    ax.set_xlabel("step time change (%)")
    ax.set_title("%s\nbase %.2f s/step" % (title, r10[0]["base_step_time_s"]), fontsize=9)
fig.suptitle("Which knob buys most? Each knob alone, ±10 % (dark) and ±50 % (light); whole-number knobs halved "
             "and doubled. Green: the step gets shorter. In brackets: the elasticity at ±10 %.", fontsize=9)
fig.tight_layout()
px.save(fig, os.path.join(out, "figure.png"))
