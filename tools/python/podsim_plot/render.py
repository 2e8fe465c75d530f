"""Figures to bytes, the same bytes every time, and files written whole or not at all."""
import contextlib
import io
import os
import pathlib

import matplotlib
import matplotlib.style

FORMATS = {".png": "png", ".svg": "svg"}
DPI = 100

# No timestamps or software versions in the file, and SVG ids from a fixed salt, so the same
# input gives the same bytes.
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}
_RC = {"svg.hashsalt": "podsim_plot", "svg.fonttype": "path"}


@contextlib.contextmanager
def settings():
    """Matplotlib's defaults (not the user's matplotlibrc) and the settings above, for drawing
    and saving alike: a figure looks the same on every machine."""
    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        yield


def file_format(path):
    """"png" or "svg" from the extension, None for anything else."""
    return FORMATS.get(pathlib.Path(path).suffix.lower())


def to_bytes(figure, fmt):
    """The figure rendered with the Agg backend (PNG) or as SVG."""
    buffer = io.BytesIO()
    with settings():
        figure.savefig(buffer, format=fmt, dpi=DPI, metadata=_METADATA[fmt])
    return buffer.getvalue()


def write_atomically(path, data):
    """Writes `<path>.tmp.<pid>` and renames it to `path`: a file at `path` is always whole."""
    path = pathlib.Path(path)
    temporary = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
