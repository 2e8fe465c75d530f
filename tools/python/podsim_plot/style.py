"""How quantities look in a figure: the time categories' names and colours, axis labels with
units, values scaled to readable units."""

# The eleven time categories that partition a step (/breakdown, /sweep, /plan), in the order
# they are stacked, with a label and a colour: compute in blues, exposed communication in
# warm colours, waiting in greys.
TIME_CATEGORIES = (
    ("compute_forward_s", "forward", "#1f77b4"),
    ("compute_backward_s", "backward", "#6baed6"),
    ("compute_recompute_s", "recompute", "#9ecae1"),
    ("compute_optimizer_s", "optimizer", "#17becf"),
    ("comm_tp_s", "TP comm (exposed)", "#d62728"),
    ("comm_dp_s", "DP comm (exposed)", "#ff7f0e"),
    ("comm_pp_s", "PP comm (exposed)", "#e377c2"),
    ("comm_other_s", "other comm (exposed)", "#8c564b"),
    ("bubble_s", "pipeline bubble", "#7f7f7f"),
    ("input_stall_s", "input stall", "#bcbd22"),
    ("idle_s", "idle", "#c7c7c7"),
)


def category_column(critical_path_category):
    """The /breakdown column of a /critical_path category: `comm.tp` -> `comm_tp_s`."""
    return critical_path_category.replace(".", "_") + "_s"


def category_color(column, default="#393b79"):
    return next((color for name, _, color in TIME_CATEGORIES if name == column), default)


# Units shown scaled: bytes as GiB, bandwidths as GB/s.
_SCALES = {"B": ("GiB", 2.0 ** -30), "B/s": ("GB/s", 1e-9)}

# The suffix a column's name ends in for its unit (docs/output-schema.md), left out of labels.
_UNIT_SUFFIXES = {"s": "_s", "B": "_bytes", "B/s": "_Bps"}


# Columns whose seconds read better in days: a run's time to train (training.tokens).
_COLUMN_SCALES = {"time_to_train_s": ("days", 1 / 86400), "time_to_train_ideal_s": ("days", 1 / 86400)}


def scaled(unit, column=None):
    """(shown unit, factor) for a column's unit: ("GiB", 2**-30) for "B"; ("days", 1/86400)
    for a time to train."""
    if column in _COLUMN_SCALES and unit == "s":
        return _COLUMN_SCALES[column]
    return _SCALES.get(unit, (unit, 1.0))


def label(column, unit):
    """An axis label for a column: (`step_time_s`, "s") -> "step time (s)", (`memory_peak_bytes`,
    "B") -> "memory peak (GiB)", (`tokens_per_s`, "1/s") -> "tokens per second"; no unit for
    dimensionless or text columns."""
    if unit == "1/s" and column.endswith("_per_s"):
        return column[: -len("_per_s")].replace("_", " ") + " per second"
    suffix = _UNIT_SUFFIXES.get(unit, "")
    name = column[: -len(suffix)] if suffix and column.endswith(suffix) and column != suffix else column
    shown, _ = scaled(unit, column)
    name = name.replace("_", " ")
    return f"{name} ({shown})" if shown not in ("", "1") else name


def short_value(text):
    """A swept value for a tick label: a file's stem (`../hardware/tpu-v4.yaml` -> `tpu-v4`)."""
    text = str(text)
    if text.endswith((".yaml", ".yml")):
        text = text.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return text


def bytes_label(size):
    """1024 -> "1 KiB", 3 * 2**30 -> "3 GiB"."""
    size = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024:
            return f"{size:g} {unit}"
        size /= 1024
    return f"{size:g} TiB"
