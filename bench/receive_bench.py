#!/usr/bin/env python3
"""The receive path: what a `baton counter` pays for each datagram it hears, beside the codec's cost.

Run as root against release builds (`swift build -c release`):

    sudo python3 bench/receive_bench.py                 # 20 peers ticking at 10 Hz, about 1 minute
    sudo python3 bench/receive_bench.py --peers 5 --window 10 --quiet-wait 0

It makes its own netlab lab (network namespaces on one bridge, nothing attached to this machine's
interfaces, so no datagram leaves the machine) of --peers hosts plus one receiver host, and always
removes it, also on Ctrl-C, SIGTERM and SIGHUP.

  peers      host i runs `baton peer announce --type dev.baton.counter --user-info '{"count":0}'
             --tick count --every EVERY`: every datagram it sends is a new revision, which a
             receiver must verify, decode and put in its directory.
  receiver   the last host runs a `baton counter` in a pty (80×24), nobody pressing it, and a
             `baton peer listen --json` beside it, which says when every peer has been heard.
  cost       utime+stime (/proc/PID/stat) of the counter and the listener over a steady --window,
             divided by the datagrams delivered to the receiver host's bridge port over the
             same window (`ip -s link` in the lab's bridge namespace): CPU per datagram heard.
  codec      `handoff-bench decode N` before the lab starts and after it is gone, in this same
             run: one 1 KB ANNOUNCE opened, verified and decoded N times, and opened and decoded
             without the signature. The figure's target is a multiple of the codec's cost.

With --perf SECONDS it also records the counter with `perf record -g` during the window and
writes the report's top entries to stderr (the CPU figures of that run are then not clean).
Before starting it waits (up to --quiet-wait seconds) until no build, test or other benchmark is
running. Python 3; the lab, meters and report are bench/batonlab.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from batonlab.lab import COUNTER, Counter, Lab, Proc  # noqa: E402
from batonlab.listener import Listener  # noqa: E402

TARGET_FACTOR = 4.0  # CPU per datagram heard ≤ 4 × the codec's cost per datagram (issue 18)


def codec_cost(bench, iterations):
    """µs per 1 KB datagram from `handoff-bench decode`: {verify: open+verify+decode, plain: open+decode}."""
    out = subprocess.run([bench, "decode", str(iterations)], capture_output=True, text=True, check=True).stdout
    verify = re.search(r"v3 open\+verify\+decode ([0-9.]+) µs", out)
    plain = re.search(r"v3 open\+decode ([0-9.]+) µs", out)
    if not verify or not plain:
        raise RuntimeError("handoff-bench decode printed no figures: " + out.strip())
    return {"verify": float(verify.group(1)), "plain": float(plain.group(1))}


def perf_report(pid, seconds, scratch):
    """`perf record -g` of `pid` for `seconds`; the report's top lines (children, by symbol)."""
    data = os.path.join(scratch, "perf.data")
    subprocess.run(["perf", "record", "-q", "-g", "-F", "2000", "-o", data, "-p", str(pid), "--", "sleep",
                    str(seconds)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--percent-limit", "1.5",
                          "--sort", "sym", "-g", "none"], capture_output=True, text=True).stdout
    return "\n".join(line for line in out.splitlines() if line.strip() and not line.startswith("#"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE,
                        help="folder with baton and handoff-bench (default: .build/release)")
    parser.add_argument("--peers", type=int, default=20, help="announcing peers, one per host (20; 1-97)")
    parser.add_argument("--every", type=float, default=0.1, help="seconds between a peer's ticks (0.1)")
    parser.add_argument("--settle", type=float, default=3, help="seconds after every peer was heard (3)")
    parser.add_argument("--window", type=float, default=20, help="steady window, seconds (20)")
    parser.add_argument("--decode-iterations", type=int, default=20000, help="for handoff-bench decode (20000)")
    parser.add_argument("--perf", type=float, default=0, metavar="SECONDS",
                        help="also perf-record the counter for this long during the window")
    parser.add_argument("--quiet-wait", type=float, default=600,
                        help="seconds to wait for no build/test/benchmark running (600; 0: do not wait)")
    parser.add_argument("--max-load", type=float, default=float(os.cpu_count() or 1),
                        help="before starting, also wait until the 1-minute load average is at most this")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    lab.check_host("receive_bench.py")
    if not 1 <= args.peers <= 97 or args.every <= 0 or args.window < 1:
        sys.exit("receive_bench.py: --peers 1-97, --every > 0 and --window ≥ 1, please")
    args.baton, args.peer = lab.programs("receive_bench.py", args.bin_dir)
    bench = os.path.join(args.bin_dir, "handoff-bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"receive_bench.py: {bench} is missing; run `swift build -c release --product handoff-bench`")
    if args.perf and not shutil.which("perf"):
        sys.exit("receive_bench.py: --perf needs perf (apt-get install linux-perf)")
    lab.end_through_finally()

    results = report.begin(args, config={k: v for k, v in vars(args).items() if k not in ("baton", "peer")})
    results["codec_before"] = codec_cost(bench, args.decode_iterations)

    n = args.peers
    receiver_host = n + 1
    names = [f"peer-{i}" for i in range(1, n + 1)]
    lifetime = int(args.settle + args.window + args.perf + 120)  # every announcer ends by itself after this
    scratch = tempfile.mkdtemp(prefix="baton-receive-")
    env = lab.baton_env(scratch, os.urandom(32))
    the_lab = Lab("recv", n + 1)
    everything = []
    failures = []
    try:
        the_lab.up()
        listener = Listener("listen", the_lab.namespace(receiver_host), args.peer, env, scratch, lifetime)
        everything.append(listener)
        counter = Counter("receiver", the_lab.namespace(receiver_host), args.baton, env)
        everything.append(counter)
        for i, name in enumerate(names, start=1):
            everything.append(Proc("announcer", name, the_lab.namespace(i),
                                   [*args.peer, "announce", "--type", COUNTER, "--user-info", '{"count":0}',
                                    "--tick", "count", "--every", f"{args.every:g}", "--name", name,
                                    "--duration", "%d" % lifetime], env, scratch))
        if not listener.wait_all(names, time.monotonic() + 20):
            raise RuntimeError(f"the listener never heard {listener.missing(names)[:4]}: " + listener.error_tail())
        time.sleep(args.settle)  # start-up work done before the window
        dead = [p for p in everything if not p.alive()]
        if dead:
            raise RuntimeError("ended early: " + "; ".join(f"{p.name}: {p.error_tail()}" for p in dead[:5]))
        port = f"p{receiver_host}"
        begin = the_lab.bridge_ports()[port]
        cpu, _ = meters.watch(everything, args.window, 1.0)
        end = the_lab.bridge_ports()[port]
        heard = end[2] - begin[2]
        results["window"] = {"seconds": cpu["seconds"], "heard": heard,
                             "counter_percent": cpu["per_pid"][counter.pid],
                             "listener_percent": cpu["per_pid"][listener.pid],
                             "announcer_percent": [cpu["per_pid"][p.pid] for p in everything if p.kind == "announcer"],
                             "machine": {k: v for k, v in cpu.items() if k != "per_pid"}}
        if args.perf:
            results["perf"] = perf_report(counter.pid, args.perf, scratch)
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        for p in everything:
            p.terminate()
        deadline = time.monotonic() + 5
        for p in everything:
            p.finish(deadline)
        the_lab.down()
        shutil.rmtree(scratch, ignore_errors=True)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    results["codec_after"] = codec_cost(bench, args.decode_iterations)

    w = results["window"]
    codec = {k: (results["codec_before"][k] + results["codec_after"][k]) / 2 for k in ("verify", "plain")}
    table = report.Table()
    rate = w["heard"] / w["seconds"]
    table.row(f"datagrams heard by the receiver host ({w['seconds']:.0f} s window)", f"{rate:.0f} /s")
    table.row("codec, 1 KB ANNOUNCE: open + verify + decode (before / after the lab)",
              f"{results['codec_before']['verify']:.1f} / {results['codec_after']['verify']:.1f} µs")
    table.row("  open + decode, no signature",
              f"{results['codec_before']['plain']:.1f} / {results['codec_after']['plain']:.1f} µs")
    for label, percent in (("baton counter", w["counter_percent"]), ("baton peer listen --json", w["listener_percent"])):
        if percent is None or not w["heard"]:
            failures.append(f"no figure for the {label}")
            continue
        per = percent / 100 * w["seconds"] / w["heard"] * 1e6
        ok = per <= TARGET_FACTOR * codec["verify"] if label == "baton counter" else None
        target = f"≤ {TARGET_FACTOR:g} × open+verify+decode = {TARGET_FACTOR * codec['verify']:.0f} µs" if ok is not None else ""
        table.row(f"{label}: CPU per datagram heard ({percent:.2f} % of a core)",
                  f"{per:.0f} µs = {per / codec['verify']:.1f} × open+verify+decode, {per / codec['plain']:.0f} × open+decode",
                  target, ok)
    announcers = [v for v in w["announcer_percent"] if v is not None]
    table.row(f"CPU per baton peer announce ({len(announcers)})", report.describe(announcers, "% of a core", 2))
    table.row("whole machine over the window, % of one core", report.cpu_split(w["machine"], os.cpu_count()))
    if "perf" in results:
        print(results["perf"], file=sys.stderr)
    report.finish(results, failures, table, args.json)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
