"""The command line: `python3 -m podsim_plot FILE.h5 [-o OUT.png|OUT.svg] [--figure NAME]
[--x KEY] [--y KEY] [--metric COLUMN]`."""
import argparse
import pathlib
import sys

from . import render
from .data import load
from .errors import PlotError
from .figures import Options, draw, figure_names

DESCRIPTION = """Draws the figures of a podsim result file (run, sweep, plan, collective, what-if).
Without -o, every figure the file has is written next to it as <stem>-<figure>.png; with -o,
one figure (--figure, or the file's first) in the format of the extension (.png or .svg).
Bad input: one line on stderr, exit code 2, no file written. docs/plotting.md says more."""


def _parser():
    parser = argparse.ArgumentParser(prog="podsim_plot", description=DESCRIPTION)
    parser.add_argument("file", help="a podsim HDF5 result file (podsim run/sweep/plan/collective -o)")
    parser.add_argument("-o", "--output", help="the figure to write: OUT.png or OUT.svg")
    parser.add_argument("--figure", help="which figure: run: breakdown, links, critical-path; sweep: line, "
                                         "heatmap; plan: plan; collective: bandwidth; whatif: tornado")
    parser.add_argument("--x", help="sweep: the swept key on the x axis (parallelism.tp or tp)")
    parser.add_argument("--y", help="sweep: the second swept key (a line per value, or the heatmap's rows)")
    parser.add_argument("--metric", help="sweep: the /sweep column to plot (default step_time_s)")
    return parser


def _outputs(podsim_file, args, options):
    """[(figure name, output path, format)] to write."""
    if args.output:
        fmt = render.file_format(args.output)
        if fmt is None:
            raise PlotError(args.output, "the output must end in .png or .svg")
        names = [args.figure] if args.figure else figure_names(podsim_file, options)[:1]
        return [(name, pathlib.Path(args.output), fmt) for name in names]
    names = [args.figure] if args.figure else figure_names(podsim_file, options)
    stem = podsim_file.path.with_suffix("")
    return [(name, stem.with_name(f"{stem.name}-{name}.png"), "png") for name in names]


def run(argv):
    args = _parser().parse_args(argv)
    podsim_file = load(args.file)
    options = Options(args.x, args.y, args.metric)
    if podsim_file.kind != "sweep" and (args.x or args.y or args.metric):
        raise PlotError(podsim_file.path, f"--x, --y and --metric apply to sweep files, not to a {podsim_file.kind} file")
    rendered = [(path, render.to_bytes(draw(podsim_file, name, options), fmt))
                for name, path, fmt in _outputs(podsim_file, args, options)]
    for path, data in rendered:  # every figure drawn before any file is written
        try:
            render.write_atomically(path, data)
        except OSError as error:
            raise PlotError(path, f"cannot write ({error.strerror or error})") from None
        print(path)


def main(argv=None):
    try:
        run(sys.argv[1:] if argv is None else argv)
    except PlotError as error:
        print(f"podsim_plot: error: {error}", file=sys.stderr)
        return 2
    return 0
