#!/usr/bin/env python3
"""Baton with large state (issue 8): continue time by size, over lossy links, the stream against
plain TCP, what twenty big offers cost a listener, and the counter under frame loss.

Run as root against release builds:

    swift build -c release --product baton
    sudo python3 bench/large_bench.py                       # everything, about 10 minutes
    sudo python3 bench/large_bench.py --runs 5 --loss-runs 5 --peers 4 --skip-counter   # a quick try

It makes one netlab lab (network namespaces on a bridge, nothing attached to this machine's
interfaces, so nothing leaves the machine) of --peers + 2 hosts and always removes it, also on
Ctrl-C, SIGTERM and SIGHUP. Host 1 is the source, host 2 continues; hosts 3… offer for the
memory figure. Texts are generated: mixed-script lines (ASCII, accented Latin, Greek, Cyrillic,
CJK, Hangul, emoji) for 20 KB, 200 KB and 1 MB, and ASCII for 16 MB (a binary plist stores a
string with any non-ASCII character as UTF-16, so 16 MB of mixed text would be over the 16 MiB
state limit).

  continue     the source is `baton edit FILE` on host 1 in a pty. On host 2, --runs times
               each: `baton --continue-activity dev.baton.editing --from SOURCE` in a pty,
               spawn → the text's first line on the screen (a small xterm emulator replays the
               pty), then SIGTERM — a person's wait, process start and the fetch included; and
               `baton peer continue --no-user-info` spawn → exit, with its own continueMs
               (QUERY → record in hand) and fetchMs (connect → last byte) beside it.
  loss         200 KB the same way while host 2 drops --loss percent of the IPv4 frames it
               receives (`netlab frameloss`: before reassembly, TCP segments and UDP alike);
               p90 of --loss-runs. The server's TCP counters (retransmitted segments, RTO
               timeouts, SYN retransmits) and the client's resumes say what limits it.
  throughput   the 16 MB fetches of `baton peer continue` against plain TCP between the same two
               hosts, in the same run: `python3 -m batonlab.wire tcp-serve` on host 1 sends
               16 MB from memory, `tcp-fetch` on host 2 reads it, connect → last byte; medians.
  memory       `baton` (the counter, its nearby list open) on host 2 while --peers hosts each
               run `baton peer announce --text-file` of the 16 MB text; max VmRSS sampled every
               250 ms for --rss-seconds after a listener beside it has heard every offer.
  counter      `baton counter` on host 1 in a pty, `baton peer listen --json` on host 2, which
               drops 30 % of its frames; --counter-trials times: 3 presses 20 ms apart, then
               from the last press to the listener's line with the final count (its "time").

Before starting it waits (up to --quiet-wait seconds) until no build, test or other benchmark
runs and the load average is at most --max-load. Python 3 with `cryptography` (bench/batonlab's
listener); the lab, pty programs, listener, wire and report are bench/batonlab.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from batonlab.lab import Counter, Proc, PtyProgram  # noqa: E402
from batonlab.listener import Listener  # noqa: E402

EDITING = "dev.baton.editing"
TCP_PORT = 47990
TARGETS = {
    "continue_1m_ms": 300.0,
    "continue_16m_ms": 1500.0,
    "loss10_p90_ms": 2000.0,
    "throughput_ratio": 0.5,
    "rss_mb": 40.0,
    "counter_s": 2.0,
}
SIZES = [("20 KB", 20_000, "mixed"), ("1 MB", 1_000_000, "mixed"), ("16 MB", 16_000_000, "ascii")]
LOSS_SIZE = ("200 KB", 200_000, "mixed")

PIECES = [
    "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Baton", "handoff", "state", "0123456789",
    "café", "naïve", "façade", "Ångström", "Straße", "crème brûlée", "e\u0301te\u0301", "Øresund", "ñandú",
    "Καλημέρα", "κόσμε", "Привет", "мир", "你好", "世界", "日本語のテキスト", "漢字", "한국어", "안녕하세요",
    "👋", "😀", "🎉", "👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "✓", "—", "…", "€", "½",
]


def make_text(size, style, first):
    """About `size` UTF-8 bytes of text whose first line is `first` (ASCII, so the screen check is plain)."""
    if style == "ascii":
        line = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod\n"
        body = first + "\n"
        body += line * ((size - len(body)) // len(line))
        return body + "x" * (size - len(body.encode()) - 1) + "\n"
    rng = random.Random(size)
    lines, total = [first], len(first) + 1
    while total < size:
        text = " ".join(rng.choice(PIECES) for _ in range(rng.randrange(12)))
        lines.append(text)
        total += len(text.encode()) + 1
    return "\n".join(lines) + "\n"


def ms(seconds):
    return seconds * 1000


def fmt(values, unit="ms", digits=0):
    if not values:
        return "—"
    return (f"median {statistics.median(values):.{digits}f}, p90 {report.percentile(values, 0.9):.{digits}f}, "
            f"min {min(values):.{digits}f}, max {max(values):.{digits}f} {unit}")


class Run:
    """What every phase needs: arguments, lab, programs, scratch folder, environment, texts."""

    def __init__(self, args):
        self.args = args
        self.lab = lab.Lab("large", max(2, args.peers + 2))
        self.baton, self.peer = lab.programs("large_bench.py", args.bin_dir)
        self.scratch = tempfile.mkdtemp(prefix="baton-large-")
        self.env = lab.baton_env(self.scratch, os.urandom(32))
        self.files = {}
        self.failures = []

    def text_file(self, name, size, style):
        """The generated text of `name` (written once) and its first line."""
        if name not in self.files:
            first = f"Baton large-state benchmark, {name}"
            text = make_text(size, style, first)
            path = os.path.join(self.scratch, name.replace(" ", "") + ".txt")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            self.files[name] = (path, first, len(text.encode()))
        return self.files[name]

    def netns(self, host):
        return self.lab.namespace(host)


def tcp_counters(namespace):
    """The TCP counters of a namespace that say what a lossy transfer waited for."""
    out = subprocess.run(["ip", "netns", "exec", namespace, "cat", "/proc/net/snmp", "/proc/net/netstat"],
                         capture_output=True, text=True).stdout.splitlines()
    values = {}
    for names, numbers in zip(out[::2], out[1::2]):
        prefix = names.split(":")[0]
        for name, number in zip(names.split()[1:], numbers.split()[1:]):
            values[f"{prefix}.{name}"] = int(number)
    keys = ["Tcp.RetransSegs", "Tcp.OutSegs", "TcpExt.TCPTimeouts", "TcpExt.TCPSynRetrans", "TcpExt.TCPLossProbes"]
    return {k: values.get(k, 0) for k in keys}


def source(run, name, size, style):
    """`baton edit FILE` of the text `name` on host 1, heard by a listener on host 2; (program, listener, first line)."""
    path, first, length = run.text_file(name, size, style)
    who = "bench-src-" + name.replace(" ", "").lower()
    listener = Listener("bench-listener", run.netns(2), run.peer, run.env, run.scratch, duration=3600)
    a = PtyProgram(run.netns(1), [run.baton, "edit", path, "--name", who], run.env, kind="baton", name=who)
    if not listener.wait_all([who], time.monotonic() + 60):
        a.stop()
        listener.stop()
        raise RuntimeError(f"host 2 never heard {who}'s offer of {name}; its screen: {a.error_tail()}")
    return a, listener, who, first, length


def baton_continue(run, who, first, timeout):
    """`baton --continue-activity` on host 2 in a pty: ms from spawn to `first` on the screen, or None."""
    argv = [run.baton, "--continue-activity", EDITING, "--from", who, "--wait", str(timeout), "--name", "bench-b"]
    b = PtyProgram(run.netns(2), argv, run.env, drain_thread=False)
    shown = None
    deadline = time.monotonic() + timeout + 5
    try:
        while time.monotonic() < deadline:
            if not b.read_some(0.05):
                break
            if any(line.rstrip() == first for line in b.screen.lines()):
                shown = time.perf_counter()
                break
        if shown is None:
            run.failures.append(f"baton continue from {who}: never showed the text; screen: {b.error_tail()[:300]}")
            return None
        return ms(shown - b.started)
    finally:
        b.stop()


def peer_continue(run, who, timeout, save=None):
    """`baton peer continue` on host 2: (spawn → exit ms, its JSON) or (None, None)."""
    argv = ["ip", "netns", "exec", run.netns(2), *run.peer, "continue", "--type", EDITING, "--from", who,
            "--wait", str(timeout), "--name", "bench-p", "--no-user-info"]
    if save:
        argv += ["--save-text", save]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=run.env, timeout=timeout + 30,
                          preexec_fn=lab.clean_child_signals)
    elapsed = ms(time.perf_counter() - started)
    if done.returncode != 0:
        run.failures.append(f"baton peer continue from {who}: exit {done.returncode}: {done.stderr.strip()[:300]}")
        return None, None
    try:
        return elapsed, json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        run.failures.append(f"baton peer continue from {who}: no JSON: {done.stdout[:200]}")
        return None, None


def continue_phase(run, name, size, style, runs, timeout, loss=0):
    """`runs` baton and `baton peer` continues of text `name`, alternating; with `loss` % frame loss on host 2."""
    a, listener, who, first, length = source(run, name, size, style)
    try:
        path = run.files[name][0]
        copy = os.path.join(run.scratch, "copy.txt")
        _, check = peer_continue(run, who, timeout, save=copy)  # before the loss: is it byte-exact?
        with open(path, "rb") as f, open(copy, "rb") as g:
            exact = check is not None and f.read() == g.read()
        idle = None
        if not loss:  # what holding the text costs the source while nobody asks
            ticks = meters.cpu_ticks(a.pid)
            time.sleep(3)  # the measuring period
            idle = {"cpu_percent": 100 * (meters.cpu_ticks(a.pid) - ticks) / meters.HZ / 3,
                    "rss_mb": (meters.status_kb(a.pid) or 0) / 1024}
        if loss:
            run.lab.frameloss(2, loss)
        before = tcp_counters(run.netns(1))
        baton_ms, peer_ms, details = [], [], []
        for _ in range(runs):
            shown = baton_continue(run, who, first, timeout)
            if shown is not None:
                baton_ms.append(shown)
            elapsed, out = peer_continue(run, who, timeout)
            if elapsed is not None:
                peer_ms.append(elapsed)
                details.append(out)
        after = tcp_counters(run.netns(1))
        drops = run.lab.framedrops(2) if loss else 0
        if loss:
            run.lab.frameloss(2, 0)
        return {"name": name, "bytes": length, "loss": loss, "exact": exact, "baton_ms": baton_ms, "peer_ms": peer_ms,
                "continue_ms": [d.get("continueMs") for d in details if "continueMs" in d],
                "fetch_ms": [d["fetchMs"] for d in details if "fetchMs" in d],
                "fetched": [d["fetchedBytes"] for d in details if "fetchedBytes" in d],
                "resumes": [d.get("resumes", 0) for d in details],
                "tcp": {k: after[k] - before[k] for k in after}, "frames_dropped": drops,
                "attempts": runs, "source_idle": idle}
    finally:
        a.stop()
        listener.stop()


def library_phase(run, name, size, style, runs, timeout):
    """The library alone: `baton peer announce --text-file` on host 1, `runs` `baton peer continue` on host 2."""
    path, _, length = run.text_file(name, size, style)
    who = "bench-lib-" + name.replace(" ", "").lower()
    listener = Listener("bench-listener", run.netns(2), run.peer, run.env, run.scratch, duration=3600)
    a = Proc("announce", who, run.netns(1), [*run.peer, "announce", "--text-file", path, "--name", who], run.env, run.scratch)
    try:
        if not listener.wait_all([who], time.monotonic() + 60):
            raise RuntimeError(f"host 2 never heard {who}'s offer of {name}: {a.error_tail()}")
        peer_ms, details = [], []
        for _ in range(runs):
            elapsed, out = peer_continue(run, who, timeout)
            if elapsed is not None:
                peer_ms.append(elapsed)
                details.append(out)
        return {"peer_ms": peer_ms, "continue_ms": [d["continueMs"] for d in details if "continueMs" in d],
                "fetch_ms": [d["fetchMs"] for d in details if "fetchMs" in d], "attempts": runs}
    finally:
        a.stop()
        listener.stop()


def throughput_phase(run, runs):
    """16 MB over the state stream (`baton peer continue`'s fetchMs) against plain TCP of the same bytes, interleaved."""
    name, size, style = SIZES[-1]
    a, listener, who, first, length = source(run, name, size, style)
    server = Proc("tcp", "tcp-serve", run.netns(1),
                  [sys.executable, "-B", "-m", "batonlab.wire", "tcp-serve", "--port", str(TCP_PORT), "--bytes",
                   str(length)], dict(run.env, PYTHONPATH=os.path.dirname(os.path.abspath(__file__))), run.scratch,
                  stdout=subprocess.PIPE)
    try:
        if server.process.stdout.readline().strip() != b"ready":
            raise RuntimeError(f"tcp-serve did not start: {server.error_tail()}")
        stream, plain = [], []
        for _ in range(runs):
            _, out = peer_continue(run, who, 30)
            if out and out.get("fetchMs"):
                stream.append((out["fetchedBytes"], out["fetchMs"]))
            done = subprocess.run(["ip", "netns", "exec", run.netns(2), sys.executable, "-B", "-m", "batonlab.wire",
                                   "tcp-fetch", "--to", "10.77.0.11", "--port", str(TCP_PORT)],
                                  capture_output=True, text=True, timeout=60,
                                  env=dict(run.env, PYTHONPATH=os.path.dirname(os.path.abspath(__file__))))
            try:
                result = json.loads(done.stdout.strip().splitlines()[-1])
                plain.append((result["bytes"], result["ms"]))
            except (ValueError, IndexError, KeyError):
                run.failures.append(f"tcp-fetch: {done.stdout[:200]} {done.stderr[:200]}")
        return {"bytes": length, "stream": stream, "plain": plain}
    finally:
        server.stop()
        a.stop()
        listener.stop()


def memory_phase(run, peers, seconds):
    """`baton` on host 2 while `peers` hosts offer 16 MB each: its max VmRSS once all are heard."""
    name, size, style = SIZES[-1]
    path, _, length = run.text_file(name, size, style)
    b = Counter("bench-rss", run.netns(2), run.baton, run.env)
    listener = Listener("bench-rss-listener", run.netns(2), run.peer, run.env, run.scratch, duration=3600)
    offers = []
    try:
        b.wait_shown(0, 15)
        names = [f"bench-offer-{i}" for i in range(1, peers + 1)]
        for i, who in enumerate(names, start=3):
            offers.append(Proc("offer", who, run.netns(i), [*run.peer, "announce", "--text-file", path, "--name", who],
                               run.env, run.scratch))
            time.sleep(0.2)  # staggered starts, as people's machines come and go
        if not listener.wait_all(names, time.monotonic() + 120):
            run.failures.append(f"memory: the listener never heard {listener.missing(names)}")
        b.write(b"n")  # the nearby list open: the 20 offers drawn, as a person would look at them
        samples = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            kb = program_rss(b)
            if kb:
                samples.append(kb)
            time.sleep(0.25)  # the sampling period
        hwm = program_rss(b, "VmHWM")
        sources = [meters.status_kb(p.pid) or 0 for p in offers]
        shown = sum(1 for line in b.lines() if "bench-offer" in line)
        return {"peers": peers, "bytes": length, "rss_kb": samples, "hwm_kb": hwm,
                "source_rss_kb": sources, "rows_shown": shown, "heard": peers - len(listener.missing(names))}
    finally:
        for p in offers:
            p.terminate()
        for p in offers:
            p.finish(time.monotonic() + 5)
        b.stop()
        listener.stop()


def program_rss(pty_program, key="VmRSS"):
    """VmRSS (or VmHWM) of the program a PtyProgram runs: its pid is the pty child, which `ip netns exec` became."""
    return meters.status_kb(pty_program.pid, key)


def counter_phase(run, trials, loss):
    """Final count at host 2 dropping `loss` % of frames: from the last of 3 presses to the listener's line."""
    a = Counter("bench-counter", run.netns(1), run.baton, run.env)
    listener = Listener("bench-counter-listener", run.netns(2), run.peer, run.env, run.scratch, duration=3600)
    try:
        a.wait_shown(0, 15)
        if not listener.wait_count("bench-counter", 0, 15):
            raise RuntimeError("host 2 never heard the counter")
        run.lab.frameloss(2, loss)
        rng = random.Random(30)
        latencies, missed = [], 0
        for _ in range(trials):
            writes = a.press_paced(3, 0.02)
            final = a.presses
            if not listener.wait_count("bench-counter", final, 15):
                missed += 1
                continue
            line = next(line for line in listener.heard("bench-counter") if line[0] >= final)
            latencies.append(line[1] - writes[-1])
            time.sleep(rng.uniform(0.2, 1.4))  # pacing: the next trial at another phase of the 1 s repeats
        drops = run.lab.framedrops(2)
        run.lab.frameloss(2, 0)
        return {"loss": loss, "latencies_s": latencies, "missed": missed, "frames_dropped": drops}
    finally:
        a.stop()
        listener.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=lab.RELEASE, help="folder with baton (default: .build/release)")
    parser.add_argument("--runs", type=int, default=20, help="continues per size, each program (20)")
    parser.add_argument("--sizes", default="20KB,1MB,16MB", help="sizes to continue (20KB,1MB,16MB)")
    parser.add_argument("--loss", default="10,30", help="frame-loss percentages for 200 KB (10,30)")
    parser.add_argument("--loss-runs", type=int, default=20, help="continues per loss level, each program (20)")
    parser.add_argument("--throughput-runs", type=int, default=10, help="16 MB fetches and plain TCP runs (10)")
    parser.add_argument("--peers", type=int, default=20, help="hosts offering 16 MB for the memory figure (20)")
    parser.add_argument("--rss-seconds", type=float, default=15, help="sampling after every offer was heard (15)")
    parser.add_argument("--counter-trials", type=int, default=30, help="counter trials at 30 %% frame loss (30)")
    parser.add_argument("--counter-loss", type=int, default=30, help="frame loss for the counter (30)")
    for name in ("continue", "loss", "throughput", "memory", "counter"):
        parser.add_argument(f"--skip-{name}", action="store_true")
    parser.add_argument("--quiet-wait", type=float, default=600, help="seconds to wait for a quiet machine (600; 0: no wait)")
    parser.add_argument("--max-load", type=float, default=1.0, help="1-minute load average to wait for (1.0)")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    lab.check_host("large_bench.py")
    if not shutil.which("nft") and not (args.skip_loss and args.skip_counter):
        sys.exit("large_bench.py: nft not found (apt-get install -y nftables); or --skip-loss --skip-counter")
    run = Run(args)
    lab.end_through_finally()
    results = report.begin(args)
    table = report.Table()
    try:
        run.lab.up()
        phases(run, table, results, args)
    finally:
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)

    report.finish(results, run.failures, table, args.json, print_json=False)


def phases(run, table, results, args):
    """Every phase not skipped, each on its own: one that breaks is reported and the next one runs."""
    for name, body in (("continue", continue_rows), ("loss", loss_rows), ("throughput", throughput_rows),
                       ("memory", memory_rows), ("counter", counter_rows)):
        if getattr(args, f"skip_{name}"):
            continue
        try:
            body(run, table, results, args)
        except Exception as error:  # noqa: BLE001 — a broken phase is a finding; the others still count
            run.failures.append(f"{name} phase broke: {error!r}")
            table.row(f"{name} phase", f"broke: {str(error)[:160]}", "", False)


def median(values):
    return statistics.median(values) if values else float("nan")


def continue_rows(run, table, results, args):
    results["continue"] = []
    wanted = {x.strip().upper() for x in args.sizes.split(",")}
    for name, size, style in [s for s in SIZES if s[0].replace(" ", "") in wanted]:
        print(f"continue: {name} × {args.runs}", file=sys.stderr)
        c = continue_phase(run, name, size, style, args.runs, 30)
        results["continue"].append(c)
        target = {"1 MB": TARGETS["continue_1m_ms"], "16 MB": TARGETS["continue_16m_ms"]}.get(name)
        complete = len(c["baton_ms"]) == c["attempts"]
        table.row(f"continue {name} ({c['bytes']:,} bytes), `baton --continue-activity` spawn → text on screen "
                  f"({len(c['baton_ms'])} of {c['attempts']})", fmt(c["baton_ms"]),
                  f"median ≤ {target:g} ms" if target else "report",
                  (complete and median(c["baton_ms"]) <= target) if target else None)
        table.row("  same source, `baton peer continue` spawn → exit / its continueMs / fetchMs (medians)",
                  f"{median(c['peer_ms']):.0f} / {median(c['continue_ms']):.0f} / {median(c['fetch_ms']):.0f} ms; "
                  f"byte-exact: {'yes' if c['exact'] else 'NO'}", "", c["exact"])
        table.row("  the source `baton edit`, idle 3 s before the runs: CPU, VmRSS",
                  f"{c['source_idle']['cpu_percent']:.0f} % of a core, {c['source_idle']['rss_mb']:.0f} MB")
        c["library"] = lib = library_phase(run, name, size, style, args.runs, 30)
        table.row(f"  library alone, source `baton peer announce`: `baton peer continue` spawn → exit / continueMs / "
                  f"fetchMs (medians, {len(lib['peer_ms'])} of {lib['attempts']})",
                  f"{median(lib['peer_ms']):.0f} / {median(lib['continue_ms']):.0f} / {median(lib['fetch_ms']):.0f} ms")


def loss_rows(run, table, results, args):
    results["loss"] = []
    for loss in [int(x) for x in args.loss.split(",") if x]:
        name, size, style = LOSS_SIZE
        print(f"loss: {name} at {loss} % × {args.loss_runs}", file=sys.stderr)
        c = continue_phase(run, name, size, style, args.loss_runs, 60, loss=loss)
        results["loss"].append(c)
        # A p90 over fewer runs than attempted is not claimed: a failed continue counts as over.
        p90 = report.percentile(c["baton_ms"], 0.9) if len(c["baton_ms"]) == c["attempts"] else float("inf")
        table.row(f"{name} at {loss} % frame loss, `baton --continue-activity` spawn → text "
                  f"({len(c['baton_ms'])} of {c['attempts']})", fmt(c["baton_ms"]),
                  f"p90 ≤ {TARGETS['loss10_p90_ms']:g} ms" if loss == 10 else "report",
                  p90 <= TARGETS["loss10_p90_ms"] if loss == 10 else None)
        table.row("  `baton peer continue`: spawn → exit; continueMs / fetchMs (medians)",
                  f"{fmt(c['peer_ms'])}; {median(c['continue_ms']):.0f} / {median(c['fetch_ms']):.0f} ms")
        tcp, n = c["tcp"], max(1, 2 * c["attempts"] + 1)  # fetches in the phase: both programs, and the check
        table.row("  what it waited for (per fetch, server side)",
                  f"{tcp['Tcp.RetransSegs'] / n:.1f} segments retransmitted of {tcp['Tcp.OutSegs'] / n:.0f}, "
                  f"{tcp['TcpExt.TCPTimeouts'] / n:.2f} RTO timeouts, {tcp['TcpExt.TCPSynRetrans'] / n:.2f} SYN-ACK "
                  f"retransmits, {tcp['TcpExt.TCPLossProbes'] / n:.2f} loss probes; resumes "
                  f"{sum(c['resumes'])} in {len(c['resumes'])} fetches; {c['frames_dropped']} frames dropped")


def throughput_rows(run, table, results, args):
    print(f"throughput: 16 MB × {args.throughput_runs}", file=sys.stderr)
    t = results["throughput"] = throughput_phase(run, args.throughput_runs)
    stream = [b / m / 1000 for b, m in t["stream"]]  # MB/s: bytes per ms / 1000
    plain = [b / m / 1000 for b, m in t["plain"]]
    ratio = median(stream) / median(plain) if stream and plain else float("nan")
    table.row(f"state stream, 16 MB fetch (connect → last byte), median of {len(stream)}",
              f"{median(stream):.0f} MB/s ({median([m for _, m in t['stream']]):.0f} ms)")
    table.row(f"plain TCP, same bytes, same hosts (Python sockets), median of {len(plain)}",
              f"{median(plain):.0f} MB/s ({median([m for _, m in t['plain']]):.1f} ms)")
    table.row("stream / plain TCP", f"{ratio * 100:.0f} %", f"≥ {TARGETS['throughput_ratio'] * 100:g} %",
              ratio >= TARGETS["throughput_ratio"])


def memory_rows(run, table, results, args):
    print(f"memory: {args.peers} peers offering 16 MB", file=sys.stderr)
    m = results["memory"] = memory_phase(run, args.peers, args.rss_seconds)
    peak = max(m["rss_kb"]) / 1024 if m["rss_kb"] else float("nan")
    table.row(f"`baton` RSS with {m['heard']} of {m['peers']} peers each offering {m['bytes'] / 1e6:.0f} MB "
              f"(max VmRSS over {args.rss_seconds:g} s; VmHWM)",
              f"{peak:.1f} MB ({(m['hwm_kb'] or 0) / 1024:.1f} MB); {m['rows_shown']} offers on its screen",
              f"≤ {TARGETS['rss_mb']:g} MB, all heard", peak <= TARGETS["rss_mb"] and m["heard"] == m["peers"])
    table.row("  one offering `baton peer` (median VmRSS), for scale", f"{median(m['source_rss_kb']) / 1024:.0f} MB")


def counter_rows(run, table, results, args):
    print(f"counter: {args.counter_trials} trials at {args.counter_loss} % frame loss", file=sys.stderr)
    k = results["counter"] = counter_phase(run, args.counter_trials, args.counter_loss)
    lat = [x * 1000 for x in k["latencies_s"]]
    worst = max(lat) / 1000 if lat and not k["missed"] else float("inf")
    table.row(f"counter at {k['loss']} % frame loss, last press → final count at the peer "
              f"({len(lat)} trials, {k['missed']} never; {k['frames_dropped']} frames dropped)", fmt(lat),
              f"≤ {TARGETS['counter_s']:g} s (max)", worst <= TARGETS["counter_s"])


if __name__ == "__main__":
    main()
