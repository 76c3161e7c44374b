#!/usr/bin/env python3
"""Baton app benchmark: key-to-peer latency, continue latency, idle cost.

Run as root against release builds (`swift build -c release`):

    sudo python3 bench/app_bench.py

It makes its own netlab lab of two hosts (network namespaces on a bridge, nothing attached
to this machine's interfaces, so no multicast leaves the machine) and always removes it.

  key-to-peer  `baton` (counter) on host A in a pty this script owns; `baton peer listen
               --json` on host B. `+` is written --presses times, --gap-ms apart; for each
               press: from the write to B's JSON line showing that count (first line with a
               count >= it). Both times are this machine's CLOCK_REALTIME: B's "time" field
               (ms resolution), and, beside it, when the line reached this script.
  continue     with A's counter current, `baton --continue-activity` on host B in a pty,
               --continues times: from spawn to the first output that puts the count on
               the screen (a small terminal emulator replays the pty output), then `q`.
               Beside it `baton --version` spawn-to-exit, the same number of times.
  idle         a fresh `baton` counter, idle for --idle-seconds: CPU time (utime+stime of
               /proc/PID/stat) over the period as a percentage of one core, and RSS
               (/proc/PID/status VmRSS sampled every 250 ms, and VmHWM).

  --unicast    after the rest, key-to-peer again with host B dropping every packet to the
               multicast group (nftables) and A's counter given B by `BATON_PEERS`: the same
               presses by unicast, against the multicast figure of the same run (target:
               p50 within 10 %).

Python 3 with `cryptography`; the lab, meters, listener, terminal and report are bench/batonlab.
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
from batonlab.lab import COUNTER, Counter, PtyProgram  # noqa: E402
from batonlab.listener import Listener  # noqa: E402
from batonlab.terminal import shows_count  # noqa: E402

TARGETS = {
    "key_p99_ms": 30.0,
    "continue_median_ms": 100.0,
    "continue_over_version_ms": 60.0,
    "idle_cpu_percent": 0.5,
    "idle_rss_mb": 30.0,
    "unicast_over_multicast_percent": 10.0,
}
GROUP = "239.255.77.88"
TABLE = "benchpeers"


def drop_multicast(run, host):
    """Host `host` drops every packet arriving for the group, as a network without multicast would."""
    ns = run.lab.namespace(host)
    for rule in (["add", "table", "ip", TABLE],
                 ["add", "chain", "ip", TABLE, "input", "{ type filter hook input priority -10 ; }"],
                 ["add", "rule", "ip", TABLE, "input", "ip", "daddr", GROUP, "counter", "drop"]):
        subprocess.run(["ip", "netns", "exec", ns, "nft"] + rule, check=True, preexec_fn=lab.clean_child_signals)


def watched_counter(run, name, env=None):
    """A counter `name` on host A and a listener on host B that has heard it; both stopped on failure."""
    listener = Listener("bench-listener", run.lab.namespace(2), run.peer, run.env, run.scratch, run.lifetime)
    a = Counter(name, run.lab.namespace(1), run.baton, env or run.env)
    try:
        a.wait_shown(0, 15)
        if not listener.wait_count(name, 0, 10):
            raise RuntimeError(f"host B never heard host A's counter {name}")
        return a, listener
    except BaseException:
        a.stop()
        listener.stop()
        raise


def key_to_peer(run, presses, name="bench-a", env=None):
    """Starts A's counter and B's listener, presses `+` `presses` times; returns both and the figures."""
    a, listener = watched_counter(run, name, env)
    try:
        writes = a.press_paced(presses, run.args.gap_ms / 1000)
        if not listener.wait_count(name, presses, 10):
            print(f"warning: B heard only up to {listener.highest.get(name)}", file=sys.stderr)
        stamped, arrived, missed = listener.latencies(name, writes)
        lines = sum(1 for c, _, _ in listener.heard(name) if c > 0)
        return a, listener, {"stamped": stamped, "arrived": arrived, "missed": missed, "lines": lines}
    except BaseException:
        a.stop()
        listener.stop()
        raise


def continue_latency(run, count):
    """`baton --continue-activity` on host B, spawn → count on screen; `baton --version` spawn → exit."""
    continued, versions, failures = [], [], []
    argv = [run.baton, "--continue-activity", COUNTER, "--from", "bench-a", "--wait", "5", "--name", "bench-b"]
    for attempt in range(1, run.args.continues + 1):
        b = PtyProgram(run.lab.namespace(2), argv, run.env, drain_thread=False)
        shown = None
        deadline = time.monotonic() + 10
        try:
            while time.monotonic() < deadline:
                if not b.read_some(0.05):
                    break
                if shows_count(b.screen.lines(), count):
                    shown = time.perf_counter()
                    break
            if shown is None:
                failures.append(f"run {attempt}: {b.error_tail()[:300]}")
            else:
                continued.append((shown - b.started) * 1000)
            b.write(b"q")
            if b.wait(5) is None:
                failures.append(f"run {attempt}: did not quit on q")
        finally:
            b.stop()
    for _ in range(run.args.continues):
        v = PtyProgram(run.lab.namespace(2), [run.baton, "--version"], run.env, drain_thread=False)
        try:
            if v.wait(10) is not None:
                versions.append((time.perf_counter() - v.started) * 1000)
        finally:
            v.stop()
    return {"continue": continued, "version": versions, "failures": failures}


def idle(run):
    """A fresh counter left alone for --idle-seconds: its CPU, and its RSS sampled every 250 ms."""
    p, listener = watched_counter(run, "bench-idle")
    try:
        with open(f"/proc/{p.pid}/comm") as f:
            comm = f.read().strip()
        cpu, rss = meters.watch([p], run.args.idle_seconds, 0.25)
        percent, seconds = cpu["per_pid"][p.pid], cpu["seconds"]
        return {"comm": comm, "cpu_percent": percent, "cpu_seconds": percent * seconds / 100, "seconds": seconds,
                "rss_mb": max(rss[p.pid]) / 1024, "hwm_mb": meters.status_kb(p.pid, "VmHWM") / 1024}
    finally:
        p.stop()
        listener.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE, help="folder with baton (default: .build/release)")
    parser.add_argument("--presses", type=int, default=1000, help="key presses for key-to-peer (1000)")
    parser.add_argument("--gap-ms", type=float, default=20, help="milliseconds between presses (20)")
    parser.add_argument("--continues", type=int, default=20, help="runs of --continue-activity and --version (20)")
    parser.add_argument("--idle-seconds", type=float, default=30, help="idle period (30)")
    parser.add_argument("--skip-key-to-peer", action="store_true")
    parser.add_argument("--skip-continue", action="store_true")
    parser.add_argument("--skip-idle", action="store_true")
    parser.add_argument("--unicast", action="store_true",
                        help="key-to-peer again by unicast (--peer), multicast dropped on B")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    lab.check_host("app_bench.py")
    run = argparse.Namespace(args=args, lab=lab.Lab("bench", 2))
    run.baton, run.peer = lab.programs("app_bench.py", args.bin_dir)
    run.scratch = tempfile.mkdtemp(prefix="baton-bench-")
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    # Every listener ends by itself after this, whatever happens here.
    run.lifetime = int(2 * (args.presses * args.gap_ms / 1000 + 25 * args.continues + args.idle_seconds) + 120)
    lab.end_through_finally()

    results = {"machine": meters.describe_machine(meters.machine()), "bin_dir": args.bin_dir}
    table = report.Table()
    try:
        run.lab.up()
        a = listener = None
        count = 0
        if not args.skip_key_to_peer or not args.skip_continue:
            # The continue runs need A's counter: with key-to-peer skipped, 5 presses set it up.
            count = 5 if args.skip_key_to_peer else args.presses
            a, listener, keys = key_to_peer(run, count)
            if not args.skip_key_to_peer:
                results["key_to_peer"] = keys
                s, r = keys["stamped"], keys["arrived"]
                p99 = report.percentile(s, 0.99)
                table.row(f"key → peer, p50 / p99 / max ({len(s)} presses, {args.gap_ms:g} ms apart)",
                          f"{report.percentile(s, 0.5):.1f} / {p99:.1f} / {max(s):.1f} ms",
                          f"p99 ≤ {TARGETS['key_p99_ms']:g} ms", p99 <= TARGETS["key_p99_ms"])
                table.row("  same, at this script (pipe included)",
                          f"{report.percentile(r, 0.5):.1f} / {report.percentile(r, 0.99):.1f} / {max(r):.1f} ms")
                table.row("  presses never seen / JSON lines for them",
                          f"{keys['missed']} / {keys['lines']}", "0 / —", keys["missed"] == 0)
        try:
            if not args.skip_continue:
                cont = continue_latency(run, count)
                results["continue"] = cont
                cm = statistics.median(cont["continue"]) if cont["continue"] else float("nan")
                vm = statistics.median(cont["version"]) if cont["version"] else float("nan")
                table.row(f"--continue-activity, spawn → count on screen, median ({len(cont['continue'])} runs)",
                          f"{cm:.1f} ms (min {min(cont['continue'], default=float('nan')):.1f}, "
                          f"max {max(cont['continue'], default=float('nan')):.1f})",
                          f"≤ {TARGETS['continue_median_ms']:g} ms", cm <= TARGETS["continue_median_ms"])
                table.row(f"--version, spawn → exit, median ({len(cont['version'])} runs)", f"{vm:.1f} ms")
                table.row("continue − version (medians)", f"{cm - vm:.1f} ms",
                          f"≤ {TARGETS['continue_over_version_ms']:g} ms", cm - vm <= TARGETS["continue_over_version_ms"])
                for failure in cont["failures"]:
                    print("continue failure:", failure, file=sys.stderr)
        finally:
            if a:
                a.stop()
            if listener:
                listener.stop()
        if args.unicast and "key_to_peer" in results:
            drop_multicast(run, 2)
            env = dict(run.env, BATON_PEERS="10.77.0.12")
            a, listener, keys = key_to_peer(run, args.presses, "bench-u", env)
            a.stop()
            listener.stop()
            results["key_to_peer_unicast"] = keys
            s, m = keys["stamped"], results["key_to_peer"]["stamped"]
            p50, m50 = report.percentile(s, 0.5), report.percentile(m, 0.5)
            over = 100 * (p50 - m50) / m50
            table.row(f"key → peer by unicast (--peer, multicast dropped on B), p50 / p99 / max ({len(s)} presses)",
                      f"{p50:.1f} / {report.percentile(s, 0.99):.1f} / {max(s):.1f} ms")
            table.row("  unicast p50 against multicast p50 (same run)", f"{over:+.1f} %",
                      f"within {TARGETS['unicast_over_multicast_percent']:g} %",
                      abs(over) <= TARGETS["unicast_over_multicast_percent"])
            table.row("  presses never seen by unicast", f"{keys['missed']}", "0", keys["missed"] == 0)
        if not args.skip_idle:
            i = results["idle"] = idle(run)
            table.row(f"idle CPU over {i['seconds']:.0f} s",
                      f"{i['cpu_percent']:.2f} % of a core ({i['cpu_seconds']:.2f} s CPU, "
                      f"counted in {1000 / meters.HZ:g} ms ticks)",
                      f"≤ {TARGETS['idle_cpu_percent']:g} %", i["cpu_percent"] <= TARGETS["idle_cpu_percent"])
            table.row("idle RSS, max VmRSS (VmHWM)", f"{i['rss_mb']:.1f} MB ({i['hwm_mb']:.1f} MB)",
                      f"≤ {TARGETS['idle_rss_mb']:g} MB", i["rss_mb"] <= TARGETS["idle_rss_mb"])
    finally:
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)

    print(f"machine: {results['machine']}")
    print(f"programs: {args.bin_dir}")
    print(table)
    report.write_json(args.json, results)


if __name__ == "__main__":
    main()
