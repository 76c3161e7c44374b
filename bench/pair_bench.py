#!/usr/bin/env python3
"""Pairing: `baton pair` and `baton pair --join`, both started → both exited `Paired`.

Run as root from the checkout (a few seconds per run):

    sudo python3 bench/pair_bench.py --bin-dir /tmp/v3bin
    sudo python3 bench/pair_bench.py --bin-dir .build/release --runs 20 --join-by multicast

Each run makes a fresh two-host netlab lab and a fresh config folder for each side (so each
side makes its identity on the run, as a new machine does), then starts on host 1
`baton pair --name bench-a` and on host 2 `baton pair --join --name bench-b`, each with `yes y |`
on its standard input: the answers are given at once, so the figure is the machines' part, not a
person's. By multicast (the default) both are spawned together and the joiner waits for the
sharer's HELLO; with `--join-by peer` the joiner gets `--peer 10.77.0.11` and is spawned once the
sharer prints `Waiting for` (a joiner given --peer gives up on a refused connection). Timed from
the joiner's spawn (both started) until both have exited, each with status 0 and `Paired with` in
its output; beside it, each side's own spawn → exit. Standard library only; no datagram leaves the
machine (the lab's bridge has no way out), and the lab is removed whatever happens.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab  # noqa: E402
from batonlab.lab import netlab  # noqa: E402

SHARER_ADDRESS = "10.77.0.11"  # host 1 of a netlab lab


def side(namespace, baton, home, argv, out):
    """One side of the pairing in `namespace`, its answers from `yes y`, output to `out`."""
    command = "yes y | exec " + " ".join([baton, *argv])
    return subprocess.Popen(["ip", "netns", "exec", namespace, "sh", "-c", command], stdin=subprocess.DEVNULL,
                            stdout=out, stderr=subprocess.STDOUT, env=lab.home_env(home), start_new_session=True)


def one_run(baton, index, join_by, timeout):
    name = f"pair{os.getpid()}r{index}"
    scratch = tempfile.mkdtemp(prefix="baton-pair-")
    netlab("up", name, "2")
    procs = []
    try:
        homes = [os.path.join(scratch, s) for s in ("a", "b")]
        for h in homes:
            os.makedirs(h)
        join = ["pair", "--join", "--name", "bench-b", "--timeout", str(timeout)]
        if join_by == "peer":
            join[2:2] = ["--peer", SHARER_ADDRESS]
        outs = [open(os.path.join(scratch, f"{s}.out"), "w+b") for s in ("a", "b")]
        sharer_spawned = time.monotonic()
        procs.append(side(f"{name}-h1", baton, homes[0],
                          ["pair", "--name", "bench-a", "--timeout", str(timeout)], outs[0]))
        if join_by == "peer":
            # A joiner given --peer connects at once and gives up on a refusal: start it once the
            # sharer says it is waiting (its TCP listener is up by then).
            while b"Waiting for" not in open(outs[0].name, "rb").read():
                if procs[0].poll() is not None or time.monotonic() - sharer_spawned > 10:
                    break
                time.sleep(0.001)
        started = time.monotonic()  # both started: the joiner's spawn
        procs.append(side(f"{name}-h2", baton, homes[1], join, outs[1]))
        ended = [None, None]
        while None in ended and time.monotonic() - started < timeout + 5:
            for i, p in enumerate(procs):
                if ended[i] is None and p.poll() is not None:
                    ended[i] = time.monotonic()
            time.sleep(0.002)
        texts = []
        for f in outs:
            f.seek(0)
            texts.append(f.read().decode(errors="replace"))
            f.close()
        ok = all(p.returncode == 0 for p in procs) and all("Paired with" in t for t in texts)
        if not ok:
            print(f"run {index}: not paired: " + " | ".join(t.strip()[-300:] for t in texts), file=sys.stderr)
        return {"ok": ok, "both_s": (max(ended) - started) if None not in ended else None,
                "sharer_s": ended[0] and ended[0] - sharer_spawned, "joiner_s": ended[1] and ended[1] - started,
                "head_start_s": started - sharer_spawned}
    finally:
        lab.end_groups(procs)
        netlab("down", name, check=False)
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE,
                        help="folder with baton (default: .build/release)")
    parser.add_argument("--runs", type=int, default=10, help="pairings, each in a fresh lab (10)")
    parser.add_argument("--join-by", choices=["peer", "multicast"], default="multicast",
                        help="the joiner finds the sharer by multicast (default; both spawned together) or connects "
                             "by --peer (spawned once the sharer says it is waiting)")
    parser.add_argument("--timeout", type=int, default=20, help="each side's --timeout, seconds (20)")
    args = parser.parse_args()
    lab.check_host("pair_bench.py")
    baton = os.path.abspath(os.path.join(args.bin_dir, "baton"))
    if not os.access(baton, os.X_OK):
        sys.exit(f"pair_bench.py: no {baton}")
    lab.end_through_finally()

    print(lab.run_header(baton))
    runs = [one_run(baton, i, args.join_by, args.timeout) for i in range(args.runs)]
    good = [r for r in runs if r["ok"]]
    print(f"paired {len(good)} of {len(runs)} (joiner by {args.join_by})")
    if not good:
        sys.exit(1)

    def line(label, key):
        print(lab.median_row(label, [r[key] for r in good]))

    print("| measure | median | min | max |\n| --- | --- | --- | --- |")
    line("both started (the joiner spawned) → both exited `Paired`", "both_s")
    line("  the sharer's head start (spawned → its `Waiting for` line; 0 with multicast)", "head_start_s")
    line("  `baton pair` spawn → exit", "sharer_s")
    line("  `baton pair --join` spawn → exit", "joiner_s")
    worst = max(r["both_s"] for r in good)
    print(f"target ≤ 1 s: {'met' if worst <= 1 and len(good) == len(runs) else 'MISSED'} "
          f"(worst {worst * 1000:.0f} ms; each figure includes both processes' start and their first identity)")


if __name__ == "__main__":
    main()
