"""Where each directed link of /links sits, for drawing link utilization as heatmaps.

Chip ids follow `podsim topo`: on a torus or mesh of dims (X, Y, Z) chip (x, y, z) is
x + X * (y + Y * z); a multislice machine numbers its slices one after the other; a GPU
cluster numbers node n's GPUs n * chips_per_node ... and its switches after the chips.
"""
import dataclasses
import math

import numpy as np

from .errors import PlotError

AXIS_LETTERS = "xyzw"


@dataclasses.dataclass(frozen=True)
class Machine:
    """The chips of a topology: a grid of `dims` per slice (torus or mesh), `slices` of them;
    or `nodes` × `chips_per_node` GPUs behind switches (dims empty)."""

    dims: tuple = ()
    wraparound: tuple = ()
    slices: int = 1
    nodes: int = 0
    chips_per_node: int = 0

    @property
    def chips(self):
        if self.dims:
            return self.slices * int(np.prod(self.dims))
        return self.nodes * self.chips_per_node


MAX_CHIPS = 1 << 24  # a cell per link per chip: a topology beyond this is not one to draw


def machine(topology, path):
    """The Machine of a resolved topology section (a dict from config_yaml); PlotError for one
    whose sizes are not whole numbers from 1 (to MAX_CHIPS chips in all)."""
    m = _machine(topology, path)
    sizes = [*m.dims, m.slices] if m.dims else [m.nodes, m.chips_per_node]
    if (m.dims and len(m.wraparound) != len(m.dims)) or len(m.dims) > len(AXIS_LETTERS) \
            or min(sizes) < 1 or math.prod(sizes) > MAX_CHIPS:
        raise PlotError(path, f"config_yaml: a topology of {' x '.join(map(str, sizes))} is not one "
                              f"podsim_plot can draw")
    return m


def _machine(topology, path):
    if not isinstance(topology, dict):
        raise PlotError(path, "config_yaml has no resolved topology")
    kind = topology.get("kind")
    try:
        if kind in ("torus", "mesh"):
            dims = tuple(int(d) for d in topology["dims"])
            wrap = tuple(bool(w) for w in topology.get("wraparound", [kind == "torus"] * len(dims)))
            return Machine(dims=dims, wraparound=wrap)
        if kind == "multislice":
            inner = _machine(topology["slice"], path)
            return dataclasses.replace(inner, slices=int(topology["slices"]))
        if kind == "switch":
            return Machine(nodes=int(topology["nodes"]), chips_per_node=int(topology["chips_per_node"]))
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise PlotError(path, f"config_yaml: topology of kind {kind} without {error}") from None
    raise PlotError(path, f"config_yaml: topology kind {kind!r} is not one podsim_plot can draw")


@dataclasses.dataclass
class LinkGrid:
    """One heatmap: the utilization of the links of one `axis` value (`x+`, `dcn up`), one
    cell per link, NaN where the machine has no such link."""

    axis: str
    values: np.ndarray
    row_label: str
    column_label: str

    @property
    def group(self):
        """The dimension (`x`) or tier (`dcn`) the links belong to."""
        return self.axis[0] if _is_ring_axis(self.axis) else self.axis.rpartition(" ")[0]


def _coordinates(m, chip):
    """(slice, coordinate per dimension) of chip ids (arrays)."""
    per_slice = int(np.prod(m.dims))
    local = chip % per_slice
    coords, stride = [], 1
    for size in m.dims:
        coords.append((local // stride) % size)
        stride *= size
    return chip // per_slice, coords


def _ring_grid(m, axis, chips, util):
    """Links along one torus/mesh dimension: a row per ring (the chip's other coordinates and
    slice), a column per position of the link's source chip along the dimension."""
    letter, direction = axis[0], axis[1]
    a = AXIS_LETTERS.index(letter)
    others = [i for i in range(len(m.dims)) if i != a]
    rows = m.slices * int(np.prod([m.dims[i] for i in others], dtype=int))
    grid = np.zeros((rows, m.dims[a]))
    if not m.wraparound[a]:  # a mesh edge has no link onwards
        grid[:, -1 if direction == "+" else 0] = np.nan
    slice_, coords = _coordinates(m, chips)
    row, stride = np.zeros_like(chips), 1
    for i in others:
        row += coords[i] * stride
        stride *= m.dims[i]
    row += slice_ * stride
    grid[row, coords[a]] = util
    ring_of = ", ".join(AXIS_LETTERS[i] for i in others) + (", slice" if m.slices > 1 else "")
    return LinkGrid(axis, grid, f"ring along {letter} (one row per {ring_of})" if ring_of else "ring",
                    f"{letter} of the source chip")


def _chip_grid(m, axis, chips, util):
    """Links between each chip and a switch or network: one cell per chip, laid out as its
    node (GPUs) or as its slice's rows along x (multislice)."""
    if m.dims:
        slice_, coords = _coordinates(m, chips)
        columns = m.dims[0]
        rows = m.slices * int(np.prod(m.dims[1:], dtype=int))
        row = (chips - slice_ * int(np.prod(m.dims))) // columns + slice_ * (rows // m.slices)
        grid = np.zeros((rows, columns))
        grid[row, coords[0]] = util
        rest = ", ".join(AXIS_LETTERS[1:len(m.dims)])
        return LinkGrid(axis, grid, f"chip row (one per {rest + ', ' if rest else ''}slice)", "x of the chip")
    grid = np.zeros((m.nodes, m.chips_per_node))
    grid[chips // m.chips_per_node, chips % m.chips_per_node] = util
    return LinkGrid(axis, grid, "node", "GPU in the node")


def link_grids(links, m):
    """A LinkGrid per `axis` value of a /links data frame, in a stable order: the torus
    dimensions (x+, x-, y+, ...), then other tiers (up before down). Links between two
    switches have no chip to sit at and are left out."""
    grids = []
    for axis in sorted(set(links["axis"]), key=_axis_order):
        rows = links[links["axis"] == axis]
        is_ring = _is_ring_axis(axis) and AXIS_LETTERS.index(axis[0]) < len(m.dims)
        if is_ring:
            chips = rows["src"].to_numpy()
        else:
            chips = np.where(axis.endswith("down"), rows["dst"], rows["src"]).astype(np.int64)
        keep = (chips >= 0) & (chips < m.chips)
        chips, util = chips[keep], rows["utilization"].to_numpy()[keep]
        if not len(chips):
            continue
        draw = _ring_grid if is_ring else _chip_grid
        grids.append(draw(m, axis, chips, util))
    return grids


def _is_ring_axis(axis):
    return len(axis) == 2 and axis[0] in AXIS_LETTERS and axis[1] in "+-"


def _axis_order(axis):
    if _is_ring_axis(axis):
        return (0, AXIS_LETTERS.index(axis[0]), "", axis[1] == "-")
    tier, _, direction = axis.rpartition(" ")
    return (1, 0, tier, direction == "down")
