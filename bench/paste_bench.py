#!/usr/bin/env python3
"""Paste benchmark (issue 23): a 10 KB bracketed paste through tmux, `baton edit` against nano.

Run as root against a release build (`swift build -c release --static-swift-stdlib --product baton`):

    sudo python3 bench/paste_bench.py [--baton [LABEL=]PATH ...] [--runs 5] [--size-mb 16]

Each program runs in a tmux pane (80×24, a private tmux server) inside a one-host netlab lab
(`baton edit` publishes its session there as on a LAN; nothing leaves the machine). Two files,
made the same every run: 1,000 bytes and --size-mb MB (10^6-byte megabytes) of mixed-script
lines (editor_bench.py's), the first starting with BEGIN. The paste is 10,000 bytes: 100 lines
`pasted NNN ppp…` of 100 bytes each.

  paste   the program shows the file's first line (and has had a second to settle); then
          `tmux load-buffer` + `tmux paste-buffer -p` (bracketed) at the start of the file;
          the time from paste-buffer's return → `capture-pane` shows the paste's last line with
          BEGIN below it. --runs runs per program and file, each in a fresh program.

baton and `nano -I` are measured in the same run, in turns. Target (issue 23): ≤ 2× nano.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from editor_bench import make_file  # noqa: E402

PASTE = "".join(f"pasted {n:03d} " + "p" * 88 + "\n" for n in range(1, 101))
assert len(PASTE.encode()) == 10_000


class Tmux:
    """A private tmux server (`tmux -L NAME`), killed by `shutdown()`."""

    def __init__(self, path):
        self.path = path
        self.socket = f"baton-paste-bench-{os.getpid()}"

    def run(self, *arguments, check=True):
        env = dict(os.environ, LANG="C.UTF-8")
        env.pop("TMUX", None)
        return subprocess.run([self.path, "-u", "-L", self.socket, "-f", "/dev/null", *arguments],
                              capture_output=True, text=True, check=check, env=env).stdout

    def lines(self, session):
        return self.run("capture-pane", "-p", "-t", f"={session}:", check=False).split("\n")

    def shutdown(self):
        self.run("kill-server", check=False)


def shows_paste_end(lines):
    for index, line in enumerate(lines):
        if line.startswith("pasted 100") and index + 1 < len(lines) and "BEGIN the" in lines[index + 1]:
            return True
    return False


def wait(predicate, deadline, interval=0.002):
    while time.perf_counter() < deadline:
        if predicate():
            return time.perf_counter()
        time.sleep(interval)
    return None


def measure(run, tmux, argv, path, timeout):
    """One paste into a fresh program on a fresh copy of `path`; ms, or None when not shown."""
    # A fresh name each run: the killed program leaves a recovery copy of its unsaved paste,
    # and the next `baton edit` of the same path would ask about it before the UI.
    copy = os.path.join(run.scratch, f"edited-{run.count}-" + os.path.basename(path))
    shutil.copyfile(path, copy)
    session = f"p{run.count}"
    run.count += 1
    env = [f"{k}={v}" for k, v in sorted(run.env.items())]
    tmux.run("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", run.scratch, "--",
             "ip", "netns", "exec", run.lab.namespace(1), "env", "-i", *env, *argv, copy)
    try:
        if wait(lambda: any("BEGIN the" in line for line in tmux.lines(session)), time.perf_counter() + timeout) is None:
            return None
        time.sleep(1.0)  # let the open settle (a first publish, a first draw) before the paste
        tmux.run("load-buffer", "-b", "paste", run.paste)
        tmux.run("paste-buffer", "-p", "-b", "paste", "-t", f"={session}:")
        sent = time.perf_counter()
        shown = wait(lambda: shows_paste_end(tmux.lines(session)), sent + timeout)
        return None if shown is None else (shown - sent) * 1000
    finally:
        tmux.run("kill-session", "-t", f"={session}", check=False)
        os.unlink(copy)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baton", action="append", default=[], metavar="[LABEL=]PATH",
                        help="a baton to measure (repeatable; default: .build/release/baton)")
    parser.add_argument("--size-mb", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()

    lab.check_host("paste_bench.py")
    batons = []
    for given in args.baton or [os.path.join(lab.RELEASE, "baton")]:
        label, _, path = given.rpartition("=")
        batons.append((label or "baton", path))
    nano = shutil.which("nano")
    tmux_path = shutil.which("tmux")
    if not nano or not tmux_path:
        sys.exit("paste_bench.py: nano and tmux are needed (apt-get install -y nano tmux)")
    run = argparse.Namespace(lab=lab.Lab("paste", 1), count=0)
    run.scratch = tempfile.mkdtemp(prefix="baton-paste-bench-")
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    run.paste = os.path.join(run.scratch, "paste.txt")
    with open(run.paste, "w", encoding="utf-8") as f:
        f.write(PASTE)
    lab.end_through_finally()
    print(meters.describe_machine(meters.machine()))
    programs = [(label, [path, "edit"]) for label, path in batons] + [("nano", [nano, "-I"])]
    tmux = Tmux(tmux_path)
    table = report.Table()
    try:
        run.lab.up()
        files = []
        small = os.path.join(run.scratch, "small.txt")
        files.append(("1 KB", small, make_file(small, 0.001)))
        big = os.path.join(run.scratch, f"mixed-{args.size_mb}mb.txt")
        files.append((f"{args.size_mb} MB", big, make_file(big, args.size_mb)))
        results = {}
        for name, path, _ in files:
            for _ in range(args.runs):
                for label, argv in programs:  # in turns, so load falls on each alike
                    results.setdefault((label, name), []).append(measure(run, tmux, argv, path, args.timeout))
        for name, _, size in files:
            nano_times = [t for t in results[("nano", name)] if t is not None]
            nano_p50 = report.percentile(nano_times, 0.5) if nano_times else None
            for label, _ in programs:
                times = results[(label, name)]
                shown = [t for t in times if t is not None]
                is_baton = label != "nano"
                figure = "never shown" if not shown else (
                    f"{report.percentile(shown, 0.5):.0f} ms (min {min(shown):.0f}, max {max(shown):.0f})"
                    + (f", {len(times) - len(shown)} never shown" if len(shown) < len(times) else ""))
                ok = None
                if is_baton and nano_p50:
                    ok = bool(shown) and len(shown) == len(times) and report.percentile(shown, 0.5) <= 2 * nano_p50
                table.row(f"{label}: 10 KB paste into {name} ({size:,} bytes) → last line shown, p50 of {len(times)}",
                          figure, "≤ 2× nano" if is_baton else "", ok)
        print(f"command: {' '.join([os.path.basename(sys.argv[0])] + sys.argv[1:])}")
        print(table)
    finally:
        tmux.shutdown()
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
