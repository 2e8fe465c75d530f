"""Reading a podsim HDF5 file (docs/output-schema.md) into pandas data frames."""
import dataclasses
import os
import pathlib
import stat

import h5py
import numpy as np
import pandas as pd

from .errors import PlotError

SCHEMA_VERSION = 1

# The table that identifies each kind of file, checked in this order: a what-if file may also
# hold its base step's tables, so /whatif comes before /summary.
KIND_TABLES = (
    ("whatif", "whatif"),
    ("sweep", "sweep"),
    ("plan", "plan"),
    ("collective", "collectives"),
    ("run", "summary"),
)

NUMBER_KINDS = "iuf"  # numpy kinds a figure can use as numbers (bool and complex are not)
_FILE_TYPES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


@dataclasses.dataclass(frozen=True)
class PodsimFile:
    """One podsim result file, read whole.

    path          the file
    kind          "run", "sweep", "plan", "collective" or "whatif" (from the tables present)
    attrs         the root attributes: podsim_version, command_line, config_yaml (str),
                  schema_version (int)
    tables        every table, by name ("summary", "breakdown", ...): a pandas DataFrame with
                  the file's columns in order, text columns as str, a table of 0 rows with
                  its columns
    units         per table, per column, the unit string ("s", "B", "1", "" for text)
    descriptions  per table, its one-sentence description
    """

    path: pathlib.Path
    kind: str
    attrs: dict
    tables: dict
    units: dict
    descriptions: dict

    def table(self, name, columns=(), nonempty=False, *, text=(), numbers=(), integers=(), finite=()):
        """The table `name`, checked to have the columns `columns`, `text` (holding text),
        `numbers` (holding numbers, NaN allowed), `integers` (whole numbers by type: chip ids,
        flags) and `finite` (numbers, none NaN or infinite), and a row if `nonempty`;
        PlotError naming the file, the table, and the column and row otherwise."""
        if name not in self.tables:
            raise PlotError(self.path, f"no /{name} table (a {self.kind} file has "
                                       f"{', '.join('/' + t for t in self.tables) or 'no tables'})")
        frame = self.tables[name]
        wanted = dict.fromkeys([*columns, *text, *numbers, *integers, *finite])
        missing = [c for c in wanted if c not in frame.columns]
        if missing:
            raise PlotError(self.path, f"/{name} has no column {', '.join(missing)}")
        self._require_type(name, frame, text, "O", "text is expected")
        self._require_type(name, frame, (*numbers, *finite), NUMBER_KINDS, "numbers are expected")
        self._require_type(name, frame, integers, "iu", "integers are expected")
        if nonempty and frame.empty:
            raise PlotError(self.path, f"/{name} has no rows")
        self.check_finite(name, frame, finite)
        return frame

    def _require_type(self, name, frame, columns, kinds, expected):
        for column in columns:
            kind = frame[column].dtype.kind
            if kind not in kinds:
                found = "text" if kind == "O" else str(frame[column].dtype)
                raise PlotError(self.path, f"/{name} column {column}: {found} where {expected}")

    def check_finite(self, name, rows, columns, where=""):
        """PlotError naming the first of `rows` (a slice of table `name`, rows numbered as in
        the file) whose value in one of `columns` is NaN or infinite: a figure would leave out
        or misplace that bar or point without a word. `where` says which rows need a number."""
        for column in columns:
            self.check_rows(name, rows, column, np.isfinite(rows[column].to_numpy(dtype=float)),
                            f"a finite number is needed{where}")

    def check_rows(self, name, rows, column, good, needed):
        """PlotError naming the first of `rows` (of table `name`) where the boolean array
        `good` is False: `/name row R: column is V; needed`."""
        bad = np.flatnonzero(~np.asarray(good, dtype=bool))
        if len(bad):
            row, value = rows.index[bad[0]], rows[column].iloc[bad[0]]
            raise PlotError(self.path, f"/{name} row {row}: {column} is {_shown(value)}; {needed}")

    def __getitem__(self, name):
        return self.table(name)


def _shown(value):
    """A value for an error message: NaN and infinities as people write them."""
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return "NaN" if np.isnan(value) else ("+inf" if value > 0 else "-inf")
    return repr(value) if isinstance(value, str) else str(value)


def _text(value):
    """A text value as str; ValueError saying why for bytes that are not UTF-8 (h5py gives
    those of a string attribute as surrogates) or a value that is not text."""
    if isinstance(value, str):
        try:
            value = value.encode("utf-8", "surrogateescape")  # back to the bytes, to find the bad one
        except UnicodeEncodeError:
            raise ValueError("not UTF-8 text (a lone surrogate)") from None
    if not isinstance(value, bytes):
        raise ValueError(f"{type(value).__name__} where text is expected")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text (byte 0x{value[error.start]:02x} at offset {error.start})") from None


def _attribute(path, owner, key, value):
    """An attribute's value: text as str, a number as int or float, anything else as h5py
    gives it. PlotError for text that is not UTF-8."""
    if isinstance(value, (bytes, str)):
        try:
            return _text(value)
        except ValueError as error:
            raise PlotError(path, f"{owner}attribute {key}: {error}") from None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _attributes(path, attrs, owner=""):
    """{key: value} of an object's attributes; PlotError for one h5py cannot read."""
    values = {}
    for key in attrs:
        try:
            value = attrs[key]
        except (OSError, TypeError, ValueError) as error:
            raise PlotError(path, f"{owner}attribute {key}: cannot read it ({error})") from None
        values[key] = _attribute(path, owner, key, value)
    return values


def _text_column(path, table, column, values):
    """A text column as a Series of str; PlotError naming the row of a value that is not
    UTF-8 text."""
    texts = []
    try:
        for value in values:
            texts.append(_text(value))
    except ValueError as error:
        raise PlotError(path, f"/{table} row {len(texts)}: {column} is {error}") from None
    return pd.Series(texts, dtype=object)


def _frame(path, table, dataset):
    """A one-dimensional compound dataset as a DataFrame; PlotError for a dataset of another
    shape or a column that is not one number or one text per row."""
    if dataset.ndim != 1:
        shape = "a scalar" if dataset.ndim == 0 else f"{dataset.ndim}-dimensional {dataset.shape}"
        raise PlotError(path, f"/{table} is {shape}, not a table (one-dimensional, a row per entry)")
    rows = dataset[...]
    columns = {}
    for name in rows.dtype.names:
        values = rows[name]
        if values.ndim != 1:
            raise PlotError(path, f"/{table} column {name}: an array of {values.shape[1:]} per row, not one value")
        if values.dtype.kind in "OS":
            columns[name] = _text_column(path, table, name, values)
        elif values.dtype.kind in NUMBER_KINDS + "b":
            columns[name] = pd.Series(values, dtype=values.dtype)
        else:
            raise PlotError(path, f"/{table} column {name}: a type podsim_plot cannot read ({values.dtype})")
    return pd.DataFrame(columns, columns=list(rows.dtype.names))


def _column_units(path, table, dataset, attrs):
    units = attrs.get("units")
    names = dataset.dtype.names
    if not isinstance(units, np.ndarray) or units.shape != (len(names),):
        return {name: "" for name in names}
    return {name: str(_attribute(path, f"/{table} ", "units", unit)) for name, unit in zip(names, units)}


def _regular_file(path):
    """`path` opened for reading, after checking that it is a regular file: opening a FIFO
    would block until something writes to it, and opening a device can act on it. The check
    is repeated on what was opened, so a file swapped in between is not read either."""
    try:
        before = os.stat(path)
        _require_regular(path, before)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise PlotError(path, "no such file") from None
    except OSError as error:
        raise PlotError(path, os_reason(error)) from None
    except ValueError as error:  # a NUL in the name
        raise PlotError(path, f"not a file name ({error})") from None
    opened = os.fstat(descriptor)
    if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(opened.st_mode):
        os.close(descriptor)
        raise PlotError(path, "replaced by another file while being opened")
    return os.fdopen(descriptor, "rb")


def file_type(mode):
    """What a file of `mode` (os.stat's st_mode) is, when not a regular file: "a directory",
    "a FIFO", ...; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _FILE_TYPES if test(mode)), "not a regular file")


def _require_regular(path, status):
    """PlotError unless `status` (os.stat) is a regular file's."""
    what = file_type(status.st_mode)
    if what is not None:
        raise PlotError(path, f"is {what}, not a podsim result file")


def os_reason(error):
    """An OSError as the end of an error line: "too many levels of symbolic links"."""
    reason = error.strerror or str(error)
    return reason[:1].lower() + reason[1:]


def _described(value):
    """An attribute's value for an error message, short: `text '1'`, `an array of shape (2,)`."""
    if isinstance(value, str):
        return f"text {value[:40]!r}"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return repr(value)


def _read(path, handle):
    """The PodsimFile of an open HDF5 file."""
    attrs = _attributes(path, handle.attrs)
    if "schema_version" not in attrs:
        raise PlotError(path, "not a podsim result file (no schema_version attribute)")
    version = attrs["schema_version"]
    if type(version) is not int:  # a bool or float is not a version either
        raise PlotError(path, f"schema_version is not an integer ({_described(version)})")
    if version != SCHEMA_VERSION:
        raise PlotError(path, f"schema_version {version}; this podsim_plot reads version {SCHEMA_VERSION}")
    tables, units, descriptions = {}, {}, {}
    for name, item in handle.items():
        if isinstance(item, h5py.Dataset) and item.dtype.names:
            tables[name] = _frame(path, name, item)
            table_attrs = _attributes(path, item.attrs, f"/{name} ")
            units[name] = _column_units(path, name, item, table_attrs)
            descriptions[name] = str(table_attrs.get("description", ""))
    kind = next((kind for kind, table in KIND_TABLES if table in tables), None)
    if kind is None:
        raise PlotError(path, "not a podsim result file (none of the tables "
                              + ", ".join("/" + table for _, table in KIND_TABLES) + ")")
    return PodsimFile(path, kind, attrs, tables, units, descriptions)


def load(path):
    """Reads a podsim result file: `podsim_plot.load("out.h5").tables["breakdown"]`.

    Raises PlotError (one line naming the file) when the file cannot be read (missing, not a
    regular file, not HDF5), is not a podsim file, has a schema_version other than the one this
    package reads, or holds a table that is not one (not one-dimensional, text that is not
    UTF-8). The file is only read, and only once found to be a regular file."""
    path = pathlib.Path(path)
    with _regular_file(path) as stream:
        try:
            handle = h5py.File(stream, "r")
        except OSError as error:
            raise PlotError(path, f"not an HDF5 file ({error.strerror or error})") from None
        with handle:
            try:
                return _read(path, handle)
            except (OSError, RuntimeError, KeyError) as error:  # h5py on a damaged file
                raise PlotError(path, f"a damaged HDF5 file ({error})") from None
