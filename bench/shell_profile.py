#!/usr/bin/env python3
"""What a shell key costs in instructions (issue 35): a `baton shell` keeper running a raw echo
loop on h1, driven from h2 by `baton --continue-activity`, both under `valgrind --tool=callgrind`
with one dump per thread (bench/hot_functions.py's shell scene); a few keys to warm up, the
counters zeroed, --keys keys typed --gap-ms apart, the counters dumped. Instruction counts do not
move with the machine's load, so two builds can be compared even on a busy machine.

    sudo python3 bench/shell_profile.py --bin-dir DIR [--keys 60] [--gap-ms 50] [--out DIR]

Prints, per program and thread, the instructions per key of the threads that did at least 1,000
per key, and a few of the functions a key crosses; the callgrind files stay in --out for
callgrind_annotate. A thread of libdispatch's that spins in `epoll_wait` under valgrind (and not
outside it: the idle keeper uses under 0.1 % of a core) is named and left out.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonlab import lab  # noqa: E402
import hot_functions  # noqa: E402

# Functions whose inclusive instructions per key are printed, by their demangled names' start.
WATCHED = [
    "ShellKeeperEngine.screenChanged(now:)", "ShellMessage.bytes.getter", "static ShellScreenUpdate.runs(of:styleIndex:)",
    "BinaryPropertyListWriter.write(_:)", "ContinuationStream.receive(_:)", "ShellMessage.init(bytes:)",
    "static ShellScreenUpdate.cells(of:styles:columns:)", "ShellDisplay.show(_:status:)", "doupdate_sp",
]


def summary(path):
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    return 0


def watched(path, keys):
    """The WATCHED functions' inclusive instructions per key in one thread's dump."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                          capture_output=True, text=True).stdout
    if shutil.which("swift"):
        text = subprocess.run(["swift", "demangle", "--simplified"], input=text, capture_output=True, text=True).stdout
    found = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\?\?\?:(?:specialized )?(.*?) \[", line)
        if not m:
            continue
        for name in WATCHED:
            if m.group(2).startswith(name) and name not in found:
                found[name] = int(m.group(1).replace(",", "")) / keys
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=lab.RELEASE)
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--gap-ms", type=float, default=50)
    parser.add_argument("--out", default="/tmp/baton-shell-profile")
    args = parser.parse_args()
    hot_functions.record_scenes("shell_profile.py", args.bin_dir, args.out, [
        lambda the_lab, env, scratch, program: hot_functions.shell_scene(the_lab, env, scratch, program, args, args.out),
    ])
    print(f"instructions per key ({args.keys} keys, {args.gap_ms:g} ms apart):")
    for name in sorted(os.listdir(args.out)):
        # label.pid.part-thread: the window's dump of one thread.
        if name.count(".") < 2:
            continue
        path = os.path.join(args.out, name)
        per_key = summary(path) / args.keys
        if per_key < 1000:
            continue
        with open(path) as f:
            spinning = "_dispatch_mgr_thread" in f.read()
        if spinning:
            print(f"  {name}: libdispatch's manager thread, spinning under valgrind: left out")
            continue
        print(f"  {name}: {per_key / 1000:.0f}K")
        for function, count in watched(path, args.keys).items():
            print(f"      {function}: {count / 1000:.1f}K")


if __name__ == "__main__":
    main()
