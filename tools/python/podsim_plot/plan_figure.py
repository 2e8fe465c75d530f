"""The figure of a `podsim plan` file: every simulated layout's step time against its memory
per chip, the winner starred; the layouts that were not simulated, by verdict, beside it."""
import numpy as np
from matplotlib.figure import Figure

from . import config, style

NOT_SIMULATED = (("does not fit", "#d62728"), ("cannot run", "#7f7f7f"), ("dominated", "#bcbd22"))


def _layout(row):
    parts = [f"dp {row.dp} × tp {row.tp} × pp {row.pp}", str(row.schedule)]
    if row.virtual_stages > 1:
        parts[-1] += f" v{row.virtual_stages}"
    parts += [f"mb {row.micro_batch}", f"ZeRO-{row.zero}", f"recompute {row.recompute}"]
    return ", ".join(parts)


def plan(podsim_file, options):
    """Left: a dot per simulated layout at (memory per chip, step time), coloured by the network
    that ranked it (the best are re-simulated contention-aware), the HBM per chip as a dashed
    line, the winner (rank 1) a star. Right: how many layouts were not simulated and why;
    they have no step time or memory in /plan."""
    table = podsim_file.table("plan", nonempty=True, text=["verdict", "network", "schedule", "recompute"],
                              numbers=["rank", "step_time_s", "memory_peak_bytes", "hbm_capacity_bytes", "dp", "tp",
                                       "pp", "virtual_stages", "micro_batch", "zero"])
    simulated = table[table["verdict"] == "simulate"]
    # Only the simulated layouts have a step time and memory; each of them is a point.
    podsim_file.check_finite("plan", simulated, ["step_time_s", "memory_peak_bytes"],
                             " for a simulated layout (verdict simulate)")
    gib = style.scaled("B")[1]
    figure = Figure(figsize=(12, 6.5), layout="constrained")
    ax, side = figure.subplots(1, 2, gridspec_kw={"width_ratios": [4, 1]})
    for network, color, marker in (("analytical", "#1f77b4", "o"), ("contention", "#ff7f0e", "D")):
        rows = simulated[simulated["network"] == network]
        if len(rows):
            ax.scatter(rows["memory_peak_bytes"] * gib, rows["step_time_s"], s=18, color=color,
                       marker=marker, alpha=0.7, label=f"simulated, ranked on the {network} network ({len(rows)})")
    capacity = table["hbm_capacity_bytes"].dropna()
    podsim_file.check_finite("plan", capacity.to_frame(), ["hbm_capacity_bytes"])
    if len(capacity):
        ax.axvline(capacity.iloc[0] * gib, color="black", linestyle="--", linewidth=1,
                   label=f"HBM per chip ({capacity.iloc[0] * gib:.1f} GiB)")
    winners = simulated[simulated["rank"] == 1]
    if len(winners):
        best = next(winners.itertuples())
        ax.scatter([best.memory_peak_bytes * gib], [best.step_time_s], s=260, marker="*", color="gold",
                   edgecolor="black", zorder=3, label=f"winner: {best.step_time_s:.4g} s/step")
        ax.annotate(_layout(best), (best.memory_peak_bytes * gib, best.step_time_s),
                    xytext=(8, -16), textcoords="offset points", fontsize="small")
    ax.set_xlabel("memory per chip, fullest stage (GiB)")
    ax.set_ylabel("step time (s)")
    ax.grid(True, alpha=0.3)
    if len(simulated):
        ax.legend(fontsize="small", loc="upper right")
    else:
        ax.text(0.5, 0.5, "no layout could be simulated:\nsee why on the right", ha="center", va="center",
                transform=ax.transAxes)
    counts = [int((table["verdict"] == verdict).sum()) for verdict, _ in NOT_SIMULATED]
    positions = np.arange(len(NOT_SIMULATED))[::-1]
    side.barh(positions, counts, color=[color for _, color in NOT_SIMULATED], hatch="//", edgecolor="white")
    for y, count in zip(positions, counts):
        side.annotate(f" {count}", (count, y), va="center", fontsize="small")
    side.set_yticks(positions, [verdict for verdict, _ in NOT_SIMULATED])
    side.set_xlim(0, max(max(counts), 1) * 1.3)
    side.set_xlabel("layouts")
    side.set_title("not simulated", fontsize="medium")
    figure.suptitle(f"plan for {config.title_name(podsim_file)}: {len(simulated)} of {len(table)} "
                    f"layouts simulated")
    return figure
