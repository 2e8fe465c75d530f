"""Figures to bytes, the same bytes every time, and files written whole or not at all."""
import contextlib
import errno
import io
import os
import pathlib
import secrets
import stat

import matplotlib
import matplotlib.style

from .data import file_type, os_reason
from .errors import PlotError

FORMATS = {".png": "png", ".svg": "svg"}
DPI = 100

# No timestamps or software versions in the file, and SVG ids from a fixed salt, so the same
# input gives the same bytes.
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}
_RC = {"svg.hashsalt": "podsim_plot", "svg.fonttype": "path",
       # Text from a file (a scenario's name, a swept value) is drawn as written: a pair of
       # "$" in it is not TeX to parse (a name like "cost $\\frac$" would not draw at all).
       "text.parse_math": False}

# The temporary is created exclusively and without following a link at its name; an unused
# random name is drawn again this many times before giving up.
_TEMPORARY_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                    | getattr(os, "O_CLOEXEC", 0))
_TEMPORARY_ATTEMPTS = 100
_TEMPORARY_NAME_BYTES = 200  # of the output's name in the temporary's: NAME_MAX is 255


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


def check_writable(path):
    """PlotError unless a figure may be written at `path`: nothing there yet, or a regular file
    (replaced whole). A symbolic link is refused, not followed (the figure would land in
    whatever file the link names: a link planted in a shared folder could aim it anywhere) nor
    replaced (it is not the user's figure). A directory, FIFO, device or socket is refused."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return  # a new file (a missing folder is reported when the file is created)
    except OSError as error:
        raise PlotError(path, f"cannot write ({os_reason(error)})") from None
    if stat.S_ISLNK(status.st_mode):
        raise PlotError(path, "is a symbolic link; podsim_plot does not write through links "
                              "(name the file it points to, or remove the link)")
    what = file_type(status.st_mode)
    if what is not None:
        raise PlotError(path, f"is {what}; an output must be a new or a regular file")


def _temporary_name(path):
    """A random name beside `path` that says whose it is: `<name>.tmp.<16 hex digits>`."""
    name = path.name
    while len(os.fsencode(name)) > _TEMPORARY_NAME_BYTES:  # counted in bytes, as NAME_MAX is
        name = name[:-1]
    return path.with_name(f"{name}.tmp.{secrets.token_hex(8)}")


def _create_temporary(path):
    """(descriptor, name) of a new empty file beside `path`, created by this call: O_EXCL and
    O_NOFOLLOW make a file or link someone put at the name an error (another name is drawn),
    never a file to follow, truncate or later delete."""
    for _ in range(_TEMPORARY_ATTEMPTS):
        temporary = _temporary_name(path)
        try:
            return os.open(temporary, _TEMPORARY_FLAGS, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name beside the output", str(path))


def _remove_own(temporary, created):
    """Removes `temporary` if it is still the file this process created (`created`: its
    os.fstat), not one put at its name since."""
    try:
        now = os.lstat(temporary)
        if (now.st_dev, now.st_ino) == (created.st_dev, created.st_ino):
            os.unlink(temporary)
    except OSError:
        pass  # already gone: nothing of ours is left


def write_atomically(path, data):
    """Writes `data` to a new temporary file beside `path` and renames it to `path`: a file at
    `path` is always whole, and an existing one is replaced, never written into. PlotError if
    `path` is, or becomes while writing, anything but a regular file (check_writable); OSError
    if the file cannot be written. On any failure the temporary is removed and `path` is as
    it was."""
    path = pathlib.Path(path)
    check_writable(path)
    descriptor, temporary = _create_temporary(path)
    created = os.fstat(descriptor)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())  # whole on disk before it replaces anything
        # A link or directory put at `path` while the figure was written is refused here. One
        # put there after this check is replaced by the rename, which never follows a link.
        check_writable(path)
        os.replace(temporary, path)
    except BaseException:
        _remove_own(temporary, created)
        raise
