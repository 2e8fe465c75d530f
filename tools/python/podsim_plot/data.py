"""Reading a podsim HDF5 file (docs/output-schema.md) into pandas data frames."""
import dataclasses
import pathlib

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

    def table(self, name, columns=(), nonempty=False):
        """The table `name`, checked to have `columns` (and a row, if `nonempty`); PlotError
        naming the file otherwise."""
        if name not in self.tables:
            raise PlotError(self.path, f"no /{name} table (a {self.kind} file has "
                                       f"{', '.join('/' + t for t in self.tables) or 'no tables'})")
        frame = self.tables[name]
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise PlotError(self.path, f"/{name} has no column {', '.join(missing)}")
        if nonempty and frame.empty:
            raise PlotError(self.path, f"/{name} has no rows")
        return frame

    def __getitem__(self, name):
        return self.table(name)


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _attribute(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _frame(dataset):
    rows = dataset[...]
    columns = {}
    for name in rows.dtype.names:
        values = rows[name]
        if values.dtype.kind == "O" or values.dtype.kind == "S":
            columns[name] = pd.Series([_text(v) for v in values], dtype=object)
        else:
            columns[name] = pd.Series(values, dtype=values.dtype)
    return pd.DataFrame(columns, columns=list(rows.dtype.names))


def _column_units(dataset):
    units = dataset.attrs.get("units")
    names = dataset.dtype.names
    if units is None or len(units) != len(names):
        return {name: "" for name in names}
    return {name: _text(unit) for name, unit in zip(names, units)}


def load(path):
    """Reads a podsim result file: `podsim_plot.load("out.h5").tables["breakdown"]`.

    Raises PlotError (one line naming the file) when the file cannot be read, is not a podsim
    file, or has a schema_version other than the one this package reads."""
    path = pathlib.Path(path)
    try:
        handle = h5py.File(path, "r")
    except FileNotFoundError:
        raise PlotError(path, "no such file") from None
    except OSError as error:
        raise PlotError(path, f"not an HDF5 file ({error.strerror or error})") from None
    with handle:
        attrs = {key: _attribute(value) for key, value in handle.attrs.items()}
        if "schema_version" not in attrs:
            raise PlotError(path, "not a podsim result file (no schema_version attribute)")
        if attrs["schema_version"] != SCHEMA_VERSION:
            raise PlotError(path, f"schema_version {attrs['schema_version']}; "
                                  f"this podsim_plot reads version {SCHEMA_VERSION}")
        tables, units, descriptions = {}, {}, {}
        for name, item in handle.items():
            if isinstance(item, h5py.Dataset) and item.dtype.names and item.ndim == 1:
                tables[name] = _frame(item)
                units[name] = _column_units(item)
                descriptions[name] = _text(item.attrs.get("description", ""))
    kind = next((kind for kind, table in KIND_TABLES if table in tables), None)
    if kind is None:
        raise PlotError(path, "not a podsim result file (none of the tables "
                              + ", ".join("/" + table for _, table in KIND_TABLES) + ")")
    return PodsimFile(path, kind, attrs, tables, units, descriptions)
