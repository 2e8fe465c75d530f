"""Figures of a `podsim run` file: where the time goes per pipeline stage, how busy each link
is, and what sets the step (its critical path)."""
import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from . import config, style
from .errors import PlotError
from .topology import link_grids, machine

TOP_CONTRIBUTORS = 12


def _step(podsim_file):
    """(step time, MFU) of /summary; PlotError unless the step time is a positive number (every
    run figure is scaled by it)."""
    summary = podsim_file.table("summary", ["scenario"], nonempty=True, finite=["step_time_s", "mfu"])
    podsim_file.check_rows("summary", summary, "step_time_s", summary["step_time_s"] > 0,
                           "a step takes a positive time")
    return float(summary["step_time_s"].iloc[0]), float(summary["mfu"].iloc[0])


def breakdown(podsim_file, options):
    """Stacked bars, one per pipeline stage: the eleven time categories of /breakdown, which
    sum to the step time in every stage (the dashed line)."""
    columns = [c for c, _, _ in style.TIME_CATEGORIES]
    table = podsim_file.table("breakdown", nonempty=True, finite=["stage", "multiplicity", *columns])
    step, mfu = _step(podsim_file)
    figure = Figure(figsize=(10, 6), layout="constrained")
    ax = figure.add_subplot()
    stages = table["stage"].to_numpy()
    bottom = np.zeros(len(table))
    for column, name, color in style.TIME_CATEGORIES:
        values = table[column].to_numpy(dtype=float)
        if np.any(values > 0):
            ax.bar(stages, values, bottom=bottom, width=0.8, color=color, label=name)
            bottom += values
    ax.axhline(step, color="black", linestyle="--", linewidth=1, label=f"step time {step:.4g} s")
    middle, half = (stages.min() + stages.max()) / 2, max((stages.max() - stages.min()) / 2 + 0.7, 1.5)
    ax.set_xlim(middle - half, middle + half)  # a lone stage's bar is not as wide as the plot
    if len(stages) <= 32:
        ax.set_xticks(stages)
    multiplicity = sorted(set(table["multiplicity"]))
    chips = f"{multiplicity[0]} chips each" if len(multiplicity) == 1 else "chips per stage vary"
    ax.set_xlabel(f"pipeline stage ({chips})")
    ax.set_ylabel("time per training step (s)")
    ax.set_title(f"{config.title_name(podsim_file)}: where the step goes per stage "
                 f"(step {step:.4g} s, MFU {mfu:.1%})")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return figure


def has_links(podsim_file):
    return "links" in podsim_file.tables and len(podsim_file.tables["links"]) > 0


def links(podsim_file, options):
    """One heatmap per link direction (x+, x-, ..., or a tier's up and down): each cell a
    directed link, coloured by its busy time / step time, all on one colour scale."""
    table = podsim_file.table("links", text=["axis"], integers=["src", "dst"], finite=["utilization"])
    m = machine(config.resolved(podsim_file).get("topology"), podsim_file.path)
    grids = link_grids(table, m)
    if not grids:
        raise PlotError(podsim_file.path, "no link carried traffic (/links has no row at a chip)")
    by_group = {}  # one column per dimension or tier: [+ or up, - or down]
    for grid in grids:
        by_group.setdefault(grid.group, []).append(grid)
    groups = list(by_group.items())
    rows = max(len(g) for _, g in groups)
    figure = Figure(figsize=(max(10.0, 3.2 * len(groups) + 1.5), 3.6 * rows + 0.8), layout="constrained")
    axes = figure.subplots(rows, len(groups), squeeze=False)
    # A log scale: utilizations span orders of magnitude between axes (tensor-parallel rings
    # busy, data-parallel ones nearly idle); links that carried nothing are white.
    top = max(float(np.nanmax(g.values)) for g in grids)
    lowest = min((float(np.nanmin(g.values[g.values > 0])) for g in grids if np.any(g.values > 0)), default=top)
    norm = LogNorm(vmin=lowest if top > 0 else 0.5, vmax=top if top > 0 else 1.0)
    cmap = colormaps["viridis"].with_extremes(bad="#bbbbbb", under="white")
    image = None
    for column, (_, members) in enumerate(groups):
        for row in range(rows):
            ax = axes[row][column]
            if row >= len(members):
                ax.set_axis_off()
                continue
            grid = members[row]
            idle = np.where(grid.values == 0, norm.vmin / 10, grid.values)  # below the scale: white
            image = ax.imshow(idle, cmap=cmap, norm=norm, aspect="auto",
                              interpolation="nearest", origin="lower")
            ax.set_title(f"{grid.axis}: busiest {np.nanmax(grid.values):.1%}", fontsize="medium")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(grid.column_label, fontsize="small")
            ax.set_ylabel(grid.row_label, fontsize="small")
    figure.colorbar(image, ax=axes, label="link utilization (busy time / step time, log scale)",
                    shrink=0.8, extend="min")
    step, _ = _step(podsim_file)
    figure.suptitle(f"{config.title_name(podsim_file)}: link utilization over a {step:.4g} s step "
                    f"(white: no traffic, grey: no such link)")
    return figure


def critical_path(podsim_file, options):
    """Horizontal bars: the critical path's time by (category, operation), largest first; the
    bars of every contributor sum to the step time."""
    table = podsim_file.table("critical_path", nonempty=True, text=["category", "operation"], finite=["duration_s"])
    step, _ = _step(podsim_file)
    totals = (table.groupby(["category", "operation"], sort=True)["duration_s"]
              .agg(["sum", "count"]).sort_values("sum", ascending=False, kind="stable"))
    top = totals.iloc[:TOP_CONTRIBUTORS]
    names = [f"{category} · {operation} (×{count})"
             for (category, operation), count in zip(top.index, top["count"])]
    values = list(top["sum"])
    colors = [style.category_color(style.category_column(c)) for c, _ in top.index]
    rest = totals.iloc[TOP_CONTRIBUTORS:]
    if len(rest):
        names.append(f"{len(rest)} others (×{int(rest['count'].sum())})")
        values.append(float(rest["sum"].sum()))
        colors.append("#c7c7c7")
    figure = Figure(figsize=(10, 1.2 + 0.45 * len(names)), layout="constrained")
    ax = figure.add_subplot()
    positions = np.arange(len(names))[::-1]
    ax.barh(positions, values, color=colors, height=0.7)
    for y, value in zip(positions, values):
        ax.annotate(f" {value:.4g} s, {value / step:.1%}", (value, y), va="center", fontsize="small")
    ax.set_yticks(positions, names, fontsize="small")
    ax.set_xlim(0, max(values) * 1.25 if values else 1.0)
    ax.set_xlabel("time on the critical path (s)")
    ax.set_title(f"{config.title_name(podsim_file)}: what sets the {step:.4g} s step "
                 f"(critical path, {len(table)} pieces)")
    return figure
