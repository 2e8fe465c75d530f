"""Checks every validation script makes of a `podsim validate --json` report (check_published.py,
check_llm_foundry.py, check_megatron_core.py): the report itself, and that every run fits in its
chip's usable HBM with the layout simulated ("a layout that ran must fit", DESIGN.md §3)."""
import json
import subprocess


def validate(podsim, data=None):
    """The `podsim validate --json` report of `data` (None: the project's published.csv)."""
    command = [podsim, "validate", "--json"] + (["--data", data] if data else [])
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def runs_that_do_not_fit(report):
    """Failures: the rows reporting a run whose layout podsim's memory model does not fit."""
    return [f"{r['id']} ran on its hardware but podsim's memory model needs "
            f"{r['memory_gib']:.1f} of {r['capacity_gib']:.1f} GiB ({r['layout']})"
            for r in report["results"] if r["reports_run"] and not r["fits"]]


def every_row_runs_and_fits(report, data):
    """Failures of a held-out file, every row of which is a run: rows not simulated, rows not
    counted as runs, runs that do not fit."""
    failures = []
    rows = sum(1 for _ in open(data)) - 1
    if report["skipped"] or report["rows"] != rows:
        failures.append(f"{report['rows']} of {rows} rows simulated; skipped: {report['skipped_rows']}")
    failures += [f"{r['id']} is a training run but validate does not count it as one"
                 for r in report["results"] if not r["reports_run"]]
    return failures + runs_that_do_not_fit(report)
