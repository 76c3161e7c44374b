#!/usr/bin/env python3
"""Baton through a relay: key-to-peer and continue across two sites, and the broker's restart.

Run as root against release builds (`swift build -c release`), with mosquitto installed:

    sudo python3 bench/relay_bench.py                  # about 2 minutes
    sudo python3 bench/relay_bench.py --presses 200 --runs 5

It makes its own netlab lab of two sites (`netlab sites`: hosts 1 and 3 on 10.77.0.0/24, host 2 on
10.77.1.0/24, a router namespace between them that forwards unicast and never multicast; nothing
attached to this machine's interfaces) and always removes it. mosquitto runs on the router
(`listener 1883 0.0.0.0`), and the router's firewall forwards nothing between the sites, so the
broker is the only way across: there is no direct path.

  key-to-peer  `baton` (counter, --relay) on host 1 in a pty this script owns. Two listeners
               (`baton peer listen --json`) hear the same presses: host 3 on the same site by
               multicast, and host 2 on the other site through the relay only. `+` is written
               --presses times, --gap-ms apart; for each press, from the write to each listener's
               line showing that count (its "time" field, this machine's clock). Target: the
               relay's p50 within +3 ms of multicast's, in the same run.
  continue     `baton peer announce --text-file` of a 1 MB mixed-script text on host 1 (--relay);
               `baton peer continue --save-text` --runs times on host 2 (through the relay: the
               state stream through the broker) and, beside it, on host 3 (the LAN: TCP from the
               source), spawn → exit, byte-exact. Then 16 MB, --runs-large times each.
  reconnect    with host 1's counter and host 2's listener on the relay, mosquitto is killed
               (SIGKILL) and started again; then `+` at once. From the broker listening again to
               host 2's line with the new count, --restarts times. Target: ≤ 3 s.

Python 3 with `cryptography`; the lab, listener, terminal and report are bench/batonlab.
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, report  # noqa: E402
from batonlab.lab import Counter, Proc  # noqa: E402
from batonlab.listener import Listener  # noqa: E402

EDITING = "dev.baton.editing"
TARGETS = {"relay_over_multicast_ms": 3.0, "continue_1mb_median_ms": 500.0, "reconnect_s": 3.0}
BROKER = "10.77.0.1"


class SitesLab(lab.Lab):
    """`netlab sites`: odd hosts on 10.77.0.0/24, even hosts on 10.77.1.0/24, a router NAME-r."""

    def up(self):
        subprocess.run([lab.NETLAB, "sites", self.name, str(self.hosts)], check=True,
                       preexec_fn=lab.clean_child_signals, stdout=subprocess.DEVNULL)
        # No direct path between the sites: the router forwards nothing; its own broker stays reachable.
        subprocess.run(["ip", "netns", "exec", self.router, "nft", "-f", "-"], check=True, text=True,
                       input="table inet bench {\n chain forward {\n  type filter hook forward priority 0; policy drop;\n }\n}\n")

    @property
    def router(self):
        return f"{self.name}-r"


class Broker:
    """mosquitto on the router, restartable."""

    def __init__(self, run):
        self.run = run
        self.config = os.path.join(run.scratch, "mosquitto.conf")
        with open(self.config, "w") as f:
            f.write("listener 1883 0.0.0.0\nallow_anonymous true\nuser root\n")
        self.proc = None
        self.start()

    def start(self):
        self.proc = Proc("broker", "mosquitto", self.run.lab.router, ["/usr/sbin/mosquitto", "-c", self.config],
                         self.run.env, self.run.scratch)
        self.wait_listening()

    def wait_listening(self, timeout=10):
        """Until the broker accepts a TCP connection on the router (polled: nothing announces it)."""
        deadline = time.monotonic() + timeout
        probe = ["ip", "netns", "exec", self.run.lab.router, "python3", "-c",
                 "import socket; socket.create_connection(('127.0.0.1', 1883), 0.2).close()"]
        while time.monotonic() < deadline:
            if subprocess.run(probe, capture_output=True).returncode == 0:
                return time.monotonic()
            time.sleep(0.01)  # wait-ok: polling a port with a deadline
        raise RuntimeError("mosquitto did not start listening")

    def kill(self):
        self.proc.process.send_signal(signal.SIGKILL)
        self.proc.process.wait()

    def stop(self):
        if self.proc:
            self.proc.stop()


def key_to_peer(run, table, results):
    """One counter on host 1; host 3 hears it by multicast, host 2 through the relay only."""
    relay_env = dict(run.env, BATON_RELAY=f"mqtt://{BROKER}")
    near = Listener("bench-near", run.lab.namespace(3), run.peer, run.env, run.scratch, run.lifetime)
    far = Listener("bench-far", run.lab.namespace(2), run.peer, relay_env, run.scratch, run.lifetime)
    a = Counter("bench-a", run.lab.namespace(1), run.baton, relay_env)
    try:
        a.wait_shown(0, 15)
        for listener, where in ((near, "host 3 (multicast)"), (far, "host 2 (relay)")):
            if not listener.wait_count("bench-a", 0, 15):
                raise RuntimeError(f"{where} never heard host 1's counter")
        writes = a.press_paced(run.args.presses, run.args.gap_ms / 1000)
        for listener in (near, far):
            listener.wait_count("bench-a", run.args.presses, 10)
        figures = {}
        for listener, label in ((near, "multicast"), (far, "relay")):
            stamped, arrived, missed = listener.latencies("bench-a", writes)
            figures[label] = {"stamped": stamped, "missed": missed}
            table.row(f"key → peer by {label}, p50 / p99 / max ({len(stamped)} presses, {run.args.gap_ms:g} ms apart)",
                      f"{report.percentile(stamped, 0.5):.1f} / {report.percentile(stamped, 0.99):.1f} / "
                      f"{max(stamped, default=float('nan')):.1f} ms")
            table.row(f"  presses never seen by {label}", f"{missed}", "0", missed == 0)
        over = report.percentile(figures["relay"]["stamped"], 0.5) - report.percentile(figures["multicast"]["stamped"], 0.5)
        table.row("  relay p50 − multicast p50 (same presses)", f"{over:+.1f} ms",
                  f"≤ +{TARGETS['relay_over_multicast_ms']:g} ms", over <= TARGETS["relay_over_multicast_ms"])
        results["key_to_peer"] = figures
    finally:
        a.stop()
        near.stop()
        far.stop()


def text_file(run, size, first):
    """A text of `size` bytes: lines of Latin, Cyrillic, CJK and emoji, starting with `first`."""
    path = os.path.join(run.scratch, f"text-{size}.txt")
    words = ["hello", "мир", "世界", "🎉", "ça", "va", "データ", "baton", "relay", "Δ"]
    out, n, i = [first + "\n"], len(first.encode()) + 1, 0
    while n < size:
        line = " ".join(words[(i + k) % len(words)] for k in range(12)) + f" {i}\n"
        out.append(line)
        n += len(line.encode())
        i += 1
    data = "".join(out).encode()[:size]
    data = data.decode(errors="ignore").encode()
    with open(path, "wb") as f:
        f.write(data)
    return path, data


def continue_runs(run, host, who, runs, env, expected, timeout=60):
    """`baton peer continue --save-text` on `host`, `runs` times: spawn → exit ms of the byte-exact ones."""
    times = []
    for k in range(runs):
        out = os.path.join(run.scratch, f"continued-{host}-{who}-{k}.txt")
        argv = ["ip", "netns", "exec", run.lab.namespace(host), *run.peer, "continue", "--type", EDITING, "--from", who,
                "--wait", "15", "--name", f"bench-c{host}", "--no-user-info", "--save-text", out]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout,
                              preexec_fn=lab.clean_child_signals)
        elapsed = (time.perf_counter() - started) * 1000
        if done.returncode != 0:
            run.failures.append(f"continue on host {host} from {who}: exit {done.returncode}: {done.stderr.strip()[:300]}")
            continue
        with open(out, "rb") as f:
            if f.read() != expected:
                run.failures.append(f"continue on host {host} from {who}: the text differs")
                continue
        times.append(elapsed)
        os.unlink(out)
    return times


def continues(run, table, results):
    relay_env = dict(run.env, BATON_RELAY=f"mqtt://{BROKER}")
    for size, runs, label in ((1_000_000, run.args.runs, "1 MB"), (16_000_000, run.args.runs_large, "16 MB")):
        path, data = text_file(run, size, f"Relay bench, {label}: ça va? 你好 🎉")
        who = f"bench-{label.replace(' ', '').lower()}"
        offer = Proc("offer", who, run.lab.namespace(1), [*run.peer, "announce", "--text-file", path, "--name", who],
                     relay_env, run.scratch)
        try:
            # One unmeasured continue on each path waits for the offer to be heard (and warms the page cache).
            continue_runs(run, 2, who, 1, relay_env, data)
            continue_runs(run, 3, who, 1, run.env, data)
            relayed = continue_runs(run, 2, who, runs, relay_env, data)
            direct = continue_runs(run, 3, who, runs, run.env, data)
        finally:
            offer.stop()
        results[f"continue_{label}"] = {"relay": relayed, "lan": direct}
        target = f"≤ {TARGETS['continue_1mb_median_ms']:g} ms" if size == 1_000_000 else "report"
        ok = (statistics.median(relayed) <= TARGETS["continue_1mb_median_ms"]) if (relayed and size == 1_000_000) else None
        table.row(f"{label} continue through the relay, no direct path, median ({len(relayed)} runs)",
                  report.describe(relayed, "ms") if relayed else "none", target, ok)
        table.row(f"  the same on the LAN (TCP from the source), median ({len(direct)} runs)",
                  report.describe(direct, "ms") if direct else "none")


def reconnects(run, table, results, broker):
    relay_env = dict(run.env, BATON_RELAY=f"mqtt://{BROKER}")
    far = Listener("bench-far-r", run.lab.namespace(2), run.peer, relay_env, run.scratch, run.lifetime)
    a = Counter("bench-r", run.lab.namespace(1), run.baton, relay_env)
    times = []
    try:
        a.wait_shown(0, 15)
        if not far.wait_count("bench-r", 0, 15):
            raise RuntimeError("host 2 never heard host 1's counter through the relay")
        for k in range(1, run.args.restarts + 1):
            broker.kill()
            broker.start()
            listening = time.time()
            a.press()
            if far.wait_count("bench-r", k, 15):
                heard = [t for c, t, _ in far.heard("bench-r") if c >= k]
                times.append(heard[0] - listening)
            else:
                run.failures.append(f"restart {k}: host 2 never heard count {k}")
    finally:
        a.stop()
        far.stop()
    results["reconnect"] = times
    worst = max(times, default=float("nan"))
    table.row(f"broker restart → first handoff on the other site, median / max ({len(times)} restarts)",
              f"{statistics.median(times) if times else float('nan'):.2f} / {worst:.2f} s",
              f"≤ {TARGETS['reconnect_s']:g} s", bool(times) and worst <= TARGETS["reconnect_s"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE, help="folder with baton (default: .build/release)")
    parser.add_argument("--presses", type=int, default=500, help="key presses for key-to-peer (500)")
    parser.add_argument("--gap-ms", type=float, default=20, help="milliseconds between presses (20)")
    parser.add_argument("--runs", type=int, default=10, help="1 MB continues per path (10)")
    parser.add_argument("--runs-large", type=int, default=3, help="16 MB continues per path (3)")
    parser.add_argument("--restarts", type=int, default=5, help="broker restarts (5)")
    parser.add_argument("--quiet-wait", type=float, default=600, help="wait up to this long for a quiet machine (600 s)")
    parser.add_argument("--max-load", type=float, default=1.0, help="what counts as quiet (load average, 1.0)")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    lab.check_host("relay_bench.py")
    if not os.access("/usr/sbin/mosquitto", os.X_OK):
        sys.exit("relay_bench.py: /usr/sbin/mosquitto is missing (apt-get install -y mosquitto)")
    run = argparse.Namespace(args=args, lab=SitesLab("relay", 3), failures=[])
    run.baton, run.peer = lab.programs("relay_bench.py", args.bin_dir)
    run.scratch = tempfile.mkdtemp(prefix="baton-relay-bench-")
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    run.lifetime = int(2 * (args.presses * args.gap_ms / 1000) + 60 * (args.runs + args.runs_large) + 30 * args.restarts + 120)
    lab.end_through_finally()

    results = report.begin(args)
    table = report.Table()
    broker = None
    try:
        run.lab.up()
        broker = Broker(run)
        key_to_peer(run, table, results)
        continues(run, table, results)
        reconnects(run, table, results, broker)
    finally:
        if broker:
            broker.stop()
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)
    report.finish(results, run.failures, table, args.json)


if __name__ == "__main__":
    main()
