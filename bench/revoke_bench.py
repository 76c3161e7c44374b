#!/usr/bin/env python3
"""Revocation: `baton devices remove C` on A → C's datagrams refused by A and by B.

Run as root from the checkout (about 20 s per run):

    sudo python3 bench/revoke_bench.py --bin-dir /tmp/v3bin
    sudo python3 bench/revoke_bench.py --bin-dir .build/release --runs 5 --every 0.1

Each run is a fresh three-host netlab lab with a fresh config folder per host: A (host 1) pairs
with B (host 2), then with C (host 3), each by `baton pair` / `baton pair --join --peer`
fed `yes y |`, so B knows C only through A's introduction. Then `baton peer listen --json` runs
on A and on B, and C runs `baton peer announce --tick count --every S` (0.1 s), a datagram each
tick. Once both listeners show C's count, `baton devices remove bench-c` runs on A. Per listener:

  last shown     C's last count the listener showed, from the remove's spawn: nothing of C's was
                 accepted after it (C may also send less once it hears of its removal, so this
                 is not the moment of the first refusal);
  refused by     the first `statistics` line (about one a second) counting an `unknownDevice`
                 rejection: the figure against the target, an upper bound limited by that
                 line's period.

C goes on ticking throughout; a count from C shown after the refusal would fail the run. Standard
library only; nothing leaves the machine, and the lab is removed whatever happens.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab  # noqa: E402
from batonlab.lab import netlab  # noqa: E402

A_ADDRESS = "10.77.0.11"  # host 1 of a netlab lab


class Host:
    """A lab host with a home and config folder of its own."""

    def __init__(self, lab_name, index, scratch, baton, peer):
        self.namespace = f"{lab_name}-h{index}"
        self.home = os.path.join(scratch, f"h{index}")
        os.makedirs(self.home)
        self.baton, self.peer = baton, peer
        self.env = lab.home_env(self.home)

    def start(self, argv, out, shell=False):
        command = ["sh", "-c", argv] if shell else argv
        return subprocess.Popen(["ip", "netns", "exec", self.namespace, *command], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)

    def run(self, argv, timeout=30):
        return subprocess.run(["ip", "netns", "exec", self.namespace, *argv], capture_output=True, text=True,
                              env=self.env, timeout=timeout)


def pair(sharer, joiner, joiner_name, scratch, procs):
    out = open(os.path.join(scratch, f"pair-{joiner_name}.out"), "w+b")
    s = sharer.start(f"yes y | exec {sharer.baton} pair --name bench-a --timeout 20", out, shell=True)
    procs.append(s)
    deadline = time.monotonic() + 10
    while b"Waiting for" not in open(out.name, "rb").read() and time.monotonic() < deadline and s.poll() is None:
        time.sleep(0.005)
    j = joiner.run(["sh", "-c", f"yes y | exec {joiner.baton} pair --join --peer {A_ADDRESS} "
                                f"--name {joiner_name} --timeout 20"])
    s.wait(25)
    if s.returncode != 0 or j.returncode != 0 or "Paired with" not in j.stdout + j.stderr:
        out.seek(0)
        raise RuntimeError(f"pairing with {joiner_name} failed: {out.read().decode(errors='replace')[-300:]} | "
                           f"{(j.stdout + j.stderr)[-300:]}")


def lines(path):
    """The JSON lines of a listener so far, each with its `time` as seconds since the epoch."""
    result = []
    with open(path, errors="replace") as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue  # a line being written
            d["t"] = datetime.datetime.fromisoformat(d["time"].replace("Z", "+00:00")).timestamp()
            result.append(d)
    return result


def one_run(baton, peer, index, every):
    name = f"rvk{os.getpid()}r{index}"
    scratch = tempfile.mkdtemp(prefix="baton-revoke-")
    netlab("up", name, "3")
    procs = []
    try:
        a, b, c = (Host(name, i, scratch, baton, peer) for i in (1, 2, 3))
        pair(a, b, "bench-b", scratch, procs)
        pair(a, c, "bench-c", scratch, procs)
        logs = {k: os.path.join(scratch, f"listen-{k}.json") for k in ("A", "B")}
        for k, host in (("A", a), ("B", b)):
            procs.append(host.start([*peer, "listen", "--json"], open(logs[k], "wb")))
        time.sleep(0.5)
        procs.append(c.start([*peer, "announce", "--type", "dev.baton.counter", "--user-info", '{"count":0}',
                              "--tick", "count", "--every", str(every), "--name", "bench-c", "--duration", "60"],
                             open(os.path.join(scratch, "announce-c.out"), "wb")))

        def c_counts(k):
            return [d for d in lines(logs[k]) if d.get("event") in ("appeared", "changed")
                    and (d.get("peer") or {}).get("name") == "bench-c"]
        deadline = time.monotonic() + 15
        while not all(len(c_counts(k)) >= 3 for k in logs):
            if time.monotonic() > deadline:
                raise RuntimeError("the listeners never both heard C: A " + str(len(c_counts("A")))
                                   + ", B " + str(len(c_counts("B"))))
            time.sleep(0.05)
        time.sleep(1)
        spawned = time.time()
        removed = a.run([baton, "devices", "remove", "bench-c"])
        exited = time.time()
        if removed.returncode != 0:
            raise RuntimeError("remove failed: " + (removed.stdout + removed.stderr)[-300:])
        time.sleep(4)
        result = {"remove_s": exited - spawned, "ok": True}
        for k in logs:
            shown = [d for d in c_counts(k)]
            last = max(d["t"] for d in shown)
            refused = [d["t"] for d in lines(logs[k]) if d.get("event") == "statistics"
                       and (d.get("rejected") or {}).get("unknownDevice", 0) > 0]
            first_refused = min(refused) if refused else None
            stats = [d for d in lines(logs[k]) if d.get("event") == "statistics"]
            result.setdefault("refused_counts", {})[k] = [
                (round(d["t"] - spawned, 2), (d.get("rejected") or {}).get("unknownDevice", 0),
                 (d.get("rejected") or {}).get("authenticationFailed", 0)) for d in stats if d["t"] > spawned]
            result[k] = {"last_accepted_s": last - spawned,
                         "shown_around_s": [round(d["t"] - spawned, 3) for d in shown if -0.6 < d["t"] - spawned < 3],
                         "refused_by_s": None if first_refused is None else first_refused - spawned,
                         "accepted_after_refusal": sum(1 for d in shown if first_refused and d["t"] > first_refused)}
            if first_refused is None or result[k]["accepted_after_refusal"]:
                result["ok"] = False
        return result
    finally:
        lab.end_groups(procs)
        netlab("down", name, check=False)
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE,
                        help="folder with baton (default: .build/release)")
    parser.add_argument("--runs", type=int, default=5, help="removals, each in a fresh lab (5)")
    parser.add_argument("--every", type=float, default=0.1, help="C's tick, seconds (0.1)")
    args = parser.parse_args()
    lab.check_host("revoke_bench.py")
    baton, _ = lab.programs("revoke_bench.py", args.bin_dir)
    baton = os.path.abspath(baton)
    peer = [baton, "peer"]
    lab.end_through_finally()

    print(lab.run_header(baton))
    runs = []
    for i in range(args.runs):
        try:
            runs.append(one_run(baton, peer, i, args.every))
        except RuntimeError as e:
            print(f"run {i}: {e}", file=sys.stderr)
            runs.append({"ok": False})
        print(f"run {i}: {json.dumps(runs[-1])}", file=sys.stderr)
    good = [r for r in runs if r["ok"]]
    print(f"{len(good)} of {len(runs)} runs: C refused by A and B, nothing of C's accepted after")
    if not good:
        sys.exit(1)

    def row(label, values):
        print(lab.median_row(label, values))

    print("| from `baton devices remove bench-c` spawned on A | median | min | max |\n| --- | --- | --- | --- |")
    row("the command's exit", [r["remove_s"] for r in good])
    for k in ("A", "B"):
        row(f"C's last count shown on {k} (C ticks every {args.every:g} s)", [r[k]["last_accepted_s"] for r in good])
        row(f"C refused on {k}: its first `statistics` line counting `unknownDevice`",
            [r[k]["refused_by_s"] for r in good])
    worst = max(max(r["A"]["refused_by_s"], r["B"]["refused_by_s"]) for r in good)
    print(f"target ≤ 5 s: {'met' if worst <= 5 and len(good) == len(runs) else 'MISSED'} (worst {worst * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
