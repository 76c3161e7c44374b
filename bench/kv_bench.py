#!/usr/bin/env python3
"""The key-value store on the LAN (issue 21): how fast a write reaches a peer, a full store reaches a
newcomer, what a peer holding a full store costs at rest, and how concurrent writers converge.

Run as root against release builds (`swift build -c release`):

    sudo python3 bench/kv_bench.py                  # about 2 minutes
    sudo python3 bench/kv_bench.py --quiet-wait 0   # do not wait for a quiet machine

It makes its own netlab lab of 3 hosts (network namespaces on one bridge, nothing attached to this
machine's interfaces, so no datagram leaves the machine) and always removes it, also on Ctrl-C,
SIGTERM and SIGHUP. Every program shares the run's group key and identity; each host has a state
folder of its own (`XDG_STATE_HOME`), so its own stores.

  latency     `handoff-bench kv-writer` on h1 sets 200 keys, 50 ms apart, in a long-running
              process; `baton kv watch --json` on h2 prints each as it takes it. The figure is the
              watcher's line (stamped here as it arrives) minus the writer's line for that set.
  full store  `baton kv import` writes 1,024 keys of 960 bytes (1 MB, the limit) on h1, where a
              `baton kv watch` holds the store; then a `baton kv watch --json` starts on h3 with an
              empty state folder: the time from its start to its line for the 1,024th key.
  idle        both watchers, holding the full store, over --idle seconds: CPU (utime+stime from
              /proc) and resident memory.
  converge    10 `handoff-bench kv-writer`s, 4 on h1 and 3 each on h2 and h3, each setting 20
              shared keys 100 times 10 ms apart, all from the same moment: the time from the last
              write anywhere until every writer holds the same digests; and the conflicts they saw.
"""

import argparse
import base64
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters  # noqa: E402
from batonlab.lab import Lab  # noqa: E402


class Lines:
    """A program in a lab host whose standard output is read line by line, each stamped with the
    time it arrived here (time.time(), the clock the programs' own stamps use)."""

    def __init__(self, name, namespace, argv, env, scratch):
        self.name = name
        self.errpath = os.path.join(scratch, f"{name}.err")
        self.lines = []
        self.lock = threading.Lock()
        with open(self.errpath, "wb") as err:
            self.process = subprocess.Popen(["ip", "netns", "exec", namespace] + argv, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=err, env=env,
                                            preexec_fn=lab.clean_child_signals, start_new_session=True)
        self.pid = self.process.pid
        self.started = time.time()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.process.stdout:
            stamp = time.time()
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            with self.lock:
                self.lines.append((stamp, obj))

    def snapshot(self):
        with self.lock:
            return list(self.lines)

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.snapshot()):
                return True
            if self.process.poll() is not None and not self.reader.is_alive():
                return predicate(self.snapshot())
            time.sleep(0.01)
        return False

    def error_tail(self):
        try:
            with open(self.errpath, errors="replace") as f:
                return f.read()[-400:].strip()
        except OSError:
            return ""

    def stop(self, grace=3):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(2)


def percentile(values, p):
    xs = sorted(values)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run(baton, bench, the_lab, scratch, args):
    group_key = os.urandom(32)
    base = lab.baton_env(scratch, group_key)
    # One identity for the run, made before anything runs at once.
    subprocess.run([baton, "id"], env=base, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def env(host):
        e = dict(base)
        e["XDG_STATE_HOME"] = os.path.join(scratch, f"state-h{host}")
        os.makedirs(e["XDG_STATE_HOME"], exist_ok=True)
        return e

    def in_host(host, argv, name):
        return Lines(name, the_lab.namespace(host), argv, env(host), scratch)

    procs = []
    figures = {}
    try:
        # Latency: a long-running writer on h1, a watcher on h2.
        watch2 = in_host(2, [baton, "kv", "watch", "--json", "--store", "bench"], "watch-h2")
        procs.append(watch2)
        time.sleep(0.5)  # the watcher joins the group (its first line comes only with a change)
        start_at = time.time() + 1.0
        writer = in_host(1, [bench, "kv-writer", "w1", str(args.sets), str(args.sets), "50", str(start_at), "2"], "writer-h1")
        procs.append(writer)
        if not writer.wait_for(lambda ls: any(o.get("event") == "end" for _, o in ls), 30 + args.sets * 0.1):
            raise RuntimeError("the writer did not finish: " + writer.error_tail())
        watch2.wait_for(lambda ls: len({o.get("key") for _, o in ls}) >= args.sets, 5)
        sets = {o["key"]: o["t"] for _, o in writer.snapshot() if o.get("event") == "set"}
        seen = {}
        for stamp, o in watch2.snapshot():
            if o.get("key") in sets and o["key"] not in seen:
                seen[o["key"]] = stamp
        latencies = [(seen[k] - sets[k]) * 1000 for k in sets if k in seen]
        if len(sets) < args.sets:
            raise RuntimeError(f"the writer set {len(sets)} keys of {args.sets}")
        figures["latency"] = (statistics.median(latencies) if latencies else float("nan"),
                              percentile(latencies, 99) if latencies else float("nan"),
                              len(latencies), len(sets))
        writer.stop()
        watch2.stop()
        procs.remove(writer)
        procs.remove(watch2)

        # A full store on h1, held by a watcher there.
        holder = in_host(1, [baton, "kv", "watch", "--json"], "holder-h1")
        procs.append(holder)
        values = {f"key-{i:04d}": base64.b64encode(os.urandom(720)).decode() for i in range(1024)}
        path = os.path.join(scratch, "full.json")
        with open(path, "w") as f:
            json.dump(values, f)
        imported = subprocess.run(["ip", "netns", "exec", the_lab.namespace(1), baton, "kv", "import", path, "--wait", "0"],
                                  env=env(1), capture_output=True, text=True)
        if imported.returncode != 0:
            raise RuntimeError("kv import failed: " + imported.stderr.strip())
        listed = subprocess.run(["ip", "netns", "exec", the_lab.namespace(1), baton, "kv", "list", "--json"],
                                env=env(1), capture_output=True, text=True, check=True).stdout.splitlines()
        size = sum(json.loads(line)["size"] for line in listed)
        time.sleep(1.5)  # the holder takes the file (it checks once a second)
        newcomer = in_host(3, [baton, "kv", "watch", "--json"], "newcomer-h3")
        procs.append(newcomer)
        got_all = newcomer.wait_for(lambda ls: len({o.get("key") for _, o in ls}) >= 1024, 30)
        lines = newcomer.snapshot()
        keys_seen = {}
        for stamp, o in lines:
            keys_seen.setdefault(o.get("key"), stamp)
        reasons = sorted({o.get("reason") for _, o in lines})
        figures["full"] = ((max(keys_seen.values()) - newcomer.started) if got_all else None, len(keys_seen), len(listed),
                           size, reasons)

        # Idle: both hold the full store.
        time.sleep(2)
        before = {p.name: meters.cpu_ns(p.pid) for p in (holder, newcomer)}
        t0 = time.monotonic()
        time.sleep(args.idle)
        elapsed = time.monotonic() - t0
        figures["idle"] = {p.name: ((meters.cpu_ns(p.pid) - before[p.name]) / 1e9 / elapsed * 100,
                                    meters.status_kb(p.pid) / 1024) for p in (holder, newcomer)}
        holder.stop()
        newcomer.stop()
        procs.remove(holder)
        procs.remove(newcomer)

        # Converge: 10 writers on 3 hosts, 20 shared keys, all at once.
        start_at = time.time() + 2.0
        writers = []
        for i in range(10):
            host = 1 if i < 4 else (2 if i < 7 else 3)
            w = in_host(host, [bench, "kv-writer", f"w{i}", "100", "20", "10", str(start_at), str(args.hold)], f"conv-{i}")
            writers.append(w)
            procs.append(w)
        for w in writers:
            if not w.wait_for(lambda ls: any(o.get("event") == "end" for _, o in ls), 30 + args.hold):
                raise RuntimeError(f"{w.name} did not finish: " + w.error_tail())
        last_write = max(o["t"] for w in writers for _, o in w.snapshot() if o.get("event") == "set")
        # Each writer's digests over time; the moment from which all agree.
        timelines = [[(o["t"], o["digests"]) for _, o in w.snapshot() if o.get("event") == "digests"] for w in writers]
        finals = {tl[-1][1] for tl in timelines if tl}
        converged = None
        if len(finals) == 1:
            converged = max(tl[-1][0] for tl in timelines)
        conflicts = sum(o.get("conflicts", 0) for w in writers for _, o in w.snapshot() if o.get("event") == "end")
        figures["converge"] = ((converged - last_write) if converged else None, len(finals), conflicts)
    finally:
        for p in procs:
            p.stop()
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE, help="folder with baton and handoff-bench (default: .build/release)")
    parser.add_argument("--sets", type=int, default=200, help="sets timed for the latency (200)")
    parser.add_argument("--idle", type=float, default=30, help="seconds of the idle window (30)")
    parser.add_argument("--hold", type=float, default=8, help="seconds the converging writers hold after writing (8)")
    parser.add_argument("--quiet-wait", type=float, default=600, help="wait up to this long for a quiet machine (600)")
    args = parser.parse_args()
    lab.check_host("kv_bench.py")
    lab.end_through_finally()
    baton = os.path.join(args.bin_dir, "baton")
    bench = os.path.join(args.bin_dir, "handoff-bench")
    for path in (baton, bench):
        if not os.access(path, os.X_OK):
            sys.exit(f"kv_bench.py: {path} is missing; run `swift build -c release` first (or pass --bin-dir)")
    busy = meters.wait_until_quiet(args.quiet_wait) if args.quiet_wait > 0 else []
    print(lab.run_header(baton))
    if busy:
        print("busy meanwhile: " + "; ".join(busy[:3]))
    scratch = tempfile.mkdtemp(prefix="kv-bench-")
    the_lab = Lab("kvb", 3)
    try:
        the_lab.up()
        f = run(baton, bench, the_lab, scratch, args)
    finally:
        the_lab.down()
        shutil.rmtree(scratch, ignore_errors=True)
    p50, p99, heard, sent = f["latency"]
    print()
    print("| measure | result | target |")
    print("| --- | --- | --- |")
    print(f"| set on h1 → taken and printed on h2, p50 / p99 ({heard} of {sent} sets) | {p50:.1f} / {p99:.1f} ms | ≤ 10 / 50 ms |")
    seconds, keys, listed, size, reasons = f["full"]
    full = f"{seconds:.2f} s" if seconds is not None else f"not within 30 s ({keys} keys)"
    print(f"| full store ({listed} keys, {size:,} bytes) to a newly started `kv watch` | {full} (reasons: {', '.join(str(r) for r in reasons)}) | ≤ 2 s |")
    for name, (cpu, rss) in f["idle"].items():
        print(f"| {name} holding the full store, idle {args.idle:.0f} s: CPU, RSS | {cpu:.2f} % of a core, {rss:.1f} MB | ≤ 0.5 %, ≤ 40 MB |")
    after, distinct, conflicts = f["converge"]
    conv = f"{after:.3f} s" if after is not None else f"did not converge ({distinct} different digests at the end)"
    print(f"| 10 writers × 100 sets of 20 shared keys on 3 hosts: last write → all digests equal | {conv} | ≤ 1 s |")
    print(f"| … conflicts reported by the writers | {conflicts} | report |")


if __name__ == "__main__":
    main()
