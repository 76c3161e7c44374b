#!/usr/bin/env python3
"""One program of a sensible size (issue 36): two builds of baton side by side, in the same run.

Run as root against release builds, an earlier one and this one:

    sudo python3 bench/startup_bench.py --baton before=/tmp/baton-old --baton after=.build/release/baton [--runs 30]

  size       each program stripped (a copy, as scripts/install installs it), and whether ICU's
             data (icudt) is in it.
  version    `baton --version`, spawn to exit.
  edit       `baton edit` of a 1 KB file, spawn → the first screen shows its first line (in a pty,
             80×24, in a one-host netlab lab: the session is published there and nothing leaves
             the machine), then the program is ended.

The builds take turns, run by run, so that what else the machine does falls on both alike;
the figures are medians and 90th percentiles of --runs runs. Target: no slower than the build
before.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from editor_bench import kill, make_file_of, start  # noqa: E402


def stripped_size(path, scratch):
    copy = os.path.join(scratch, "stripped")
    shutil.copy(path, copy)
    subprocess.run(["strip", copy], check=True)
    size = os.path.getsize(copy)
    with open(copy, "rb") as f:
        has_icu = b"icudt" in f.read()
    os.remove(copy)
    return size, has_icu


def version_ms(path, env):
    started = time.perf_counter()
    subprocess.run([path, "--version"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def spread(values):
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baton", action="append", default=[], metavar="LABEL=PATH", help="a build to measure (two or more)")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    batons = []
    for given in args.baton:
        label, _, path = given.rpartition("=")
        batons.append((label or path, os.path.abspath(path)))
    if len(batons) < 2:
        parser.error("give at least two builds with --baton LABEL=PATH")
    lab.check_host("startup_bench.py")
    run = argparse.Namespace(lab=lab.Lab("start", 1), through="pty", servers=0)
    run.scratch = tempfile.mkdtemp(prefix="baton-start-bench-")
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    lab.end_through_finally()
    small = os.path.join(run.scratch, "small.txt")
    make_file_of(small, 1_000)
    print(meters.describe_machine(meters.machine()))
    results = {label: {"version": [], "edit": [], "timeouts": 0} for label, _ in batons}
    try:
        run.lab.up()
        for _ in range(args.runs):
            for label, path in batons:
                results[label]["version"].append(version_ms(path, run.env))
            for label, path in batons:
                program, result = start(run, [path, "edit"], small, 10)
                kill(program)
                if result["open_ms"] is None:
                    results[label]["timeouts"] += 1
                else:
                    results[label]["edit"].append(result["open_ms"])
        table = report.Table()
        first = batons[0][0]
        base = {}
        for label, path in batons:
            size, has_icu = stripped_size(path, run.scratch)
            table.row(f"{label}: stripped size", f"{size / 1e6:.1f} MB" + (", ICU data in it" if has_icu else ""),
                      "≤ 25 MB", size <= 25_000_000)
            for key, name in [("version", "baton --version, spawn → exit"), ("edit", "baton edit 1 KB → first screen")]:
                values = results[label][key]
                if not values:
                    table.row(f"{label}: {name}", "no run finished", "", False)
                    continue
                median, p90 = spread(values)
                if label == first:
                    base[key] = median
                    table.row(f"{label}: {name}, median (p90)", f"{median:.1f} ms ({p90:.1f})", "", None)
                else:
                    table.row(f"{label}: {name}, median (p90)", f"{median:.1f} ms ({p90:.1f}), {median / base[key]:.2f}× {first}",
                              f"≤ {first}'s", median <= base[key] * 1.05)
            if results[label]["timeouts"]:
                table.row(f"{label}: edit runs with no first screen in 10 s", str(results[label]["timeouts"]), "0", False)
        print(f"{args.runs} runs each, the builds in turns")
        print(table)
    finally:
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
