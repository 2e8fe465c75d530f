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
      `podsim --help` and `podsim topo|collective|run --help` exit 0.
  check_outputs.py run PODSIM SCENARIO WORKDIR [--json-only] [--expect-tier TIER]
      `podsim run SCENARIO -o out.h5` exits 0 and out.h5 has the /summary, /breakdown, /memory
      and /links tables of docs/output-schema.md, internally consistent (categories sum to the
      step time, multiplicities cover the chips, the layout fits, 0 < mfu, hfu < 1 and, without
      flash attention, mfu <= hfu); the same
      command again writes a byte-identical file; `podsim run SCENARIO --json` prints the same
      figures. --json-only: only the --json run (for slow scenarios). --expect-tier: /links has
      traffic on links of this tier (e.g. dcn). --same-as FILE: SCENARIO equals FILE except for
      `name` and `network`.
  check_outputs.py run-set PODSIM SCENARIO WORKDIR
      `--set training.micro_batch=2` reaches the stored configuration and /summary.
  check_outputs.py run-oom PODSIM SCENARIO WORKDIR --set K=V [--set K=V ...]
      a layout that does not fit in HBM: exit 1, "does not fit in memory" on stderr, and the file
      is still written (fits_in_memory = 0); with --allow-oom, exit 0 and fits_in_memory = 0.

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
    ("protocol", "text", ""),
    ("nccl_predicted_s", "real", "s"),
    ("pieces", "int", "1"),
]
ALGORITHMS = {"ring", "bidirectional-ring", "torus", "hierarchical", "dimension-ordered", "tree", "nvls", "nvls-tree",
              "collnet"}
PROTOCOLS = {"ll", "ll128", "simple"}

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
            # NCCL runs a GPU cluster's collectives (all but all-to-all and send-recv): a protocol
            # and NCCL's own prediction; elsewhere neither.
            nccl = topo["kind"] == "switch" and args.op not in ("all-to-all", "send-recv")
            protocol, predicted = as_text(r["protocol"]), float(r["nccl_predicted_s"])
            if nccl:
                c.check(protocol in PROTOCOLS, f"{where}: protocol {protocol!r}")
                c.check(predicted > 0 and math.isfinite(predicted), f"{where}: nccl_predicted_s = {predicted}")
            else:
                c.check(protocol == "" and math.isnan(predicted), f"{where}: protocol {protocol!r}, nccl_predicted_s {predicted}")
            pieces = int(r["pieces"])
            c.check(1 <= pieces <= 8 and (pieces == 1 or as_text(r["algorithm"]) == "hierarchical"),
                    f"{where}: {pieces} pieces for {as_text(r['algorithm'])}")
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
    for sub in ([], ["topo"], ["collective"], ["run"]):
        p = run([args.podsim, *sub, "--help"])
        c.check(p.returncode == 0, f"podsim {' '.join(sub)} --help exited {p.returncode}")
        c.check("Usage:" in p.stdout, f"podsim {' '.join(sub)} --help printed no usage:\n{p.stdout}")
    p = run([args.podsim, "--version"])
    c.check(p.returncode == 0 and p.stdout.startswith("podsim "), f"podsim --version: {p.returncode} {p.stdout!r}")
    return c.finish("help")


# ---------------------------------------------------------------------------------------------
# podsim run: the tables of src/output/step_tables.cpp (docs/output-schema.md), in order.

SUMMARY_COLUMNS = [
    ("scenario", "text", ""), ("model", "text", ""), ("hardware", "text", ""), ("topology", "text", ""),
    ("mesh", "text", ""), ("network", "text", ""),
    ("chips", "int", "1"), ("dp", "int", "1"), ("tp", "int", "1"), ("pp", "int", "1"),
    ("schedule", "text", ""), ("virtual_stages", "int", "1"), ("zero", "int", "1"),
    ("zero_group", "int", "1"), ("sequence_parallel", "int", "1"), ("global_batch", "int", "1"), ("micro_batch", "int", "1"),
    ("microbatches", "int", "1"), ("seq_len", "int", "1"), ("recompute", "text", ""),
    ("compute_dtype", "text", ""),
    ("step_time_s", "real", "s"), ("tokens_per_s", "real", "1/s"), ("samples_per_s", "real", "1/s"),
    ("mfu", "real", "1"), ("hfu", "real", "1"), ("model_flops", "real", "FLOP"),
    ("hardware_flops", "real", "FLOP"), ("padding_waste", "real", "1"), ("memory_peak_bytes", "real", "B"), ("hbm_capacity_bytes", "real", "B"),
    ("fits_in_memory", "int", "1"), ("busiest_link_utilization", "real", "1"), ("representatives", "int", "1"),
    ("events", "int", "1"),
]
# The time categories of src/runtime/time_category.hpp: they partition each chip's step.
CATEGORY_COLUMNS = ["compute_forward_s", "compute_backward_s", "compute_recompute_s", "compute_optimizer_s",
                    "comm_tp_s", "comm_dp_s", "comm_pp_s", "comm_other_s", "bubble_s", "input_stall_s", "idle_s"]
CATEGORY_NAMES = ["compute.forward", "compute.backward", "compute.recompute", "compute.optimizer", "comm.tp",
                  "comm.dp", "comm.pp", "comm.other", "bubble", "input_stall", "idle"]
BREAKDOWN_COLUMNS = (
    [("stage", "int", "1"), ("multiplicity", "int", "1")]
    + [(n, "real", "s") for n in CATEGORY_COLUMNS]
    + [("total_s", "real", "s"), ("overlapped_dp_s", "real", "s"), ("overlapped_pp_s", "real", "s"),
       ("compute_slowed_s", "real", "s"), ("compute_host_bound_s", "real", "s"), ("bytes_tp", "real", "B"), ("bytes_dp", "real", "B"),
       ("bytes_pp", "real", "B"), ("bytes_other", "real", "B"),
       ("flops", "real", "FLOP"), ("padded_flops", "real", "FLOP")])
MEMORY_PARTS = ["weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes"]
MEMORY_COLUMNS = (
    [("stage", "int", "1"), ("multiplicity", "int", "1")]
    + [(n, "real", "B") for n in MEMORY_PARTS + ["total_bytes", "capacity_bytes"]]
    + [("fits", "int", "1"), ("offloaded_bytes", "real", "B")])
LINK_COLUMNS = [("link", "int", "1"), ("src", "int", "1"), ("dst", "int", "1"), ("axis", "text", ""),
                ("tier", "text", ""), ("bytes", "real", "B"), ("busy_s", "real", "s"), ("utilization", "real", "1")]
PATH_COLUMNS = [("stage", "int", "1"), ("category", "text", ""), ("operation", "text", ""), ("start_s", "real", "s"),
                ("end_s", "real", "s"), ("duration_s", "real", "s")]
# /summary of a contention-aware run ends with how its communications were simulated.
CONTENTION_COLUMNS = [("comms_as_flows", "int", "1"), ("comms_as_chunks", "int", "1"),
                      ("comms_on_one_group", "int", "1"), ("comms_renamed", "int", "1")]
STEP_TABLES = {"summary": SUMMARY_COLUMNS, "breakdown": BREAKDOWN_COLUMNS, "memory": MEMORY_COLUMNS,
               "links": LINK_COLUMNS, "critical_path": PATH_COLUMNS}
TIERS = {"ici", "node-switch", "scale-out", "dcn"}
REL = 1e-9  # sums of per-category seconds, each rounded from integer picoseconds


def check_table(f, name, columns, c):
    """The table exists, is 1-D, has exactly `columns` (name, type, unit) in order, and a description.
    Returns its rows, or None."""
    import h5py
    import numpy as np

    if not c.check(name in f, f"no /{name} dataset; root has {list(f)}"):
        return None
    t = f[name]
    c.check(t.ndim == 1, f"/{name} has {t.ndim} dimensions, expected 1")
    names = [n for n, _, _ in columns]
    if not c.check(t.dtype.names is not None and list(t.dtype.names) == names,
                   f"/{name} columns {t.dtype.names}, expected {names} (a new column must be added to "
                   f"docs/output-schema.md and to this script)"):
        return None
    for col, kind, _ in columns:
        dt = t.dtype.fields[col][0]
        if kind == "text":
            c.check(h5py.check_string_dtype(dt) is not None, f"/{name}.{col} is {dt}, expected a string")
        elif kind == "int":
            c.check(dt == np.dtype("<i8"), f"/{name}.{col} is {dt}, expected <i8")
        else:
            c.check(dt == np.dtype("<f8"), f"/{name}.{col} is {dt}, expected <f8")
    units = [as_text(u) for u in t.attrs.get("units", [])]
    c.check(units == [u for _, _, u in columns], f"/{name} units {units}, expected {[u for _, _, u in columns]}")
    c.check(as_text(t.attrs.get("description", "")).strip() != "", f"/{name} has no description")
    return t[...]


def read_step_file(path, c):
    """The root attributes and the five tables of a `podsim run` file: (attrs dict, {table: rows})."""
    import h5py
    import numpy as np

    with h5py.File(path, "r") as f:
        attrs = {}
        for key in ("podsim_version", "command_line", "config_yaml", "schema_version"):
            if c.check(key in f.attrs, f"root attribute {key!r} missing"):
                attrs[key] = f.attrs[key]
        if "schema_version" in attrs:
            v = attrs["schema_version"]
            c.check(np.issubdtype(np.asarray(v).dtype, np.integer) and int(v) == 1,
                    f"schema_version = {v!r}, expected the integer 1")
        for key in ("podsim_version", "command_line", "config_yaml"):
            if key in attrs:
                attrs[key] = as_text(attrs[key])
        tables = {}
        for name, cols in STEP_TABLES.items():
            if name == "summary" and name in f and (f[name].dtype.names or ())[-1:] == ("comms_renamed",):
                cols = cols + CONTENTION_COLUMNS
            tables[name] = check_table(f, name, cols, c)
    return attrs, tables


def parse_config(text, c):
    try:
        import yaml
    except ImportError:
        c.check(False, "python3-yaml is needed to parse config_yaml")
        return None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        c.check(False, f"config_yaml is not valid YAML: {e}")
        return None
    c.check(isinstance(doc, dict), f"config_yaml is not a mapping: {text[:200]!r}")
    return doc if isinstance(doc, dict) else None


STREAM_NAMES = ["compute", "dp reduce", "dp gather", "pp forward", "pp backward", "other comm", "tp comm"]


def check_trace(args, h5, c):
    """`podsim run --trace t.json`: Chrome trace-event JSON whose compute thread, per stage, sums to the
    step and, per category, to that stage's /breakdown (docs/output-schema.md, "Timeline trace")."""
    trace = os.path.join(args.workdir, "trace.json")
    timeline_file = os.path.join(args.workdir, "timeline.h5")
    fresh(trace)
    fresh(timeline_file)
    p = run([args.podsim, "run", args.scenario, "--trace", trace, "--timeline", "-o", timeline_file, "--json"])
    if not c.check(p.returncode == 0 and os.path.isfile(trace), f"--trace: exit {p.returncode}, {p.stderr.strip()}"):
        return
    try:
        with open(trace, encoding="utf-8") as fh:
            doc = json.load(fh)
    except json.JSONDecodeError as e:
        c.check(False, f"--trace wrote invalid JSON: {e}")
        return
    events = doc.get("traceEvents")
    if not c.check(isinstance(events, list) and events, "--trace: no traceEvents list"):
        return
    c.check(doc.get("otherData", {}).get("truncated") is False, "--trace: a small step was truncated")
    _, tables = read_step_file(h5, c)
    breakdown = tables["breakdown"]
    step = float(tables["summary"][0]["step_time_s"])
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
             and not e["args"]["name"].startswith("busiest links")}
    stages = sorted(int(r["stage"]) for r in breakdown)
    c.check(sorted(names) == stages, f"--trace processes {sorted(names)} are not the stages {stages}")
    for e in events:
        if e.get("ph") == "X":
            if not c.check(all(k in e for k in ("name", "cat", "ts", "dur", "pid", "tid")) and e["dur"] >= 0,
                           f"--trace: malformed event {e}"):
                return
    for row in breakdown:
        stage = int(row["stage"])
        per = {}
        for e in events:
            if e.get("ph") == "X" and e["pid"] == stage and e["tid"] == 0:
                per[e["cat"]] = per.get(e["cat"], 0.0) + e["dur"] / 1e6
        c.close(sum(per.values()), step, f"--trace stage {stage}: compute thread sums to the step", rel=1e-6)
        for name, column in zip(CATEGORY_NAMES, CATEGORY_COLUMNS):
            c.check(math.isclose(per.get(name, 0.0), float(row[column]), rel_tol=1e-6, abs_tol=1e-9),
                    f"--trace stage {stage}: {name} {per.get(name, 0.0)} s vs /breakdown {column} {float(row[column])} s")
    # Flow arrows: one start on a sender's pipeline stream, one finish on the next or previous
    # stage's compute stream (the last stage sends to the first with interleaving), no earlier;
    # arrows only where there is a pipeline.
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    finishes = {e["id"]: e for e in events if e.get("ph") == "f"}
    c.check(starts.keys() == finishes.keys(), "--trace: flow starts and finishes do not pair up")
    c.check(bool(starts) == (len(stages) > 1), f"--trace: {len(starts)} flow arrows for {len(stages)} stages")
    for i, s in starts.items():
        f = finishes.get(i)
        if f is None:
            continue
        if not c.check(s["tid"] in (3, 4) and f["tid"] == 0 and abs(s["pid"] - f["pid"]) in (1, len(stages) - 1)
                       and f["ts"] >= s["ts"],
                       f"--trace: flow {s} -> {f} is not a pipeline message forward in time"):
            break
    # Counter tracks: at most four link classes, each a load between 0 and 100 % over time,
    # in a process of their own after the stages.
    counters = [e for e in events if e.get("ph") == "C"]
    c.check(0 < len({e["name"] for e in counters}) <= 4, f"--trace: {len({e['name'] for e in counters})} link counters")
    c.check(all(0 <= e["args"]["busy %"] <= 100 + 1e-9 for e in counters), "--trace: a link counter outside 0-100 %")
    c.check(all(e["pid"] == max(stages) + 1 for e in counters), "--trace: link counters not in their own process")
    # The same intervals as the /timeline table of the -o file (--timeline).
    import h5py
    with h5py.File(timeline_file, "r") as f:
        timeline = f["timeline"][()]
    xs = [e for e in events if e.get("ph") == "X" and e["tid"] < len(STREAM_NAMES)]
    c.check(len(timeline) == len(xs), f"/timeline has {len(timeline)} rows, the trace {len(xs)} stream intervals")
    for row in breakdown:
        stage = int(row["stage"])
        compute = timeline[(timeline["stage"] == stage) & (timeline["stream"] == b"compute")]
        c.close(float(compute["duration_s"].sum()), step, f"/timeline stage {stage}: compute stream sums to the step",
                rel=1e-9)
        for name, column in zip(CATEGORY_NAMES, CATEGORY_COLUMNS):
            got = float(compute[compute["category"] == name.encode()]["duration_s"].sum())
            c.check(math.isclose(got, float(row[column]), rel_tol=1e-9, abs_tol=1e-12),
                    f"/timeline stage {stage}: {name} {got} s vs /breakdown {column} {float(row[column])} s")


def check_step_file(path, scenario, c, expect_fits=True, expect_tier=None):
    """Everything docs/output-schema.md promises of a `podsim run` file. Returns (config, summary row)."""
    attrs, tables = read_step_file(path, c)
    line = attrs.get("command_line", "")
    c.check(" run " in f" {line} " and scenario in line and path in line,
            f"command_line {line!r} is not the command run")
    config = parse_config(attrs.get("config_yaml", ""), c)
    summary, breakdown, memory, links = (tables[n] for n in ("summary", "breakdown", "memory", "links"))
    if summary is None or not c.check(len(summary) == 1, f"/summary has {len(summary)} rows, expected 1"):
        return config, None
    s = summary[0]
    model = as_text(s["model"])
    if config is not None:
        name = config.get("model", {}).get("name") if isinstance(config.get("model"), dict) else None
        c.check(name == model, f"config_yaml model.name = {name!r}, /summary model = {model!r}")
        c.check(model in attrs["config_yaml"], f"config_yaml does not mention the model {model!r}")
        c.check(config.get("topology", {}).get("name") == as_text(s["topology"]),
                f"config_yaml topology.name differs from /summary topology {as_text(s['topology'])!r}")

    chips, dp, tp, pp = (int(s[k]) for k in ("chips", "dp", "tp", "pp"))
    step = float(s["step_time_s"])
    c.check(dp * tp * pp == chips, f"dp x tp x pp = {dp} x {tp} x {pp} != chips {chips}")
    c.check(step > 0 and math.isfinite(step), f"step_time_s = {step}")
    gb, mb, seq = int(s["global_batch"]), int(s["micro_batch"]), int(s["seq_len"])
    c.check(int(s["microbatches"]) * dp * mb == gb,
            f"microbatches {int(s['microbatches'])} x dp {dp} x micro_batch {mb} != global_batch {gb}")
    path = tables.get("critical_path")
    if path is not None and c.check(len(path) > 0, "/critical_path is empty"):
        # Pieces follow each other from 0 to the step's end (docs/output-schema.md).
        c.check(float(path[0]["start_s"]) == 0, f"/critical_path starts at {float(path[0]['start_s'])} s, not 0")
        c.close(float(path[-1]["end_s"]), step, "/critical_path ends at step_time_s")
        for a, b in zip(path[:-1], path[1:]):
            if not c.check(float(b["start_s"]) == float(a["end_s"]), "/critical_path has a gap or an overlap"):
                break
        c.close(sum(float(r["duration_s"]) for r in path), step, "/critical_path durations sum to step_time_s")
    if step > 0:
        c.close(float(s["tokens_per_s"]), gb * seq / step, "tokens_per_s = global_batch x seq_len / step_time_s")
        c.close(float(s["samples_per_s"]), gb / step, "samples_per_s = global_batch / step_time_s")
    mfu, hfu = float(s["mfu"]), float(s["hfu"])
    c.check(0 < mfu < 1 and 0 < hfu < 1, f"expected 0 < mfu, hfu < 1, got mfu {mfu}, hfu {hfu}")
    # The standard count behind MFU charges the whole s x s attention; causal flash attention
    # executes only the blocks on or below the diagonal (docs/runtime.md §5), so only without it
    # must the executed FLOPs (HFU) cover the standard count.
    flash = bool(config and isinstance(config.get("training"), dict) and config["training"].get("flash_attention"))
    if not flash:
        c.check(mfu <= hfu, f"expected mfu <= hfu without flash attention, got mfu {mfu}, hfu {hfu}")
    if float(s["model_flops"]) > 0:
        c.close(hfu / mfu, float(s["hardware_flops"]) / float(s["model_flops"]),
                "hfu / mfu = hardware_flops / model_flops")
    c.check(int(s["fits_in_memory"]) == (1 if expect_fits else 0),
            f"fits_in_memory = {int(s['fits_in_memory'])}, expected {1 if expect_fits else 0}")
    c.check(as_text(s["network"]) in ("analytical", "contention"), f"network {as_text(s['network'])!r}")
    counts = [n for n, _, _ in CONTENTION_COLUMNS]
    if as_text(s["network"]) == "contention":
        if c.check(all(n in s.dtype.names for n in counts), f"a contention run's /summary lacks {counts}"):
            flows, chunks, one, renamed = (int(s[n]) for n in counts)
            c.check(flows >= 0 and chunks >= 0 and flows + chunks >= 1,
                    f"comms_as_flows {flows}, comms_as_chunks {chunks}: a step simulates something")
            c.check(0 <= one <= flows + chunks, f"comms_on_one_group {one} of {flows + chunks}")
            c.check(0 <= renamed < flows + chunks, f"comms_renamed {renamed} of {flows + chunks}: one at least is simulated")
    else:
        c.check(not any(n in s.dtype.names for n in counts), f"an analytical run's /summary has {counts}")
    c.check(as_text(s["schedule"]) in ("gpipe", "1f1b", "interleaved"), f"schedule {as_text(s['schedule'])!r}")
    c.check(as_text(s["recompute"]) in ("none", "selective", "full"), f"recompute {as_text(s['recompute'])!r}")

    if breakdown is not None and c.check(len(breakdown) == pp, f"/breakdown has {len(breakdown)} rows, expected pp = {pp}"):
        c.check(int(s["representatives"]) == len(breakdown),
                f"representatives {int(s['representatives'])} != /breakdown rows {len(breakdown)}")
        c.check(sorted(int(r["stage"]) for r in breakdown) == list(range(pp)), "/breakdown stages are not 0..pp-1")
        for r in breakdown:
            where = f"/breakdown stage {int(r['stage'])}"
            c.check(int(r["multiplicity"]) * len(breakdown) == chips,
                    f"{where}: multiplicity {int(r['multiplicity'])} x {len(breakdown)} rows != {chips} chips")
            parts = [float(r[n]) for n in CATEGORY_COLUMNS]
            c.check(all(v >= 0 for v in parts), f"{where}: a negative category: {parts}")
            c.close(sum(parts), step, f"{where}: the 11 categories sum to step_time_s", rel=REL)
            c.close(float(r["total_s"]), step, f"{where}: total_s = step_time_s", rel=REL)
            c.check(float(r["overlapped_dp_s"]) >= 0 and float(r["overlapped_pp_s"]) >= 0, f"{where}: negative overlap")
            compute_s = sum(float(r[n]) for n in CATEGORY_COLUMNS[:4])
            c.check(0 <= float(r["compute_slowed_s"]) <= compute_s * (1 + REL),
                    f"{where}: compute_slowed_s {float(r['compute_slowed_s'])} outside [0, compute {compute_s}]")
            c.check(0 <= float(r["compute_host_bound_s"]) <= compute_s * (1 + REL),
                    f"{where}: compute_host_bound_s {float(r['compute_host_bound_s'])} outside [0, compute {compute_s}]")
            c.check(float(r["flops"]) > 0, f"{where}: flops = {float(r['flops'])}")
            c.check(float(r["padded_flops"]) >= float(r["flops"]), f"{where}: padded_flops < flops")
        c.close(sum(float(r["flops"]) * int(r["multiplicity"]) for r in breakdown), float(s["hardware_flops"]),
                "sum of /breakdown flops x multiplicity = hardware_flops")
    if memory is not None and c.check(len(memory) == pp, f"/memory has {len(memory)} rows, expected pp = {pp}"):
        peak = 0.0
        for r in memory:
            where = f"/memory stage {int(r['stage'])}"
            c.check(int(r["multiplicity"]) * len(memory) == chips,
                    f"{where}: multiplicity {int(r['multiplicity'])} x {len(memory)} rows != {chips} chips")
            c.close(sum(float(r[n]) for n in MEMORY_PARTS), float(r["total_bytes"]), f"{where}: parts sum to total_bytes")
            c.close(float(r["capacity_bytes"]), float(s["hbm_capacity_bytes"]), f"{where}: capacity_bytes")
            fits = float(r["total_bytes"]) <= float(r["capacity_bytes"])
            c.check(int(r["fits"]) == (1 if fits else 0), f"{where}: fits = {int(r['fits'])} but total {float(r['total_bytes'])}"
                    f" vs capacity {float(r['capacity_bytes'])}")
            peak = max(peak, float(r["total_bytes"]))
        c.close(float(s["memory_peak_bytes"]), peak, "memory_peak_bytes = largest /memory total_bytes")
        c.check(int(s["fits_in_memory"]) == (1 if all(int(r["fits"]) for r in memory) else 0),
                "fits_in_memory disagrees with /memory fits")
    if links is not None:
        busiest = 0.0
        for r in links:
            where = f"/links link {int(r['link'])}"
            c.check(as_text(r["tier"]) in TIERS, f"{where}: tier {as_text(r['tier'])!r}")
            c.check(float(r["bytes"]) > 0, f"{where}: bytes = {float(r['bytes'])} (only links with traffic are listed)")
            u = float(r["utilization"])
            c.check(0 <= u <= 1, f"{where}: utilization {u}")
            if step > 0:
                c.close(u, float(r["busy_s"]) / step, f"{where}: utilization = busy_s / step_time_s")
            busiest = max(busiest, u)
        c.close(float(s["busiest_link_utilization"]), busiest, "busiest_link_utilization = largest /links utilization")
        if expect_tier is not None:
            carried = sum(float(r["bytes"]) for r in links if as_text(r["tier"]) == expect_tier)
            c.check(carried > 0, f"no traffic on {expect_tier} links in /links")
    return config, s


def check_step_json(text, c):
    """The --json object of `podsim run`; returns it or None."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        c.check(False, f"--json printed invalid JSON ({e}):\n{text}")
        return None
    if not c.check(isinstance(doc, dict), "--json did not print an object"):
        return None
    keys = ("scenario", "model", "chips", "dp", "tp", "pp", "zero", "micro_batch", "global_batch", "step_time_s",
            "tokens_per_s", "samples_per_s", "mfu", "hfu", "fits_in_memory", "memory_peak_bytes",
            "busiest_link_utilization", "breakdown", "memory", "critical_path")
    missing = [k for k in keys if k not in doc]
    if not c.check(not missing, f"--json lacks {missing}"):
        return None
    # The pacing stage's /breakdown row and the fullest stage's /memory row, by their column names.
    b = doc["breakdown"]
    c.check(all(col in b for col in CATEGORY_COLUMNS), f"breakdown keys {sorted(b)} lack a category column")
    c.close(sum(b[col] for col in CATEGORY_COLUMNS), doc["step_time_s"], "--json breakdown sums to step_time_s", rel=REL)
    m = doc["memory"]
    parts = ("weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes")
    if c.check(all(k in m for k in parts + ("total_bytes",)), f"--json memory keys {sorted(m)}"):
        c.close(sum(m[k] for k in parts), m["total_bytes"], "--json memory parts sum to total_bytes", rel=1e-12)
        c.close(m["total_bytes"], doc["memory_peak_bytes"], "--json memory is the fullest stage's", rel=1e-12)
    c.check(0 < doc["mfu"] < 1 and 0 < doc["hfu"] < 1, f"--json: expected 0 < mfu, hfu < 1, got {doc['mfu']}, {doc['hfu']}")
    path = doc["critical_path"]
    if c.check(isinstance(path, list) and path, "--json critical_path is not a non-empty list"):
        c.close(sum(p["duration_s"] for p in path), doc["step_time_s"], "--json critical_path sums to step_time_s", rel=REL)
        c.check(all(a["duration_s"] >= b["duration_s"] for a, b in zip(path, path[1:])),
                "--json critical_path not largest first")
    return doc


def fresh(path):
    if os.path.exists(path):
        os.remove(path)


def cmd_run(args):
    c = Checker()
    what = f"run {os.path.basename(args.scenario)}"
    os.makedirs(args.workdir, exist_ok=True)
    summary = None
    if not args.json_only:
        out = os.path.join(args.workdir, "out.h5")
        first = os.path.join(args.workdir, "first.h5")
        fresh(out)
        fresh(first)
        command = [args.podsim, "run", args.scenario, "-o", out]
        p = run(command)
        if not c.check(p.returncode == 0, f"exit code {p.returncode}: {p.stderr.strip()}"):
            return c.finish(what)
        c.check(p.stderr == "", f"stderr is not empty: {p.stderr!r}")
        c.check("step" in p.stdout and "MFU" in p.stdout, f"no report on stdout:\n{p.stdout}")
        if not c.check(os.path.isfile(out), f"{out} was not written"):
            return c.finish(what)
        _, summary = check_step_file(out, args.scenario, c, expect_tier=args.expect_tier)
        # Determinism: the same command (same output path: command_line is stored) again.
        shutil.move(out, first)
        p = run(command)
        c.check(p.returncode == 0, f"second run: exit code {p.returncode}")
        if c.check(os.path.isfile(out), "the second run wrote no file"):
            c.check(filecmp.cmp(first, out, shallow=False), f"two runs of the same command differ: {first} {out}")
        leftovers = [n for n in os.listdir(args.workdir) if ".tmp." in n]
        c.check(not leftovers, f"temporary files left behind: {leftovers}")
        check_trace(args, out, c)
    if args.same_as:
        # A variant of another scenario: equal to it except for name and network.
        import yaml
        docs = []
        for path in (args.scenario, args.same_as):
            with open(path, encoding="utf-8") as fh:
                doc = yaml.safe_load(fh)
            docs.append({k: v for k, v in doc.items() if k not in ("name", "network")})
        c.check(docs[0] == docs[1], f"{args.scenario} differs from {args.same_as} in more than name and network")
    p = run([args.podsim, "run", args.scenario, "--json"])
    if c.check(p.returncode == 0, f"--json: exit code {p.returncode}: {p.stderr.strip()}"):
        doc = check_step_json(p.stdout, c)
        if doc is not None:
            c.check(doc["fits_in_memory"] == 1, f"--json fits_in_memory = {doc['fits_in_memory']!r}")
            c.check(doc["dp"] * doc["tp"] * doc["pp"] == doc["chips"], "--json: dp x tp x pp != chips")
            if summary is not None:
                # One vocabulary: every /summary column is in the JSON under its name, same value.
                for key in summary.dtype.names:
                    if not c.check(key in doc, f"--json lacks the /summary column {key}"):
                        continue
                    want = summary[key]
                    if isinstance(want, bytes):
                        c.check(doc[key] == as_text(want), f"--json {key} {doc[key]!r} vs /summary {as_text(want)!r}")
                    elif float(want) != float(want):  # NaN is null in JSON
                        c.check(doc[key] is None, f"--json {key} {doc[key]!r} vs /summary NaN")
                    else:
                        c.close(float(doc[key]), float(want), f"--json {key} vs /summary", rel=1e-12)
    return c.finish(what)


def cmd_run_set(args):
    c = Checker()
    what = f"run {os.path.basename(args.scenario)} --set training.micro_batch=2"
    os.makedirs(args.workdir, exist_ok=True)
    out = os.path.join(args.workdir, "out.h5")
    fresh(out)
    p = run([args.podsim, "run", args.scenario, "--set", "training.micro_batch=2", "-o", out])
    if not c.check(p.returncode == 0, f"exit code {p.returncode}: {p.stderr.strip()}") or \
            not c.check(os.path.isfile(out), f"{out} was not written"):
        return c.finish(what)
    config, s = check_step_file(out, args.scenario, c)
    if config is not None:
        mb = config.get("training", {}).get("micro_batch")
        c.check(mb == 2, f"config_yaml training.micro_batch = {mb!r}, expected 2")
    if s is not None:
        c.check(int(s["micro_batch"]) == 2, f"/summary micro_batch = {int(s['micro_batch'])}, expected 2")
        c.check(int(s["microbatches"]) == int(s["global_batch"]) // (2 * int(s["dp"])),
                f"/summary microbatches = {int(s['microbatches'])}, expected global_batch / (2 dp)")
    with __import__("h5py").File(out, "r") as f:
        line = as_text(f.attrs["command_line"])
    c.check("training.micro_batch=2" in line, f"command_line {line!r} lacks the --set")
    return c.finish(what)


def cmd_run_oom(args):
    c = Checker()
    sets = [a for kv in args.set for a in ("--set", kv)]
    what = f"run {os.path.basename(args.scenario)} {' '.join(sets)} (does not fit)"
    os.makedirs(args.workdir, exist_ok=True)
    # Without --allow-oom: the report is printed and the file written, then podsim fails (exit 1).
    out = os.path.join(args.workdir, "out.h5")
    fresh(out)
    p = run([args.podsim, "run", args.scenario, *sets, "-o", out])
    c.check(p.returncode == 1, f"exit code {p.returncode}, expected 1: {p.stderr.strip()}")
    c.check(p.stderr.startswith("podsim: simulation failed: ") and "does not fit in memory" in p.stderr,
            f"stderr {p.stderr!r} does not say 'podsim: simulation failed: ... does not fit in memory'")
    c.check("--allow-oom" in p.stderr, "the message does not mention --allow-oom")
    c.check("DOES NOT FIT" in p.stdout, f"the report on stdout does not say DOES NOT FIT:\n{p.stdout}")
    if c.check(os.path.isfile(out), "no file written (podsim writes the report before failing)"):
        check_step_file(out, args.scenario, c, expect_fits=False)
    # With --allow-oom: exit 0, fits_in_memory = 0.
    out2 = os.path.join(args.workdir, "allow-oom.h5")
    fresh(out2)
    p = run([args.podsim, "run", args.scenario, *sets, "--allow-oom", "-o", out2, "--json"])
    c.check(p.returncode == 0, f"--allow-oom: exit code {p.returncode}: {p.stderr.strip()}")
    c.check(p.stderr == "", f"--allow-oom: stderr is not empty: {p.stderr!r}")
    if c.check(os.path.isfile(out2), "--allow-oom: no file written"):
        check_step_file(out2, args.scenario, c, expect_fits=False)
    doc = check_step_json(p.stdout, c) if p.returncode == 0 else None
    if doc is not None:
        c.check(doc["fits_in_memory"] == 0, f"--allow-oom --json fits_in_memory = {doc['fits_in_memory']!r}")
    leftovers = [n for n in os.listdir(args.workdir) if ".tmp." in n]
    c.check(not leftovers, f"temporary files left behind: {leftovers}")
    return c.finish(what)


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
    p = sub.add_parser("run")
    for a in ("podsim", "scenario", "workdir"):
        p.add_argument(a)
    p.add_argument("--json-only", action="store_true")
    p.add_argument("--expect-tier")
    p.add_argument("--same-as")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("run-set")
    for a in ("podsim", "scenario", "workdir"):
        p.add_argument(a)
    p.set_defaults(func=cmd_run_set)
    p = sub.add_parser("run-oom")
    for a in ("podsim", "scenario", "workdir"):
        p.add_argument(a)
    p.add_argument("--set", action="append", required=True)
    p.set_defaults(func=cmd_run_oom)
    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
