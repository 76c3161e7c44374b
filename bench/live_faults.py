"""live_bench.py's fault phases (issue 34): a follower on a lossy link, and a follower that stops
reading. Both type on the typist at a steady pace and never wait for the follower between keys:
the follower's screen is read all along and each key's first sight there recorded, so a follower
that is behind (or stopped) costs the run nothing but its own figures.

Every wait here has a deadline. An earlier stall phase hung: it typed through `type_block`, which
waits up to 10 s *per key* for every watcher's screen, the follower's included; with the follower
stopped no key could show there, so 200 keys waited 10 s each (over half an hour) before the run
went on. `stream_keys` below waits for the typist only, and the follower is judged once, after the
keys, against a deadline of its own.
"""

import os
import signal
import subprocess
import time

from batonlab import meters, report

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def stream_keys(typist, follower, everyone, keys, gap_ms, pump, shows, per_line=50, own_timeout=2.0):
    """`keys` letters in front of BEGIN on `typist`, `gap_ms` apart (Enter after every `per_line`,
    unmeasured). Waits for the typist's own screen only, `own_timeout` at most per key.

    Returns {own_ms: [...], follower_ms: {index: ms}, last_sent, last_expected}: a key counts as
    shown on the follower when its text, or a later key's, is first on the follower's screen
    (a follower skips states, so a later text stands for the earlier ones)."""
    out = {"own_ms": [], "follower_ms": {}, "last_sent": None, "last_expected": None, "own_missed": 0}
    pending = []  # (index, expected, sent) not yet seen on the follower, oldest first
    typed = ""
    begin = time.perf_counter()
    slot = 0

    read = [-1]  # the follower's output bytes when its screen was last looked at

    def follower_check():
        # The follower's screen is looked at only when it wrote something since: a stopped
        # follower's unchanged screen, read on every turn of the pump, cost the bench 0.3 ms
        # and more before it saw the typist's own key, which showed as the typist's latency.
        if follower is None or not pending or follower.output_bytes == read[0]:
            return
        read[0] = follower.output_bytes
        lines = follower.screen.lines()
        # Newest first: the newest text shown stands for every key before it.
        for position in range(len(pending) - 1, max(-1, len(pending) - 6), -1):
            if any(pending[position][1] in line for line in lines):
                now = pump.read_at[0]  # when the bytes that showed it were read
                for index, _, sent in pending[:position + 1]:
                    out["follower_ms"][index] = (now - sent) * 1000
                del pending[:position + 1]
                return

    for index in range(keys):
        if index and index % per_line == 0:
            pump(everyone, lambda: follower_check() and False, begin + slot * gap_ms / 1000)
            slot += 1
            typist.write(b"\r")
            typed = ""
            if pump(everyone, lambda: follower_check() or any(l.startswith("BEGIN") for l in typist.screen.lines()),
                    time.perf_counter() + own_timeout) is None:
                raise RuntimeError("the typist never showed its Enter: " + typist.error_tail())
        pump(everyone, lambda: follower_check() and False, begin + slot * gap_ms / 1000)
        slot += 1
        typed += LETTERS[index % len(LETTERS)]
        expected = typed[-30:] + "BEGIN"
        sent = time.perf_counter()
        typist.write(typed[-1].encode())
        pending.append((index, expected, sent))
        seen = pump(everyone, lambda: follower_check() or shows(typist, expected), sent + own_timeout)
        if seen is None:
            out["own_missed"] += 1
        else:
            out["own_ms"].append((seen - sent) * 1000)
        out["last_sent"], out["last_expected"] = sent, expected
    follower_check()
    out["pending"] = pending
    return out


LOSS_COUNTERS = ("TcpRetransSegs", "TcpExtTCPLossProbes", "TcpExtTCPTimeouts")
# What a receiver that stops reading makes the kernel do: squeeze its queue, then shut its window.
STALL_COUNTERS = ("TcpExtPruneCalled", "TcpExtTCPRcvCollapsed", "TcpExtTCPRcvQDrop", "TcpExtTCPToZeroWindowAdv",
                  "TcpExtTCPZeroWindowDrop", "TcpExtTCPWantZeroWindowAdv")


def netstat(namespace, counters=LOSS_COUNTERS):
    """Counters of a lab host's TCP (nstat -az), for what TCP did: by default retransmissions and loss probes."""
    try:
        text = subprocess.run(["ip", "netns", "exec", namespace, "nstat", "-az"], capture_output=True, text=True,
                              timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in counters:
            values[parts[0]] = int(parts[1])
    return values


def loss_phase(run, args, pump, shows, following):
    """--loss-percent frame loss on both lab hosts' links (netlab frameloss: every IPv4 frame,
    TCP segments included, dropped before reassembly) while --loss-keys keys are typed on h1:
    from the last key to the follower showing the final text (target ≤ 1 s)."""
    typist, follower, everyone = run.typist, run.follower, run.everyone
    rows = []
    for attempt in range(args.loss_runs):
        before = {h: netstat(run.lab.namespace(h)) for h in (1, 2)}
        for host in (1, 2):
            run.lab.frameloss(host, args.loss_percent)
        try:
            keys = stream_keys(typist, follower, everyone, args.loss_keys, args.gap_ms, pump, shows)
            final = keys["last_expected"]
            shown = pump(everyone, lambda: shows(follower, final), keys["last_sent"] + args.loss_deadline_s)
            drops = {h: run.lab.framedrops(h) for h in (1, 2)}
        finally:
            for host in (1, 2):
                run.lab.frameloss(host, 0)
        after = {h: netstat(run.lab.namespace(h)) for h in (1, 2)}
        row = {"keys": args.loss_keys, "final_ms": None if shown is None else (shown - keys["last_sent"]) * 1000,
               "own_ms": keys["own_ms"], "own_missed": keys["own_missed"],
               "follower_ms": list(keys["follower_ms"].values()), "drops": drops,
               "tcp": {h: {k: after[h].get(k, 0) - before[h].get(k, 0) for k in after[h]} for h in (1, 2)},
               "load": os.getloadavg()[0]}
        if shown is None:
            row["failure"] = "follower: " + follower.error_tail()
        rows.append(row)
        # Back to a clean link: the follower must still follow (not "link lost").
        pump(everyone, lambda: False, time.perf_counter() + 1.0)
        row["still_following"] = following(follower, "bench-a")
        typist.write(b"\r")
        pump(everyone, lambda: any(l.startswith("BEGIN") for l in follower.screen.lines()), time.perf_counter() + 5)
    return rows


def stall_phase(run, args, pump, shows):
    """Turns of the typist typing for --stall-s: once with the follower reading, once with the
    follower's process stopped (SIGSTOP) the whole time; after SIGCONT, how long until the follower
    shows the newest text (target ≤ 1 s), and the typist's key times in both turns side by side
    (target: p99 unchanged)."""
    typist, follower, everyone = run.typist, run.follower, run.everyone
    keys = max(1, int(args.stall_s * 1000 / args.gap_ms))
    turns = []
    for attempt in range(args.stall_runs):
        for stalled in (False, True):
            before = {h: netstat(run.lab.namespace(h), STALL_COUNTERS) for h in (1, 2)}
            sched_before = meters.sched(typist.pid)
            if stalled:
                os.kill(follower.pid, signal.SIGSTOP)
            try:
                typed = stream_keys(typist, follower, everyone, keys, args.gap_ms, pump, shows)
            finally:
                resumed = time.perf_counter()
                if stalled:
                    os.kill(follower.pid, signal.SIGCONT)
            after = {h: netstat(run.lab.namespace(h), STALL_COUNTERS) for h in (1, 2)}
            sched_after = meters.sched(typist.pid)
            final = typed["last_expected"]
            shown = pump(everyone, lambda: shows(follower, final), resumed + args.stall_deadline_s)
            turn = {"stalled": stalled, "keys": keys, "own_ms": typed["own_ms"], "own_missed": typed["own_missed"],
                    "newest_after_ms": None if shown is None else (shown - resumed) * 1000,
                    "shown_during": len(typed["follower_ms"]), "load": os.getloadavg()[0],
                    "typist_sched": None if sched_before is None or sched_after is None else
                    ((sched_after[0] - sched_before[0]) / keys, (sched_after[1] - sched_before[1]) / keys),
                    "tcp": {h: {k: after[h].get(k, 0) - before[h].get(k, 0) for k in after[h] if after[h][k] != before[h].get(k, 0)}
                            for h in (1, 2)}}
            if shown is None:
                turn["failure"] = "follower: " + follower.error_tail()
            turns.append(turn)
            typist.write(b"\r")
            pump(everyone, lambda: any(l.startswith("BEGIN") for l in follower.screen.lines()), time.perf_counter() + 5)
            pump(everyone, lambda: False, time.perf_counter() + 1.0)
    return turns


def fmt(values, digits=1):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return (f"{report.percentile(values, 0.5):.{digits}f} / {report.percentile(values, 0.99):.{digits}f} / "
            f"{max(values):.{digits}f} ms")


def report_rows(table, results, args):
    """The fault phases' rows of live_bench.py's table."""
    for n, row in enumerate(results.get("loss", []), 1):
        final = row["final_ms"]
        tcp = "; ".join(f"h{h}: " + ", ".join(f"{k} {v}" for k, v in sorted(row["tcp"][h].items())) for h in (1, 2))
        table.row(f"{args.loss_percent} % frame loss both ways, run {n}: last of {row['keys']} keys → the follower shows the final text"
                  f" (frames dropped h1 {row['drops'][1]}, h2 {row['drops'][2]}; load {row['load']:.2f})",
                  "never" if final is None else f"{final:.0f} ms", "≤ 1 s", final is not None and final <= 1000)
        table.row(f"  the same run: key → follower's screen p50 / p99 / max ({len(row['follower_ms'])} keys)",
                  fmt(row["follower_ms"]), "", None)
        table.row(f"  the same run: the typist's key → own screen p50 / p99 / max"
                  + (f" ({row['own_missed']} never shown)" if row["own_missed"] else ""), fmt(row["own_ms"]), "", None)
        table.row("  TCP in the run (nstat deltas)", tcp or "—", "", None)
        table.row("  after the loss: still following", "yes" if row["still_following"] else "no", "", None)
    turns = results.get("stall", [])
    if turns:
        reading = [k for t in turns if not t["stalled"] for k in t["own_ms"]]
        stopped = [k for t in turns if t["stalled"] for k in t["own_ms"]]
        p_read, p_stop = report.percentile(reading, 0.99), report.percentile(stopped, 0.99)
        table.row(f"typist's key → own screen, follower reading, p50 / p99 / max ({len(reading)} keys)", fmt(reading, 2), "", None)
        table.row(f"typist's key → own screen, follower stopped {args.stall_s:g} s, p50 / p99 / max ({len(stopped)} keys)",
                  fmt(stopped, 2), "p99 unchanged (≤ 1.2× reading's)", bool(stopped) and p_stop <= 1.2 * p_read)
        for t in turns:
            tcp = "; ".join(f"h{h}: " + (", ".join(f"{k} {v}" for k, v in sorted(t["tcp"][h].items())) or "none") for h in (1, 2))
            state = "stopped" if t["stalled"] else "reading"
            table.row(f"  TCP while the follower was {state} (nstat deltas)", tcp, "", None)
            if t["typist_sched"]:
                cpu, slices = t["typist_sched"]
                table.row(f"  the typist's CPU and wake-ups (time slices) per key while the follower was {state}",
                          f"{cpu / 1000:.0f} µs, {slices:.1f}", "", None)
        for n, t in enumerate((t for t in turns if t["stalled"]), 1):
            newest = t["newest_after_ms"]
            table.row(f"SIGCONT → the follower shows the newest text, stall {n} ({t['keys']} keys typed while stopped; load {t['load']:.2f})",
                      "never" if newest is None else f"{newest:.0f} ms", "≤ 1 s", newest is not None and newest <= 1000)
    for row in results.get("loss", []) + turns:
        if "failure" in row:
            print("failure: " + row["failure"])
