"""The figure of a what-if file (/whatif: knob, change_percent, step_time_s,
base_step_time_s, elasticity): a tornado chart of how much each knob moves the step time."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from . import config

UP, DOWN = "#d62728", "#1f77b4"


def tornado(podsim_file, options):
    """A row per knob, the most sensitive (largest |elasticity|) at the top; a bar per change
    of the knob from 0 to the step time's change in %, labelled with the elasticity."""
    table = podsim_file.table("whatif", ["knob", "change_percent", "step_time_s", "base_step_time_s",
                                         "elasticity"], nonempty=True)
    table = table.assign(delta=(table["step_time_s"] / table["base_step_time_s"] - 1.0) * 100.0,
                         size=table["elasticity"].abs())
    order = (table.groupby("knob", sort=True)["size"].max()
             .sort_values(ascending=False, kind="stable").index.tolist())
    figure = Figure(figsize=(10, 1.5 + 0.55 * len(order)), layout="constrained")
    ax = figure.add_subplot()
    positions = {knob: y for y, knob in enumerate(reversed(order))}
    for row in table.itertuples():
        up = row.change_percent > 0  # the increase above the knob's line, the decrease below
        y = positions[row.knob] + (0.18 if up else -0.18)
        ax.barh(y, row.delta, height=0.34, color=UP if up else DOWN, alpha=0.85)
        ax.annotate(f" {row.change_percent:+g} %: ε {row.elasticity:+.2f} ", (row.delta, y), va="center",
                    ha="left" if row.delta >= 0 else "right", fontsize="small")
    ax.axvline(0, color="black", linewidth=1)
    reach = float(np.nanmax(np.abs(table["delta"]))) if len(table) else 1.0
    ax.set_xlim(-1.6 * reach or -1, 1.6 * reach or 1)
    ax.set_yticks(list(positions.values()), list(positions.keys()))
    ax.set_xlabel("step time change (%)   (ε: % step time per % knob)")
    ax.legend(handles=[Patch(color=UP, label="knob increased"), Patch(color=DOWN, label="knob decreased")],
              fontsize="small", loc="lower right")
    base = table["base_step_time_s"].dropna()
    note = f" (base step {base.iloc[0]:.4g} s)" if len(base) else ""
    ax.set_title(f"{config.title_name(podsim_file)}: what if each knob changes{note}")
    return figure
