"""How the benchmarks print their figures: a Markdown table, each figure beside its target.

BENCHMARKS.md quotes these lines; keep their wording and precision when changing them.
"""

import json
import os
import statistics
import sys

from . import meters


def percentile(values, fraction):
    """The nearest-rank percentile (`fraction` of 1) of `values`; NaN when there are none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def summary(values):
    """{n, p50, p99, max, mean} of `values`; just {n: 0} when there are none."""
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": percentile(values, 0.5), "p99": percentile(values, 0.99),
            "max": max(values), "mean": statistics.fmean(values)}


def describe(values, unit, digits=1):
    """'mean M, median P, max X unit', or '—'."""
    s = summary(values)
    if not s["n"]:
        return "—"
    return f"mean {s['mean']:.{digits}f}, median {s['p50']:.{digits}f}, max {s['max']:.{digits}f} {unit}"


def cpu_split(cpu, cpus):
    """A CpuMeter figure in words: busy, split into the lab's processes, interrupts, this script, others."""
    mc = cpu["machine"]
    top = ", ".join(f"{name} {v:g}" for name, v in cpu.get("top_others", []))
    return (f"{cpu['busy']:.0f} % busy of {100 * cpus}: lab processes {cpu['ours']:.0f}, interrupts {cpu['interrupts']:.0f}, "
            f"this script {cpu['script']:.0f}, others {cpu['others']:.0f}" + (f" ({top})" if top else "")
            + f"; user {mc['user']:.0f}, system {mc['system']:.0f}, steal {mc['steal']:.0f}")


class Table:
    """The Markdown table of figures: measure, figure, target, and ok / MISSED when there is a target."""

    def __init__(self):
        self.rows = ["| measure | figure | target | |", "| --- | --- | --- | --- |"]

    def row(self, name, figure, target="", ok=None):
        mark = "" if ok is None else ("ok" if ok else "MISSED")
        self.rows.append(f"| {name} | {figure} | {target} | {mark} |")

    def __str__(self):
        return "\n".join(self.rows)


def write_json(path, results):
    """The raw figures, for --json."""
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


def begin(args, **more):
    """Starts a lab benchmark's results: waits (up to --quiet-wait s) for a quiet machine, warning
    when it is not, then notes the machine, the programs and the load average now."""
    if args.quiet_wait > 0:
        busy = meters.wait_until_quiet(args.quiet_wait, max_load=args.max_load)
        if busy:
            print(f"warning: the machine is not quiet: {busy[:3]}", file=sys.stderr)
    return {"machine": meters.describe_machine(meters.machine()), "bin_dir": args.bin_dir,
            "load_before": os.getloadavg(), **more}


def finish(results, failures, table, json_path, print_json=False):
    """Ends a lab benchmark's output: the machine, the programs, the load before and after (taken
    now), the table, each failure, then (when asked) the results as one JSON line, and the file."""
    results["load_after"] = os.getloadavg()
    results["failures"] = failures
    print(f"machine: {results['machine']}")
    print(f"programs: {results['bin_dir']}")
    print("load average before / after: " + " ".join(f"{x:.2f}" for x in results["load_before"]) + " / "
          + " ".join(f"{x:.2f}" for x in results["load_after"]))
    print(table)
    for failure in failures:
        print("failure:", failure)
    if print_json:
        print(json.dumps(results, sort_keys=True, default=str))
    write_json(json_path, results)
