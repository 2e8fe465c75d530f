"""Figures and data frames from podsim's HDF5 result files (docs/plotting.md).

    import podsim_plot
    f = podsim_plot.load("out.h5")        # a PodsimFile
    f.kind                                # "run", "sweep", "plan", "collective" or "whatif"
    f.attrs["command_line"]               # the root attributes
    f.tables["breakdown"]                 # every table as a pandas DataFrame (text as str)
    f.units["breakdown"]["total_s"]       # "s"
    podsim_plot.figure_names(f)           # ["breakdown", "links", "critical-path"]
    fig = podsim_plot.draw(f, "breakdown")  # a matplotlib Figure on an Agg canvas
    fig.savefig("breakdown.png")

Importing it leaves matplotlib's backend alone (no pyplot): a notebook keeps its own.
"""
from .data import PodsimFile, load
from .errors import PlotError
from .figures import Options, draw, figure_names

__all__ = ["PodsimFile", "PlotError", "Options", "load", "draw", "figure_names"]
