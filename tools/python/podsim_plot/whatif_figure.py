"""The figure of a what-if file (/whatif: knob, change_percent, step_time_s,
base_step_time_s, elasticity): a tornado chart of how much each knob moves the step time."""
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from . import config

UP, DOWN = "#d62728", "#1f77b4"


def _variants(podsim_file):
    """/whatif with `delta` (the step time's change, %), `size` (|elasticity|) and `ran`: a
    variant that ran must have finite numbers; one that did not (`feasible` 0, when the
    column is there) has no step time and is labelled, not drawn as a bar."""
    table = podsim_file.table("whatif", nonempty=True, text=["knob"],
                              numbers=["step_time_s", "elasticity", "base_step_time_s"], finite=["change_percent"])
    podsim_file.check_finite("whatif", table, ["base_step_time_s"],
                             " (the scenario's own step time, which every variant is compared with)")
    podsim_file.check_rows("whatif", table, "base_step_time_s", table["base_step_time_s"] > 0,
                           "the scenario's own step must have run to compare with")
    if "feasible" in table.columns:
        ran = podsim_file.table("whatif", integers=["feasible"])["feasible"].to_numpy() == 1
    else:  # a file written before the column (docs/plotting.md): every variant ran
        ran = np.ones(len(table), dtype=bool)
    podsim_file.check_finite("whatif", table[ran], ["step_time_s", "elasticity"], " for a variant that ran")
    return table.assign(delta=(table["step_time_s"] / table["base_step_time_s"] - 1.0) * 100.0,
                        size=table["elasticity"].abs(), ran=ran)


def tornado(podsim_file, options):
    """A row per knob, the most sensitive (largest |elasticity|) at the top; a bar per change
    of the knob from 0 to the step time's change in %, labelled with the elasticity; a change
    with which the step cannot run is labelled so, without a bar."""
    table = _variants(podsim_file)
    order = (table.groupby("knob", sort=True)["size"].max()
             .sort_values(ascending=False, kind="stable", na_position="last").index.tolist())
    figure = Figure(figsize=(10, 1.5 + 0.55 * len(order)), layout="constrained")
    ax = figure.add_subplot()
    positions = {knob: y for y, knob in enumerate(reversed(order))}
    for row in table.itertuples():
        up = row.change_percent > 0  # the increase above the knob's line, the decrease below
        y = positions[row.knob] + (0.18 if up else -0.18)
        if not row.ran:
            ax.annotate(f" {row.change_percent:+g} %: cannot run ", (0, y), va="center", ha="left",
                        fontsize="small", color="#555555")
            continue
        ax.barh(y, row.delta, height=0.34, color=UP if up else DOWN, alpha=0.85)
        ax.annotate(f" {row.change_percent:+g} %: ε {row.elasticity:+.2f} ", (row.delta, y), va="center",
                    ha="left" if row.delta >= 0 else "right", fontsize="small")
    ax.axvline(0, color="black", linewidth=1)
    reach = float(table.loc[table["ran"], "delta"].abs().max()) if table["ran"].any() else 1.0
    ax.set_xlim(-1.6 * reach or -1, 1.6 * reach or 1)
    ax.set_yticks(list(positions.values()), list(positions.keys()))
    ax.set_xlabel("step time change (%)   (ε: % step time per % knob)")
    ax.legend(handles=[Patch(color=UP, label="knob increased"), Patch(color=DOWN, label="knob decreased")],
              fontsize="small", loc="lower right")
    base = table["base_step_time_s"].iloc[0]
    ax.set_title(f"{config.title_name(podsim_file)}: what if each knob changes (base step {base:.4g} s)")
    return figure
