#!/usr/bin/env python3
"""Baton at scale: many peers on one bridge — convergence, traffic, cost per peer, key latency.

Run as root against release builds (`swift build -c release`):

    sudo python3 bench/scale_bench.py                  # 50 peers, about 2 minutes
    sudo python3 bench/scale_bench.py --peers 6 --window 5 --presses 50

It makes its own netlab lab (network namespaces on one bridge, nothing attached to this
machine's interfaces, so no datagram leaves the machine) of --peers hosts plus one observer
host, and always removes it, also on Ctrl-C, SIGTERM and SIGHUP.

  peers        host i runs one peer: `baton peer announce --type dev.baton.counter
               --user-info '{"count":0}' --tick count --every 1` on most hosts, and a real
               `baton` counter in a pty on --batons of them, each pressed (`+`) once a second by
               this script; so every peer's activity changes once a second. Started in host
               order, --stagger-ms apart.
  convergence  a `baton peer listen --json` beside the peer on --listeners sampled hosts (the
               last host started among them; each listener starts with its host's peer, as its
               directory), plus one on the observer host, started first. Converged when every one
               of them has heard every peer; the time is counted from the start of the last peer.
  traffic      the bridge's port counters (`ip -s link` in the lab's bridge namespace) over a
               steady --window after --settle seconds: datagrams and bytes per second put on
               the bridge (frames, Ethernet header included) and copies delivered to hosts.
  cost         utime+stime (/proc/PID/stat) of every process over the same window, as % of one
               core, and VmRSS sampled every second; announcers, batons, listeners apart, and
               the whole machine from /proc/stat (user, system, softirq) beside them.
  key → peer   `+` written --presses times, --gap-ms apart, to the pty of the `baton` on host 1;
               from each write to the observer's JSON line showing that count (its `time`
               field). First with only that baton and the observer on the bridge (two peers),
               then with all the peers chattering. A packet socket on the baton's bridge port
               (in the lab's bridge namespace) splits it at the first ANNOUNCE on the bridge
               that carries the count (opened with the run's key).

Before starting it waits (up to --quiet-wait seconds, polling every 15 s) until no
swift-build, swift-test or xctest, and no other benchmark, is running, and prints the load
average. Python 3 with `cryptography`; the lab, meters, listener, terminal and report are
bench/batonlab.
"""

import argparse
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from batonlab.lab import COUNTER, Counter, Lab, Proc  # noqa: E402
from batonlab.listener import Listener, Sniffer, aead_key  # noqa: E402

PHASE_QUIET_WAIT = 120  # s, at most, before each measuring phase (the peers keep chattering meanwhile)
OTHERS_LIMIT = 10  # % of one core used by processes not ours before a phase counts as disturbed

TARGETS = {
    "convergence_s": 2.0,
    "cpu_percent": 2.0,
    "key_p99_factor": 2.0,
}


class Presser:
    """Presses `+` on some batons once a second, in a thread, until stopped (bounded in count)."""

    def __init__(self, batons, limit_seconds):
        self.batons = list(batons)
        self.stopped = threading.Event()
        self.limit = int(limit_seconds) + 1
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()

    def _run(self):
        start = time.monotonic()
        for tick in range(self.limit):
            for baton in list(self.batons):
                try:
                    baton.press()
                except OSError:
                    pass
            if self.stopped.wait(max(0, start + tick + 1 - time.monotonic())):  # once a second
                return

    def remove(self, baton):
        self.batons = [b for b in self.batons if b is not baton]

    def add(self, baton):
        self.batons = self.batons + [baton]

    def stop(self):
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(2)


# ---------------------------------------------------------------------------------------------
# The measurements.


def press_latency(baton, observer, presses, gap, procs, sniffer=None, key=None):
    """Presses `+` `presses` times `gap` s apart; ms from each write to the observer's line with that count.

    With a sniffer on the baton's bridge port (and the AEAD key to open what it caught), also split at
    the first ANNOUNCE on the bridge that carries each count."""
    base = baton.presses
    if not observer.wait_count(baton.name, base, 10):
        raise RuntimeError(f"the observer never heard {baton.name} at {base} before the presses")
    begin_load, meter = os.getloadavg(), meters.CpuMeter(procs)
    writes = baton.press_paced(presses, gap)
    cpu = meter.end()
    del cpu["per_pid"]
    observer.wait_count(baton.name, base + presses, 10)
    time.sleep(0.2)  # the sniffer's last lines
    stamped, arrived, missed = observer.latencies(baton.name, writes, base)
    result = {"stamped": stamped, "arrived": arrived, "missed": missed, "presses": presses, "gap_ms": gap * 1000,
              "load_before": begin_load, "cpu": cpu}
    if sniffer:
        # The first ANNOUNCE on the bridge carrying each count, and the observer's line for it.
        frames = sniffer.frames(key, since=writes[0] - 1)
        to_wire, from_wire, j = [], [], 0
        for k, written in enumerate(writes, start=1):
            while j < len(frames) and frames[j][2] < base + k:
                j += 1
            if j == len(frames):
                break
            to_wire.append((frames[j][0] - written) * 1000)
            if k <= len(stamped):
                from_wire.append(stamped[k - 1] - to_wire[-1])
        sequences = [f[1] for f in frames]
        result["to_wire"], result["from_wire"] = to_wire, from_wire
        result["frames"] = len(frames)
        result["frames_missed"] = sum(b - a - 1 for a, b in zip(sequences, sequences[1:]) if b > a)
    return result


def measure_window(the_lab, procs, seconds):
    """CPU (utime+stime), RSS (sampled every second) and bridge counters over `seconds`."""
    begin_ports = the_lab.bridge_ports()
    begin_output = {p.pid: p.output_bytes for p in procs if isinstance(p, Counter)}
    cpu, rss = meters.watch(procs, seconds, 1.0)
    end_ports = the_lab.bridge_ports()
    elapsed = cpu["seconds"]
    per = []
    for p in procs:
        samples = rss[p.pid]
        per.append({"kind": p.kind, "name": p.name, "pid": p.pid, "cpu_percent": cpu["per_pid"][p.pid],
                    "rss_mb": max(samples) / 1024 if samples else None,
                    "rss_mb_last": samples[-1] / 1024 if samples else None})
        if p.pid in begin_output:  # what a baton draws on its terminal
            per[-1]["terminal_bytes_per_s"] = (p.output_bytes - begin_output[p.pid]) / elapsed
    del cpu["per_pid"]
    delta = [sum(end_ports[k][f] - begin_ports[k][f] for k in end_ports if k in begin_ports) for f in range(4)]
    return {"seconds": elapsed, "processes": per, "cpu": cpu,
            "bridge": {"datagrams_per_s": delta[0] / elapsed, "bytes_per_s": delta[1] / elapsed,
                       "delivered_per_s": delta[2] / elapsed, "delivered_bytes_per_s": delta[3] / elapsed}}


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE,
                        help="folder with baton (default: .build/release; built when missing)")
    parser.add_argument("--peers", type=int, default=50, help="peers, one per host (50; 2-98)")
    parser.add_argument("--batons", type=int, default=3, help="of them real `baton` counters in ptys (3)")
    parser.add_argument("--listeners", type=int, default=5, help="sampled hosts with a listener beside the peer (5)")
    parser.add_argument("--stagger-ms", type=float, default=100, help="between peer starts (100)")
    parser.add_argument("--converge-timeout", type=float, default=20, help="seconds to wait for convergence (20)")
    parser.add_argument("--settle", type=float, default=3, help="seconds after convergence before the window (3)")
    parser.add_argument("--window", type=float, default=15, help="steady window for traffic and cost, seconds (15)")
    parser.add_argument("--presses", type=int, default=300, help="key presses for key-to-peer, each phase (300)")
    parser.add_argument("--gap-ms", type=float, default=20, help="milliseconds between presses (20, as app_bench)")
    parser.add_argument("--skip-baseline", action="store_true", help="no two-peer key-to-peer run")
    parser.add_argument("--quiet-wait", type=float, default=600,
                        help="seconds to wait for no build/test/benchmark running (600; 0: do not wait)")
    parser.add_argument("--max-load", type=float, default=float(os.cpu_count() or 1),
                        help="before starting, also wait until the 1-minute load average is at most this "
                             "(default: the number of CPUs; a previous run's 50 peers leave it high for minutes)")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    lab.check_host("scale_bench.py")
    if not 2 <= args.peers <= 98:
        sys.exit("scale_bench.py: --peers must be 2-98 (netlab has 99 hosts, one is the observer)")
    args.batons = max(1, min(args.batons, args.peers))
    args.listeners = max(1, min(args.listeners, args.peers))
    if args.presses < 1 or args.gap_ms <= 0 or args.window < 1 or args.stagger_ms < 0:
        sys.exit("scale_bench.py: --presses ≥ 1, --gap-ms > 0, --window ≥ 1 and --stagger-ms ≥ 0, please")
    args.baton, args.peer = lab.programs("scale_bench.py", args.bin_dir, build_missing=True)
    lab.end_through_finally()

    busy = (meters.wait_until_quiet(args.quiet_wait, max_load=args.max_load) if args.quiet_wait > 0
            else meters.busy_processes())
    load_before = os.getloadavg()
    if busy:
        print("warning: still busy, measuring anyway: " + "; ".join(busy), file=sys.stderr)

    n = args.peers
    observer_host = n + 1
    interactive_host = 1
    # Batons spread over the hosts, the interactive one first; sampled listeners evenly, the last host among them.
    baton_hosts = sorted({1 + (i * n) // args.batons for i in range(args.batons)})
    sampled_hosts = sorted({max(1, round(n * (k + 1) / args.listeners)) for k in range(args.listeners)})
    peer_names = {i: (f"baton-{i}" if i in baton_hosts else f"peer-{i}") for i in range(1, n + 1)}
    names = list(peer_names.values())

    stagger = args.stagger_ms / 1000
    gap = args.gap_ms / 1000
    planned = (2 * args.presses * gap + n * stagger + args.converge_timeout + args.settle + args.window + 60)
    if args.quiet_wait > 0:
        planned += 3 * min(args.quiet_wait, PHASE_QUIET_WAIT)
    lifetime = int(planned * 2 + 120)  # every headless peer ends by itself after this, whatever happens here

    scratch = tempfile.mkdtemp(prefix="baton-scale-")
    group_key = os.urandom(32)
    key = aead_key(group_key)
    env = lab.baton_env(scratch, group_key)
    results = {"machine": dict(meters.machine(), load_before=load_before, busy_before=busy),
               "config": {k: v for k, v in vars(args).items() if k not in ("baton", "peer")},
               "baton_hosts": baton_hosts, "sampled_hosts": sampled_hosts}
    the_lab = Lab("scale", n + 1)
    everything = []  # every process started, for the teardown
    presser = None
    began = time.monotonic()

    def quiet_before(phase):
        """Before a measuring phase: waits (bounded) for other people's builds and tests to end."""
        if args.quiet_wait > 0:
            busy_now = meters.wait_until_quiet(min(args.quiet_wait, PHASE_QUIET_WAIT), poll=5)
        else:
            busy_now = meters.busy_processes()
        results.setdefault("busy_at", {})[phase] = busy_now

    try:
        print(f"lab {the_lab.name}: {n} peers + observer host; batons on hosts {baton_hosts}, "
              f"listeners on {sampled_hosts} + {observer_host}", file=sys.stderr)
        the_lab.up()

        # 1. Two peers: the interactive baton and the observer.
        observer = Listener("observer", the_lab.namespace(observer_host), args.peer, env, scratch, lifetime)
        everything.append(observer)
        time.sleep(0.3)  # let the observer join before the first announce (not needed for correctness)
        sniffer = Sniffer(the_lab, interactive_host, scratch, lifetime)
        everything.append(sniffer)
        interactive = Counter(peer_names[interactive_host], the_lab.namespace(interactive_host), args.baton, env)
        everything.append(interactive)
        if not observer.wait_count(interactive.name, 0, 15):
            raise RuntimeError("the observer never heard the interactive baton: " + interactive.error_tail()
                               + " | " + observer.error_tail())
        for _ in range(50):  # up to 5 s for the sniffer to catch the baton's first repeats
            if sniffer.frames(key):
                break
            time.sleep(0.1)  # polling its log
        else:
            print("warning: the sniffer caught nothing; no split of key → peer", file=sys.stderr)
        if not args.skip_baseline:
            quiet_before("key_two_peers")
            print(f"two peers: {args.presses} presses {args.gap_ms:g} ms apart", file=sys.stderr)
            results["key_two_peers"] = press_latency(interactive, observer, args.presses, gap, everything,
                                                     sniffer, key)

        # 2. The other peers, in host order; sampled hosts get a listener started with their peer.
        print(f"starting {n - 1} more peers, {args.stagger_ms:g} ms apart", file=sys.stderr)
        listeners = []
        starts = {}
        presser = Presser([], lifetime)
        presser.start()
        previous = time.monotonic() - stagger
        for i in range(2, n + 1):
            delay = previous + stagger - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # the stagger
            previous = time.monotonic()
            starts[i] = time.time()
            if i in sampled_hosts:
                listener = Listener(f"listen-{i}", the_lab.namespace(i), args.peer, env, scratch, lifetime)
                everything.append(listener)
                listeners.append(listener)
            if i in baton_hosts:
                b = Counter(peer_names[i], the_lab.namespace(i), args.baton, env)
                everything.append(b)
                presser.add(b)
            else:
                everything.append(Proc("announcer", peer_names[i], the_lab.namespace(i),
                                       [*args.peer, "announce", "--type", COUNTER, "--user-info", '{"count":0}',
                                        "--tick", "count", "--every", "1", "--name", peer_names[i],
                                        "--duration", "%d" % lifetime], env, scratch))
        if 1 in sampled_hosts:  # host 1 (the interactive baton) started before everything else
            listener = Listener("listen-1", the_lab.namespace(1), args.peer, env, scratch, lifetime)
            everything.append(listener)
            listeners.append(listener)
        last_start = starts.get(n, time.time())
        presser.add(interactive)  # it changes once a second too, until the loaded key run

        # 3. Convergence: every listener has heard every peer.
        watchers = listeners + [observer]
        deadline = time.monotonic() + args.converge_timeout
        converged = all([w.wait_all(names, deadline) for w in watchers])
        dead = [p for p in everything if not p.alive()]
        if dead:
            raise RuntimeError("ended early: " + "; ".join(f"{p.name}: {p.error_tail()}" for p in dead[:5]))
        conv = {"converged": converged, "last_start": last_start, "per_listener": {}}
        for w in watchers:
            first, _, _ = w.snapshot()
            missing = w.missing(names)
            latest = max((first[x][0] for x in names if x in first), default=float("nan"))
            conv["per_listener"][w.name] = {
                "complete_s": latest - last_start if not missing else None,
                "heard_last_peer_s": first[peer_names[n]][0] - last_start if peer_names[n] in first else None,
                "missing": missing}
        fulls = [v["complete_s"] for v in conv["per_listener"].values()]
        conv["convergence_s"] = max(fulls) if converged and all(f is not None for f in fulls) else None
        # Heard by the others: its own listener, started with it, may well miss its first ANNOUNCE.
        others = [v["heard_last_peer_s"] for k, v in conv["per_listener"].items() if k != f"listen-{n}"]
        conv["last_peer_heard_by_all_s"] = max(others) if others and None not in others else None
        own = conv["per_listener"].get(f"listen-{n}", {})
        conv["last_peer_directory_s"] = own.get("complete_s")
        results["convergence"] = conv
        if not converged:
            print("warning: not converged: " + "; ".join(f"{k} misses {len(v['missing'])} ({', '.join(v['missing'][:4])})"
                                                        for k, v in conv["per_listener"].items() if v["missing"]),
                  file=sys.stderr)

        # 4. Steady window: traffic and cost.
        time.sleep(args.settle)  # start-up work of the last peers done
        quiet_before("window")
        print(f"steady window, {args.window:g} s", file=sys.stderr)
        load_window = os.getloadavg()
        window = measure_window(the_lab, everything, args.window)
        window["load_before"] = load_window
        results["window"] = window

        # 5. Key → peer with everyone chattering (the other batons still pressed once a second).
        presser.remove(interactive)
        time.sleep(1.2)  # the presser's last press on it has landed
        quiet_before("key_loaded")
        print(f"{n} peers: {args.presses} presses {args.gap_ms:g} ms apart", file=sys.stderr)
        results["key_loaded"] = press_latency(interactive, observer, args.presses, gap, everything, sniffer, key)

        # What the listeners forgot (activities not heard for 3.5 s) and rejected, over the whole run.
        results["gone"] = {w.name: len(w.snapshot()[1]) for w in watchers}
        results["rejected"] = {w.name: (w.snapshot()[2] or {}).get("rejectedTotal") for w in watchers}
        results["accepted"] = {w.name: (w.snapshot()[2] or {}).get("accepted") for w in watchers}
        # Of those, the ones refused as replays: with datagrams written in sequence order and the
        # anti-replay window, a tick and a repeat falling due together must cost nothing.
        results["replay"] = {w.name: ((w.snapshot()[2] or {}).get("rejected") or {}).get("replay") for w in watchers}
    finally:
        # No signal may cut the teardown short; it is bounded (5 s for the processes, then netlab down).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        if presser:
            presser.stop()
        for p in everything:
            p.terminate()
        deadline = time.monotonic() + 5
        for p in everything:
            p.finish(deadline)
        the_lab.down()
        shutil.rmtree(scratch, ignore_errors=True)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    results["seconds"] = time.monotonic() - began
    print_report(results, args)
    report.write_json(args.json, results)


def disturbed(results):
    """Phases where other people's work took more than a tenth of a core."""
    phases = [("the steady window", results["window"]["cpu"])]
    phases += [(name, results[k]["cpu"]) for k, name in (("key_two_peers", "the two-peer key run"),
                                                         ("key_loaded", "the loaded key run")) if k in results]
    return [f"{name}: {cpu['others']:.0f} %" for name, cpu in phases if cpu["others"] > OTHERS_LIMIT]


def print_report(results, args):
    """The machine, the load, and the table of figures beside targets."""
    m = results["machine"]
    n = args.peers
    print(f"machine: {meters.describe_machine(m)}")
    print("load average before start: " + " ".join("%.2f" % x for x in m["load_before"])
          + (" (busy: " + "; ".join(m["busy_before"]) + ")" if m["busy_before"] else " (no build, test or benchmark running)"))
    w = results["window"]
    print("load average before the window: " + " ".join("%.2f" % x for x in w["load_before"]))
    for phase, busy in results.get("busy_at", {}).items():
        if busy:
            print(f"still running before {phase}: " + "; ".join(busy))
    print(f"programs: {args.bin_dir}; run took {results['seconds']:.0f} s")
    print(f"{n} peers: {n - len(results['baton_hosts'])} `baton peer announce --tick count --every 1`, "
          f"{len(results['baton_hosts'])} `baton` counters pressed once a second; listeners on hosts "
          f"{results['sampled_hosts']} + an observer host")
    print()
    table = report.Table()
    c = results["convergence"]
    conv = c["convergence_s"]
    table.row(f"full convergence from the start of the last peer ({len(c['per_listener'])} listeners × {n} peers)",
              "not converged" if conv is None else f"{conv:.2f} s",
              f"≤ {TARGETS['convergence_s']:g} s", conv is not None and conv <= TARGETS["convergence_s"])
    lp = c["last_peer_heard_by_all_s"]
    table.row("  the last peer heard by every other host's listener", "—" if lp is None else f"{lp:.2f} s")
    ld = c["last_peer_directory_s"]
    table.row("  the last peer's own listener heard every peer (its own too)", "—" if ld is None else f"{ld:.2f} s")
    gone = sum(results["gone"].values())
    rejected = sum(v or 0 for v in results["rejected"].values())
    table.row("  activities forgotten / datagrams rejected, all listeners, whole run", f"{gone} / {rejected}",
              "0 / 0", gone == 0 and rejected == 0)
    replays = sum(v or 0 for v in results["replay"].values())
    table.row("  of them refused as replay (false: nothing here replays)", f"{replays}", "0", replays == 0)
    b = w["bridge"]
    table.row(f"datagrams put on the bridge ({w['seconds']:.0f} s window)",
              f"{b['datagrams_per_s']:.1f} /s ({b['datagrams_per_s'] / n:.2f} per peer)",
              f"≈ {2 * n} /s: a tick and a repeat per peer")
    size = b["bytes_per_s"] / b["datagrams_per_s"] if b["datagrams_per_s"] else 0
    table.row("bytes put on the bridge (Ethernet frames)", f"{b['bytes_per_s'] / 1000:.1f} kB/s ({size:.0f} B per frame)")
    table.row("copies delivered to hosts", f"{b['delivered_per_s']:.0f} /s, {b['delivered_bytes_per_s'] / 1e6:.2f} MB/s",
              f"≈ {n} × datagrams")
    procs = w["processes"]
    for kind, label in (("announcer", "baton peer announce"), ("baton", "baton counter"), ("listener", "baton peer listen --json")):
        cpu = [p["cpu_percent"] for p in procs if p["kind"] == kind and p["cpu_percent"] is not None]
        rss = [p["rss_mb"] for p in procs if p["kind"] == kind and p["rss_mb"] is not None]
        if not cpu:
            continue
        target = f"≤ {TARGETS['cpu_percent']:g} %" if kind != "listener" else ""
        ok = max(cpu) <= TARGETS["cpu_percent"] if kind != "listener" else None
        table.row(f"CPU per {label} ({len(cpu)})", report.describe(cpu, "% of a core", 2), target, ok)
        table.row(f"RSS per {label}", report.describe(rss, "MB"))
        if kind == "baton":
            drawn = [p["terminal_bytes_per_s"] for p in procs if "terminal_bytes_per_s" in p]
            table.row("  terminal output per baton", report.describe(drawn, "B/s", 0))
    table.row("whole machine over the window, % of one core", report.cpu_split(w["cpu"], m["cpus"]))
    base = results.get("key_two_peers")
    loaded = results["key_loaded"]
    bs = report.summary(base["stamped"]) if base else {"n": 0}
    for label, run in (("two peers", base), (f"{n} peers", loaded)):
        if not run:
            continue
        s = report.summary(run["stamped"])
        if not s["n"]:
            table.row(f"key → peer, {label}", "no press seen", "", False)
            continue
        target, ok = "", None
        if run is loaded and bs["n"]:
            limit = TARGETS["key_p99_factor"] * bs["p99"]
            target, ok = f"p99 ≤ {TARGETS['key_p99_factor']:g} × two-peer = {limit:.1f} ms", s["p99"] <= limit
        table.row(f"key → peer, {label}: p50 / p99 / max ({s['n']} presses, {run['gap_ms']:g} ms apart)",
                  f"{s['p50']:.1f} / {s['p99']:.1f} / {s['max']:.1f} ms", target, ok)
        for key, what in (("to_wire", "key → on the bridge"), ("from_wire", "bridge → observer's line"),
                          ("arrived", "key → line at this script")):
            part = report.summary(run.get(key) or [])
            if part["n"]:
                table.row(f"  {what}", f"{part['p50']:.1f} / {part['p99']:.1f} / {part['max']:.1f} ms")
        table.row("  machine during the presses, % of one core", report.cpu_split(run["cpu"], m["cpus"]))
    missed = loaded["missed"] + (base["missed"] if base else 0)
    table.row("presses never seen", f"{missed}", "0", missed == 0)
    print(table)
    noise = disturbed(results)
    if noise:
        print(f"\nwarning: other work on this machine took more than {OTHERS_LIMIT:g} % of a core during "
              + "; ".join(noise) + " — these figures are not clean; run again on a quiet machine.")


if __name__ == "__main__":
    main()
