#!/usr/bin/env python3
"""What being followed costs the typist, in instructions (issue 34): two `baton edit`s of the same
file on h1 under `valgrind --tool=callgrind`, one followed from h2 by `baton follow`, one not; the
same --keys keys typed into each; the instructions each spent over its keys (counters zeroed
before and dumped after, so opening the file does not count). Instruction counts do not move with
the machine's load, so the two can be compared even on a busy machine.

    sudo python3 bench/live_profile.py --bin-dir DIR [--size-mb 16] [--keys 100] [--out DIR]

Prints instructions per key for both and the functions whose inclusive cost differs most;
the callgrind files stay in --out for callgrind_annotate.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
from batonlab import lab, meters  # noqa: E402
from batonlab.lab import PtyProgram  # noqa: E402
import editor_bench  # noqa: E402
from live_bench import pump, shows, following, EDITING  # noqa: E402


def callgrind(namespace, pid, *arguments):
    subprocess.run(["ip", "netns", "exec", namespace, "callgrind_control", *arguments, str(pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def context_switches(pid):
    """Voluntary and involuntary context switches of every thread of `pid` so far."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def type_keys(program, everyone, keys, gap_ms, watchers):
    letters = "abcdefghijklmnopqrstuvwxyz"
    typed = ""
    for index in range(keys):
        if index and index % 50 == 0:
            program.write(b"\r")
            typed = ""
            pump(everyone, lambda: all(any(l.startswith("BEGIN") for l in w.screen.lines()) for w in watchers),
                 time.perf_counter() + 30)
        typed += letters[index % 26]
        expected = typed[-30:] + "BEGIN"
        sent = time.perf_counter()
        program.write(typed[-1].encode())
        if pump(everyone, lambda: all(shows(w, expected) for w in watchers), sent + 30) is None:
            raise RuntimeError(f"key {index} never showed: " + " | ".join(w.error_tail() for w in watchers))
        pump(everyone, lambda: False, sent + gap_ms / 1000)


def end(programs):
    """Kills each program (a pty's, under valgrind or not) and waits for it."""
    for p in programs:
        try:
            os.kill(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(10)


def without_debug_info(program, folder, label):
    """A copy of `program` in `folder` without its debug information, its symbols kept."""
    copy = os.path.join(folder, f"baton-{label}")
    subprocess.run(["strip", "--strip-debug", "-o", copy, program], check=True)
    return copy


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=lab.RELEASE)
    parser.add_argument("--before-bin-dir", help="a build to compare: its editor, followed the same way, under callgrind beside")
    parser.add_argument("--size-mb", type=int, default=16)
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--gap-ms", type=float, default=100)
    parser.add_argument("--out", default="/tmp/live-profile")
    parser.add_argument("--strace", action="store_true",
                        help="instead of callgrind: the editors run natively, and `strace -c -f` counts their system calls "
                             "over the keys, beside their context switches (what callgrind cannot see: the kernel's part)")
    parser.add_argument("--strace-full", action="store_true", help="with --strace: also every call, per thread, in OUT/LABEL.calls")
    args = parser.parse_args()
    lab.check_host("live_profile.py")
    baton, _ = lab.programs("live_profile.py", args.bin_dir)
    # (label, program, followed)
    editors = [("typist", baton, True), ("solo", baton, False)]
    if args.before_bin_dir:
        editors.insert(1, ("before", lab.programs("live_profile.py", args.before_bin_dir)[0], True))
    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):
        if old.split(".")[0] in [e[0] for e in editors]:
            os.remove(os.path.join(args.out, old))
    the_lab = lab.Lab("lprof", 2)
    scratch = tempfile.mkdtemp(prefix="baton-live-profile-")
    if not args.strace:
        # Valgrind 3.19 gives up on the DWARF 5 debug information Swift 6 writes ("unhandled
        # dwarf2 abbrev form code 0x25"): it is given copies without it (symbols kept).
        editors = [(label, without_debug_info(program, scratch, label), followed) for label, program, followed in editors]
    env = lab.baton_env(scratch, os.urandom(32))
    lab.end_through_finally()
    programs = []
    h1, h2 = the_lab.namespace(1), the_lab.namespace(2)
    print(lab.run_header(baton))
    try:
        the_lab.up()
        source = os.path.join(scratch, "source.txt")
        editor_bench.make_file(source, args.size_mb)
        grind = [] if args.strace else ["valgrind", "--tool=callgrind", "--vgdb=yes"]
        running = []  # (label, editor, follower or None)
        everyone = []
        for label, program, followed in editors:
            file = os.path.join(scratch, label + ".txt")
            shutil.copy(source, file)
            out = [] if args.strace else [f"--callgrind-out-file={args.out}/{label}.%p"]
            editor = PtyProgram(h1, grind + out + [program, "edit", "--name", "bench-" + label, file], env,
                                drain_thread=False, name=label)
            programs.append(editor)
            everyone.append(editor)
            running.append([label, editor, followed])
        if pump(everyone, lambda: all(shows(e, "BEGIN the") for _, e, _ in running), time.perf_counter() + 900) is None:
            raise RuntimeError("the editors never showed the file: " + " | ".join(e.error_tail() for _, e, _ in running))
        for entry in running:
            label, editor, followed = entry
            if not followed:
                entry[2] = None
                continue
            program = next(p for l, p, _ in editors if l == label)
            follower = PtyProgram(h2, [program, "follow", EDITING, "--from", "bench-" + label, "--wait", "30", "--name",
                                       "bench-f" + label], env, drain_thread=False, name=label + "-follower")
            programs.append(follower)
            everyone.append(follower)
            if pump(everyone, lambda: following(follower, "bench-" + label) and shows(follower, "BEGIN the"),
                    time.perf_counter() + 300) is None:
                raise RuntimeError(f"{label}'s follower never showed the session: " + follower.error_tail())
            entry[2] = follower
        pump(everyone, lambda: False, time.perf_counter() + 5)
        # A few keys each first (warming up), then zero, type, dump.
        for label, editor, follower in running:
            type_keys(editor, everyone, 5, args.gap_ms, [editor] + ([follower] if follower else []))
        pump(everyone, lambda: False, time.perf_counter() + 3)
        if args.strace:
            for label, editor, follower in running:
                traced = [(label, editor)] + ([(label + "-follower", follower)] if follower else [])
                before = {name: (context_switches(p.pid), meters.cpu_ns(p.pid)) for name, p in traced}
                tracers = []
                for name, p in traced:
                    how = ["-tt", "-o", f"{args.out}/{name}.calls"] if args.strace_full else ["-c", "-o", f"{args.out}/{name}.strace"]
                    tracers.append(subprocess.Popen(["ip", "netns", "exec", h1, "strace", "-f", *how, "-p", str(p.pid)],
                                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                pump(everyone, lambda: False, time.perf_counter() + 2)  # strace attaches to every thread
                type_keys(editor, everyone, args.keys, args.gap_ms, [editor] + ([follower] if follower else []))
                for tracer in tracers:
                    tracer.send_signal(signal.SIGINT)
                    tracer.wait(30)
                for name, p in traced:
                    switches, cpu = before[name]
                    print(f"{name}: {(context_switches(p.pid) - switches) / args.keys:.1f} context switches per key "
                          f"(all threads; strace attached); CPU {(meters.cpu_ns(p.pid) - cpu) / args.keys / 1000:.0f} µs per key")
        else:
            for _, editor, _ in running:
                callgrind(h1, editor.pid, "-z")
            for label, editor, follower in running:
                type_keys(editor, everyone, args.keys, args.gap_ms, [editor] + ([follower] if follower else []))
            pump(everyone, lambda: False, time.perf_counter() + 3)
            for _, editor, _ in running:
                callgrind(h1, editor.pid, "-d")
            pump(everyone, lambda: False, time.perf_counter() + 3)
    finally:
        end(programs)
        the_lab.down()
        shutil.rmtree(scratch, ignore_errors=True)
    if args.strace and args.strace_full:
        return
    if args.strace:
        for label, _, followed in editors:
            for name in [label] + ([label + "-follower"] if followed else []):
                print(f"--- {name}: system calls over {args.keys} keys (strace -c -f)")
                with open(f"{args.out}/{name}.strace") as f:
                    print(f.read())
        return
    for label, _, _ in editors:
        dumps = sorted(f for f in os.listdir(args.out) if f.split(".")[0] == label and f.count(".") >= 2)
        if not dumps:
            print(f"{label}: no dump")
            continue
        path = os.path.join(args.out, dumps[-1])
        total = None
        with open(path) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
        print(f"{label}: {total:,} instructions over {args.keys} keys = {total / args.keys:,.0f} per key ({path})")


if __name__ == "__main__":
    main()
