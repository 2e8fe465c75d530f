#!/usr/bin/python3
"""Checks that podsim's shipped topologies and commands run and write what they document.

Run by ctest (label `example`, tests/example/CMakeLists.txt), one check per invocation:

  check_outputs.py topo PODSIM FILE [--chips N] [--diameter D]
      `podsim topo FILE --json` exits 0 and prints JSON with chips, links, diameter,
      bisection_bandwidth_Bps (and the given chips / diameter, if any).
  check_outputs.py collective PODSIM TOPOLOGY NETWORK WORKDIR [--op OP] [--axes AXES]
      `podsim collective ... -o out.h5 --json` exits 0 and out.h5 follows docs/output-schema.md.
  check_outputs.py determinism PODSIM TOPOLOGY NETWORK WORKDIR
      the same command run twice writes byte-identical files.
  check_outputs.py help PODSIM
      `podsim --help`, `podsim topo --help`, `podsim collective --help` exit 0.

Uses the system python (/usr/bin/python3) for h5py. Exits 1 with a list of failures.
"""

import argparse
import filecmp
import json
import math
import os
import shutil
import subprocess
import sys

# docs/output-schema.md, table /collectives: (column, kind, unit) in order.
COLLECTIVE_COLUMNS = [
    ("op", "text", ""),
    ("algorithm", "text", ""),
    ("network", "text", ""),
    ("group_size", "int", "1"),
    ("groups", "int", "1"),
    ("bytes", "int", "B"),
    ("time_s", "real", "s"),
    ("algbw_Bps", "real", "B/s"),
    ("busbw_Bps", "real", "B/s"),
    ("max_link_utilization", "real", "1"),
]
ALGORITHMS = {"ring", "bidirectional-ring", "torus", "hierarchical"}

# Sizes given on the command line and the byte counts they stand for (a list and a doubling range).
SIZES_ARG = "1KiB,64KiB..256KiB,4MiB"
SIZES = [1024, 65536, 131072, 262144, 4194304]


def bus_factor(op, n):
    """nccl-tests' bus bandwidth factor (docs/output-schema.md, busbw_Bps)."""
    if op == "all-reduce":
        return 2.0 * (n - 1) / n
    if op in ("reduce-scatter", "all-gather", "all-to-all"):
        return (n - 1) / n
    return 1.0


class Checker:
    def __init__(self):
        self.failures = []

    def check(self, condition, message):
        if not condition:
            self.failures.append(message)
        return condition

    def close(self, actual, expected, message, rel=1e-9):
        return self.check(math.isclose(actual, expected, rel_tol=rel, abs_tol=0.0),
                          f"{message}: got {actual!r}, expected {expected!r}")

    def finish(self, what):
        if self.failures:
            print(f"FAILED {what}:", file=sys.stderr)
            for f in self.failures:
                print(f"  - {f}", file=sys.stderr)
            return 1
        print(f"ok {what}")
        return 0


def run(command, cwd=None):
    print("$ " + " ".join(command))
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def topo_json(podsim, path, checker):
    p = run([podsim, "topo", path, "--json"])
    if not checker.check(p.returncode == 0, f"podsim topo exited {p.returncode}: {p.stderr.strip()}"):
        return None
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as e:
        checker.check(False, f"podsim topo --json printed invalid JSON ({e}):\n{p.stdout}")
        return None


def cmd_topo(args):
    c = Checker()
    doc = topo_json(args.podsim, args.file, c)
    if doc is not None and c.check(isinstance(doc, dict), "the JSON is not an object"):
        for key in ("chips", "links", "diameter", "bisection_bandwidth_Bps"):
            c.check(key in doc, f"key {key!r} missing from {sorted(doc)}")
        if all(k in doc for k in ("chips", "links", "diameter", "bisection_bandwidth_Bps")):
            c.check(isinstance(doc["chips"], int) and doc["chips"] >= 1, f"chips = {doc['chips']!r}")
            c.check(isinstance(doc["links"], int) and doc["links"] >= 0, f"links = {doc['links']!r}")
            c.check(isinstance(doc["diameter"], int) and doc["diameter"] >= 0, f"diameter = {doc['diameter']!r}")
            c.check(doc["bisection_bandwidth_Bps"] > 0, f"bisection_bandwidth_Bps = {doc['bisection_bandwidth_Bps']!r}")
            if args.chips is not None:
                c.check(doc["chips"] == args.chips, f"chips = {doc['chips']}, expected {args.chips}")
            if args.diameter is not None:
                c.check(doc["diameter"] == args.diameter, f"diameter = {doc['diameter']}, expected {args.diameter}")
    return c.finish(f"topo {args.file}")


def as_text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def check_config_yaml(text, topology_name, c):
    if not c.check(isinstance(text, str) and text.strip() != "", "config_yaml is empty"):
        return
    try:
        import yaml  # python3-yaml may be missing; then only the name is looked for
    except ImportError:
        c.check(topology_name in text, f"config_yaml does not mention {topology_name!r}")
        return
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        c.check(False, f"config_yaml is not valid YAML: {e}")
        return
    name = doc.get("topology", {}).get("name") if isinstance(doc, dict) else None
    c.check(name == topology_name, f"config_yaml topology.name = {name!r}, expected {topology_name!r}")


def check_hdf5(path, expect, c):
    import h5py
    import numpy as np

    with h5py.File(path, "r") as f:
        attrs = f.attrs
        for key in ("podsim_version", "command_line", "config_yaml", "schema_version"):
            c.check(key in attrs, f"root attribute {key!r} missing")
        if "schema_version" in attrs:
            v = attrs["schema_version"]
            c.check(np.issubdtype(np.asarray(v).dtype, np.integer) and int(v) == 1,
                    f"schema_version = {v!r}, expected the integer 1")
        if "podsim_version" in attrs:
            c.check(as_text(attrs["podsim_version"]).strip() != "", "podsim_version is empty")
        if "command_line" in attrs:
            line = as_text(attrs["command_line"])
            c.check("collective" in line and path in line, f"command_line {line!r} is not the command run")
        if "config_yaml" in attrs:
            check_config_yaml(as_text(attrs["config_yaml"]), expect["name"], c)

        if not c.check("collectives" in f, f"no /collectives dataset; root has {list(f)}"):
            return None
        t = f["collectives"]
        names = [n for n, _, _ in COLLECTIVE_COLUMNS]
        c.check(t.ndim == 1, f"/collectives has {t.ndim} dimensions, expected 1")
        if not c.check(t.dtype.names is not None and list(t.dtype.names) == names,
                       f"/collectives columns {t.dtype.names}, expected {names}"):
            return None
        for name, kind, _ in COLLECTIVE_COLUMNS:
            dt = t.dtype.fields[name][0]
            if kind == "text":
                c.check(h5py.check_string_dtype(dt) is not None, f"column {name} is {dt}, expected a string")
            elif kind == "int":
                c.check(dt == np.dtype("<i8"), f"column {name} is {dt}, expected <i8")
            else:
                c.check(dt == np.dtype("<f8"), f"column {name} is {dt}, expected <f8")
        units = [as_text(u) for u in t.attrs.get("units", [])]
        c.check(units == [u for _, _, u in COLLECTIVE_COLUMNS],
                f"units {units}, expected {[u for _, _, u in COLLECTIVE_COLUMNS]}")
        c.check(as_text(t.attrs.get("description", "")).strip() != "", "/collectives has no description")
        return t[...]


def cmd_collective(args):
    c = Checker()
    os.makedirs(args.workdir, exist_ok=True)
    out = os.path.join(args.workdir, "out.h5")
    if os.path.exists(out):
        os.remove(out)
    topo = topo_json(args.podsim, args.topology, c)
    if topo is None:
        return c.finish("collective")
    command = [args.podsim, "collective", "--topology", args.topology, "--op", args.op, "--axes", args.axes,
               "--sizes", SIZES_ARG, "--network", args.network, "-o", out, "--json"]
    p = run(command)
    what = f"collective {args.op} on {topo['name']} ({args.network})"
    if not c.check(p.returncode == 0, f"exit code {p.returncode}: {p.stderr.strip()}"):
        return c.finish(what)
    c.check(p.stderr == "", f"stderr is not empty: {p.stderr!r}")
    leftovers = [n for n in os.listdir(args.workdir) if ".tmp." in n]
    c.check(not leftovers, f"temporary files left behind: {leftovers}")
    if not c.check(os.path.isfile(out), f"{out} was not written"):
        return c.finish(what)

    rows = check_hdf5(out, {"name": topo["name"]}, c)
    if rows is not None and c.check(len(rows) == len(SIZES), f"{len(rows)} rows, expected {len(SIZES)} (one per size)"):
        for i, r in enumerate(rows):
            where = f"row {i}"
            c.check(as_text(r["op"]) == args.op, f"{where}: op {r['op']!r}")
            c.check(as_text(r["network"]) == args.network, f"{where}: network {r['network']!r}")
            c.check(as_text(r["algorithm"]) in ALGORITHMS, f"{where}: algorithm {r['algorithm']!r}")
            n, groups, size = int(r["group_size"]), int(r["groups"]), int(r["bytes"])
            c.check(size == SIZES[i], f"{where}: bytes {size}, expected {SIZES[i]}")
            if args.axes == "all":
                c.check(n == topo["chips"] and groups == 1,
                        f"{where}: {groups} groups of {n}, expected 1 group of all {topo['chips']} chips")
            else:
                c.check(n >= 2 and groups >= 1 and n * groups == topo["chips"],
                        f"{where}: {groups} groups of {n} do not cover {topo['chips']} chips")
            time_s = float(r["time_s"])
            if not c.check(time_s > 0 and math.isfinite(time_s), f"{where}: time_s = {time_s}"):
                continue
            c.close(float(r["algbw_Bps"]), size / time_s, f"{where}: algbw_Bps = bytes / time_s")
            c.close(float(r["busbw_Bps"]), float(r["algbw_Bps"]) * bus_factor(args.op, n),
                    f"{where}: busbw_Bps = algbw_Bps x factor({args.op}, n={n})")
            u = float(r["max_link_utilization"])
            c.check(0.0 < u <= 1.0, f"{where}: max_link_utilization = {u}, expected in (0, 1]")
            if i > 0:
                c.check(time_s >= float(rows[i - 1]["time_s"]), f"{where}: a larger message took less time")
        # The same results on stdout (--json) as in the file.
        try:
            printed = json.loads(p.stdout)
            results = printed["results"]
            c.check(len(results) == len(rows), f"--json has {len(results)} results, the file {len(rows)}")
            for i, (j, r) in enumerate(zip(results, rows)):
                c.check(j["bytes"] == int(r["bytes"]), f"--json result {i}: bytes {j['bytes']}")
                c.close(j["time_s"], float(r["time_s"]), f"--json result {i}: time_s", rel=1e-12)
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            c.check(False, f"--json output is not the documented object ({e!r}):\n{p.stdout}")
    return c.finish(what)


def cmd_determinism(args):
    c = Checker()
    os.makedirs(args.workdir, exist_ok=True)
    out = os.path.join(args.workdir, "out.h5")
    first = os.path.join(args.workdir, "first.h5")
    # The same path both times: command_line is stored in the file.
    command = [args.podsim, "collective", "--topology", args.topology, "--sizes", SIZES_ARG,
               "--network", args.network, "-o", out]
    for attempt in (1, 2):
        if os.path.exists(out):
            os.remove(out)
        p = run(command)
        c.check(p.returncode == 0, f"run {attempt}: exit code {p.returncode}: {p.stderr.strip()}")
        if attempt == 1 and os.path.exists(out):
            shutil.move(out, first)
    if os.path.exists(first) and os.path.exists(out):
        c.check(filecmp.cmp(first, out, shallow=False), f"{first} and {out} differ")
    else:
        c.check(False, "an output file is missing")
    return c.finish(f"determinism {args.topology} ({args.network})")


def cmd_help(args):
    c = Checker()
    for sub in ([], ["topo"], ["collective"]):
        p = run([args.podsim, *sub, "--help"])
        c.check(p.returncode == 0, f"podsim {' '.join(sub)} --help exited {p.returncode}")
        c.check("Usage:" in p.stdout, f"podsim {' '.join(sub)} --help printed no usage:\n{p.stdout}")
    p = run([args.podsim, "--version"])
    c.check(p.returncode == 0 and p.stdout.startswith("podsim "), f"podsim --version: {p.returncode} {p.stdout!r}")
    return c.finish("help")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("topo")
    p.add_argument("podsim")
    p.add_argument("file")
    p.add_argument("--chips", type=int)
    p.add_argument("--diameter", type=int)
    p.set_defaults(func=cmd_topo)
    p = sub.add_parser("collective")
    for a in ("podsim", "topology", "network", "workdir"):
        p.add_argument(a)
    p.add_argument("--op", default="all-reduce")
    p.add_argument("--axes", default="all")
    p.set_defaults(func=cmd_collective)
    p = sub.add_parser("determinism")
    for a in ("podsim", "topology", "network", "workdir"):
        p.add_argument(a)
    p.set_defaults(func=cmd_determinism)
    p = sub.add_parser("help")
    p.add_argument("podsim")
    p.set_defaults(func=cmd_help)
    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
