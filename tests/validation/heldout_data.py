"""What every held-out data file's check asserts first (check_llm_foundry.py,
check_megatron_core.py): `podsim validate --data FILE --json` runs, every row of the file is
expressed and simulated, and every run fits in its chip's usable HBM with the layout simulated
("a layout that ran must fit", DESIGN.md §3)."""
import json
import subprocess


def validate(podsim, data):
    """The `podsim validate --json` report of `data`."""
    return json.loads(subprocess.run([podsim, "validate", "--data", data, "--json"], check=True,
                                     capture_output=True, text=True).stdout)


def every_row_runs_and_fits(report, data):
    """Failures: rows not simulated, rows not counted as runs, runs that do not fit."""
    failures = []
    rows = sum(1 for _ in open(data)) - 1
    if report["skipped"] or report["rows"] != rows:
        failures.append(f"{report['rows']} of {rows} rows simulated; skipped: {report['skipped_rows']}")
    for r in report["results"]:
        if not r["reports_run"]:
            failures.append(f"{r['id']} is a training run but validate does not count it as one")
        elif not r["fits"]:
            failures.append(f"{r['id']} ran on its hardware but podsim's memory model needs "
                            f"{r['memory_gib']:.1f} of {r['capacity_gib']:.1f} GiB ({r['layout']})")
    return failures
