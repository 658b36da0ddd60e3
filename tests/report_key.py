#!/usr/bin/env python3
"""report.md's key numbers are summary.csv's: build the report of a fixture folder, parse each row
of the "Key numbers" table (the headline, its 95 % CI, n, the latency percentiles, a search's
threshold) and find the same value in summary.csv, to the digits the report prints.

Usage: report_key.py NBRUN FIXTURE_DIR"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Display units back to summary.csv's (bit/s, pkt/s, µs, trans/s ...).
UNITS = {"Gbit/s": 1e9, "Mbit/s": 1e6, "kbit/s": 1e3, "bit/s": 1, "Mpps": 1e6, "kpps": 1e3,
         "pps": 1, "ms": 1e3, "µs": 1, "trans/s": 1, "msg/s": 1, "conn/s": 1, "": 1}
NUM = r"(\d+(?:\.\d+)?)"
UNIT = r"([A-Za-zµ/]*)"


def same(text, unit, want, what):
    """text printed in unit equals want within half of its last printed digit."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    got = float(text) * UNITS[unit]
    tol = 0.5 * 10 ** -decimals * UNITS[unit] * 1.0001
    if want == "" or abs(got - float(want)) > tol:
        sys.exit(f"report_key: {what}: report.md says {text} {unit}, summary.csv {want!r}")


def key_rows(md):
    if "\n## Key numbers\n" not in md:
        sys.exit("report_key: report.md has no Key numbers block")
    block = md.split("\n## Key numbers\n", 1)[1].split("\n## ", 1)[0]
    rows = [l for l in block.splitlines() if l.startswith("| ") and "`" in l]
    if not rows:
        sys.exit("report_key: no row in the Key numbers block")
    return [[c.strip() for c in l.strip("|").split(" | ")] for l in rows]


def check_row(cells, summary):
    test, case, result, ci, n = cells
    case = case.strip("`")
    s = summary[case]
    if s["test"] != test:
        sys.exit(f"report_key: {case}: test {test}, summary.csv {s['test']}")
    if s["trials"] and s["n"] == "0":  # a search: its threshold
        m = re.search(r"\*\*" + NUM + " " + UNIT + r"\*\*", result)
        same(m.group(1), m.group(2), s["sweep_threshold"], case + " threshold")
        return 1
    m = re.search(r"\*\*" + NUM + " " + UNIT + r"\*\*", result)
    if not m:
        sys.exit(f"report_key: {case}: no headline in {result!r}")
    same(m.group(1), m.group(2), s["value_mean"], case + " mean")
    if n != s["n"]:
        sys.exit(f"report_key: {case}: n {n}, summary.csv {s['n']}")
    m = re.fullmatch(NUM + " – " + NUM + " " + UNIT + r"( \(n too small\))?", ci)
    if int(n) >= 2:
        if not m:
            sys.exit(f"report_key: {case}: no CI in {ci!r}")
        same(m.group(1), m.group(3), s["value_ci95_lo"], case + " CI low")
        same(m.group(2), m.group(3), s["value_ci95_hi"], case + " CI high")
    checked = 1
    for name, col in (("p50", "p50"), ("p99", "p99"), ("p99.9", "p999")):
        m = re.search(r"(?:^| )" + re.escape(name) + " " + NUM + " " + UNIT + r"(?: ·|$)", result)
        if m:
            same(m.group(1), m.group(2), s[f"latency_us_{col}_runmean"], f"{case} {name}")
            checked += 1
    return checked


def main():
    nbrun, fixture = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="nbt-key-")
    try:
        d = os.path.join(tmp, "r")
        shutil.copytree(fixture, d)
        env = dict(os.environ, NBRUN_GNUPLOT="none")
        subprocess.run([nbrun, "report", d], check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(os.path.join(d, "report.md"), encoding="utf-8") as f:
            md = f.read()
        with open(os.path.join(d, "summary.csv"), newline="", encoding="utf-8") as f:
            summary = {r["case_id"]: r for r in csv.DictReader(f)}
        rows = key_rows(md)
        if len(rows) != len(summary):
            sys.exit(f"report_key: {len(rows)} key rows for {len(summary)} cases")
        checked = sum(check_row(r, summary) for r in rows)
        lat = sum("p99.9 " in r[2] for r in rows)
        if lat == 0 and any(r["latency_us_p50_runmean"] for r in summary.values()):
            sys.exit("report_key: no latency row gives p50, p99 and p99.9 together")
        print(f"report_key: {len(rows)} cases, {checked} numbers equal summary.csv's")
    finally:
        shutil.rmtree(tmp)


main()
