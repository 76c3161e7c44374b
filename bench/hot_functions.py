#!/usr/bin/env python3
"""The functions a key runs through, for the linker to place together (scripts/hot-functions.txt).

    sudo python3 bench/hot_functions.py [--bin-dir DIR] [--keys 60] [--out scripts/hot-functions.txt]

A key's work is short and runs cold: 50 ms after the last key, the code it needs is no longer in
the caches, and in the program as linked it is spread over 16 MB, so most of a key's time goes to
fetching it. `scripts/build-release` gives lld this file (`--symbol-ordering-file`), which puts
the functions named first in the program's code, in this order: a key's code in a few hundred
KB, not thousands of scattered pages. The file only orders: a name that is no longer in the
program is passed over, so an old file costs speed, never correctness.

How the names are found: in a two-host lab (nothing leaves the machine), each program runs under
`valgrind --tool=callgrind`, a few keys warm it up, its counters are zeroed, --keys keys are typed
--gap-ms apart, and its counts are dumped. The scenes are the ones the benchmarks time:

  editor    `baton edit` of the 16 MB mixed-script file on h1, followed from h2 (`baton follow`):
            the typist and the follower.
  colours   `baton edit` of 16 MB of C with nano's c.nanorc (bench/syntax_bench.py's file).
  shell     a `baton shell` keeper on h1 running a raw echo loop (started as `baton shell --keep`
            directly, so that valgrind runs it), driven from h2 with `baton --continue-activity`.

Each thread is dumped apart (`--separate-threads=yes`). Per program, in the order typist,
coloured editor, follower, driver, keeper, and per thread, the one reading the terminal first (a
background job's thread, which encodes and hashes a save once a second, is left out): the functions
called at least once per two keys, by calls per key, most first (a loop that was running, with no
call in the window, before them); a function goes where it first came. Left out: the names defined
in a static library's object whose code is one section (the Swift standard library's `Swift.o`,
1.6 MB; `_Concurrency.o`; some of Foundation's): naming one would move that whole object, and
everything ordered after it would land past it.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonlab import lab  # noqa: E402
from batonlab.lab import Proc, PtyProgram  # noqa: E402
import editor_bench  # noqa: E402
import syntax_bench  # noqa: E402
from live_bench import pump, shows, following, EDITING  # noqa: E402
from live_profile import callgrind, end, type_keys, without_debug_info  # noqa: E402
import shell_bench  # noqa: E402

# An object of a static library whose code is one section, and larger than this, is not ordered.
UNSPLIT_LIMIT = 64 * 1024


def grind(out_dir, label):
    # BATON_GRIND_OPTIONS: more of callgrind's options, e.g. a cache simulation
    # ("--cache-sim=yes --LL=262144,8,64") to count a key's misses by function.
    extra = os.environ.get("BATON_GRIND_OPTIONS", "").split()
    return ["valgrind", "--tool=callgrind", "--vgdb=yes", "--demangle=no", "--dump-instr=no", "--separate-threads=yes",
            *extra, f"--callgrind-out-file={out_dir}/{label}.%p"]


def parse(path, binary_name):
    """Calls into, and whether it ran, per function of the object named `binary_name`, from a
    callgrind dump (names compressed as `(id) name` the first time, `(id)` after)."""
    names = {"fn": {}, "ob": {}}
    calls = defaultdict(int)
    ran = set()
    object_of = {}
    current_ob = current_fn = callee = callee_ob = None
    after_calls = False

    def name(kind, text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not m:
            return text
        if m.group(2) is not None:
            # A recursive call's level is written after the name: f'2.
            names[kind][m.group(1)] = re.sub(r"'\d+$", "", m.group(2))
        return names[kind].get(m.group(1), text)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                current_ob = name("ob", line[3:])
            elif line.startswith("fn="):
                current_fn = name("fn", line[3:])
                object_of.setdefault(current_fn, current_ob)
            elif line.startswith("cob="):
                callee_ob = name("ob", line[4:])
            elif line.startswith("cfn="):
                callee = name("fn", line[4:])
                object_of.setdefault(callee, callee_ob or current_ob)
                callee_ob = None
            elif line.startswith("calls="):
                calls[callee] += int(line[6:].split()[0])
                after_calls = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False  # the call's inclusive cost, not the caller's own
                elif current_fn is not None:
                    ran.add(current_fn)
    ours = lambda fn: (object_of.get(fn) or "").endswith(binary_name)
    return {fn: calls.get(fn, 0) for fn in ran | set(calls) if ours(fn)}


def unsplit_names():
    """Names defined in a static library's object whose code is one section over UNSPLIT_LIMIT."""
    info = subprocess.run(["swift", "-print-target-info"], capture_output=True, text=True, check=True).stdout
    resource = re.search(r'"runtimeResourcePath"\s*:\s*"([^"]+)"', info).group(1)
    folder = os.path.join(os.path.dirname(resource), "swift_static", "linux")
    names = set()
    for archive in sorted(os.listdir(folder)):
        if not archive.endswith(".a"):
            continue
        path = os.path.join(folder, archive)
        sections = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
        big, member = set(), None
        for line in sections.splitlines():
            if line.startswith("File: "):
                member = line[6:].rsplit("(", 1)[-1].rstrip(")")
            m = re.match(r"\s*\[\s*\d+\]\s+\.text\s+PROGBITS\s+\S+\s+\S+\s+(\S+)", line)
            if m and int(m.group(1), 16) > UNSPLIT_LIMIT:
                big.add(member)
        if not big:
            continue
        symbols = subprocess.run(["nm", "-A", "--defined-only", path], capture_output=True, text=True).stdout
        for line in symbols.splitlines():
            # ARCHIVE:MEMBER:ADDRESS TYPE NAME
            parts = line.split()
            if len(parts) == 3 and parts[0].count(":") >= 2 and parts[0].split(":")[-2] in big:
                names.add(parts[2])
    return names


def editor_scenes(the_lab, env, scratch, program, args, out_dir):
    """The followed typist and its follower, then a coloured editor alone."""
    h1, h2 = the_lab.namespace(1), the_lab.namespace(2)
    text = os.path.join(scratch, "text.txt")
    editor_bench.make_file(text, 16)
    code = os.path.join(scratch, "big.c")
    syntax_bench.make_c_file(code, 16)
    coloured = dict(env, BATON_NANORC_FOLDERS="/usr/share/nano")
    typist = PtyProgram(h1, grind(out_dir, "typist") + [program, "edit", "--name", "hot-typist", text], env,
                        drain_thread=False, name="typist")
    solo = PtyProgram(h1, grind(out_dir, "colours") + [program, "edit", code], coloured, drain_thread=False,
                      name="colours")
    everyone = [typist, solo]
    try:
        if pump(everyone, lambda: shows(typist, "BEGIN the") and shows(solo, "BEGIN"), time.perf_counter() + 900) is None:
            raise RuntimeError("the editors never showed their files: " + typist.error_tail() + " | " + solo.error_tail())
        follower = PtyProgram(h2, grind(out_dir, "follower") + [program, "follow", EDITING, "--from", "hot-typist",
                                                                 "--wait", "60", "--name", "hot-follower"],
                              env, drain_thread=False, name="follower")
        everyone.append(follower)
        if pump(everyone, lambda: following(follower, "hot-typist") and shows(follower, "BEGIN the"),
                time.perf_counter() + 600) is None:
            raise RuntimeError("the follower never showed the session: " + follower.error_tail())
        for editor, watchers in [(typist, [typist, follower]), (solo, [solo])]:
            type_keys(editor, everyone, 5, args.gap_ms, watchers)
        hosts = [(typist, h1), (solo, h1), (follower, h2)]
        for p, namespace in hosts:
            callgrind(namespace, p.pid, "-z")
        type_keys(typist, everyone, args.keys, args.gap_ms, [typist, follower])
        type_keys(solo, everyone, args.keys, args.gap_ms, [solo])
        for p, namespace in hosts:
            callgrind(namespace, p.pid, "-d")
    finally:
        end(everyone)


def shell_scene(the_lab, env, scratch, program, args, out_dir):
    """A keeper running a raw echo loop on h1, driven from h2."""
    h1, h2 = the_lab.namespace(1), the_lab.namespace(2)
    echo = os.path.join(scratch, "echo.py")
    with open(echo, "w") as f:
        f.write(shell_bench.ECHO_PY)
    keeper = Proc("keeper", "keeper", h1, grind(out_dir, "keeper") + [
        program, "shell", "--keep", "--rows", "24", "--columns", "80", "--name", "hot-shell", "--", "python3", echo],
        env, scratch)
    # Under valgrind the keeper takes seconds to start and offer its session: the driver waits
    # for it a minute, not the default 2 s, and an exit ends the wait for its screen.
    driver = shell_bench.Term(h2, grind(out_dir, "driver") + [program, "--continue-activity", shell_bench.SHELL,
                                                              "--from", "hot-shell", "--name", "hot-driver", "--wait", "60"],
                              env, "driver")
    try:
        shell_bench.pump([driver], lambda: shell_bench.shows(driver, "READY") or driver.eof, time.perf_counter() + 600)
        if not shell_bench.shows(driver, "READY"):
            raise RuntimeError("h2 never drove the session: " + driver.error_tail() + " | the keeper: " + keeper.error_tail())
        out = {"screen_ms": [], "first_ms": []}
        shell_bench.type_block(driver, [driver], 5, 0, args.gap_ms, out)
        for pid, namespace in [(keeper.pid, h1), (driver.pid, h2)]:
            callgrind(namespace, pid, "-z")
        shell_bench.type_block(driver, [driver], args.keys, 5, args.gap_ms, out)
        if None in out["screen_ms"]:
            raise RuntimeError("a key never showed on the driving terminal: " + driver.error_tail())
        for pid, namespace in [(keeper.pid, h1), (driver.pid, h2)]:
            callgrind(namespace, pid, "-d")
    finally:
        end([driver])
        keeper.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=lab.RELEASE)
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--gap-ms", type=float, default=50)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                                                      "hot-functions.txt"))
    parser.add_argument("--dumps", default="/tmp/baton-hot-functions", help="where the callgrind dumps are kept")
    parser.add_argument("--reuse", action="store_true", help="read the dumps of the last run again, running nothing")
    args = parser.parse_args()
    if not args.reuse:
        record(args)
    write_order(args)


def record(args):
    record_scenes("hot_functions.py", args.bin_dir, args.dumps, [
        lambda the_lab, env, scratch, program: shell_scene(the_lab, env, scratch, program, args, args.dumps),
        lambda the_lab, env, scratch, program: editor_scenes(the_lab, env, scratch, program, args, args.dumps),
    ])


def record_scenes(script, bin_dir, out_dir, scenes):
    """Runs each of `scenes` (called with the lab, the environment, a scratch folder and the
    program to run under valgrind) in a two-host lab, its dumps going to `out_dir`, made empty."""
    lab.check_host(script)
    if not shutil.which("valgrind"):
        sys.exit(f"{script}: valgrind not found (apt-get install -y valgrind)")
    baton, _ = lab.programs(script, bin_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    scratch = tempfile.mkdtemp(prefix="baton-callgrind-")
    # Valgrind 3.19 gives up on the DWARF 5 that Swift 6 writes: a copy without it, symbols kept.
    program = without_debug_info(baton, scratch, "hot")
    env = lab.baton_env(scratch, os.urandom(32))
    the_lab = lab.Lab("hotfn", 2)
    lab.end_through_finally()
    print(lab.run_header(baton))
    try:
        the_lab.up()
        for scene in scenes:
            scene(the_lab, env, scratch, program)
    finally:
        the_lab.down()
        shutil.rmtree(scratch, ignore_errors=True)


# The scenes' programs, most important first: a function is placed with the first that ran it.
GROUPS = ["typist", "colours", "follower", "driver", "keeper"]


def thread_dumps(folder, label):
    """The window's dump of each thread of `label`'s program (label.pid.part-thread; label.pid-thread
    is the dump at its exit), the thread that reads the terminal's input first."""
    dumps = []
    for name in sorted(os.listdir(folder)):
        if name.split(".")[0] != label or name.count(".") < 2:
            continue
        with open(os.path.join(folder, name)) as f:
            reads_keys = "runInputLoop" in f.read()
        dumps.append((not reads_keys, name))
    return [name for _, name in sorted(dumps)]


def write_order(args):
    """Per program, its input thread first, then its other threads that serve keys (not a
    background job's thread: a save's encoding and hash, a copy's write, which run once a second
    and would spread the keys' code); of each, the functions called at least once per two keys,
    by calls per key. A loop that was running has no call in the window: it goes first."""
    order, seen, left = [], set(), set()
    left_out = unsplit_names()
    for group in GROUPS:
        placed = 0
        for dump in thread_dumps(args.dumps, group):
            counts = parse(os.path.join(args.dumps, dump), "baton-hot")
            if not counts or any("BackgroundWork" in fn for fn in counts):
                continue
            rate = {fn: calls / args.keys if calls else float("inf") for fn, calls in counts.items()}
            hot = [fn for fn, r in rate.items() if r >= 0.5 and fn not in seen]
            left.update(fn for fn in hot if fn in left_out)
            hot = sorted((fn for fn in hot if fn not in left_out), key=lambda fn: (-rate[fn], fn))
            order += hot
            seen.update(hot)
            placed += len(hot)
        print(f"{group}: {placed} functions")
    if not order:
        sys.exit("hot_functions.py: no dump had a function of the program")
    with open(args.out, "w") as f:
        f.write("".join(fn + "\n" for fn in order))
    print(f"{len(order)} functions written to {os.path.relpath(args.out)} ({len(left)} left out: in an object of one section)")


if __name__ == "__main__":
    main()
