#!/usr/bin/env python3
"""Where a key's time goes, step by step (issues 35, 38 and 34): every switch on every core around
a bench's keys, each key's write lined up with them on the same clock.

    sudo python3 bench/key_trace.py editor [--bin-dir DIR] [--keys 300]
    sudo python3 bench/key_trace.py shell [--bin-dir DIR] [--keys 200]

editor  bench/syntax_bench.py's keys: `baton edit` of its 15 MB C file with colours, nano 7.2
        with its C syntax, and the same baton on the file as plain text, 50 keys at a time in turns.
shell   bench/shell_bench.py's keys phase: `baton shell` on h1 driven from h2, and `ssh -tt`.

The bench runs as it always does (its table is printed), under `perf record -k CLOCK_MONOTONIC -a
--switch-events -e dummy` (perf's record of every switch of every core); the bench writes down
when it wrote each key (`sent_at`), so each key's window runs from its write to its screen. Then,
per program measured:

  - its key thread (the thread that ran longest inside the windows, the bench's own and the
    kernel's left out): time on a core per key, p50 / p90 / p99;
  - the median key: every task that ran in its window, in the order each first ran, with the µs it
    ran there: the steps of a key's way;
  - the slowest keys: the tasks that ran longest in each window.

perf comes with `apt-get install linux-perf`. The trace slows every step a little, the same for
every program measured.
"""

import argparse
import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The bench's own processes and the kernel's threads, left out when the key thread is picked.
NOT_A_PROGRAM = re.compile(r"^(python3|perf|swapper|kworker|ksoftirqd|rcu_|migration|kdamond|tmux)")
# A line of `perf script --show-switch-events`: the task switched in or out, its core, the time.
SWITCH = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT)")


def traced(command, trace):
    """Runs `command` (a bench) while perf records the scheduler on every core."""
    perf = subprocess.Popen(["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-a", "--switch-events", "-e", "dummy",
                             "-o", trace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        result = subprocess.run(command)
    finally:
        perf.send_signal(signal.SIGINT)
        perf.wait()
    if result.returncode != 0:
        sys.exit(f"key_trace.py: {' '.join(command)} ended with status {result.returncode}")


def runs_on_cores(trace):
    """Each task's stretches on a core, [(start, end, cpu, tid, name, whole)], from perf's own
    records of every switch (`--switch-events`): on this machine the scheduler's `sched_switch`
    tracepoint lacks about a quarter of the switches onto an idle core, these do not. A task
    switched out with no switch in seen (it was on the core when the trace began, or a record was
    lost) gets no stretch, and `whole` is False for the one it had; a step can read short, never
    long."""
    script = subprocess.run(["perf", "script", "-i", trace, "--show-switch-events", "-F", "comm,pid,tid,cpu,time"],
                            capture_output=True, text=True, check=True).stdout
    running = {}  # cpu → (start, tid, name)
    runs = []
    for line in script.splitlines():
        match = SWITCH.match(line)
        if not match:
            continue
        name, tid, cpu, at, direction = match.group(1).strip(), int(match.group(3)), int(match.group(4)), float(match.group(5)), match.group(6)
        if tid == 0:
            continue
        if direction == "IN":
            running[cpu] = (at, tid, name)
            continue
        current = running.pop(cpu, None)
        if current is not None and current[1] == tid:
            runs.append((current[0], at, cpu, tid, current[2], True))
        else:
            runs.append((at, at, cpu, tid, name, False))
    runs.sort()
    return runs


def within(runs, starts, begin, end, cut=None):
    """{(tid, name): µs on a core} inside [begin, end], in the order each first ran there. With
    `cut` (a set), the tasks with a stretch there whose switch-in the trace lacks are added to it."""
    spent = {}
    # A stretch starts before its end; those that started up to a second before may reach in.
    for start, stop, _, tid, name, whole in runs[bisect.bisect_left(starts, begin - 1.0):bisect.bisect_right(starts, end)]:
        overlap = min(stop, end) - max(start, begin)
        if overlap > 0 or (not whole and begin <= stop <= end):
            spent[(tid, name)] = spent.get((tid, name), 0) + max(overlap, 0) * 1e6
            if not whole and cut is not None:
                cut.add((tid, name))
    return spent


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def report(label, windows, runs):
    """What ran in `windows` ([(begin, end)], one per key) for the program measured as `label`."""
    if not windows:
        print(f"{label}: no keys")
        return
    starts = [run[0] for run in runs]
    cuts = [set() for _ in windows]
    spent = [within(runs, starts, begin, end, cut) for (begin, end), cut in zip(windows, cuts)]
    totals = {}
    for one in spent:
        for task, us in one.items():
            totals[task] = totals.get(task, 0) + us
    programs = [task for task in totals if not NOT_A_PROGRAM.match(task[1])]
    latency = [(end - begin) * 1e3 for begin, end in windows]
    print(f"\n{label}: {len(windows)} keys, key → screen p50 / p90 / p99 {percentile(latency, 0.5):.3f} / "
          f"{percentile(latency, 0.9):.3f} / {percentile(latency, 0.99):.3f} ms")
    if programs:
        thread = max(programs, key=lambda task: totals[task])
        on_core = [one.get(thread, 0) for one in spent]
        print(f"  its key thread {thread[1]} ({thread[0]}) on a core per key: p50 {percentile(on_core, 0.5):.0f}, "
              f"p90 {percentile(on_core, 0.9):.0f}, p99 {percentile(on_core, 0.99):.0f} µs "
              f"({sum(thread in cut for cut in cuts)} keys with a switch-in missing from the trace, read short)")
    order = sorted(range(len(windows)), key=lambda index: latency[index])
    median = order[len(order) // 2]
    print(f"  the median key ({latency[median]:.3f} ms), what ran on its way, in order (µs):")
    for (tid, name), us in spent[median].items():
        print(f"    {name} ({tid}): {us:.0f}")
    print("  the slowest keys, what ran longest in each (µs):")
    for index in reversed(order[-3:]):
        longest = sorted(spent[index].items(), key=lambda item: -item[1])[:4]
        print(f"    {latency[index]:.3f} ms: " + ", ".join(f"{name} ({tid}) {us:.0f}" for (tid, name), us in longest))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scene", choices=["editor", "shell"])
    parser.add_argument("--bin-dir", default=None, help="the release build's folder (the benches' default when not given)")
    parser.add_argument("--keys", type=int, default=None, help="keys per program (300 for editor, 200 for shell)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("key_trace.py: run as root (sudo): the benches make network namespaces, and perf traces every core")
    if not shutil.which("perf"):
        sys.exit("key_trace.py: perf not found (apt-get install -y linux-perf)")
    scratch = tempfile.mkdtemp(prefix="baton-key-trace-")
    try:
        trace, figures = os.path.join(scratch, "perf.data"), os.path.join(scratch, "keys.json")
        if args.scene == "editor":
            command = [sys.executable, os.path.join(HERE, "syntax_bench.py"), "--runs", "1", "--keys", str(args.keys or 300),
                       "--keys-json", figures]
            if args.bin_dir:
                command += ["--baton", "baton=" + os.path.join(args.bin_dir, "baton")]
        else:
            command = [sys.executable, os.path.join(HERE, "shell_bench.py"), "--skip-continue", "--skip-cat", "--skip-idle",
                       "--keys", str(args.keys or 200), "--json", figures]
            if args.bin_dir:
                command += ["--bin-dir", args.bin_dir]
        traced(command, trace)
        with open(figures) as f:
            keys = json.load(f)
        if args.scene == "shell":
            keys = {label: {"keys_ms": figure["screen_ms"], "sent_at": figure.get("sent_at", [])}
                    for label, figure in keys["keys"].items()}
        runs = runs_on_cores(trace)
        for label, figure in keys.items():
            windows = [(sent, sent + ms / 1000) for sent, ms in zip(figure.get("sent_at", []), figure["keys_ms"]) if ms is not None]
            report(label, windows, runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
