"""The figure of a `podsim collective` file, as nccl-tests results are drawn: bus bandwidth
(solid) and algorithm bandwidth (dashed) against message size on a log axis."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from . import config, style

SERIES = ["op", "network", "group_size", "groups"]
MARKERS = "osD^vP*Xh"


def bandwidth(podsim_file, options):
    """A line per (op, network, group); a marker per algorithm (and NCCL protocol), so a
    change of algorithm with the size shows."""
    table = podsim_file.table("collectives", nonempty=True, text=["op", "network", "algorithm", "protocol"],
                              finite=["group_size", "groups", "bytes", "algbw_Bps", "busbw_Bps"])
    podsim_file.check_rows("collectives", table, "bytes", table["bytes"] > 0,
                           "a message has a positive size (the axis is logarithmic)")
    gbps = style.scaled("B/s")[1]
    figure = Figure(figsize=(10, 6), layout="constrained")
    ax = figure.add_subplot()
    choices = list(dict.fromkeys(zip(table["algorithm"], table["protocol"])))
    marker_of = {choice: MARKERS[i % len(MARKERS)] for i, choice in enumerate(choices)}
    for n, (key, rows) in enumerate(table.groupby(SERIES, sort=False)):
        rows = rows.sort_values("bytes", kind="stable")
        op, network, size, groups = key
        color = f"C{n % 10}"
        name = f"{op}, {network}, {groups} group{'s' if groups != 1 else ''} of {size}"
        ax.plot(rows["bytes"], rows["busbw_Bps"] * gbps, color=color, label=f"{name}: busbw")
        ax.plot(rows["bytes"], rows["algbw_Bps"] * gbps, color=color, linestyle="--", label=f"{name}: algbw")
        for choice, points in rows.groupby(["algorithm", "protocol"], sort=False):
            ax.scatter(points["bytes"], points["busbw_Bps"] * gbps, color=color, marker=marker_of[choice], s=22)
    for (algorithm, protocol), marker in marker_of.items():
        ax.scatter([], [], color="black", marker=marker, s=22,
                   label=f"{algorithm}" + (f" ({protocol})" if protocol else ""))
    ax.set_xscale("log", base=2)
    sizes = np.unique(table["bytes"].to_numpy())
    if len(sizes):
        exponents = np.arange(int(np.floor(np.log2(sizes.min()))), int(np.ceil(np.log2(sizes.max()))) + 1)
        step = max(1, int(np.ceil(len(exponents) / 11)))
        ax.xaxis.set_major_locator(FixedLocator([2.0 ** e for e in exponents[::step]]))
        ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: style.bytes_label(value)))
    ax.set_xlabel("message size per chip (bytes, as nccl-tests counts them)")
    ax.set_ylabel("bandwidth (GB/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    ops = ", ".join(dict.fromkeys(table["op"]))
    ax.set_title(f"{ops} on {config.title_name(podsim_file)}: bus bandwidth (solid), algorithm bandwidth (dashed)")
    return figure
