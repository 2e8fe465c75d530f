"""Figures of a `podsim sweep` file: a metric along one swept key (a line per value of a
second), or over two swept keys as a heatmap. Keys not on the figure are reduced to their best
value (lowest time or memory, highest throughput or MFU); infeasible points are gaps marked ×."""
import dataclasses

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from . import config, style
from .errors import PlotError

DEFAULT_METRIC = "step_time_s"
HIGHER_IS_BETTER = {"tokens_per_s", "samples_per_s", "mfu", "hfu"}
NOT_METRICS = {"index", "feasible"}


@dataclasses.dataclass
class Key:
    column: str   # swept_parallelism_tp
    name: str     # parallelism.tp
    values: list  # in plotting order


@dataclasses.dataclass
class Grid:
    """The metric reduced onto (series or y) × x: NaN where no point is feasible."""

    x: Key
    y: Key  # None: one row
    values: np.ndarray
    reduced: list  # names of the keys reduced to their best value
    metric: str
    unit: str


def _ordered(values):
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique, key=float)
    except ValueError:
        return unique


def _swept_keys(podsim_file, table):
    names = config.sweep_keys(podsim_file)
    return [Key(c, names.get(c[len("swept_"):], c[len("swept_"):]), _ordered(table[c]))
            for c in table.columns if c.startswith("swept_")]


def _find(podsim_file, keys, given, option, table=None):
    wanted = given.replace(".", "_").removeprefix("swept_")
    for key in keys:
        if key.column == "swept_" + wanted:
            return key
    matches = [k for k in keys if k.column.endswith("_" + wanted)]
    if len(matches) == 1:
        return matches[0]
    # A whole-number column the points have without sweeping it (chips, dp, a derived key):
    # each value's best point, over every swept key (the capacity curve: --x chips).
    if not matches and table is not None:
        for column in (wanted, "derived_" + wanted):
            if column in table.columns and table[column].dtype.kind == "i" and column not in NOT_METRICS:
                return Key(column, given, _ordered(table[column]))
    known = ", ".join(k.name for k in keys)
    what = "ambiguous" if matches else "not a swept key or a whole-number column of /sweep"
    raise PlotError(podsim_file.path, f"{option} {given}: {what} (the sweep's keys: {known})")


def _metric(podsim_file, table, given):
    metric = given or DEFAULT_METRIC
    numeric = [c for c in table.columns if table[c].dtype.kind in "if"
               and c not in NOT_METRICS and not c.startswith(("swept_", "derived_"))]
    numeric.sort(key=lambda c: table[c].dtype.kind != "f")  # the measured (real) ones first
    if metric not in numeric:
        raise PlotError(podsim_file.path, f"--metric {metric}: not a numeric column of /sweep "
                                          f"(e.g. {', '.join(numeric[:8])}, ...)")
    return metric


def grid(podsim_file, options, two_keys):
    """The metric over the chosen keys: x (--x or the first key that varies) and, as series or
    heatmap rows, y (--y or the next key that varies; with `two_keys` it must exist)."""
    table = podsim_file.table("sweep", nonempty=True, integers=["feasible"])
    keys = _swept_keys(podsim_file, table)
    if not keys:
        raise PlotError(podsim_file.path, "/sweep has no swept_ column")
    varying = [k for k in keys if len(k.values) > 1] or keys
    x = _find(podsim_file, keys, options.x, "--x", table) if options.x else varying[0]
    if options.y:
        y = _find(podsim_file, keys, options.y, "--y")
        if y.column == x.column:
            raise PlotError(podsim_file.path, f"--x and --y are the same key ({x.name})")
    elif x.column.startswith("swept_"):
        y = next((k for k in varying if k.column != x.column and len(k.values) > 1), None)
    else:
        y = None  # a column that is not swept: one curve, each value's best point
    if two_keys and y is None:
        raise PlotError(podsim_file.path, f"a heatmap needs two swept keys; this sweep varies only {x.name}")
    metric = _metric(podsim_file, table, options.metric)
    unit = podsim_file.units["sweep"].get(metric, "")
    better = np.nanmax if metric in HIGHER_IS_BETTER else np.nanmin
    feasible = table[table["feasible"] == 1]
    # A feasible point without a value would be drawn as infeasible (a gap): refused instead.
    podsim_file.check_finite("sweep", feasible, [metric], " in a feasible point (feasible = 1)")
    rows = y.values if y else [None]
    values = np.full((len(rows), len(x.values)), np.nan)
    for i, row_value in enumerate(rows):
        for j, x_value in enumerate(x.values):
            match = feasible[x.column] == x_value
            if y:
                match &= feasible[y.column] == row_value
            points = feasible.loc[match, metric].to_numpy(dtype=float)
            if len(points):
                values[i, j] = better(points)
    shown = {x.column} | ({y.column} if y else set())
    reduced = [k.name for k in keys if k.column not in shown and len(k.values) > 1]
    return Grid(x, y, values * style.scaled(unit, metric)[1], reduced, metric, unit)


def _title(podsim_file, g, what):
    best = "highest" if g.metric in HIGHER_IS_BETTER else "lowest"
    note = f"; {best} over {', '.join(g.reduced)}" if g.reduced else ""
    return f"{config.title_name(podsim_file)}: {what}{note}"


def has_two_keys(podsim_file, options):
    table = podsim_file.tables.get("sweep")
    if options.y:
        return True
    return table is not None and sum(
        len(set(table[c])) > 1 for c in table.columns if c.startswith("swept_")) >= 2


def line(podsim_file, options):
    """The metric along x, one line per value of y; infeasible points are gaps, marked × on
    the x axis in their line's colour."""
    g = grid(podsim_file, options, two_keys=False)
    figure = Figure(figsize=(10, 6), layout="constrained")
    ax = figure.add_subplot()
    positions = np.arange(len(g.x.values))
    on_axis = blended_transform_factory(ax.transData, ax.transAxes)
    rows = g.y.values if g.y else [None]
    for i, row_value in enumerate(rows):
        name = f"{g.y.name} = {style.short_value(row_value)}" if g.y else style.label(g.metric, g.unit)
        (drawn,) = ax.plot(positions, g.values[i], marker="o", label=name)
        gaps = positions[np.isnan(g.values[i])]
        height = 0.02 + 0.07 * i / max(len(rows) - 1, 1)  # in the bottom margin, below the data
        ax.plot(gaps, np.full(len(gaps), height), linestyle="none", marker="x",
                color=drawn.get_color(), transform=on_axis, clip_on=False)
    ax.plot([], [], linestyle="none", marker="x", color="black", label="infeasible (cannot run or does not fit)")
    ax.margins(x=0.05, y=0.15)
    ax.set_xticks(positions, [style.short_value(v) for v in g.x.values])
    ax.set_xlabel(g.x.name)
    ax.set_ylabel(style.label(g.metric, g.unit))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(_title(podsim_file, g, f"{style.label(g.metric, g.unit)} by {g.x.name}"))
    return figure


def heatmap(podsim_file, options):
    """The metric over x × y, each cell annotated; infeasible cells grey with ×."""
    g = grid(podsim_file, options, two_keys=True)
    figure = Figure(figsize=(max(6.0, 1.0 * len(g.x.values) + 3), max(4.5, 0.6 * len(g.y.values) + 2.5)),
                    layout="constrained")
    ax = figure.add_subplot()
    cmap = colormaps["viridis" if g.metric in HIGHER_IS_BETTER else "viridis_r"].with_extremes(bad="#dddddd")
    image = ax.imshow(g.values, cmap=cmap, origin="lower", aspect="auto", interpolation="nearest")
    if g.values.size <= 400:
        for (i, j), value in np.ndenumerate(g.values):
            if np.isnan(value):
                ax.text(j, i, "×", ha="center", va="center", color="#555555")
            else:
                bright = cmap(image.norm(value))[:3]
                dark = 0.299 * bright[0] + 0.587 * bright[1] + 0.114 * bright[2] > 0.5
                ax.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize="small",
                        color="black" if dark else "white")
    ax.set_xticks(np.arange(len(g.x.values)), [style.short_value(v) for v in g.x.values])
    ax.set_yticks(np.arange(len(g.y.values)), [style.short_value(v) for v in g.y.values])
    ax.set_xlabel(g.x.name)
    ax.set_ylabel(g.y.name)
    figure.colorbar(image, ax=ax, label=style.label(g.metric, g.unit))
    ax.set_title(_title(podsim_file, g, f"{style.label(g.metric, g.unit)} (× infeasible)"), fontsize="medium")
    return figure
