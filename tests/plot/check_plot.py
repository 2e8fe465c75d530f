#!/usr/bin/env python3
"""Checks tools/plot and the podsim_plot package (tools/python) on real podsim files.

  check_plot.py PODSIM [unittest options]

Writes a run (GPT-3 175B on a 4096-chip 3-D torus, 16 stages), a run on a GPU cluster (8
stages over 192 nodes, so link loads differ by node) and one on two TPU slices, a sweep (tests/plot/sweep-llama2-13b-v5e.yaml), a plan and a collective
with PODSIM into a temporary folder, and a what-if file with h5py as podsim writes tables.
Checks that load() gives what h5py reads; that every figure is a PNG and a well-formed SVG
with what it promises drawn (the stacked breakdown sums to the step in every stage, each link
in its cell, the sweep's gaps where no point is feasible, the plan's winner, busbw per size,
the tornado's order); that a command run twice writes the same bytes; and that bad input exits
with code 2 and one line on stderr, writing nothing. That includes what a user can make by
mistake or on purpose (RefusalTest): an output that is the input itself (by name, hard or
symbolic link), an output or input that is a link, directory, FIFO or device, a link loop, a
name too long, and files edited with h5py to hold NaN or infinities where a figure needs a
number, text that is not UTF-8, an empty or missing table or column, a column of the wrong
type, a table that is not one-dimensional, a schema_version that is not an integer; each
leaves every file as it was, prints no traceback and escapes control characters. Uses
Debian's python (h5py, pandas, matplotlib, yaml).
"""
import contextlib
import hashlib
import io
import math
import os
import pathlib
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
import warnings
import xml.etree.ElementTree as ET

import h5py
import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
PLOT = REPO / "tools" / "plot"
sys.path.insert(0, str(REPO / "tools" / "python"))

import podsim_plot  # noqa: E402
from podsim_plot import cli, render  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"


class Files:
    """The podsim files every test reads, written once."""

    work = None
    paths = {}


def podsim(*args):
    result = subprocess.run([Files.podsim, *map(str, args)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"podsim {' '.join(map(str, args))} exited {result.returncode}: {result.stderr}")


def write_whatif(path):
    """A /whatif table as podsim writes tables: a compound dataset with UTF-8 variable-length
    strings, `units` and `description` attributes, and the four root attributes."""
    text = h5py.string_dtype("utf-8")
    rows = [("hbm_bandwidth", +10, 3.95), ("hbm_bandwidth", -10, 4.21), ("ici_bandwidth", +10, 4.05),
            ("ici_bandwidth", -10, 4.12), ("matmul_efficiency", +10, 3.72), ("matmul_efficiency", -10, 4.52),
            ("host_input", +10, 4.075), ("host_input", -10, 4.075)]
    base = 4.075
    dtype = np.dtype([("knob", text), ("change_percent", "<f8"), ("step_time_s", "<f8"),
                      ("base_step_time_s", "<f8"), ("elasticity", "<f8")])
    data = np.array([(knob, change, step, base, (step / base - 1) * 100 / change) for knob, change, step in rows],
                    dtype=dtype)
    with h5py.File(path, "w") as f:
        for key, value in (("podsim_version", "0.2.0"), ("command_line", "podsim whatif scenario.yaml"),
                           ("config_yaml", "schema_version: 1\nname: whatif-test-scenario\n")):
            f.attrs.create(key, value, dtype=text)
        f.attrs.create("schema_version", 1, dtype="<i8")
        table = f.create_dataset("whatif", data=data)
        table.attrs.create("units", np.array(["", "1", "s", "s", "1"], dtype=object), dtype=text)
        table.attrs.create("description", "one row per knob and change", dtype=text)
    return data


def setUpModule():
    Files.work = pathlib.Path(tempfile.mkdtemp(prefix="podsim-plot-test."))
    w, examples = Files.work, REPO / "configs" / "examples"
    Files.paths = {name: w / f"{name}.h5" for name in
                   ("run", "run-gpu", "run-multislice", "sweep", "plan", "collective", "whatif")}
    p = Files.paths
    podsim("run", examples / "gpt3-175b-tpu-v4.yaml", "-o", p["run"])
    podsim("run", examples / "dp-tp-pp-gpt-145.6b-a100.yaml", "-o", p["run-gpu"])
    podsim("run", examples / "multislice-llama2-7b-tpu-v5e.yaml", "-o", p["run-multislice"])
    podsim("sweep", REPO / "tests" / "plot" / "sweep-llama2-13b-v5e.yaml", "-q", "-o", p["sweep"])
    podsim("plan", "--model", "llama2-7b", "--hardware", "tpu-v5e", "--topology", "tpu-v5e-4x4",
           "--global-batch", "32", "--root", REPO, "-q", "-o", p["plan"])
    podsim("collective", "--topology", REPO / "topologies" / "a100-dgx-8x8.yaml", "--sizes", "1KiB..256MiB",
           "-o", p["collective"])
    write_whatif(p["whatif"])


def tearDownModule():
    shutil.rmtree(Files.work, ignore_errors=True)


def plot(*args, cwd=None):
    return subprocess.run([str(PLOT), *map(str, args)], capture_output=True, text=True, cwd=cwd)


def h5_tables(path):
    """{name: structured array} of every table, as h5py reads it."""
    with h5py.File(path, "r") as f:
        return {name: f[name][...] for name in f if isinstance(f[name], h5py.Dataset) and f[name].dtype.names}


class LoadTest(unittest.TestCase):
    def test_every_table_as_h5py_reads_it(self):
        for name, path in Files.paths.items():
            loaded = podsim_plot.load(path)
            expected = h5_tables(path)
            with self.subTest(file=name):
                self.assertEqual(sorted(loaded.tables), sorted(expected))
                for table, rows in expected.items():
                    frame = loaded.tables[table]
                    self.assertEqual(list(frame.columns), list(rows.dtype.names), table)
                    self.assertEqual(len(frame), len(rows), table)
                    for column in rows.dtype.names:
                        values = rows[column]
                        if values.dtype.kind == "O":  # (a bool: a diff of 10,000 rows takes minutes)
                            self.assertTrue(list(frame[column]) == [v.decode() for v in values], (table, column))
                        else:
                            self.assertEqual(frame[column].dtype, values.dtype, (table, column))
                            self.assertTrue(np.array_equal(frame[column].to_numpy(), values, equal_nan=True),
                                            (table, column))

    def test_attributes_units_and_kind(self):
        kinds = {"run": "run", "run-gpu": "run", "run-multislice": "run", "sweep": "sweep", "plan": "plan",
                 "collective": "collective", "whatif": "whatif"}
        for name, path in Files.paths.items():
            loaded = podsim_plot.load(path)
            with self.subTest(file=name), h5py.File(path, "r") as f:
                self.assertEqual(loaded.kind, kinds[name])
                self.assertEqual(loaded.attrs["schema_version"], 1)
                self.assertEqual(loaded.attrs["config_yaml"], f.attrs["config_yaml"])
                self.assertEqual(loaded.attrs["command_line"], f.attrs["command_line"])
                for table in loaded.tables:
                    self.assertEqual(list(loaded.units[table].values()), list(f[table].attrs["units"]))
        self.assertEqual(podsim_plot.load(Files.paths["run"]).units["links"]["utilization"], "1")


class FormatTest(unittest.TestCase):
    """Every figure of every kind, as PNG and as SVG."""

    FIGURES = {"run": ["breakdown", "links", "critical-path"], "run-gpu": ["breakdown", "links", "critical-path"],
               "run-multislice": ["breakdown", "links", "critical-path"], "sweep": ["line", "heatmap"],
               "plan": ["plan"], "collective": ["bandwidth"], "whatif": ["tornado"]}

    def test_png_and_svg(self):
        for name, figures in self.FIGURES.items():
            loaded = podsim_plot.load(Files.paths[name])
            self.assertEqual(podsim_plot.figure_names(loaded), figures)
            for figure in figures:
                with self.subTest(file=name, figure=figure):
                    drawn = podsim_plot.draw(loaded, figure)
                    png = render.to_bytes(drawn, "png")
                    self.assertEqual(png[:8], PNG_SIGNATURE)
                    width, height = struct.unpack(">II", png[16:24])  # IHDR
                    self.assertGreaterEqual(min(width, height), 300)
                    self.assertGreater(len(png), 20_000)  # a drawn figure, not an empty canvas
                    svg = ET.fromstring(render.to_bytes(drawn, "svg"))
                    self.assertEqual(svg.tag, SVG + "svg")
                    self.assertGreater(len(svg.findall(f".//{SVG}path")) + len(svg.findall(f".//{SVG}use")), 20)


class RunFigureTest(unittest.TestCase):
    def test_breakdown_stacks_sum_to_the_step_in_every_stage(self):
        loaded = podsim_plot.load(Files.paths["run"])
        breakdown, step = loaded.tables["breakdown"], loaded.tables["summary"]["step_time_s"].iloc[0]
        ax = podsim_plot.draw(loaded, "breakdown").axes[0]
        stacks = {}
        for bar in ax.patches:
            stacks.setdefault(round(bar.get_x() + bar.get_width() / 2, 6), []).append(bar)
        self.assertEqual(sorted(stacks), list(breakdown["stage"]))
        for stage, bars in stacks.items():
            bars.sort(key=lambda b: b.get_y())
            for below, above in zip(bars, bars[1:]):  # stacked: each starts where the last ends
                self.assertAlmostEqual(above.get_y(), below.get_y() + below.get_height(), places=12)
            total = sum(b.get_height() for b in bars)
            self.assertTrue(math.isclose(total, step, rel_tol=1e-9), f"stage {stage}: {total} vs {step}")
            self.assertTrue(math.isclose(total, breakdown["total_s"].iloc[int(stage)], rel_tol=1e-9))

    def _images(self, name):
        loaded = podsim_plot.load(Files.paths[name])
        figure = podsim_plot.draw(loaded, "links")
        images = {ax.get_title().split(":")[0]: ax.images[0].get_array() for ax in figure.axes if ax.images}
        return loaded.tables["links"], images

    def test_each_torus_link_in_its_cell(self):
        links, images = self._images("run")  # 16 x 16 x 16, chip = x + 16 y + 256 z
        self.assertEqual(sorted(images), sorted(set(links["axis"])))
        for link in links.itertuples():
            coords = [link.src % 16, link.src // 16 % 16, link.src // 256]
            a = "xyz".index(link.axis[0])
            others = [coords[i] for i in range(3) if i != a]
            cell = images[link.axis][others[0] + 16 * others[1], coords[a]]
            self.assertEqual(cell, link.utilization, link)
        for axis, image in images.items():  # and no other cell shows traffic
            busy = links[(links["axis"] == axis) & (links["utilization"] > 0)]
            self.assertEqual(int((image >= busy["utilization"].min()).sum()), len(busy), axis)

    def test_each_gpu_link_in_its_cell(self):
        links, images = self._images("run-gpu")  # 192 nodes of 8 GPUs; switches after the chips
        self.assertEqual(sorted(images), sorted(set(links["axis"])))
        for link in links.itertuples():
            gpu = link.dst if link.axis.endswith("down") else link.src
            self.assertEqual(images[link.axis][gpu // 8, gpu % 8], link.utilization, link)

    def test_critical_path_bars_sum_to_the_step(self):
        loaded = podsim_plot.load(Files.paths["run"])
        step = loaded.tables["summary"]["step_time_s"].iloc[0]
        bars = podsim_plot.draw(loaded, "critical-path").axes[0].patches
        widths = [b.get_width() for b in sorted(bars, key=lambda b: -b.get_y())]  # top first
        self.assertTrue(math.isclose(sum(widths), step, rel_tol=1e-9))
        self.assertEqual(widths, sorted(widths, reverse=True))


class SweepFigureTest(unittest.TestCase):
    def expected(self):
        """step time by (micro_batch, tp), lowest over recompute, NaN where no point is feasible."""
        rows = h5_tables(Files.paths["sweep"])["sweep"]
        tps, batches = ["1", "2", "4", "8", "16"], ["1", "2", "4"]
        grid = np.full((len(batches), len(tps)), np.nan)
        for r in rows[rows["feasible"] == 1]:
            i, j = batches.index(r["swept_training_micro_batch"].decode()), tps.index(r["swept_parallelism_tp"].decode())
            grid[i, j] = np.fmin(grid[i, j], r["step_time_s"])
        self.assertTrue(np.isnan(grid).any() and not np.isnan(grid).all())  # the sweep has both
        return grid

    def test_line_has_gaps_where_nothing_is_feasible(self):
        loaded = podsim_plot.load(Files.paths["sweep"])
        ax = podsim_plot.draw(loaded, "line").axes[0]
        lines = [line for line in ax.lines if line.get_label().startswith("training.micro_batch = ")]
        self.assertEqual([line.get_label()[-1] for line in lines], ["1", "2", "4"])
        drawn = np.array([line.get_ydata() for line in lines], dtype=float)
        self.assertTrue(np.array_equal(drawn, self.expected(), equal_nan=True))

    def test_heatmap_over_the_chosen_keys(self):
        loaded = podsim_plot.load(Files.paths["sweep"])
        options = podsim_plot.Options(x="parallelism.tp", y="micro_batch")
        image = podsim_plot.draw(loaded, "heatmap", options).axes[0].images[0].get_array()
        self.assertTrue(np.array_equal(image.filled(np.nan), self.expected(), equal_nan=True))
        swapped = podsim_plot.Options(x="training_micro_batch", y="tp")
        image = podsim_plot.draw(loaded, "heatmap", swapped).axes[0].images[0].get_array()
        self.assertTrue(np.array_equal(image.filled(np.nan), self.expected().T, equal_nan=True))


    def test_a_column_not_swept_gives_each_values_best_point(self):
        # --x dp: dp is derived (chips / tp), not swept; the line is each dp's fastest feasible
        # point over every swept key (the capacity curve `--x chips` draws over a chip sweep).
        with h5py.File(Files.paths["sweep"], "r") as f:
            rows = f["sweep"][:]
        dps = sorted({int(r["dp"]) for r in rows})
        best = {dp: np.nan for dp in dps}
        for r in rows[rows["feasible"] == 1]:
            best[int(r["dp"])] = np.fmin(best[int(r["dp"])], r["step_time_s"])
        ax = podsim_plot.draw(podsim_plot.load(Files.paths["sweep"]), "line", podsim_plot.Options(x="dp")).axes[0]
        (line,) = [l for l in ax.lines if l.get_label() == "step time (s)"]
        self.assertTrue(np.array_equal(np.array(line.get_ydata(), dtype=float), np.array([best[d] for d in dps]),
                                       equal_nan=True))
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], [str(d) for d in dps])


class OtherFigureTest(unittest.TestCase):
    def test_plan_winner_and_verdicts(self):
        loaded = podsim_plot.load(Files.paths["plan"])
        table = loaded.tables["plan"]
        main, side = podsim_plot.draw(loaded, "plan").axes
        points = [c.get_offsets() for c in main.collections]
        self.assertEqual(sum(len(p) for p in points[:-1]), int((table["verdict"] == "simulate").sum()))
        winner = table[table["rank"] == 1].iloc[0]
        self.assertTrue(np.allclose(points[-1], [[winner["memory_peak_bytes"] / 2**30, winner["step_time_s"]]]))
        counts = {t.get_text(): b.get_width() for t, b in zip(side.get_yticklabels(), side.patches)}
        for verdict in ("does not fit", "cannot run", "dominated"):
            self.assertEqual(counts[verdict], int((table["verdict"] == verdict).sum()), verdict)

    def test_collective_busbw_per_size(self):
        loaded = podsim_plot.load(Files.paths["collective"])
        table = loaded.tables["collectives"]
        ax = podsim_plot.draw(loaded, "bandwidth").axes[0]
        self.assertEqual(ax.get_xscale(), "log")
        lines = {line.get_label().rsplit(": ", 1)[-1]: line for line in ax.lines}
        for column, name in (("busbw_Bps", "busbw"), ("algbw_Bps", "algbw")):
            self.assertTrue(np.array_equal(lines[name].get_xdata(), table["bytes"]))
            self.assertTrue(np.allclose(lines[name].get_ydata(), table[column] / 1e9, rtol=1e-12))

    def test_tornado_sorted_by_elasticity(self):
        data = h5_tables(Files.paths["whatif"])["whatif"]
        loaded = podsim_plot.load(Files.paths["whatif"])
        ax = podsim_plot.draw(loaded, "tornado").axes[0]
        top_down = [t.get_text() for t in ax.get_yticklabels()][::-1]
        size = {k.decode(): max(abs(e) for kk, e in zip(data["knob"], data["elasticity"]) if kk == k)
                for k in data["knob"]}
        self.assertEqual(top_down, sorted(size, key=lambda k: -size[k]))
        widths = sorted(round(b.get_width(), 9) for b in ax.patches if b.get_height() > 0)
        self.assertEqual(widths, sorted(round((s / b - 1) * 100, 9) for s, b in
                                        zip(data["step_time_s"], data["base_step_time_s"])))
        self.assertIn("whatif-test-scenario", ax.get_title())

    def test_tornado_labels_a_variant_that_did_not_run(self):
        path = Files.work / "whatif-feasible.h5"
        shutil.copy(Files.paths["whatif"], path)
        with h5py.File(path, "a") as f:  # ici_bandwidth -10 % did not run: no step time
            with_column("whatif", "feasible", np.array([1, 1, 1, 0, 1, 1, 1, 1]))(f)
            set_value("whatif", "step_time_s", 3, float("nan"))(f)
        ax = podsim_plot.draw(podsim_plot.load(path), "tornado").axes[0]
        self.assertEqual(len([b for b in ax.patches if b.get_height() > 0]), 7)
        self.assertIn(" -10 %: cannot run ", [t.get_text() for t in ax.texts])


class CommandTest(unittest.TestCase):
    """tools/plot as users run it. Each start of python with matplotlib takes a second or two,
    so most bad inputs go through podsim_plot.cli.main in this process; three run the wrapper."""

    def test_default_outputs_beside_the_input_same_bytes_twice(self):
        written = []
        for attempt in ("first", "second"):
            folder = Files.work / attempt
            folder.mkdir()
            shutil.copy(Files.paths["run"], folder / "step.h5")
            result = plot(folder / "step.h5")
            self.assertEqual(result.returncode, 0, result.stderr)
            expected = [folder / f"step-{name}.png" for name in ("breakdown", "links", "critical-path")]
            self.assertEqual(result.stdout.split(), [str(p) for p in expected])
            self.assertEqual(sorted(p.name for p in folder.iterdir()), sorted(["step.h5", *(p.name for p in expected)]))
            written.append([p.read_bytes() for p in expected])
        for first, second in zip(*written):
            self.assertEqual(first[:8], PNG_SIGNATURE)
            self.assertEqual(first, second, "a PNG differs between two runs of the same command")

    def test_same_svg_twice(self):
        outputs = []
        for attempt in (1, 2):  # SVG ids come from a hash: the same only with a fixed salt
            out = Files.work / f"same-{attempt}.svg"
            result = plot(Files.paths["sweep"], "--figure", "heatmap", "--x", "micro_batch", "-o", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            outputs.append(out.read_bytes())
        self.assertEqual(outputs[0], outputs[1], "the SVG differs between two runs of the same command")

    def setUp(self):
        self.bad = Files.work / f"bad-{self._testMethodName}"
        self.bad.mkdir()
        (self.bad / "notes.h5").write_text("not HDF5\n")
        with h5py.File(self.bad / "plain.h5", "w") as f:
            f["numbers"] = [1, 2, 3]
        shutil.copy(Files.paths["run"], self.bad / "partial.h5")
        with h5py.File(self.bad / "partial.h5", "a") as f:
            del f["critical_path"]
        self.inputs = sorted(p.name for p in self.bad.iterdir())

    def check_refused(self, returncode, stdout, stderr, named, message):
        self.assertEqual(returncode, 2, stderr)
        lines = stderr.splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertIn(f"{named}: ", lines[0])
        self.assertIn(message, lines[0])
        self.assertEqual(stdout, "")
        self.assertEqual(sorted(p.name for p in self.bad.iterdir()), self.inputs, "a file was written")

    def test_bad_input_from_the_command_line(self):
        out = self.bad / "out.png"
        for args, named, message in (
            (["notes.h5", "-o", out], "notes.h5", "not an HDF5 file"),
            (["partial.h5"], "partial.h5", "no /critical_path table"),  # and the first two figures not written
            ([Files.paths["sweep"], "--x", "banana", "-o", out], "sweep.h5", "--x banana: not a swept key or a whole-number column"),
        ):
            with self.subTest(args=args):
                result = plot(*args, cwd=self.bad)
                self.assertNotIn("Traceback", result.stderr)
                self.check_refused(result.returncode, result.stdout, result.stderr, named, message)

    def test_bad_input(self):
        out = self.bad / "out.png"
        for args, named, message in (
            ([self.bad / "plain.h5", "-o", out], "plain.h5", "not a podsim result file"),
            ([self.bad / "missing.h5", "-o", out], "missing.h5", "no such file"),
            ([self.bad / "partial.h5", "--figure", "critical-path", "-o", out], "partial.h5", "no /critical_path table"),
            ([Files.paths["sweep"], "--y", "zero", "--figure", "heatmap", "--x", "zero", "-o", out], "sweep.h5",
             "--x and --y are the same key"),
            ([Files.paths["sweep"], "--metric", "reason", "-o", out], "sweep.h5", "--metric reason: not a numeric"),
            ([Files.paths["sweep"], "--figure", "pie", "-o", out], "sweep.h5", "no figure 'pie'"),
            ([Files.paths["plan"], "--x", "tp", "-o", out], "plan.h5", "apply to sweep files"),
            ([Files.paths["plan"], "-o", self.bad / "out.pdf"], "out.pdf", "must end in .png or .svg"),
            ([Files.paths["plan"], "-o", self.bad / "no" / "out.png"], "out.png", "cannot write"),
        ):
            with self.subTest(args=args):
                stdout, stderr = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                    returncode = cli.main([str(a) for a in args])
                self.check_refused(returncode, stdout.getvalue(), stderr.getvalue(), named, message)


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def snapshot(folder):
    """{name: what it is} of every entry of `folder`, links not followed: a regular file by the
    sha256 of its bytes, a link by its target, anything else by its type. The same snapshot
    after a command: no file written, changed, renamed or left behind."""
    entries = {}
    for entry in os.scandir(folder):
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISREG(mode):
            entries[entry.name] = sha256(entry.path)
        elif stat.S_ISLNK(mode):
            entries[entry.name] = "link to " + os.readlink(entry.path)
        else:
            entries[entry.name] = stat.filemode(mode)
    return entries


def in_process(args):
    """(exit code, stdout, stderr) of podsim_plot.cli.main(args) in this process: a second or
    two faster than starting python with matplotlib. An exception escaping main() (what a user
    would see as a traceback) fails the test that called it."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        returncode = cli.main([str(a) for a in args])
    return returncode, stdout.getvalue(), stderr.getvalue()


# Edits of a podsim file open in h5py, as a user could make them: each returns a function of
# the h5py.File.
TEXT = h5py.string_dtype("utf-8")


def replace_table(f, name, rows):
    """Writes the structured array `rows` as table `name`, keeping its attributes."""
    attrs = dict(f[name].attrs)
    del f[name]
    table = f.create_dataset(name, data=rows)
    for key, value in attrs.items():
        table.attrs[key] = value


def set_value(table, column, row, value):
    def edit(f):
        rows = f[table][...]
        rows[column][row] = value
        replace_table(f, table, rows)
    return edit


def retyped(table, column, dtype):
    """The column converted to `dtype`: TEXT (numbers written as text) or a number type."""
    def edit(f):
        rows = f[table][...]
        new = np.empty(len(rows), dtype=[(n, dtype if n == column else rows.dtype[n]) for n in rows.dtype.names])
        for name in rows.dtype.names:
            if name != column:
                new[name] = rows[name]
            elif dtype is TEXT:
                new[name] = np.array([str(v).encode() for v in rows[name]], dtype=object)
            else:
                new[name] = rows[name].astype(dtype)
        replace_table(f, table, new)
    return edit


def without_column(table, column):
    def edit(f):
        rows = f[table][...]
        names = [n for n in rows.dtype.names if n != column]
        new = np.empty(len(rows), dtype=[(n, rows.dtype[n]) for n in names])
        for name in names:
            new[name] = rows[name]
        replace_table(f, table, new)
    return edit


def with_column(table, column, values):
    def edit(f):
        rows = f[table][...]
        dtype = [*((n, rows.dtype[n]) for n in rows.dtype.names), (column, np.asarray(values).dtype)]
        new = np.empty(len(rows), dtype=dtype)
        for name in rows.dtype.names:
            new[name] = rows[name]
        new[column] = values
        replace_table(f, table, new)
    return edit


def renamed_column(table, column, name):
    def edit(f):
        rows = f[table][...]
        rows.dtype.names = tuple(name if n == column else n for n in rows.dtype.names)
        replace_table(f, table, rows)
    return edit


def first_rows(table, count):
    return lambda f: replace_table(f, table, f[table][...][:count])


def reshaped(table, shape):
    return lambda f: replace_table(f, table, f[table][...].reshape(shape))


def attribute(key, value, dtype=None):
    return lambda f: f.attrs.create(key, value, dtype=dtype)


class RefusalTest(unittest.TestCase):
    """What a user can give tools/plot, by mistake or on purpose, refused with exit code 2 and
    one printable line `podsim_plot: error: FILE: what is wrong`: no traceback, no hang, and
    every file in the folder as it was (the input byte for byte, no output, no temporary left).
    Most run podsim_plot in this process; the output onto the input and the FIFO input run the
    tools/plot wrapper as users do, with a timeout."""

    def setUp(self):
        self.folder = Files.work / f"refuse-{self._testMethodName}"
        self.folder.mkdir()
        self.out = self.folder / "out.png"

    def copy(self, name, source="run"):
        path = self.folder / name
        shutil.copy(Files.paths[source], path)
        return path

    def crafted(self, name, source, *edits):
        """A copy of a podsim file with the edits applied, as a user could with h5py."""
        path = self.copy(name, source)
        with h5py.File(path, "a") as f:
            for edit in edits:
                edit(f)
        return path

    def check_refused(self, result, named, message):
        returncode, stdout, stderr = result
        self.assertNotIn("Traceback", stderr)
        self.assertEqual(returncode, 2, stderr)
        self.assertEqual(stdout, "")
        lines = stderr.splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertTrue(lines[0].startswith("podsim_plot: error: "), lines[0])
        self.assertTrue(lines[0].isprintable(), f"a control character printed raw: {lines[0]!r}")
        self.assertIn(f"{named}: ", lines[0])
        self.assertIn(message, lines[0])

    def refused(self, args, named, message):
        """podsim_plot run in this process refuses `args`, leaving the folder as it was."""
        before = snapshot(self.folder)
        self.check_refused(in_process(args), named, message)
        self.assertEqual(snapshot(self.folder), before, "a file was written, changed or left behind")

    def refused_by_wrapper(self, args, named, message):
        """tools/plot refuses `args` (run in the folder) within a minute, leaving it as it was."""
        before = snapshot(self.folder)
        try:
            result = subprocess.run([str(PLOT), *map(str, args)], capture_output=True, text=True, timeout=60,
                                    cwd=self.folder)
        except subprocess.TimeoutExpired:
            self.fail(f"tools/plot {' '.join(map(str, args))} still running after 60 s")
        self.check_refused((result.returncode, result.stdout, result.stderr), named, message)
        self.assertEqual(snapshot(self.folder), before, "a file was written, changed or left behind")

    def each_refused(self, cases):
        for args, named, message in cases:
            with self.subTest(args=args):
                self.refused(args, named, message)

    def test_output_onto_the_input_by_the_wrapper(self):
        self.copy("data.png")  # a podsim file named like a figure: `-o data.png` replaced it by a PNG
        self.refused_by_wrapper(["data.png", "-o", "data.png"], "data.png", "is the same file as the input data.png")

    def test_output_that_is_the_input(self):
        run = self.copy("run.h5")
        os.link(run, self.folder / "hard.png")
        os.symlink("run.h5", self.folder / "soft.svg")
        os.symlink("run.h5", self.folder / "run-links.png")  # the second default name
        self.copy("step-breakdown.png")  # and step.h5, a link to it, would replace it by its own figure
        os.symlink("step-breakdown.png", self.folder / "step.h5")
        same = "is the same file as the input"
        self.each_refused((
            ([run, "-o", run], "run.h5", same),  # not .png: refused all the same, for what it is
            ([run, "-o", self.folder / "." / "hard.png"], "hard.png", same),
            ([run, "-o", self.folder / "soft.svg"], "soft.svg", same),
            ([run], "run-links.png", same),
            ([self.folder / "step.h5"], "step-breakdown.png", same),
        ))

    def test_output_that_is_not_a_regular_file(self):
        run = self.copy("run.h5")
        (self.folder / "victim.txt").write_text("not a figure\n")
        os.symlink("victim.txt", self.folder / "link.png")
        os.symlink("nowhere.png", self.folder / "dangling.png")
        (self.folder / "folder.png").mkdir()
        os.mkfifo(self.folder / "fifo.png")
        cases = [
            ([run, "-o", self.folder / "link.png"], "link.png", "is a symbolic link"),
            ([run, "-o", self.folder / "dangling.png"], "dangling.png", "is a symbolic link"),
            ([run, "-o", self.folder / "folder.png"], "folder.png", "is a directory"),
            ([run, "-o", self.folder / "fifo.png"], "fifo.png", "is a FIFO"),
            ([run, "-o", self.folder / ("y" * 300 + ".png")], "y.png", "cannot write (file name too long)"),
            ([run, "-o", self.folder / "missing" / "out.png"], "out.png", "cannot write (no such file or directory)"),
        ]
        try:  # a device node: only where this user may make one
            os.mknod(self.folder / "null.png", stat.S_IFCHR | 0o666, os.makedev(1, 3))
            cases.append(([run, "-o", self.folder / "null.png"], "null.png", "is a character device"))
        except PermissionError:
            pass
        self.each_refused(cases)

    def test_fifo_input_by_the_wrapper(self):
        os.mkfifo(self.folder / "fifo.h5")  # h5py's open of it would wait for a writer forever
        self.refused_by_wrapper(["fifo.h5", "-o", "out.png"], "fifo.h5", "is a FIFO, not a podsim result file")

    def test_fifo_swapped_in_after_the_check(self):
        os.mkfifo(self.folder / "fifo.h5")  # put at the name after the check saw a regular file

        def waited(signum, frame):
            raise TimeoutError("podsim_plot waited on a FIFO")
        previous = signal.signal(signal.SIGALRM, waited)
        signal.alarm(20)
        try:
            with unittest.mock.patch.object(os, "stat", return_value=os.stat(Files.paths["run"])):
                self.refused([self.folder / "fifo.h5", "-o", self.out], "fifo.h5",
                             "replaced by another file while being opened")
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    def test_input_that_is_not_a_regular_file(self):
        (self.folder / "folder.h5").mkdir()
        os.symlink("loop.h5", self.folder / "loop.h5")
        self.each_refused((
            ([self.folder / "folder.h5", "-o", self.out], "folder.h5", "is a directory, not a podsim result file"),
            ([self.folder / "loop.h5", "-o", self.out], "loop.h5", "too many levels of symbolic links"),
            ([self.folder / ("x" * 300 + ".h5"), "-o", self.out], "x.h5", "file name too long"),
            (["/dev/null", "-o", self.out], "/dev/null", "is a character device, not a podsim result file"),
            ([self.folder / "missing.h5", "-o", self.out], "missing.h5", "no such file"),
        ))

    def test_numbers_a_figure_cannot_show(self):
        nan, inf = float("nan"), float("inf")
        sweep, plan = h5_tables(Files.paths["sweep"])["sweep"], h5_tables(Files.paths["plan"])["plan"]
        feasible = int(np.flatnonzero(sweep["feasible"] == 1)[0])
        simulated = int(np.flatnonzero(plan["verdict"] == b"simulate")[0])
        for name, source, edit, options, message in (
            ("breakdown", "run", set_value("breakdown", "compute_forward_s", 3, nan), [],
             "/breakdown row 3: compute_forward_s is NaN; a finite number is needed"),
            ("summary", "run", set_value("summary", "step_time_s", 0, 0.0), [],
             "/summary row 0: step_time_s is 0.0; a step takes a positive time"),
            ("links", "run", set_value("links", "utilization", 5, -inf), ["--figure", "links"],
             "/links row 5: utilization is -inf"),
            ("critical-path", "run", set_value("critical_path", "duration_s", 2, inf), ["--figure", "critical-path"],
             "/critical_path row 2: duration_s is +inf"),
            ("sweep", "sweep", set_value("sweep", "step_time_s", feasible, inf), [],
             f"/sweep row {feasible}: step_time_s is +inf; a finite number is needed in a feasible point"),
            ("plan", "plan", set_value("plan", "memory_peak_bytes", simulated, nan), [],
             f"/plan row {simulated}: memory_peak_bytes is NaN; a finite number is needed for a simulated layout"),
            ("collective", "collective", set_value("collectives", "busbw_Bps", 2, -inf), [],
             "/collectives row 2: busbw_Bps is -inf"),
            ("bytes", "collective", set_value("collectives", "bytes", 1, 0), [],
             "/collectives row 1: bytes is 0; a message has a positive size"),
            ("whatif", "whatif", set_value("whatif", "elasticity", 4, nan), [],
             "/whatif row 4: elasticity is NaN; a finite number is needed for a variant that ran"),
            # podsim whatif writes this when the scenario itself cannot run
            ("whatif-base", "whatif", set_value("whatif", "base_step_time_s", 0, nan), [],
             "/whatif row 0: base_step_time_s is NaN"),
        ):
            path = self.crafted(f"{name}.h5", source, edit)
            with self.subTest(case=name):
                self.refused([path, *options, "-o", self.out], f"{name}.h5", message)

    def test_text_that_is_not_utf8(self):
        self.each_refused((
            ([self.crafted("scenario.h5", "run", set_value("summary", "scenario", 0, b"st\xffep")), "-o", self.out],
             "scenario.h5", "/summary row 0: scenario is not UTF-8 text (byte 0xff at offset 2)"),
            ([self.crafted("axis.h5", "run", set_value("links", "axis", 7, b"x\xc3")), "-o", self.out],
             "axis.h5", "/links row 7: axis is not UTF-8 text (byte 0xc3 at offset 1)"),
            ([self.crafted("config.h5", "run", attribute("config_yaml", b"name: \xfe\n", TEXT)), "-o", self.out],
             "config.h5", "attribute config_yaml: not UTF-8 text (byte 0xfe at offset 6)"),
        ))

    def test_tables_that_are_not_as_written(self):
        self.each_refused((
            ([self.crafted("empty.h5", "run", first_rows("breakdown", 0)), "-o", self.out],
             "empty.h5", "/breakdown has no rows"),
            ([self.crafted("empty-collective.h5", "collective", first_rows("collectives", 0)), "-o", self.out],
             "empty-collective.h5", "/collectives has no rows"),
            ([self.crafted("missing.h5", "run", without_column("breakdown", "comm_tp_s")), "-o", self.out],
             "missing.h5", "/breakdown has no column comm_tp_s"),
            ([self.crafted("text.h5", "run", retyped("breakdown", "compute_backward_s", TEXT)), "-o", self.out],
             "text.h5", "/breakdown column compute_backward_s: text where numbers are expected"),
            ([self.crafted("metric.h5", "sweep", retyped("sweep", "step_time_s", TEXT)), "-o", self.out],
             "metric.h5", "--metric step_time_s: not a numeric column of /sweep"),
            ([self.crafted("ids.h5", "run", retyped("links", "src", "<f8")), "--figure", "links", "-o", self.out],
             "ids.h5", "/links column src: float64 where integers are expected"),
            ([self.crafted("2d.h5", "run", reshaped("breakdown", (4, 4))), "-o", self.out],
             "2d.h5", "/breakdown is 2-dimensional (4, 4), not a table"),
            ([self.crafted("schema-text.h5", "run", attribute("schema_version", "1")), "-o", self.out],
             "schema-text.h5", "schema_version is not an integer (text '1')"),
            ([self.crafted("schema-real.h5", "run", attribute("schema_version", 1.5)), "-o", self.out],
             "schema-real.h5", "schema_version is not an integer (1.5)"),
            ([self.crafted("schema-array.h5", "run", attribute("schema_version", [1, 1])), "-o", self.out],
             "schema-array.h5", "schema_version is not an integer (an array of shape (2,))"),
        ))

    def test_control_characters_escaped(self):
        named = self.folder / "\x1b[31mred\n.h5"  # a file name that would colour the terminal, on two lines
        named.write_text("not HDF5\n")
        key = "\x1b]0;owned\x07tp"  # a swept key that would retitle the terminal
        sweep = self.crafted("keys.h5", "sweep", renamed_column("sweep", "swept_parallelism_tp", "swept_" + key))
        self.each_refused((
            ([named, "-o", self.out], "\\x1b[31mred\\x0a.h5", "not an HDF5 file"),
            ([sweep, "--x", "banana", "-o", self.out], "keys.h5", "\\x1b]0;owned\\x07tp"),
        ))

    def test_text_from_the_file_drawn_as_written(self):
        name = "\x1b[31mcost $\\frac$"  # an escape sequence, and what matplotlib would parse as TeX
        path = self.crafted("title.h5", "run", set_value("summary", "scenario", 0, name.encode()))
        with warnings.catch_warnings(record=True) as caught:  # a missing glyph's warning prints it raw
            warnings.simplefilter("always")
            returncode, _, stderr = in_process([path, "--figure", "breakdown", "-o", self.out])
        self.assertEqual(returncode, 0, stderr)
        self.assertEqual([str(w.message) for w in caught], [])
        title = podsim_plot.draw(podsim_plot.load(path), "breakdown").axes[0].get_title()
        self.assertIn("\\x1b[31mcost $\\frac$", title)


class WriteTest(unittest.TestCase):
    """render.write_atomically with files and links put beside its output before and while it
    writes: it never follows, truncates or removes a file it did not create, and leaves no
    temporary behind."""

    def setUp(self):
        self.folder = Files.work / f"write-{self._testMethodName}"
        self.folder.mkdir()
        self.out = self.folder / "out.png"
        (self.folder / "victim.txt").write_text("precious\n")

    def test_names_taken_by_someone_else_are_skipped(self):
        taken = [self.folder / "out.png.tmp.link", self.folder / "out.png.tmp.file"]
        os.symlink("victim.txt", taken[0])  # a link where the temporary would go: not followed
        taken[1].write_text("someone else's\n")  # a file there: not truncated, not removed
        before = snapshot(self.folder)
        names = [*taken, self.folder / "out.png.tmp.free"]
        with unittest.mock.patch.object(render, "_temporary_name", side_effect=names):
            render.write_atomically(self.out, b"figure")
        self.assertEqual(self.out.read_bytes(), b"figure")
        self.assertEqual(snapshot(self.folder), {**before, "out.png": sha256(self.out)})

    def written_while(self, change):
        """write_atomically over an existing out.png with `change(descriptor)` run while it
        writes (in place of os.fsync): (the error it raised, or None)."""
        self.out.write_bytes(b"old figure")
        fsync = os.fsync

        def during(descriptor):
            change()
            fsync(descriptor)
        with unittest.mock.patch.object(os, "fsync", side_effect=during):
            try:
                render.write_atomically(self.out, b"figure")
            except (podsim_plot.PlotError, OSError) as error:
                return error
        return None

    def test_link_put_at_the_output_while_writing(self):
        def plant():
            self.out.unlink()
            os.symlink("victim.txt", self.out)
        error = self.written_while(plant)
        self.assertIsInstance(error, podsim_plot.PlotError)
        self.assertIn("is a symbolic link", str(error))
        self.assertEqual(snapshot(self.folder), {"victim.txt": sha256(self.folder / "victim.txt"),
                                                 "out.png": "link to victim.txt"})
        self.assertEqual((self.folder / "victim.txt").read_text(), "precious\n")

    def test_directory_put_at_the_output_while_writing(self):
        def plant():
            self.out.unlink()
            self.out.mkdir()
        error = self.written_while(plant)
        self.assertIsInstance(error, podsim_plot.PlotError)
        self.assertIn("is a directory", str(error))
        self.assertEqual(sorted(p.name for p in self.folder.iterdir()), ["out.png", "victim.txt"])

    def test_failure_removes_its_own_temporary(self):
        def disk_full():
            raise OSError(28, "No space left on device")
        self.assertIsInstance(self.written_while(disk_full), OSError)
        self.assertEqual(self.out.read_bytes(), b"old figure")
        self.assertEqual(sorted(p.name for p in self.folder.iterdir()), ["out.png", "victim.txt"])

    def test_failure_leaves_a_file_put_at_the_temporary_name(self):
        def swap():  # the temporary moved away and someone's file put at its name: not ours to remove
            (temporary,) = self.folder.glob("out.png.tmp.*")
            temporary.rename(self.folder / "moved")
            temporary.write_text("someone else's\n")
            raise OSError(28, "No space left on device")
        self.assertIsInstance(self.written_while(swap), OSError)
        self.assertEqual(self.out.read_bytes(), b"old figure")
        (temporary,) = self.folder.glob("out.png.tmp.*")
        self.assertEqual(temporary.read_text(), "someone else's\n")

if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: check_plot.py PODSIM [unittest options]")
    Files.podsim = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]], verbosity=2)
