#!/usr/bin/env python3
"""`podsim report FILE.h5 --html PAGE` gives a page a planner can send (docs/output-schema.md).

Usage: check_html.py PODSIM WORK_DIR REPO_ROOT

For a run, a sweep, a plan, a what-if study and a collective benchmark (small ones):
- the page is self-contained: no script, no external reference (links, images, fonts);
- every figure section has an inline SVG, and its checked number (a <span data-table
  data-column data-row data-value>) equals the HDF5 file's value, with the shown text that
  value in the section's unit;
- the plan's page has the ranked layouts, the pure data- and model-parallel verdicts, and the
  layouts that do not fit drawn with the memory they would need;
- Debian's chromium renders it headless: the screenshot is a PNG with drawn content (not a
  blank page), and the rendered DOM has every section's heading.
"""
import html.parser
import os
import re
import subprocess
import sys

import h5py
import matplotlib.image

PODSIM, WORK, ROOT = (os.path.abspath(a) for a in sys.argv[1:4])
os.makedirs(WORK, exist_ok=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def podsim(*args):
    p = subprocess.run([PODSIM, *args], capture_output=True, text=True, cwd=WORK)
    if p.returncode != 0:
        sys.exit(f"podsim {' '.join(args)}: exit {p.returncode}\n{p.stderr}")


class Page(html.parser.HTMLParser):
    """Headings, SVG count per section, checked spans with their text, and forbidden tags."""

    def __init__(self):
        super().__init__()
        self.sections = []  # [heading, svgs, [(attrs, text)]]
        self.forbidden = []
        self.span = None
        self.in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "img", "iframe", "object", "embed"):
            self.forbidden.append(tag)
        for key in ("src", "href"):
            if key in a:
                self.forbidden.append(f"{tag} {key}={a[key]}")
        if tag == "h2":
            self.in_h2 = True
            self.sections.append(["", 0, []])
        elif tag == "svg" and self.sections:
            self.sections[-1][1] += 1
        elif tag == "span" and "data-table" in a:
            self.span = [a, ""]

    def handle_endtag(self, tag):
        if tag == "h2":
            self.in_h2 = False
        elif tag == "span" and self.span is not None:
            self.sections[-1][2].append(tuple(self.span))
            self.span = None

    def handle_data(self, data):
        if self.in_h2:
            self.sections[-1][0] += data
        if self.span is not None:
            self.span[1] += data


# What the shown number is, in units of the file's value.
SCALES = [1, 100, 1 / 2**30, 1e-9]

cases = {
    "run": ("run", os.path.join(ROOT, "configs/examples/dp-tp-pp-gpt-145.6b-a100.yaml"), "-o", "run.h5"),
    "sweep": ("sweep", os.path.join(ROOT, "tests/sweep/kill-resume.yaml"), "-q", "-o", "sweep.h5"),
    "plan": ("plan", "-q", "--model", "gpt-1.7b", "--hardware", "a100-80gb", "--topology", "a100-dgx-8x8",
             "--global-batch", "512", "--root", ROOT, "-o", "plan.h5"),
    "whatif": ("whatif", os.path.join(ROOT, "configs/examples/dp-gpt-1.7b-a100.yaml"), "-q", "--knobs",
               "hardware.peak.fp16,hardware.hbm.bandwidth,training.micro_batch", "-o", "whatif.h5"),
    "collective": ("collective", "--topology", os.path.join(ROOT, "topologies/tpu-v4-4x4x4.yaml"), "--sizes",
                   "1KiB..16MiB", "-o", "collective.h5"),
}
expected_sections = {
    "run": {"Summary", "Time per stage", "Critical path", "Memory", "Links"},
    "sweep": {"Sweep"},
    "plan": {"Plan"},
    "whatif": {"What if"},
    "collective": {"Collectives"},
}
for name, args in cases.items():
    h5 = os.path.join(WORK, f"{name}.h5")
    page_file = os.path.join(WORK, f"{name}.html")
    for f in (h5, page_file):
        if os.path.exists(f):
            os.remove(f)
    podsim(*args)
    podsim("report", h5, "--html", page_file)
    text = open(page_file, encoding="utf-8").read()
    page = Page()
    page.feed(text)
    check(not page.forbidden, f"{name}: the page fetches or runs something: {page.forbidden}")
    check(re.search(r"https?://(?!www\.w3\.org/2000/svg)", text) is None, f"{name}: an external URL in the page")
    headings = {s[0] for s in page.sections}
    check(expected_sections[name] <= headings, f"{name}: sections {sorted(headings)} lack {expected_sections[name]}")
    with h5py.File(h5, "r") as f:
        for heading, svgs, spans in page.sections:
            if heading in ("Tables", "Configuration"):
                continue
            check(svgs >= 1 or heading == "Summary", f"{name}/{heading}: no figure")
            check(len(spans) >= 1, f"{name}/{heading}: no number checked against the file")
            for attrs, shown in spans:
                value = float(f[attrs["data-table"]][attrs["data-column"]][int(attrs["data-row"])])
                check(float(attrs["data-value"]) == value,
                      f"{name}/{heading}: {attrs} holds {attrs['data-value']}, the file {value}")
                number = float(re.search(r"-?[0-9][0-9.]*", shown).group())
                digits = len(shown.split(".")[1].split()[0]) if "." in shown else 0
                ok = any(abs(number - abs(value) * s) <= 0.51 * 10**-digits + 1e-12 for s in SCALES)
                check(ok, f"{name}/{heading}: shows \"{shown}\" for {value}")

    if name == "plan":
        # The plan's page answers as its text does: the ranked layouts, the verdicts, and the
        # layouts that do not fit drawn (at 0 s) with the memory they would need.
        plan_section = text[text.index("<h2>Plan</h2>"):text.index("<h2>Tables</h2>")]
        check("<th>#</th>" in plan_section and "<td>1</td>" in plan_section, "plan: no ranked table")
        check("pure data parallelism (dp 64" in plan_section, "plan: no pure data parallelism verdict")
        check("pure model parallelism" in plan_section, "plan: no pure model parallelism verdict")
        with h5py.File(h5, "r") as f:
            rows = f["plan"][:]
            dnf = [r for r in rows if r["verdict"] == b"does not fit"]
            # (the plan keeps 5 % of HBM free: --memory-headroom 0.95)
            check(all(r["memory_peak_bytes"] > 0.95 * r["hbm_capacity_bytes"] for r in dnf),
                  "plan: a layout that does not fit says no more memory than the HBM it may use")
            if dnf:
                check("does not fit in HBM (not simulated; drawn at 0 s): " in plan_section,
                      "plan: the layouts that do not fit are not drawn")
            pruned = [r for r in rows if r["verdict"] == b"pruned"]
            if pruned:
                check("pruned (at its bound): " in plan_section,
                      "plan: the pruned layouts are not drawn")
                check(f", {len(pruned)} pruned: no network runs their step faster" in plan_section,
                      "plan: the page does not say how many layouts were pruned")

    # A real browser renders it.
    shot = os.path.join(WORK, f"{name}.png")
    if os.path.exists(shot):
        os.remove(shot)
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--window-size=1100,1600"]
    subprocess.run(browser + [f"--screenshot={shot}", "file://" + page_file], capture_output=True, timeout=120)
    check(os.path.exists(shot), f"{name}: chromium wrote no screenshot")
    if os.path.exists(shot):
        pixels = matplotlib.image.imread(shot)[:, :, :3]
        drawn = (pixels.min(axis=2) < 0.9).mean()
        check(drawn > 0.005, f"{name}: the screenshot is nearly blank ({100 * drawn:.2f} % drawn)")
        # Text is grey; the figures are in colour: a page whose SVG did not render has none.
        coloured = int(((pixels.max(axis=2) - pixels.min(axis=2)) > 0.2).sum())
        check(coloured > 500, f"{name}: no figure in the screenshot ({coloured} coloured pixels)")
    dom = subprocess.run(browser + ["--dump-dom", "file://" + page_file], capture_output=True, text=True,
                         timeout=120).stdout
    for heading in expected_sections[name]:
        check(f"<h2>{heading}</h2>" in dom, f"{name}: the rendered page lacks the section {heading}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("report --html: all checks passed")
