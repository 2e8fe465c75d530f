"""Experiment 06: padding waste and step time against the hidden size, the head size and the
matrix unit's tile; tables, a CSV and a figure."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]
hidden = px.table(os.path.join(out, "hidden.h5"), "sweep")
heads = px.table(os.path.join(out, "heads.h5"), "sweep")
tile = px.table(os.path.join(out, "tile.h5"), "sweep")
for t in (hidden, heads, tile):
    bad = [r for r in t if not r["feasible"]]
    if bad:
        sys.exit("infeasible sweep points: %s" % [(r["index"], r["reason"]) for r in bad])

csv = []
print("A. model.hidden (heads 32 x 128, ffn 11008; tile 128)")
rows = [(int(r["swept_model_hidden"]), int(r["swept_model_hidden"]) % 128, r["step_time_s"], 100 * r["mfu"],
         100 * r["padding_waste"]) for r in hidden]
px.print_table(["hidden", "hidden_mod_128", "step_s", "MFU_%", "waste_%"], rows, "%.4g")
csv += [("hidden", h, 32, 128, 128, 1, s, m, w) for h, _, s, m, w in rows]

print("\nB. heads x head_dim = 4096")
rows = [(int(r["swept_hardware_matmul_tile"]), int(r["swept_model_heads"]), int(r["swept_model_head_dim"]),
         r["step_time_s"], 100 * r["mfu"], 100 * r["padding_waste"]) for r in heads]
px.print_table(["tile", "heads", "head_dim", "step_s", "MFU_%", "waste_%"], rows, "%.4g")
csv += [("heads", 4096, h, d, t, 1, s, m, w) for t, h, d, s, m, w in rows]

print("\nC. matrix unit tile")
rows = [(int(r["swept_hardware_matmul_tile"]), int(r["swept_model_hidden"]), int(r["swept_parallelism_tp"]),
         r["step_time_s"], 100 * r["mfu"], 100 * r["padding_waste"]) for r in tile]
px.print_table(["tile", "hidden", "tp", "step_s", "MFU_%", "waste_%"], rows, "%.4g")
csv += [("tile", h, 32, 128, t, tp, s, m, w) for t, h, tp, s, m, w in rows]
px.write_csv(os.path.join(out, "shapes.csv"),
             ["sweep", "hidden", "heads", "head_dim", "tile", "tp", "step_s", "MFU_%", "waste_%"], csv)

fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
ax = axes[0]
h = [int(r["swept_model_hidden"]) for r in hidden]
ax.plot(h, [r["step_time_s"] for r in hidden], color="tab:blue", marker="o", ms=3, lw=0.8)
for x in range(128 * -(-min(h) // 128), max(h) + 1, 128):
    ax.axvline(x, color="gray", lw=0.6, ls=":")
ax.set_xlabel("model.hidden (dotted: multiples of 128)")
ax.set_ylabel("step time (s)", color="tab:blue")
ax.set_title("A. hidden size on a 128 tile")
ax2 = ax.twinx()
ax2.plot(h, [100 * r["padding_waste"] for r in hidden], color="tab:red", lw=0.8, marker="x", ms=3)
ax2.set_ylabel("padding waste (%)", color="tab:red")
ax2.grid(False)
ax = axes[1]
labels = ["%d×%d" % (int(r["swept_model_heads"]), int(r["swept_model_head_dim"])) for r in heads
          if r["swept_hardware_matmul_tile"] == "128"]
for k, (t, off) in enumerate((("128", -0.2), ("256", 0.2))):
    v = [r for r in heads if r["swept_hardware_matmul_tile"] == t]
    bars = ax.bar([i + off for i in range(len(v))], [r["step_time_s"] for r in v], width=0.4, label="tile " + t)
    for b, r in zip(bars, v):
        ax.text(b.get_x() + b.get_width() / 2, b.get_height(), "%.0f%%" % (100 * r["padding_waste"]),
                ha="center", va="bottom", fontsize=7)
ax.set_xticks(range(len(labels)), labels)
ax.set_xlabel("heads × head_dim (labels: padding waste)")
ax.set_ylabel("step time (s)")
ax.set_title("B. head size")
ax.legend(fontsize=8, loc="upper left")
ax = axes[2]
shapes = [("4096", "1", "hidden 4096"), ("4104", "1", "hidden 4104"), ("4096", "8", "hidden 4096, tp 8")]
tiles = sorted({int(r["swept_hardware_matmul_tile"]) for r in tile})
for k, (hh, tp, name) in enumerate(shapes):
    v = [r for r in tile if r["swept_model_hidden"] == hh and r["swept_parallelism_tp"] == tp]
    v.sort(key=lambda r: int(r["swept_hardware_matmul_tile"]))
    ax.bar([i + (k - 1) * 0.27 for i in range(len(v))], [100 * r["padding_waste"] for r in v], width=0.27, label=name)
ax.set_xticks(range(len(tiles)), [str(t) for t in tiles])
ax.set_xlabel("hardware.matmul_tile")
ax.set_ylabel("padding waste (%)")
ax.set_title("C. matrix unit tile")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
px.save(fig, os.path.join(out, "figure.png"))
