"""Which figures each kind of file has, and drawing one by name."""
import dataclasses

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter

from . import collective_figure, plan_figure, run_figures, sweep_figures, whatif_figure
from .errors import PlotError, printable
from .render import settings


@dataclasses.dataclass(frozen=True)
class Options:
    """What the command line chooses: sweep keys for the x axis and the series or heatmap rows,
    and the sweep column to plot (default step_time_s)."""

    x: str = None
    y: str = None
    metric: str = None


def _always(podsim_file, options):
    return True


# kind -> (figure name, draw(file, options) -> Figure, applies(file, options) -> bool), in the
# order they are written; the first is the one -o writes without --figure.
FIGURES = {
    "run": (("breakdown", run_figures.breakdown, _always),
            ("links", run_figures.links, lambda f, o: run_figures.has_links(f)),
            ("critical-path", run_figures.critical_path, _always)),
    "sweep": (("line", sweep_figures.line, _always),
              ("heatmap", sweep_figures.heatmap, sweep_figures.has_two_keys)),
    "plan": (("plan", plan_figure.plan, _always),),
    "collective": (("bandwidth", collective_figure.bandwidth, _always),),
    "whatif": (("tornado", whatif_figure.tornado, _always),),
}


def figure_names(podsim_file, options=Options()):
    """The figures this file has with these options, in order (`["breakdown", "links", ...]`)."""
    return [name for name, _, applies in FIGURES[podsim_file.kind] if applies(podsim_file, options)]


def draw(podsim_file, name=None, options=Options()):
    """The matplotlib Figure `name` of the file (default: its first figure). PlotError for a
    figure this kind of file does not have, or input the figure cannot use."""
    figures = FIGURES[podsim_file.kind]
    if name is None:
        name = figures[0][0]
    for known, function, _ in figures:
        if known == name:
            with settings():
                figure = function(podsim_file, options)
            _printable_text(figure)
            FigureCanvasAgg(figure)  # drawn and saved with Agg, whatever the backend
            return figure
    raise PlotError(podsim_file.path, f"a {podsim_file.kind} file has no figure {name!r} "
                                      f"(it has {', '.join(n for n, _, _ in figures)})")


def _printable_text(figure):
    """Every text of the figure with control characters but newlines escaped (ESC as `\\x1b`):
    text from the file (a scenario's name, a knob, a swept value) is drawn as written, but a
    font has no glyph for them, and matplotlib's warning about that would print them raw on the
    terminal. Tick labels are set again from their formatter when drawn, so its labels are
    escaped too."""
    for text in figure.findobj(Text):
        text.set_text(printable(text.get_text(), keep="\n"))
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, FixedFormatter):
                formatter.seq = [printable(label, keep="\n") for label in formatter.seq]
