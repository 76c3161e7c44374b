#!/usr/bin/env python3
"""Live sessions (issue 34): a key on the editing machine → the follower's screen, the baton taken
back, and idle with a follower attached; nano's key in the same run as the yardstick.

Run as root against release builds:

    sudo python3 bench/live_bench.py [--bin-dir DIR] [--size-mb 16] [--keys 300] [--gap-ms 50]

One netlab lab of two hosts (network namespaces on a bridge; nothing leaves the machine, and the
lab is always removed, also on Ctrl-C, SIGTERM and SIGHUP). The file is editor_bench.py's: 16 MB
of mixed-script lines, the first starting with BEGIN. Every program runs on a pty of its own
(80×24) that this script reads in one select loop, so a time is when its bytes reached the script.

  keys        h1: `baton edit --name bench-a FILE` (the typist), `baton edit` of a copy with nobody
              following (bench-solo) and `nano -I` of another copy; h2: `baton follow
              dev.baton.editing --from bench-a --wait 10`. --keys letters go in front of BEGIN,
              --gap-ms apart, in turns of 50 per program (then Enter), as editor_bench.py does.
              Per key on the typist: write → its first output byte and → its screen showing the
              letters; write → the follower's first output byte and → the follower's screen
              showing them (a small xterm emulator replays each pty; a screen's time is when the
              output that completed it was read, before the replay). Whether the follower's first
              byte is a fair proxy: its bytes while nothing is typed are counted (--quiet-s), and
              the first byte and the screen are told apart per key. Per program and key over its
              turns: CPU and time slices (schedstat; a slice is a wake-up).
  take back   --takes times: h2 runs `baton --continue-activity dev.baton.editing --from bench-a`
              (spawn → the text on its screen: the ordinary continue of the same state, and h1's
              line begins "Following bench-b"); --take-edits keys typed on h2 (--take-gap-ms
              apart) until h1 shows the last; then Ctrl-T on h1: write → no line of h1's screen
              begins "Following" (it leads), and → h2's line begins "Following bench-a". h2 quits.
  idle        h1's editor with the follower attached, neither typed into: first --idle-settle-s
              (each lets go of what the keys left: its code pages 10 s after the last key or
              live message, the revision before its newest save 10-20 s after that save; the max
              VmRSS while settling is printed too), then --idle-s: each one's CPU (schedstat, all
              threads) as % of one core, max VmRSS sampled every 250 ms.
  loss        (live_faults.py) --loss-percent frame loss on both hosts' links (`netlab frameloss`:
              every IPv4 frame, TCP segments too, dropped before reassembly; TCP retransmits) while
              --loss-keys keys are typed on h1 --gap-ms apart, --loss-runs times: from the last key
              to the follower showing the final text, and what TCP did (nstat).
  stall       (live_faults.py) turns of --stall-s of typing on h1: the follower reading, then the
              follower's process stopped (SIGSTOP) the whole turn; after SIGCONT, until the
              follower shows the newest text; the typist's key times in both turns side by side,
              with its CPU and time slices per key and what the hosts' TCP did (nstat) in each.
              A follower's screen is looked at only after it wrote: looking at a stopped one's on
              every turn of the read loop cost this script 0.3 ms before it saw the typist's key.
  Every keys' turn also reports the bytes each program wrote to its terminal per key.
  --before-bin-dir DIR adds DIR's `baton edit` (bench-b4, followed by DIR's `baton follow`) to the
              keys' turns: a build before a change, measured in the same run.

Targets (issue 34): follower p99 ≤ 5 ms; the typist's p99 ≤ 1.5 × nano's; take back ≤ 50 ms;
idle ≤ 0.5 % of a core and ≤ 40 MB each side; at 10 % frame loss the final text within 1 s of the
last key; a follower stopped 10 s: the typist's p99 unchanged, the newest state within 1 s of SIGCONT.
"""

import argparse
import os
import select
import shutil
import signal
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from batonlab.lab import PtyProgram  # noqa: E402
import editor_bench  # noqa: E402  (its file maker)
import live_faults  # noqa: E402  (the loss and stall phases)

EDITING = "dev.baton.editing"
CTRL_T, CTRL_Q = b"\x14", b"\x11"


READ_AT = [0.0]  # while `until()` runs in `pump`: when the bytes it looks at were read


def pump(programs, until, deadline, firsts=None):
    """Reads every program's pty in one select loop until `until()` or `deadline` (perf_counter).
    What is ready together is read first, each chunk stamped as it is read, then every chunk is fed
    to its screen in order, with `until()` asked after each until it holds. The time returned is
    the stamp of the chunk after which it held (or the time it held with nothing new), so this
    script's own replay of the bytes into a screen (tens of µs per key in Python) is not counted as
    the program's; `until()` finds that stamp in READ_AT. With `firsts` ({program: None}), the time
    each program's first new bytes arrived is filled in. Returns None at the deadline."""
    fds = {p.fd: p for p in programs}
    while True:
        now = time.perf_counter()
        READ_AT[0] = now
        if until():
            return now
        if now >= deadline:
            return None
        ready, _, _ = select.select(list(fds), [], [], min(0.005, deadline - now))
        chunks = []
        for fd in ready:
            program = fds[fd]
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                del fds[fd]
                continue
            chunks.append((time.perf_counter(), program, data))
        held = None
        for at, program, data in chunks:
            # Every chunk read is fed, also those after the one that made `until()` hold: a chunk
            # left out would be missing from its screen for good.
            if firsts is not None and program in firsts and firsts[program] is None:
                firsts[program] = at
            program.output_bytes += len(data)
            program.screen.feed(data)
            if held is None:
                READ_AT[0] = at
                if until():
                    held = at
        if held is not None:
            return held
        if not fds:
            return None


pump.read_at = READ_AT  # for live_faults.py, which is handed `pump`


def shows(program, text):
    return any(text in line for line in program.screen.lines())


def leads(program):
    return not any(line.startswith("Following") for line in program.screen.lines())


def following(program, name):
    return any(line.startswith(f"Following {name}") for line in program.screen.lines())


def start(namespace, argv, env, name):
    program = PtyProgram(namespace, argv, env, drain_thread=False, name=name)
    return program


def clean_recovery(env):
    state = os.path.join(env["HOME"], ".local", "state")
    shutil.rmtree(os.path.join(state, "baton", "recovery"), ignore_errors=True)


def type_block(typist, watchers, everyone, keys, gap_ms, result, follower=None):
    """`keys` letters in front of BEGIN on `typist`, `gap_ms` apart; per key the times to the
    typist's first byte and screen and, with `follower`, the follower's. Then Enter."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    typed = ""
    begin = time.perf_counter()
    for index in range(keys):
        pump(everyone, lambda: False, begin + index * gap_ms / 1000)
        typed += letters[index % len(letters)]
        expected = typed[-30:] + "BEGIN"
        firsts = {p: None for p in watchers}
        sent = time.perf_counter()
        typist.write(typed[-1].encode())
        seen = {}
        looked = {}  # each watcher's output bytes when its screen was last looked at

        def done():
            # A screen is looked at only when its program wrote since: reading a screen costs the
            # bench about 70 µs, and looking at one that cannot have changed delayed seeing another's.
            for p in watchers:
                if p not in seen and looked.get(p) != p.output_bytes:
                    looked[p] = p.output_bytes
                    if shows(p, expected):
                        seen[p] = READ_AT[0]
            return len(seen) == len(watchers)

        pump(everyone, done, sent + 10, firsts)
        own = seen.get(typist)
        result["keys_ms"].append(None if own is None else (own - sent) * 1000)
        if firsts[typist] is not None:
            result["first_ms"].append((firsts[typist] - sent) * 1000)
        if follower is not None:
            shown = seen.get(follower)
            result["follower_ms"].append(None if shown is None else (shown - sent) * 1000)
            if firsts[follower] is not None:
                first = (firsts[follower] - sent) * 1000
                result["follower_first_ms"].append(first)
                if shown is not None and shown - firsts[follower] > 0.0005:
                    # The first byte came, the change came later: the first byte was something else.
                    result["follower_first_not_change"] += 1
    pump(everyone, lambda: False, begin + keys * gap_ms / 1000)
    typist.write(b"\r")
    pump(everyone, lambda: all(any(l.startswith("BEGIN") for l in p.screen.lines()) for p in watchers),
         time.perf_counter() + 10)


def settle(everyone, seconds):
    pump(everyone, lambda: False, time.perf_counter() + seconds)


def keys_phase(run, args, table, results):
    h1, h2 = run.lab.namespace(1), run.lab.namespace(2)
    env = run.env
    clean_recovery(env)
    typist = start(h1, [run.baton, "edit", "--name", "bench-a", run.file], env, "typist")
    everyone = [typist]
    run.programs.append(typist)
    if pump(everyone, lambda: shows(typist, "BEGIN the"), time.perf_counter() + args.open_timeout) is None:
        raise RuntimeError("the typist's editor never showed the file: " + typist.error_tail())
    settle(everyone, 1.0)
    solo = start(h1, [run.baton, "edit", "--name", "bench-solo", run.file_solo], env, "solo")
    run.programs.append(solo)
    everyone.append(solo)
    if pump(everyone, lambda: shows(solo, "BEGIN the"), time.perf_counter() + args.open_timeout) is None:
        raise RuntimeError("the solo editor never showed the file: " + solo.error_tail())
    nano = start(h1, [run.nano, "-I", run.file_nano], env, "nano")
    run.programs.append(nano)
    everyone.append(nano)
    if pump(everyone, lambda: shows(nano, "BEGIN the"), time.perf_counter() + args.open_timeout) is None:
        raise RuntimeError("nano never showed the file: " + nano.error_tail())
    settle(everyone, 1.0)
    spawned = time.perf_counter()
    follower = start(h2, [run.baton, "follow", EDITING, "--from", "bench-a", "--wait", "10", "--name", "bench-f"],
                     env, "follower")
    run.programs.append(follower)
    everyone.append(follower)
    shown = pump(everyone, lambda: following(follower, "bench-a") and shows(follower, "BEGIN the"),
                 time.perf_counter() + args.open_timeout)
    if shown is None:
        raise RuntimeError("the follower never showed the session: " + follower.error_tail())
    results["follow_open_ms"] = (shown - spawned) * 1000
    settle(everyone, 2.0)
    # Is the follower's first byte a fair proxy? What it writes while nothing is typed.
    quiet_before = follower.output_bytes
    settle(everyone, args.quiet_s)
    results["follower_quiet_bytes"] = follower.output_bytes - quiet_before
    results["quiet_s"] = args.quiet_s

    labels = ("typist", "solo", "nano") + (("before",) if run.baton_before else ())
    r = {label: {"keys_ms": [], "first_ms": [], "follower_ms": [], "follower_first_ms": [],
                 "follower_first_not_change": 0, "cpu_ns": 0, "cpu_keys": 0} for label in labels}
    results["keys"] = r
    turns = [("typist", typist, [typist, follower], follower), ("solo", solo, [solo], None), ("nano", nano, [nano], None)]
    if run.baton_before:
        # The build before, followed the same way, typed in the same turns: its figures beside these.
        before = start(h1, [run.baton_before, "edit", "--name", "bench-b4", run.file_before], env, "before")
        run.programs.append(before)
        everyone.append(before)
        if pump(everyone, lambda: shows(before, "BEGIN the"), time.perf_counter() + args.open_timeout) is None:
            raise RuntimeError("the build before never showed the file: " + before.error_tail())
        before_f = start(h2, [run.baton_before, "follow", EDITING, "--from", "bench-b4", "--wait", "10", "--name", "bench-fb4"],
                         env, "before-follower")
        run.programs.append(before_f)
        everyone.append(before_f)
        if pump(everyone, lambda: following(before_f, "bench-b4") and shows(before_f, "BEGIN the"),
                time.perf_counter() + args.open_timeout) is None:
            raise RuntimeError("the build before's follower never showed the session: " + before_f.error_tail())
        settle(everyone, 2.0)
        turns.insert(1, ("before", before, [before, before_f], before_f))
        run.before, run.before_follower = before, before_f
    results["load_keys"] = os.getloadavg()
    perf = None
    if args.perf:
        # `perf record -g` of the typist and the follower over the keys: that run's times are not clean.
        import subprocess
        perf = subprocess.Popen(["perf", "record", "-F", "499", "-g", "-p", f"{typist.pid},{follower.pid}",
                                 "-o", args.perf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)  # perf attaches
    done = 0
    while done < args.keys:
        count = min(50, args.keys - done)
        for label, program, watchers, f in turns:
            cpu_before = meters.sched(program.pid)
            fbefore = meters.sched(f.pid) if f else None
            bytes_before = program.output_bytes
            type_block(program, watchers, everyone, count, args.gap_ms, r[label], f)
            # Counted with the Enter that ends the block: about one key's screen in fifty.
            r[label]["out_bytes"] = r[label].get("out_bytes", 0) + program.output_bytes - bytes_before
            cpu_after = meters.sched(program.pid)
            if cpu_before is not None and cpu_after is not None:
                r[label]["cpu_ns"] += cpu_after[0] - cpu_before[0]
                r[label]["slices"] = r[label].get("slices", 0) + cpu_after[1] - cpu_before[1]
                r[label]["cpu_keys"] += count
            if f:
                fafter = meters.sched(f.pid)
                r[label]["follower_cpu_ns"] = r[label].get("follower_cpu_ns", 0) + (fafter[0] - fbefore[0])
                r[label]["follower_slices"] = r[label].get("follower_slices", 0) + (fafter[1] - fbefore[1])
            settle(everyone, 1.0)
        done += count
    if perf is not None:
        perf.send_signal(signal.SIGINT)
        perf.wait(30)
    # The follower shows the typist's last text: compare what both show.
    settle(everyone, 1.0)
    # The rows around BEGIN on the typist's screen are on the follower's too.
    rows = typist.screen.lines()
    at = next((i for i, l in enumerate(rows) if l.startswith("BEGIN")), None)
    # Row 0 is the title, the last two the message line and the status bar, which differ.
    wanted = [l for l in rows[max(1, (at or 0) - 3):min((at or 0) + 3, len(rows) - 2)] if l.strip()]
    results["screens_equal_after"] = at is not None and all(l in follower.screen.lines() for l in wanted)
    results["typist_screen"] = typist.screen.lines()
    results["follower_screen"] = follower.screen.lines()
    run.typist, run.follower, run.everyone = typist, follower, everyone
    # nano, the solo editor and the build before are done: quit them so the rest of the run is the two live sides.
    for program in (solo, nano) + ((run.before, run.before_follower) if run.baton_before else ()):
        os.kill(program.pid, signal.SIGKILL)
        program.wait(3)
        everyone.remove(program)


def idle_phase(run, args, results):
    typist, follower = run.typist, run.follower
    settle(run.everyone, 2.0)
    sampler = meters.Sampler([typist.pid, follower.pid], period=0.25)
    settling = time.monotonic()
    settle(run.everyone, args.idle_settle_s)
    begin = time.monotonic()
    results["load_idle_before"] = os.getloadavg()
    settle(run.everyone, args.idle_s)
    sampler.stop()
    out = {}
    for label, p in (("typist", typist), ("follower", follower)):
        series = sampler.series(p.pid, since=begin)
        before = sampler.series(p.pid, since=settling, until=begin)
        out[label] = {"cpu_percent": meters.cpu_percent(series), "rss_max_mb": max(s[1] for s in series) / 1024,
                      "hwm_mb": series[-1][2] / 1024, "idle_bytes": None,
                      "settling_rss_max_mb": max((s[1] for s in before), default=0) / 1024}
    results["idle"] = out
    results["idle_s"] = args.idle_s
    results["idle_settle_s"] = args.idle_settle_s


def take_phase(run, args, results):
    h2 = run.lab.namespace(2)
    typist = run.typist
    # The follower leaves first: h2 will continue the session instead.
    run.follower.write(CTRL_Q)
    run.follower.wait(5)
    run.everyone.remove(run.follower)
    settle(run.everyone, 1.0)
    takes = []
    for take in range(args.takes):
        spawned = time.perf_counter()
        b = start(h2, [run.baton, "--continue-activity", EDITING, "--from", "bench-a", "--wait", "10", "--name", "bench-b"],
                  run.env, "continuer")
        run.programs.append(b)
        everyone = run.everyone + [b]
        # The ordinary continue: spawn → the text on b's screen (its first line shows).
        on_screen = pump(everyone, lambda: shows(b, "BEGIN"), time.perf_counter() + 30)
        follows = pump(everyone, lambda: following(typist, "bench-b"), time.perf_counter() + 30)
        row = {"continue_ms": None if on_screen is None else (on_screen - spawned) * 1000,
               "a_follows_ms": None if follows is None else (follows - spawned) * 1000}
        if on_screen is None or follows is None:
            row["failure"] = "continue: " + b.error_tail() + " | a: " + typist.error_tail()
            takes.append(row)
            b.stop()
            everyone.remove(b)
            continue
        settle(everyone, 1.0)
        # Edits on b: --take-edits letters, --take-gap-ms apart, then wait until a shows the last ones.
        letters = "abcdefghijklmnopqrstuvwxyz"
        typed = ""
        begin = time.perf_counter()
        for index in range(args.take_edits):
            pump(everyone, lambda: False, begin + index * args.take_gap_ms / 1000)
            if index % 40 == 0 and index:  # Enter now and then: the line stays within 80 columns
                b.write(b"\r")
                typed = ""
                continue
            typed += letters[index % 26]
            b.write(typed[-1].encode())
        tail = typed[-20:] + "BEGIN"
        caught = pump(everyone, lambda: shows(typist, tail) and shows(b, tail), time.perf_counter() + 10)
        row["edits"] = args.take_edits
        row["a_caught_up"] = caught is not None
        settle(everyone, 1.0)
        # Ctrl-T on a: from the write until a leads (no line begins "Following"), and until b follows.
        sent = time.perf_counter()
        typist.write(CTRL_T)
        firsts = {typist: None}
        led = pump(everyone, lambda: leads(typist), sent + 10, firsts)
        b_follows = pump(everyone, lambda: following(b, "bench-a"), sent + 10)
        row["take_ms"] = None if led is None else (led - sent) * 1000
        row["take_first_byte_ms"] = None if firsts[typist] is None else (firsts[typist] - sent) * 1000
        row["b_follows_ms"] = None if b_follows is None else (b_follows - sent) * 1000
        # An editable screen: a key typed on a right after shows there.
        sent = time.perf_counter()
        typist.write(b"Z")
        shown = pump(everyone, lambda: shows(typist, "ZBEGIN"), sent + 5)
        row["key_after_take_ms"] = None if shown is None else (shown - sent) * 1000
        row["load"] = os.getloadavg()[0]
        takes.append(row)
        b.write(CTRL_Q)
        if b.wait(5) is None:
            b.stop()
        everyone.remove(b)
        settle(run.everyone, 2.0)
    results["takes"] = takes


def fmt(values, digits=1):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return (f"{report.percentile(values, 0.5):.{digits}f} / {report.percentile(values, 0.99):.{digits}f} / "
            f"{max(values):.{digits}f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=lab.RELEASE)
    parser.add_argument("--size-mb", type=int, default=16)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--gap-ms", type=float, default=50)
    parser.add_argument("--quiet-s", type=float, default=5)
    parser.add_argument("--takes", type=int, default=3)
    parser.add_argument("--take-edits", type=int, default=1000)
    parser.add_argument("--take-gap-ms", type=float, default=5)
    parser.add_argument("--idle-s", type=float, default=30)
    parser.add_argument("--idle-settle-s", type=float, default=20,
                        help="quiet time before the idle measure, after the 2 s every phase waits (0: as before 2026-11-29)")
    parser.add_argument("--open-timeout", type=float, default=60)
    parser.add_argument("--perf", metavar="FILE", help="perf record -g the typist and the follower over the keys into FILE")
    parser.add_argument("--before-bin-dir", help="a build to compare: its typist, followed the same way, typed in the same turns")
    parser.add_argument("--skip-take", action="store_true")
    parser.add_argument("--skip-idle", action="store_true")
    parser.add_argument("--skip-loss", action="store_true")
    parser.add_argument("--skip-stall", action="store_true")
    parser.add_argument("--loss-percent", type=int, default=10, help="frame loss on both hosts' links (netlab frameloss)")
    parser.add_argument("--loss-keys", type=int, default=300)
    parser.add_argument("--loss-runs", type=int, default=2)
    parser.add_argument("--loss-deadline-s", type=float, default=30, help="how long after the last key to wait for the follower")
    parser.add_argument("--stall-s", type=float, default=10, help="how long the follower is stopped (SIGSTOP)")
    parser.add_argument("--stall-runs", type=int, default=2)
    parser.add_argument("--stall-deadline-s", type=float, default=30, help="how long after SIGCONT to wait for the follower")
    args = parser.parse_args()
    if not 1 <= args.keys <= 1000:
        parser.error("--keys must be 1 to 1000")

    lab.check_host("live_bench.py")
    run = argparse.Namespace(programs=[])
    run.baton, _ = lab.programs("live_bench.py", args.bin_dir)
    run.baton_before = lab.programs("live_bench.py", args.before_bin_dir)[0] if args.before_bin_dir else None
    run.nano = shutil.which("nano")
    if not run.nano:
        sys.exit("live_bench.py: nano not found (apt-get install -y nano)")
    run.lab = lab.Lab("live", 2)
    run.scratch = tempfile.mkdtemp(prefix="baton-live-bench-")
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    lab.end_through_finally()
    print(meters.describe_machine(meters.machine()))
    print(lab.run_header(run.baton))
    results = {}
    table = report.Table()
    try:
        run.lab.up()
        run.file = os.path.join(run.scratch, "live.txt")
        size = editor_bench.make_file(run.file, args.size_mb)
        run.file_solo = os.path.join(run.scratch, "solo.txt")
        run.file_nano = os.path.join(run.scratch, "nano.txt")
        shutil.copy(run.file, run.file_solo)
        shutil.copy(run.file, run.file_nano)
        run.file_before = os.path.join(run.scratch, "before.txt")
        shutil.copy(run.file, run.file_before)
        keys_phase(run, args, table, results)
        if not args.skip_loss:
            results["loss"] = live_faults.loss_phase(run, args, pump, shows, following)
        if not args.skip_stall:
            results["stall"] = live_faults.stall_phase(run, args, pump, shows)
        if not args.skip_idle:
            idle_phase(run, args, results)
        if not args.skip_take:
            take_phase(run, args, results)
    finally:
        for program in run.programs:
            try:
                os.kill(program.pid, signal.SIGCONT)  # a follower stopped by the stall phase
                os.kill(program.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            program.wait(3)
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)
        print("load average after: " + " ".join("%.2f" % x for x in os.getloadavg()))

    mb = size / 1e6
    r = results["keys"]
    nano_keys = [k for k in r["nano"]["keys_ms"] if k is not None]
    nano_p99 = report.percentile(nano_keys, 0.99)
    t = r["typist"]
    fol = [k for k in t["follower_ms"] if k is not None]
    own = [k for k in t["keys_ms"] if k is not None]
    missed_f = len(t["follower_ms"]) - len(fol)
    table.row(f"follower: `baton follow` spawn → the {mb:.0f} MB session on screen", f"{results['follow_open_ms']:.0f} ms", "", None)
    table.row(f"follower: bytes it wrote in {results['quiet_s']:g} s with nothing typed", f"{results['follower_quiet_bytes']}", "", None)
    table.row(f"key on h1 → follower's screen p50 / p99 / max ({len(t['follower_ms'])} keys, {args.gap_ms:g} ms apart"
              + (f", {missed_f} never shown" if missed_f else "") + ")", fmt(fol),
              "p99 ≤ 5 ms", bool(fol) and missed_f == 0 and report.percentile(fol, 0.99) <= 5)
    table.row(f"key on h1 → follower's first output byte p50 / p99 / max ({len(t['follower_first_ms'])} keys;"
              f" {t['follower_first_not_change']} whose change came in later bytes)", fmt(t["follower_first_ms"], 2), "", None)
    live_faults.report_rows(table, results, args)
    names = [("typist", "typist (followed)"), ("solo", "baton edit, nobody following"), ("nano", "nano -I")]
    if "before" in r:
        names.insert(1, ("before", "the build before, followed"))
    for label, name in names:
        k = r[label]
        if label == "before":
            bf = [x for x in k["follower_ms"] if x is not None]
            table.row("the build before: key → its follower's screen p50 / p99 / max", fmt(bf), "", None)
        keys = [x for x in k["keys_ms"] if x is not None]
        met = None
        if label in ("typist", "before"):
            met = bool(keys) and len(keys) == len(k["keys_ms"]) and report.percentile(keys, 0.99) <= 1.5 * nano_p99
        table.row(f"{name}: key → own screen p50 / p99 / max", fmt(keys, 2), "p99 ≤ 1.5× nano's" if label in ("typist", "before") else "", met)
        table.row(f"{name}: key → own first output byte p50 / p99 / max", fmt(k["first_ms"], 2), "", None)
        if k["cpu_keys"]:
            n = k["cpu_keys"]
            extra = ""
            if "follower_cpu_ns" in k:
                extra = f"; the follower {k['follower_cpu_ns'] / n / 1000:.0f} µs, {k['follower_slices'] / n:.1f}"
            table.row(f"{name}: CPU and wake-ups (time slices) per key while typing",
                      f"{k['cpu_ns'] / n / 1000:.0f} µs, {k.get('slices', 0) / n:.1f}{extra}", "", None)
            table.row(f"{name}: bytes written to the terminal per key", f"{k.get('out_bytes', 0) / n:.0f}", "", None)
    table.row("after the keys: the typist's rows around BEGIN are on the follower's screen",
              "yes" if results["screens_equal_after"] else "no", "", None)
    if "idle" in results:
        for label in ("typist", "follower"):
            i = results["idle"][label]
            table.row(f"idle {results['idle_s']:g} s with a follower attached (after {results['idle_settle_s']:g} s settling), "
                      f"{label}: CPU, max VmRSS (VmHWM); max VmRSS while settling",
                      f"{i['cpu_percent']:.2f} %, {i['rss_max_mb']:.0f} MB ({i['hwm_mb']:.0f} MB); {i['settling_rss_max_mb']:.0f} MB",
                      "≤ 0.5 %, ≤ 40 MB", i["cpu_percent"] <= 0.5 and i["rss_max_mb"] <= 40)
    if "takes" in results:
        takes = results["takes"]
        ok = [x for x in takes if "failure" not in x]
        cont = [x["continue_ms"] for x in ok]
        take = [x["take_ms"] for x in ok if x["take_ms"] is not None]
        if ok:
            table.row(f"ordinary continue of the same state, `baton --continue-activity` spawn → text on screen ({len(cont)} runs)",
                      " / ".join(f"{v:.0f}" for v in cont) + " ms", "", None)
            table.row(f"Ctrl-T on h1 → its screen leads (no line begins \"Following\"), after {args.take_edits} edits on h2",
                      " / ".join("—" if v is None else f"{v:.1f}" for v in (x["take_ms"] for x in ok)) + " ms",
                      "≤ 50 ms", bool(take) and len(take) == len(ok) and max(take) <= 50)
            table.row("  Ctrl-T → h2's line begins \"Following bench-a\"",
                      " / ".join("—" if x["b_follows_ms"] is None else f"{x['b_follows_ms']:.1f}" for x in ok) + " ms", "", None)
            table.row("  then a key on h1 → on its screen",
                      " / ".join("—" if x["key_after_take_ms"] is None else f"{x['key_after_take_ms']:.1f}" for x in ok) + " ms", "", None)
        for x in takes:
            if "failure" in x:
                print("failure: " + x["failure"])
    print(table)
    print(f"load average during the keys: {' '.join('%.2f' % v for v in results['load_keys'])}")
    if not results["screens_equal_after"]:
        print("typist:\n" + "\n".join(results["typist_screen"]) + "\nfollower:\n" + "\n".join(results["follower_screen"]))


if __name__ == "__main__":
    main()
