#!/usr/bin/python3
"""Accuracy on published measurements: `podsim validate --json` over the project's data file
must express every row and reach a MAPE of at most 10 % overall (issue: one set of efficiency
constants per hardware generation), and no family may exceed 12 %."""
import json
import subprocess
import sys

podsim = sys.argv[1]
report = json.loads(subprocess.run([podsim, "validate", "--json"], check=True, capture_output=True, text=True).stdout)
keys = list(report.keys())
assert keys[-3:] == ["mape", "rows", "skipped"], f"--json must end with mape, rows, skipped: {keys}"
assert report["skipped"] == 0, f"rows skipped: {report['skipped_rows']}"
assert report["rows"] == 46, report["rows"]
print(f"overall MAPE {100 * report['mape']:.1f} %")
for family, mape in report["mape_by_family"].items():
    print(f"  {family}: {100 * mape:.1f} %")
    assert mape <= 0.12, f"{family}: {mape}"
assert report["mape"] <= 0.10, report["mape"]
