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
with code 2 and one line on stderr, writing nothing. Uses Debian's python (h5py, pandas,
matplotlib, yaml).
"""
import contextlib
import io
import math
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
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
            ([Files.paths["sweep"], "--x", "banana", "-o", out], "sweep.h5", "--x banana: not a swept key"),
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


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: check_plot.py PODSIM [unittest options]")
    Files.podsim = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]], verbosity=2)
