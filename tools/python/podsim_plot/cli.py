"""The command line: `python3 -m podsim_plot FILE.h5 [-o OUT.png|OUT.svg] [--figure NAME]
[--x KEY] [--y KEY] [--metric COLUMN]`."""
import argparse
import os
import pathlib
import sys

from . import render
from .data import load, os_reason
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
    """[(figure name, output path, format)] to write, each checked (_check_output)."""
    if args.output:
        names = [args.figure] if args.figure else figure_names(podsim_file, options)[:1]
        outputs = [(name, pathlib.Path(args.output), render.file_format(args.output)) for name in names]
    else:
        names = [args.figure] if args.figure else figure_names(podsim_file, options)
        stem = podsim_file.path.with_suffix("")
        outputs = [(name, stem.with_name(f"{stem.name}-{name}.png"), "png") for name in names]
    source = _identity(podsim_file.path)
    for _, path, fmt in outputs:
        _check_output(podsim_file.path, source, path, fmt)
    return outputs


def _identity(path):
    """(device, inode) of a file, after links; None if it cannot be found."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def _check_output(source_path, source, path, fmt):
    """PlotError for an output that is the input file itself (by device and inode, so a hard
    link or a symbolic link to it counts, and so does a default name the input is a link to):
    the figure would replace the data it was drawn from. Then for a name that is not .png or
    .svg, and one where no figure may be written (render.check_writable). All before drawing,
    so a bad output costs no time."""
    if source is not None and _identity(path) == source:
        raise PlotError(path, f"is the same file as the input {source_path}; the figure would replace it "
                              f"(name another output with -o)")
    if fmt is None:
        raise PlotError(path, "the output must end in .png or .svg")
    render.check_writable(path)


def run(argv):
    """Draws the figures `argv` asks for and writes them: every figure is drawn, and every
    output checked, before the first file is written."""
    args = _parser().parse_args(argv)
    podsim_file = load(args.file)
    options = Options(args.x, args.y, args.metric)
    if podsim_file.kind != "sweep" and (args.x or args.y or args.metric):
        raise PlotError(podsim_file.path, f"--x, --y and --metric apply to sweep files, not to a {podsim_file.kind} file")
    outputs = _outputs(podsim_file, args, options)
    rendered = [(path, render.to_bytes(draw(podsim_file, name, options), fmt)) for name, path, fmt in outputs]
    for path, data in rendered:
        try:
            render.write_atomically(path, data)
        except OSError as error:
            raise PlotError(path, f"cannot write ({os_reason(error)})") from None
        print(path)


def main(argv=None):
    """The command line: 0 when every figure is written; 2, with one line on stderr naming the
    file and what is wrong, for bad input (then no file is written)."""
    try:
        run(sys.argv[1:] if argv is None else argv)
    except PlotError as error:
        print(f"podsim_plot: error: {error}", file=sys.stderr)
        return 2
    return 0
