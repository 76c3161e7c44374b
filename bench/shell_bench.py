#!/usr/bin/env python3
"""A running terminal handed off (issue 35): `baton shell` against ssh and tmux in the same run.

Run as root against release builds:

    sudo python3 bench/shell_bench.py [--bin-dir DIR] [--keys 500] [--continues 10] [--cat-mb 100]

One netlab lab of three hosts (network namespaces on a bridge; nothing leaves the machine, and the
lab is always removed, also on Ctrl-C, SIGTERM and SIGHUP: `netlab down` kills what is left in its
namespaces, the detached keepers and the tmux server included). Debian's openssh-server runs in
h1's namespace (`sshd -D -e -o ListenAddress=10.77.0.11 …`, a key made for the run) as the
yardstick. Every program is on a pty of its own that this script reads in one select loop (no
threads). Output that is ready together is read first and replayed after (a small xterm emulator,
batonlab/terminal.py), and a time is when the bytes that completed a screen reached the script,
not when the emulator got through them.

  keys      h1: `baton shell --name bench-a -- python3 echo.py` (a raw echo loop: each byte read
            is written back, CR as CR LF) on an 80×24 pty; h2: `baton --continue-activity
            dev.baton.shell --from bench-a` drives it (the same device: it drives at once) and h1
            follows; beside it on h2, `ssh -tt root@10.77.0.11 python3 echo.py`. --keys letters
            each, --gap-ms apart, in turns of 50 (then Enter). Per key: write on h2's pty → its
            first output byte, and → its screen showing the line typed so far; over the session's
            blocks, the keeper's and h2's terminal's CPU and time slices per key (schedstat: a slice
            is a wake-up, which the machine's speed does not move).
  continue  h1: `baton shell --name bench-c -- less -S FILE` on a 200×60 pty, left with Ctrl-] d;
            `tmux new-session -d -x 200 -y 60 less -S FILE` (status line off) on h1. --continues
            times each, alternating (one unmeasured run each first): on h2 (200×60) `baton
            --continue-activity dev.baton.shell --from bench-c`, and `ssh -tt root@h1 tmux attach`;
            spawn → every row of the screen shown (rows 1–59 the file's lines, cut at 199
            columns), then Ctrl-] d / C-b d and the exit. Beside them `ssh root@h1 true` spawn →
            exit (what ssh's own start costs).
  cat       h1: `baton shell --name bench-d -- sh -i`; h2 drives it (h1 leaves with q); beside it
            `ssh -tt root@h1 sh -i`. --cat-runs rounds of: `cat FILE; echo END-MARK` typed on h2
            in the session (write of Enter → a row reading END-MARK on h2's screen), the same
            through ssh (→ the bytes "\\nEND-MARK" in h2's pty output: the script does not replay
            100 MB), and in the session again with `baton follow` on h3 that is SIGSTOPped once it
            shows the session, and SIGCONTed after (→ END-MARK on its screen). The keeper's CPU
            and VmHWM beside each.
  idle      h1: `baton shell --name bench-e -- sh -i`, left with Ctrl-] d: the keeper alone,
            --idle-s: CPU (schedstat, all threads) as % of one core, max VmRSS sampled every
            250 ms, VmHWM.

Targets (issue 35): key → echo p99 ≤ ssh's and ≤ 2 ms; continue ≤ 100 ms; cat no slower than
ssh, and unchanged with a stopped follower; idle ≤ 0.2 % of a core and ≤ 20 MB.
"""

import argparse
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from batonlab import lab, meters, report  # noqa: E402
from batonlab.lab import Proc, PtyProgram  # noqa: E402

SHELL = "dev.baton.shell"
H1_ADDRESS = "10.77.0.11"
DETACH = b"\x1dd"  # Ctrl-] d: the terminal leaves, the program goes on
TMUX_DETACH = b"\x02d"  # C-b d
MARK = "END-MARK"
LETTERS = "abcdefghijklmnopqrstuvwxyz"

ECHO_PY = r"""
import os, tty
tty.setraw(0)
os.write(1, b"READY\r\n")
while True:
    data = os.read(0, 1024)
    if not data or b"\x04" in data:
        break
    os.write(1, data.replace(b"\r", b"\r\n"))
"""


class Term(PtyProgram):
    """A program on a pty read by `pump`: its screen replayed (unless `screen_on` is False), and
    a byte string `watch` looked for in the raw output (`seen` once it came)."""

    def __init__(self, namespace, argv, env, name, cols=80, rows=24):
        super().__init__(namespace, argv, env, cols=cols, rows=rows, drain_thread=False, name=name)
        self.screen_on = True
        self.watch, self.seen, self.tail = None, False, b""
        self.eof = False

    def take(self, data):
        self.output_bytes += len(data)
        if self.watch is not None and not self.seen:
            joined = self.tail + data
            self.seen = self.watch in joined
            self.tail = joined[-256:]
        if self.screen_on:
            self.screen.feed(data)

    def expect(self, watch):
        self.watch, self.seen, self.tail = watch, False, b""


def pump(terms, until, deadline, firsts=None):
    """Reads every term's pty in one select loop until `until()` or `deadline` (perf_counter).
    What is ready together is read first, each chunk stamped, then replayed in order; returns the
    stamp of the chunk after which `until()` held (or the time it held without new output), or
    None. With `firsts` ({term: None}), the stamp of each one's first new bytes is filled in."""
    while True:
        now = time.perf_counter()
        if until():
            return now
        if now >= deadline:
            return None
        fds = {t.fd: t for t in terms if not t.eof}
        if not fds:
            time.sleep(min(0.005, deadline - now))  # polling interval: only an exit is left to see
            continue
        ready, _, _ = select.select(list(fds), [], [], min(0.005, deadline - now))
        chunks = []
        while ready and len(chunks) < 512:
            for fd in ready:
                term = fds[fd]
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: everything on the terminal ended
                    data = b""
                if not data:
                    term.eof = True
                    del fds[fd]
                    continue
                chunks.append((time.perf_counter(), term, data))
            if not fds:
                break
            ready, _, _ = select.select(list(fds), [], [], 0)
        held = None
        for at, term, data in chunks:
            if firsts is not None and term in firsts and firsts[term] is None:
                firsts[term] = at
            term.take(data)
            if held is None and until():
                held = at
        if held is not None:
            return held


def lines(term):
    return term.screen.lines()


def shows(term, text):
    return any(text in line for line in lines(term))


def follows(term):
    return any(line.startswith("Following") for line in lines(term))


def settle(terms, seconds):
    pump(terms, lambda: False, time.perf_counter() + seconds)


def exited(terms, term, timeout):
    """Waits (reading every pty) until `term` has ended; its status, or None."""
    pump(terms, lambda: term.poll() is not None, time.perf_counter() + timeout)
    return term.poll()


def keeper_of(pid):
    """The keeper process `baton shell` (pid) started: its child running `shell --keep`."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != pid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if b"--keep" in f.read().split(b"\0"):
                    return int(entry)
        except (OSError, ValueError, IndexError):
            continue
    return None


def gone(pid, timeout):
    """Waits until `pid` is gone (not even a zombie: the keeper's parent has left, so init
    reaps it); polling /proc with a deadline."""
    deadline = time.monotonic() + timeout
    while os.path.exists(f"/proc/{pid}"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)  # polling interval for /proc
    return True


def make_file(path, megabytes):
    """Lines of 239 printable ASCII characters and a newline, each one different: the number,
    then letters and digits from a place that moves with it. Returns the first lines."""
    base = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" * 8
    count = int(megabytes * 1e6) // 240
    first = []
    with open(path, "w") as f:
        for start in range(0, count, 10000):
            block = [f"{i:08d} " + base[i % 62:i % 62 + 230] for i in range(start, min(count, start + 10000))]
            if start == 0:
                first = block[:100]
            f.write("\n".join(block) + "\n")
    return first, count * 240


class Run:
    def __init__(self, args):
        self.args = args
        self.terms = []
        self.procs = []

    def term(self, host, argv, name, env=None, cols=80, rows=24):
        t = Term(self.lab.namespace(host), argv, env or self.env, name, cols=cols, rows=rows)
        self.terms.append(t)
        return t

    def ssh(self, *command, tty=True):
        return (["ssh"] + (["-tt"] if tty else []) +
                ["-i", self.key, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                 "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", f"root@{H1_ADDRESS}", *command])

    def drop(self, *terms):
        for t in terms:
            if t.poll() is None:
                t.stop()
            else:
                t.finish(time.monotonic())


def start_sshd(run):
    """Debian's sshd in h1's namespace, with a key made for this run; waits until it listens."""
    subprocess.run(["ssh-keygen", "-A"], check=True, stdout=subprocess.DEVNULL)
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # its privilege separation folder
    run.key = os.path.join(run.scratch, "id_ed25519")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", run.key], check=True)
    authorized = os.path.join(run.scratch, "authorized_keys")
    shutil.copy(run.key + ".pub", authorized)
    sshd = Proc("sshd", "sshd", run.lab.namespace(1),
                ["/usr/sbin/sshd", "-D", "-e", "-o", f"ListenAddress={H1_ADDRESS}",
                 "-o", "PermitRootLogin=prohibit-password", "-o", f"AuthorizedKeysFile={authorized}",
                 "-o", "StrictModes=no"],  # the key's folder is under /tmp, which is world-writable
                run.env, run.scratch)
    run.procs.append(sshd)
    deadline = time.monotonic() + 10
    while "Server listening" not in sshd.error_tail():
        if not sshd.alive() or time.monotonic() > deadline:
            raise RuntimeError("sshd did not start: " + sshd.error_tail())
        time.sleep(0.02)  # polling interval for its log
    return sshd


# ---------------------------------------------------------------------------------------------
# key → echo


def type_block(term, everyone, keys, offset, gap_ms, out):
    """`keys` letters on `term`, `gap_ms` apart, then Enter; per key the time to its first output
    byte and to its screen showing the line typed so far."""
    typed = ""
    begin = time.perf_counter()
    for index in range(keys):
        pump(everyone, lambda: False, begin + index * gap_ms / 1000)
        typed += LETTERS[(offset + index) % 26]
        line = typed
        firsts = {term: None}
        sent = time.perf_counter()
        term.write(typed[-1].encode())
        # When each key was written, on CLOCK_MONOTONIC (bench/key_trace.py lines them up with a trace).
        out.setdefault("sent_at", []).append(sent)
        shown = pump(everyone, lambda: any(l == line for l in lines(term)), sent + 5, firsts)
        out["screen_ms"].append(None if shown is None else (shown - sent) * 1000)
        if firsts[term] is not None:
            out["first_ms"].append((firsts[term] - sent) * 1000)
    pump(everyone, lambda: False, begin + keys * gap_ms / 1000)
    term.write(b"\r")

    def next_line():
        rows, y = lines(term), term.screen.y
        return 0 < y and rows[y] == "" and rows[y - 1] == typed

    pump(everyone, next_line, time.perf_counter() + 5)


def keys_phase(run, results):
    args = run.args
    echo = os.path.join(run.scratch, "echo.py")
    with open(echo, "w") as f:
        f.write(ECHO_PY)
    a = run.term(1, [run.baton, "shell", "--name", "bench-a", "--", "python3", echo], "shell-a")
    if pump(run.terms, lambda: shows(a, "READY"), time.perf_counter() + 30) is None:
        raise RuntimeError("baton shell never showed the echo program: " + a.error_tail())
    b = run.term(2, [run.baton, "--continue-activity", SHELL, "--from", "bench-a", "--name", "bench-b"], "continue-b")
    if pump(run.terms, lambda: shows(b, "READY") and follows(a), time.perf_counter() + 30) is None:
        raise RuntimeError("h2 never drove the session: " + b.error_tail() + " | h1: " + a.error_tail())
    s = run.term(2, run.ssh("python3", echo), "ssh")
    if pump(run.terms, lambda: shows(s, "READY"), time.perf_counter() + 30) is None:
        raise RuntimeError("ssh never showed the echo program: " + s.error_tail())
    settle(run.terms, 1.0)
    out = {label: {"screen_ms": [], "first_ms": []} for label in ("baton", "ssh")}
    results["keys"] = out
    # CPU and time slices per key of the keeper and of h2's terminal, over the session's blocks.
    keeper = keeper_of(a.pid)
    spent = {"keeper": [0, 0], "terminal": [0, 0], "keys": 0}
    results["keys_sched"] = spent
    results["load_keys"] = os.getloadavg()
    warm = {"screen_ms": [], "first_ms": []}
    type_block(b, run.terms, 5, 0, args.gap_ms, warm)
    type_block(s, run.terms, 5, 0, args.gap_ms, warm)
    done, block = 0, 1
    while done < args.keys:
        count = min(50, args.keys - done)
        for label, term in (("baton", b), ("ssh", s)):
            watched = {"keeper": keeper, "terminal": b.pid} if label == "baton" and keeper else {}
            before = {name: meters.sched(pid) for name, pid in watched.items()}
            type_block(term, run.terms, count, block, args.gap_ms, out[label])
            for name, pid in watched.items():
                after = meters.sched(pid)
                if before[name] and after:
                    spent[name][0] += after[0] - before[name][0]
                    spent[name][1] += after[1] - before[name][1]
            if watched:
                spent["keys"] += count + 1  # and Enter
            settle(run.terms, 0.3)
        done += count
        block += 1
    # h1 follows: it shows what h2 typed.
    results["keys_follower_caught_up"] = pump(
        run.terms, lambda: lines(a)[:20] == lines(b)[:20], time.perf_counter() + 5) is not None
    # Ctrl-D ends the echo program: the session ends on both terminals, ssh too.
    b.write(b"\x04")
    s.write(b"\x04")
    results["keys_exit"] = {"h2": exited(run.terms, b, 10), "h1": exited(run.terms, a, 10), "ssh": exited(run.terms, s, 10)}
    run.drop(a, b, s)
    for t in (a, b, s):
        run.terms.remove(t)


# ---------------------------------------------------------------------------------------------
# continue a full 200 × 60 screen


def full_screen(term, expected):
    rows = lines(term)
    return len(rows) == 60 and all(rows[i][:199] == expected[i][:199] for i in range(59))


def continue_phase(run, results):
    args = run.args
    expected = run.first_lines[:59]
    less = ["less", "-S", run.file]
    a = run.term(1, [run.baton, "shell", "--name", "bench-c", "--"] + less, "shell-c", cols=200, rows=60)
    if pump(run.terms, lambda: full_screen(a, expected), time.perf_counter() + 30) is None:
        raise RuntimeError("baton shell never showed less: " + a.error_tail())
    keeper = keeper_of(a.pid)
    a.write(DETACH)
    if exited(run.terms, a, 10) != 0:
        raise RuntimeError(f"baton shell did not leave with Ctrl-] d (status {a.poll()}): " + a.error_tail())
    run.drop(a)
    run.terms.remove(a)
    sock = os.path.join(run.scratch, "tmux.sock")
    h1 = run.lab.namespace(1)
    tmux_env = dict(run.env)
    subprocess.run(["ip", "netns", "exec", h1, "tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "bench",
                    "-x", "200", "-y", "60"] + less, check=True, env=tmux_env, preexec_fn=lab.clean_child_signals)
    subprocess.run(["ip", "netns", "exec", h1, "tmux", "-S", sock, "set", "-g", "status", "off"], check=True, env=tmux_env)

    def baton_run():
        spawned = time.perf_counter()
        b = run.term(2, [run.baton, "--continue-activity", SHELL, "--from", "bench-c", "--name", "bench-b"],
                     "continue-b", cols=200, rows=60)
        shown = pump(run.terms, lambda: full_screen(b, expected), spawned + 20)
        b.write(DETACH)
        status = exited(run.terms, b, 10)
        run.drop(b)
        run.terms.remove(b)
        if shown is None or status != 0:
            return None, f"baton continue: shown {shown is not None}, status {status}: {b.error_tail()[:200]}"
        return (shown - spawned) * 1000, None

    def tmux_run():
        spawned = time.perf_counter()
        t = run.term(2, run.ssh("tmux", "-S", sock, "attach", "-t", "bench"), "tmux-attach", cols=200, rows=60)
        shown = pump(run.terms, lambda: full_screen(t, expected), spawned + 20)
        t.write(TMUX_DETACH)
        status = exited(run.terms, t, 10)
        run.drop(t)
        run.terms.remove(t)
        if shown is None:
            return None, f"tmux attach: never showed the screen (status {status}): {t.error_tail()[:200]}"
        return (shown - spawned) * 1000, None

    def ssh_true():
        spawned = time.perf_counter()
        p = subprocess.run(["ip", "netns", "exec", run.lab.namespace(2)] + run.ssh("true", tty=False),
                           env=run.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=20)
        return (time.perf_counter() - spawned) * 1000 if p.returncode == 0 else None

    out = {"baton": [], "tmux": [], "ssh_true": [], "failures": []}
    results["continue"] = out
    results["load_continue"] = os.getloadavg()
    for index in range(args.continues + 1):
        for label, fn in (("baton", baton_run), ("tmux", tmux_run)):
            ms, failure = fn()
            if index == 0:
                continue  # the unmeasured first run of each
            if failure:
                out["failures"].append(failure)
            else:
                out[label].append(ms)
        if index:
            ms = ssh_true()
            if ms is not None:
                out["ssh_true"].append(ms)
    if keeper:
        os.kill(keeper, signal.SIGTERM)
        out["keeper_ended"] = gone(keeper, 10)
    subprocess.run(["ip", "netns", "exec", h1, "tmux", "-S", sock, "kill-server"], env=tmux_env)


# ---------------------------------------------------------------------------------------------
# cat of a large file


def shows_mark(term, mark):
    return any(row.strip() == mark for row in lines(term))


def cat_phase(run, results):
    args = run.args
    env = dict(run.env, PS1="$ ")
    a = run.term(1, [run.baton, "shell", "--name", "bench-d", "--", "sh", "-i"], "shell-d", env=env)
    if pump(run.terms, lambda: shows(a, "$"), time.perf_counter() + 30) is None:
        raise RuntimeError("baton shell never showed sh's prompt: " + a.error_tail())
    keeper = keeper_of(a.pid)
    b = run.term(2, [run.baton, "--continue-activity", SHELL, "--from", "bench-d", "--name", "bench-b"], "continue-b", env=env)
    if pump(run.terms, lambda: shows(b, "$") and follows(a), time.perf_counter() + 30) is None:
        raise RuntimeError("h2 never drove the session: " + b.error_tail())
    a.write(b"q")  # h1 leaves: h2 is the only terminal
    if exited(run.terms, a, 10) is None:
        raise RuntimeError("h1's terminal did not leave with q: " + a.error_tail())
    run.drop(a)
    run.terms.remove(a)
    s = run.term(2, run.ssh("env 'PS1=$ ' sh -i"), "ssh", env=env)
    if pump(run.terms, lambda: shows(s, "$"), time.perf_counter() + 30) is None:
        raise RuntimeError("ssh never showed sh's prompt: " + s.error_tail())
    marks = iter(range(1, 1000))
    out = {"baton": [], "ssh": [], "stopped": [], "catch_up": [], "keeper_cpu_s": [], "keeper_hwm_mb": [],
           "driver_cpu_s": [], "failures": []}
    results["cat"] = out
    results["load_cat"] = os.getloadavg()

    def clear(term):
        term.write(b"clear\r")
        pump(run.terms, lambda: not shows(term, MARK) and lines(term)[0].startswith("$"), time.perf_counter() + 10)

    def baton_cat(label):
        mark = f"{MARK}-{next(marks)}"
        command = f"cat {run.file}; echo {mark}"
        clear(b)
        settle(run.terms, 0.5)
        cpu0, dcpu0 = meters.cpu_ns(keeper), meters.cpu_ns(b.pid)
        b.write(command.encode())
        pump(run.terms, lambda: shows(b, mark), time.perf_counter() + 5)
        sent = time.perf_counter()
        b.write(b"\r")
        shown = pump(run.terms, lambda: shows_mark(b, mark), sent + args.cat_timeout)
        if shown is None:
            out["failures"].append(f"{label}: END-MARK never on h2's screen: {b.error_tail()[:200]}")
            return None
        out[label].append((shown - sent) * 1000)
        out["keeper_cpu_s"].append((meters.cpu_ns(keeper) - cpu0) / 1e9)
        out["driver_cpu_s"].append((meters.cpu_ns(b.pid) - dcpu0) / 1e9)
        out["keeper_hwm_mb"].append(meters.status_kb(keeper, "VmHWM") / 1024)
        pump(run.terms, lambda: lines(b)[-1].startswith("$") or any(l == "$" for l in lines(b)), time.perf_counter() + 10)
        return mark

    def ssh_cat():
        mark = f"{MARK}-{next(marks)}"
        command = f"cat {run.file}; echo {mark}"
        clear(s)
        settle(run.terms, 0.5)
        s.write(command.encode())
        pump(run.terms, lambda: shows(s, mark), time.perf_counter() + 5)
        s.screen_on = False
        s.expect(("\n" + mark + "\r").encode())
        sent = time.perf_counter()
        s.write(b"\r")
        shown = pump(run.terms, lambda: s.seen, sent + args.cat_timeout)
        s.expect(("\n" + mark + "\r\n$ ").encode())
        pump(run.terms, lambda: s.seen, time.perf_counter() + 10)
        s.screen.reset()
        s.screen_on = True
        if shown is None:
            out["failures"].append("ssh: END-MARK never came")
            return
        out["ssh"].append((shown - sent) * 1000)

    for index in range(args.cat_runs):
        baton_cat("baton")
        ssh_cat()
        # A follower on h3, stopped once it shows the session, continued after.
        f = run.term(3, [run.baton, "follow", SHELL, "--from", "bench-d", "--name", "bench-f"], "follower", env=env)
        if pump(run.terms, lambda: follows(f) and shows(f, MARK), time.perf_counter() + 30) is None:
            out["failures"].append("the follower never showed the session: " + f.error_tail()[:200])
        else:
            os.kill(f.pid, signal.SIGSTOP)
            mark = baton_cat("stopped")
            os.kill(f.pid, signal.SIGCONT)
            continued = time.perf_counter()
            caught = mark and pump(run.terms, lambda: shows_mark(f, mark), continued + 30)
            out["catch_up"].append(None if not caught else (caught - continued) * 1000)
            if mark and not caught:
                out["failures"].append(
                    f"the follower, continued, never showed {mark} in 30 s (alive {f.poll() is None}); h2 shows:\n  "
                    + "\n  ".join(lines(b)[-4:]) + "\n the follower shows:\n  " + "\n  ".join(lines(f)[-4:]))
            f.write(b"q")
            exited(run.terms, f, 10)
        run.drop(f)
        run.terms.remove(f)
    out["keeper_rss_after_mb"] = meters.status_kb(keeper, "VmRSS") / 1024
    b.write(b"exit\r")
    s.write(b"exit\r")
    out["exit"] = {"h2": exited(run.terms, b, 10), "ssh": exited(run.terms, s, 10)}
    out["keeper_ended"] = gone(keeper, 10)
    run.drop(b, s)
    run.terms.remove(b)
    run.terms.remove(s)


# ---------------------------------------------------------------------------------------------
# idle


def idle_phase(run, results):
    env = dict(run.env, PS1="$ ")
    a = run.term(1, [run.baton, "shell", "--name", "bench-e", "--", "sh", "-i"], "shell-e", env=env)
    if pump(run.terms, lambda: shows(a, "$"), time.perf_counter() + 30) is None:
        raise RuntimeError("baton shell never showed sh's prompt: " + a.error_tail())
    keeper = keeper_of(a.pid)
    a.write(DETACH)
    detached = exited(run.terms, a, 10)
    run.drop(a)
    run.terms.remove(a)
    if detached != 0 or keeper is None:
        raise RuntimeError(f"baton shell did not leave with Ctrl-] d (status {detached}, keeper {keeper})")
    settle(run.terms, 2.0)
    sampler = meters.Sampler([keeper], period=0.25)
    begin = time.monotonic()
    results["load_idle_before"] = os.getloadavg()
    settle(run.terms, run.args.idle_s)
    sampler.stop()
    series = sampler.series(keeper, since=begin)
    results["idle"] = {"seconds": run.args.idle_s, "cpu_percent": meters.cpu_percent(series),
                       "rss_max_mb": max(x[1] for x in series) / 1024, "hwm_mb": series[-1][2] / 1024,
                       "threads": len(os.listdir(f"/proc/{keeper}/task"))}
    os.kill(keeper, signal.SIGTERM)
    results["idle"]["keeper_ended"] = gone(keeper, 10)


# ---------------------------------------------------------------------------------------------


def fmt(values, digits=1):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return (f"{report.percentile(values, 0.5):.{digits}f} / {report.percentile(values, 0.99):.{digits}f} / "
            f"{max(values):.{digits}f} ms")


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def table_of(results, args):
    table = report.Table()
    if "keys" in results:
        k = results["keys"]
        bs = [x for x in k["baton"]["screen_ms"] if x is not None]
        ss = [x for x in k["ssh"]["screen_ms"] if x is not None]
        lost_b = len(k["baton"]["screen_ms"]) - len(bs)
        lost_s = len(k["ssh"]["screen_ms"]) - len(ss)
        bp99, sp99 = report.percentile(bs, 0.99), report.percentile(ss, 0.99)
        table.row(f"key on h2 → echo on h2's screen, `baton shell` continued, p50 / p99 / max ({len(k['baton']['screen_ms'])} keys,"
                  f" {args.gap_ms:g} ms apart" + (f", {lost_b} never shown" if lost_b else "") + ")", fmt(bs, 2),
                  "p99 ≤ ssh's and ≤ 2 ms", bool(bs) and lost_b == 0 and bp99 <= sp99 and bp99 <= 2)
        table.row("  key → h2's first output byte, `baton shell`", fmt(k["baton"]["first_ms"], 2), "", None)
        table.row(f"key on h2 → echo on h2's screen, `ssh -tt`, p50 / p99 / max" + (f" ({lost_s} never shown)" if lost_s else ""),
                  fmt(ss, 2), "", None)
        table.row("  key → h2's first output byte, `ssh -tt`", fmt(k["ssh"]["first_ms"], 2), "", None)
        spent = results.get("keys_sched")
        if spent and spent["keys"]:
            n = spent["keys"]
            table.row("  per key in the session: the keeper's CPU, time slices; h2's terminal's",
                      f"{spent['keeper'][0] / n / 1000:.0f} µs, {spent['keeper'][1] / n:.1f}; "
                      f"{spent['terminal'][0] / n / 1000:.0f} µs, {spent['terminal'][1] / n:.1f}", "", None)
    if "continue" in results:
        c = results["continue"]
        table.row(f"continue a 200×60 `less -S` screen: `baton --continue-activity` spawn → every row shown, median / min / max"
                  f" ({len(c['baton'])} runs, {sum(1 for v in c['baton'] if v > 100)} over 100 ms)", minmax(c["baton"]),
                  "median ≤ 100 ms",
                  bool(c["baton"]) and med(c["baton"]) <= 100 and not any(f.startswith("baton") for f in c["failures"]))
        table.row(f"  `ssh -tt h1 tmux attach`, the same screen ({len(c['tmux'])} runs)", minmax(c["tmux"]), "", None)
        table.row(f"  `ssh h1 true` spawn → exit ({len(c['ssh_true'])} runs)", minmax(c["ssh_true"]), "", None)
    if "cat" in results:
        c = results["cat"]
        b, s, st = c["baton"], c["ssh"], c["stopped"]
        table.row(f"`cat` of {args.cat_mb:g} MB in the session, driving from h2: Enter → END-MARK on h2's screen ({len(b)} runs)",
                  minmax(b), "no slower than ssh", bool(b) and bool(s) and med(b) <= med(s))
        table.row(f"  through `ssh -tt` (→ the marker's bytes on h2's pty) ({len(s)} runs)", minmax(s), "", None)
        table.row(f"  in the session with `baton follow` on h3 SIGSTOPped ({len(st)} runs)", minmax(st),
                  "unchanged (median within 10 %)", bool(st) and bool(b) and med(st) <= 1.1 * med(b))
        lost = sum(1 for v in c["catch_up"] if v is None)
        table.row("  the stopped follower, SIGCONT → END-MARK on its screen"
                  + (f" ({lost} of {len(c['catch_up'])} never: see failures)" if lost else ""), minmax(c["catch_up"]), "", None)
        if c["keeper_cpu_s"]:
            table.row("  the keeper's CPU per cat; VmHWM after; VmRSS after all runs",
                      f"{med(c['keeper_cpu_s']):.2f} s (median); {max(c['keeper_hwm_mb']):.0f} MB; {c['keeper_rss_after_mb']:.0f} MB", "", None)
            table.row("  h2's terminal (`baton --continue-activity`) CPU per cat", f"{med(c['driver_cpu_s']):.2f} s (median)", "", None)
    if "idle" in results:
        i = results["idle"]
        table.row(f"idle session, nobody attached, {i['seconds']:g} s: the keeper's CPU, max VmRSS (VmHWM)",
                  f"{i['cpu_percent']:.3f} %, {i['rss_max_mb']:.1f} MB ({i['hwm_mb']:.1f} MB)", "≤ 0.2 %, ≤ 20 MB",
                  i["cpu_percent"] <= 0.2 and i["rss_max_mb"] <= 20)
    return table


def minmax(values):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return f"{statistics.median(values):.0f} / {min(values):.0f} / {max(values):.0f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=lab.RELEASE)
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--gap-ms", type=float, default=20)
    parser.add_argument("--continues", type=int, default=10)
    parser.add_argument("--cat-mb", type=float, default=100)
    parser.add_argument("--cat-runs", type=int, default=3)
    parser.add_argument("--cat-timeout", type=float, default=300)
    parser.add_argument("--idle-s", type=float, default=20)
    parser.add_argument("--skip-keys", action="store_true")
    parser.add_argument("--skip-continue", action="store_true")
    parser.add_argument("--skip-cat", action="store_true")
    parser.add_argument("--skip-idle", action="store_true")
    parser.add_argument("--quiet-wait", type=float, default=0,
                        help="wait up to S s for no build, test or benchmark and a load ≤ --max-load (0: do not wait)")
    parser.add_argument("--max-load", type=float, default=float(os.cpu_count()))
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()

    lab.check_host("shell_bench.py")
    for tool in ("ssh", "tmux", "less", "ssh-keygen"):
        if not shutil.which(tool):
            sys.exit(f"shell_bench.py: {tool} not found (apt-get install -y openssh-server openssh-client tmux less)")
    if not os.access("/usr/sbin/sshd", os.X_OK):
        sys.exit("shell_bench.py: /usr/sbin/sshd not found (apt-get install -y openssh-server)")
    run = Run(args)
    run.baton, _ = lab.programs("shell_bench.py", args.bin_dir)
    results = report.begin(args)
    run.lab = lab.Lab("shell", 3)
    run.scratch = tempfile.mkdtemp(prefix="baton-shell-bench-")
    os.chmod(run.scratch, 0o755)
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    lab.end_through_finally()
    print(lab.run_header(run.baton), flush=True)
    failures = []
    try:
        run.lab.up()
        run.file = os.path.join(run.scratch, "big.txt")
        run.first_lines, size = make_file(run.file, args.cat_mb)
        results["file_bytes"] = size
        start_sshd(run)
        for name, phase, skip in (("keys", keys_phase, args.skip_keys), ("continue", continue_phase, args.skip_continue),
                                  ("cat", cat_phase, args.skip_cat), ("idle", idle_phase, args.skip_idle)):
            if skip:
                continue
            print(f"{time.strftime('%H:%M:%S')} {name}, load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
            try:
                phase(run, results)
            except RuntimeError as error:
                failures.append(f"{name}: {error}")
                for t in list(run.terms):
                    run.drop(t)
                    run.terms.remove(t)
    finally:
        for t in run.terms:
            try:
                os.kill(t.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            t.wait(3)
        lab.end_groups([p.process for p in run.procs])
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)
    for phase in ("continue", "cat"):
        failures += [f"{phase}: {f}" for f in results.get(phase, {}).get("failures", [])]
    report.finish(results, failures, table_of(results, args), args.json)
    for key in ("load_keys", "load_continue", "load_cat", "load_idle_before"):
        if key in results:
            print(f"{key}: " + " ".join("%.2f" % v for v in results[key]))
    if "keys_exit" in results:
        print(f"keys: the follower on h1 caught up {results['keys_follower_caught_up']}; exit statuses {results['keys_exit']}")


if __name__ == "__main__":
    main()
