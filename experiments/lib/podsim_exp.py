"""Small helpers shared by the experiments' analysis scripts: read podsim's HDF5 tables,
write CSV files and save deterministic PNG figures. Only h5py, numpy and matplotlib."""
import csv
import os
import sys

import h5py

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                     "svg.hashsalt": "podsim"})


def table(path, name):
    """The table /name of a podsim HDF5 file as a list of dicts (text columns decoded)."""
    with h5py.File(path, "r") as f:
        rows = f[name][...]
    out = []
    for r in rows:
        d = {}
        for k in rows.dtype.names:
            v = r[k]
            d[k] = v.decode() if isinstance(v, bytes) else v.item() if hasattr(v, "item") else v
        out.append(d)
    return out


def summary(path):
    return table(path, "summary")[0]


def pacing(path):
    """The /breakdown row of the stage with the most compute (the one the text report shows)."""
    rows = table(path, "breakdown")
    return max(rows, key=lambda r: r["compute_forward_s"] + r["compute_backward_s"] +
               r["compute_recompute_s"] + r["compute_optimizer_s"])


CATEGORIES = ["compute_forward_s", "compute_backward_s", "compute_recompute_s", "compute_optimizer_s",
              "comm_tp_s", "comm_dp_s", "comm_pp_s", "comm_other_s", "bubble_s", "input_stall_s", "idle_s"]
CATEGORY_COLORS = {"compute_forward_s": "#4c72b0", "compute_backward_s": "#55a868",
                   "compute_recompute_s": "#c44e52", "compute_optimizer_s": "#8172b2",
                   "comm_tp_s": "#ccb974", "comm_dp_s": "#64b5cd", "comm_pp_s": "#dd8452",
                   "comm_other_s": "#937860", "bubble_s": "#aaaaaa", "input_stall_s": "#da8bc3",
                   "idle_s": "#dddddd"}


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([("%.6g" % v) if isinstance(v, float) else v for v in r])


def print_table(header, rows, fmt=None):
    """A plain aligned text table on stdout (floats with 4 significant digits unless fmt)."""
    cells = [[str(h) for h in header]]
    for r in rows:
        cells.append([(fmt or "%.4g") % v if isinstance(v, float) else str(v) for v in r])
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    for j, c in enumerate(cells):
        print("  ".join(x.rjust(w) for x, w in zip(c, widths)))
        if j == 0:
            print("  ".join("-" * w for w in widths))


def save(fig, path):
    """Save a PNG without the software/date metadata, so the same data give the same bytes."""
    fig.savefig(path, dpi=100, metadata={"Software": None}, bbox_inches="tight")
    plt.close(fig)
    if not os.path.getsize(path):
        sys.exit("empty figure " + path)
    print("figure:", path)
