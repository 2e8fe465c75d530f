"""Figures and data frames from podsim's HDF5 result files (docs/plotting.md).

    import podsim_plot
    f = podsim_plot.load("out.h5")        # a PodsimFile
    f.kind                                # "run", "sweep", "plan", "collective" or "whatif"
    f.attrs["command_line"]               # the root attributes
    f.tables["breakdown"]                 # every table as a pandas DataFrame (text as str)
    f.units["breakdown"]["total_s"]       # "s"
    podsim_plot.figure_names(f)           # ["breakdown", "links", "critical-path"]
    fig = podsim_plot.draw(f, "breakdown")  # a matplotlib Figure (Agg, no pyplot)
    fig.savefig("breakdown.png")
"""
import matplotlib

matplotlib.use("Agg")

from .data import PodsimFile, load  # noqa: E402
from .errors import PlotError  # noqa: E402
from .figures import Options, draw, figure_names  # noqa: E402

__all__ = ["PodsimFile", "PlotError", "Options", "load", "draw", "figure_names"]
