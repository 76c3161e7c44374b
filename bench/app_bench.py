#!/usr/bin/env python3
"""Baton app benchmark: key-to-peer latency, continue latency, idle cost.

Run as root against release builds (`swift build -c release`):

    sudo python3 bench/app_bench.py

It makes its own netlab lab of two hosts (network namespaces on a bridge, nothing attached
to this machine's interfaces, so no multicast leaves the machine) and always removes it.

  key-to-peer  `baton` (counter) on host A in a pty this script owns; `baton-peer listen
               --json` on host B. `+` is written --presses times, --gap-ms apart; for each
               press: from the write to B's JSON line showing that count (first line with a
               count >= it). Both times are this machine's CLOCK_REALTIME: B's "time" field
               (ms resolution), and, beside it, when the line reached this script.
  continue     with A's counter current, `baton --continue-activity` on host B in a pty,
               --continues times: from spawn to the first output that puts the count on
               the screen (a small terminal emulator replays the pty output), then `q`.
               Beside it `baton --version` spawn-to-exit, the same number of times.
  idle         a fresh `baton` counter, idle for --idle-seconds: CPU time (utime+stime of
               /proc/PID/stat) over the period as a percentage of one core, and RSS
               (/proc/PID/status VmRSS sampled every 250 ms, and VmHWM).

Python 3 standard library only.
"""

import argparse
import base64
import codecs
import datetime
import fcntl
import json
import os
import platform
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import unicodedata

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NETLAB = os.path.join(REPO, "scripts", "netlab")
COUNTER = "dev.baton.counter"

TARGETS = {
    "key_p99_ms": 30.0,
    "continue_median_ms": 100.0,
    "continue_over_version_ms": 60.0,
    "idle_cpu_percent": 0.5,
    "idle_rss_mb": 30.0,
}


# ---------------------------------------------------------------------------------------------
# A small terminal emulator: enough of xterm for what ncurses sends with TERM=xterm-256color.


class Screen:
    """Replays terminal output into a grid of cells, to read what a person would see."""

    def __init__(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.state = "text"
        self.sequence = ""
        self.last = " "
        self.reset()

    def reset(self):
        self.grid = [[" "] * self.cols for _ in range(self.rows)]
        self.x = self.y = 0
        self.saved = (0, 0)
        self.top, self.bottom = 0, self.rows - 1
        self.wrap_pending = False

    def lines(self):
        return ["".join(c for c in row if c is not None).rstrip() for row in self.grid]

    def feed(self, data):
        for ch in self.decoder.decode(data):
            self._char(ch)

    # -- parsing

    def _char(self, ch):
        state = self.state
        if state == "text":
            if ch == "\x1b":
                self.state = "escape"
            elif ch < " " or ch == "\x7f":
                self._control(ch)
            else:
                self._print(ch)
        elif state == "escape":
            self.state = "text"
            if ch == "[":
                self.state, self.sequence = "csi", ""
            elif ch in "]P^_X":
                self.state = "string"
            elif ch in "()*+#%":
                self.state = "charset"
            elif ch == "7":
                self.saved = (self.x, self.y)
            elif ch == "8":
                self.x, self.y = self.saved
            elif ch == "M":
                if self.y == self.top:
                    self._scroll_down(1)
                else:
                    self.y = max(0, self.y - 1)
            elif ch == "D":
                self._linefeed()
            elif ch == "E":
                self.x = 0
                self._linefeed()
            elif ch == "c":
                self.reset()
        elif state == "charset":
            self.state = "text"
        elif state == "string":  # OSC / DCS ... until BEL or ESC \
            if ch == "\x07":
                self.state = "text"
            elif ch == "\x1b":
                self.state = "string-escape"
        elif state == "string-escape":
            self.state = "text" if ch == "\\" else "string"
        elif state == "csi":
            if "\x40" <= ch <= "\x7e":
                self.state = "text"
                self._csi(self.sequence, ch)
            elif ch == "\x1b":
                self.state = "escape"
            else:
                self.sequence += ch

    def _control(self, ch):
        if ch == "\r":
            self.x, self.wrap_pending = 0, False
        elif ch in "\n\x0b\x0c":
            self._linefeed()
        elif ch == "\b":
            self.x, self.wrap_pending = max(0, self.x - 1), False
        elif ch == "\t":
            self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)

    def _print(self, ch):
        width = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if unicodedata.combining(ch):
            return
        if self.wrap_pending or self.x + width > self.cols:
            self.x, self.wrap_pending = 0, False
            self._linefeed()
        self.grid[self.y][self.x] = ch
        if width == 2 and self.x + 1 < self.cols:
            self.grid[self.y][self.x + 1] = None
        self.last = ch
        self.x += width
        if self.x >= self.cols:
            self.x, self.wrap_pending = self.cols - 1, True

    def _linefeed(self):
        self.wrap_pending = False
        if self.y == self.bottom:
            self._scroll_up(1)
        else:
            self.y = min(self.rows - 1, self.y + 1)

    def _scroll_up(self, n):
        for _ in range(n):
            del self.grid[self.top]
            self.grid.insert(self.bottom, [" "] * self.cols)

    def _scroll_down(self, n):
        for _ in range(n):
            del self.grid[self.bottom]
            self.grid.insert(self.top, [" "] * self.cols)

    def _csi(self, sequence, final):
        private = sequence[:1] in ("?", ">", "=", "!")
        body = sequence[1:] if private else sequence
        try:
            params = [int(p) if p else 0 for p in body.split(";")] if body else []
        except ValueError:
            return
        p1 = params[0] if params else 0
        n = max(1, p1)
        self.wrap_pending = False
        if private:
            if final in "hl" and any(p in (47, 1047, 1049) for p in params):
                self.grid = [[" "] * self.cols for _ in range(self.rows)]
            return
        if final in "Hf":
            self.y = min(self.rows - 1, max(1, p1) - 1)
            self.x = min(self.cols - 1, max(1, params[1] if len(params) > 1 else 1) - 1)
        elif final == "A":
            self.y = max(0, self.y - n)
        elif final in "Be":
            self.y = min(self.rows - 1, self.y + n)
        elif final in "Ca":
            self.x = min(self.cols - 1, self.x + n)
        elif final == "D":
            self.x = max(0, self.x - n)
        elif final in "G`":
            self.x = min(self.cols - 1, n - 1)
        elif final == "d":
            self.y = min(self.rows - 1, n - 1)
        elif final == "J":
            if p1 == 0:
                self._erase(self.y, self.x, self.cols)
                for row in range(self.y + 1, self.rows):
                    self._erase(row, 0, self.cols)
            elif p1 == 1:
                for row in range(0, self.y):
                    self._erase(row, 0, self.cols)
                self._erase(self.y, 0, self.x + 1)
            else:
                for row in range(self.rows):
                    self._erase(row, 0, self.cols)
        elif final == "K":
            if p1 == 0:
                self._erase(self.y, self.x, self.cols)
            elif p1 == 1:
                self._erase(self.y, 0, self.x + 1)
            else:
                self._erase(self.y, 0, self.cols)
        elif final == "X":
            self._erase(self.y, self.x, min(self.cols, self.x + n))
        elif final == "@":
            row = self.grid[self.y]
            row[self.x:self.x] = [" "] * n
            del row[self.cols:]
        elif final == "P":
            row = self.grid[self.y]
            del row[self.x:self.x + n]
            row.extend([" "] * (self.cols - len(row)))
        elif final in "LM":
            if self.top <= self.y <= self.bottom:
                saved_top, self.top = self.top, self.y
                (self._scroll_down if final == "L" else self._scroll_up)(n)
                self.top = saved_top
        elif final == "S":
            self._scroll_up(n)
        elif final == "T":
            self._scroll_down(n)
        elif final == "r":
            top = max(1, p1) - 1
            bottom = (params[1] if len(params) > 1 and params[1] else self.rows) - 1
            if top < bottom < self.rows:
                self.top, self.bottom = top, bottom
            self.x = self.y = 0
        elif final == "b":  # REP: repeat the last printed character
            for _ in range(n):
                self._print(self.last)
        elif final == "s":
            self.saved = (self.x, self.y)
        elif final == "u":
            self.x, self.y = self.saved

    def _erase(self, row, start, end):
        for col in range(max(0, start), min(self.cols, end)):
            self.grid[row][col] = " "


BLOCK_FONT = {
    "0": ["###", "# #", "# #", "# #", "###"], "1": [" # ", "## ", " # ", " # ", "###"],
    "2": ["###", "  #", "###", "#  ", "###"], "3": ["###", "  #", "###", "  #", "###"],
    "4": ["# #", "# #", "###", "  #", "  #"], "5": ["###", "#  ", "###", "  #", "###"],
    "6": ["###", "#  ", "###", "# #", "###"], "7": ["###", "  #", "  #", "  #", "  #"],
    "8": ["###", "# #", "###", "# #", "###"], "9": ["###", "# #", "###", "  #", "###"],
    "-": ["   ", "   ", "###", "   ", "   "],
}


def block_rows(text):
    """`text` in the counter's block font: 5 rows, each pixel `██`, glyphs two columns apart."""
    return ["  ".join("".join("██" if p == "#" else "  " for p in BLOCK_FONT[c][row]) for c in text)
            for row in range(5)]


def shows_count(lines, count):
    """Whether the screen shows the counter at `count`: block digits, or a row of just the number."""
    text = str(count)
    content = lines[:-1]  # the status bar
    if any(line.strip() == text for line in content):
        return True
    want = [row.rstrip() for row in block_rows(text)]
    for top in range(len(content) - len(want) + 1):
        column = content[top].find(want[0])
        if column < 0:
            continue
        if all(content[top + i][:column].strip() == "" and content[top + i][column:].rstrip() == want[i]
               for i in range(len(want))):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Processes in lab hosts.


def clean_child_signals():
    """In a child before exec: nothing blocked, SIGPIPE at its default (Python ignores it)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


class PtyProgram:
    """A program in a lab host on a pty of a fixed size; its output is replayed into a Screen."""

    def __init__(self, namespace, argv, env, cols=80, rows=24, drain_thread=True):
        self.screen = Screen(cols, rows)
        self.lock = threading.Lock()
        self.output_bytes = 0
        self.status = None
        self.started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: stdin/stdout/stderr are the pty's terminal
            try:
                clean_child_signals()
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.execvpe("ip", ["ip", "netns", "exec", namespace] + argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.reader = None
        if drain_thread:
            self.reader = threading.Thread(target=self._drain, daemon=True)
            self.reader.start()

    def _drain(self):
        while self.read_some(None):
            pass

    def read_some(self, timeout):
        """Reads what is there (waiting up to `timeout`, None: for ever); False at end of output."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the program and everything on the terminal ended
            return False
        if not data:
            return False
        with self.lock:
            self.output_bytes += len(data)
            self.screen.feed(data)
        return True

    def lines(self):
        with self.lock:
            return self.screen.lines()

    def write(self, data):
        os.write(self.fd, data)

    def poll(self):
        if self.status is None:
            pid, raw = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.status = os.waitstatus_to_exitcode(raw)
        return self.status

    def wait(self, timeout):
        """Waits up to `timeout` s for the program to end (draining when there is no thread)."""
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if self.reader is None:
                self.read_some(min(0.01, remaining))
            else:
                time.sleep(min(0.005, remaining))  # polling interval for waitpid
        return self.status

    def stop(self):
        if self.poll() is None:
            for sig, grace in ((signal.SIGTERM, 3), (signal.SIGKILL, 3)):
                try:
                    os.kill(self.pid, sig)
                except ProcessLookupError:
                    break
                if self.wait(grace) is not None:
                    break
        if self.reader is None:
            try:
                os.close(self.fd)
            except OSError:
                pass


def parse_time(text):
    """ISO 8601 with fractions and `Z` → seconds since the epoch."""
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.datetime.fromisoformat(text).timestamp()


class Listener:
    """`baton-peer listen --json` in a lab host; keeps (count, B's time, arrival) per peer."""

    def __init__(self, namespace, peer, env):
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", namespace, peer, "listen", "--json", "--name", "bench-listener"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            preexec_fn=clean_child_signals)
        self.condition = threading.Condition()
        self.records = {}  # peer name -> [(count, stamped, arrived)]
        self.other = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for raw in self.process.stdout:
            arrived = time.time()
            try:
                event = json.loads(raw)
            except ValueError:
                self.other.append(raw.decode(errors="replace").rstrip())
                continue
            if event.get("event") not in ("appeared", "changed") or event.get("type") != COUNTER:
                continue
            count = (event.get("userInfo") or {}).get("count")
            if not isinstance(count, int):
                continue
            name = (event.get("peer") or {}).get("name", "")
            with self.condition:
                self.records.setdefault(name, []).append((count, parse_time(event["time"]), arrived))
                self.condition.notify_all()

    def wait_for(self, name, count, timeout):
        """Waits until `name` was heard with a count >= `count`; True when it was."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while not any(c >= count for c, _, _ in self.records.get(name, [])):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.condition.wait(remaining)
            return True

    def heard(self, name):
        with self.condition:
            return list(self.records.get(name, []))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ---------------------------------------------------------------------------------------------
# The measurements.


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def wait_for_screen(program, count, timeout):
    deadline = time.monotonic() + timeout
    while not shows_count(program.lines(), count):
        if time.monotonic() > deadline or program.poll() is not None:
            raise RuntimeError(f"the counter never showed {count}; screen:\n" + "\n".join(program.lines()))
        time.sleep(0.01)  # polling interval for the screen


def key_to_peer(lab, args, env, presses):
    """Starts A's counter and B's listener, presses `+` `presses` times; returns both and the figures."""
    listener = Listener(lab.namespace(2), args.peer, env)
    a = PtyProgram(lab.namespace(1), [args.baton, "counter", "--name", "bench-a"], env)
    try:
        wait_for_screen(a, 0, 15)
        if not listener.wait_for("bench-a", 0, 10):
            raise RuntimeError("host B never heard host A's counter")
        writes = []
        gap = args.gap_ms / 1000
        start = time.monotonic()
        for press in range(1, presses + 1):
            delay = start + (press - 1) * gap - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing the presses, not waiting for an event
            writes.append(time.time())
            a.write(b"+")
        if not listener.wait_for("bench-a", presses, 10):
            print(f"warning: B heard only up to {max(c for c, _, _ in listener.heard('bench-a'))}", file=sys.stderr)
        heard = listener.heard("bench-a")
        stamped, arrived, missed = [], [], 0
        for press, written in enumerate(writes, start=1):
            first = next(((s, r) for c, s, r in heard if c >= press), None)
            if first is None:
                missed += 1
                continue
            stamped.append((first[0] - written) * 1000)
            arrived.append((first[1] - written) * 1000)
        lines = sum(1 for c, _, _ in heard if c > 0)
        return a, listener, {"stamped": stamped, "arrived": arrived, "missed": missed, "lines": lines}
    except BaseException:
        a.stop()
        listener.stop()
        raise


def continue_latency(lab, args, env, count):
    continued, versions, failures = [], [], []
    argv = [args.baton, "--continue-activity", COUNTER, "--from", "bench-a", "--wait", "5", "--name", "bench-b"]
    for run in range(args.continues):
        b = PtyProgram(lab.namespace(2), argv, env, drain_thread=False)
        shown = None
        deadline = time.monotonic() + 10
        try:
            while time.monotonic() < deadline:
                if not b.read_some(0.05):
                    break
                if shows_count(b.screen.lines(), count):
                    shown = time.perf_counter()
                    break
            if shown is None:
                failures.append("run %d: %s" % (run + 1, " / ".join(l for l in b.screen.lines() if l.strip())[:300]))
            else:
                continued.append((shown - b.started) * 1000)
            b.write(b"q")
            if b.wait(5) is None:
                failures.append(f"run {run + 1}: did not quit on q")
        finally:
            b.stop()
    for _ in range(args.continues):
        v = PtyProgram(lab.namespace(2), [args.baton, "--version"], env, drain_thread=False)
        try:
            if v.wait(10) is not None:
                versions.append((time.perf_counter() - v.started) * 1000)
        finally:
            v.stop()
    return {"continue": continued, "version": versions, "failures": failures}


def read_cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def read_status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def idle(lab, args, env):
    listener = Listener(lab.namespace(2), args.peer, env)
    p = PtyProgram(lab.namespace(1), [args.baton, "counter", "--name", "bench-idle"], env)
    try:
        wait_for_screen(p, 0, 15)
        if not listener.wait_for("bench-idle", 0, 10):
            raise RuntimeError("host B never heard the idle counter")
        with open(f"/proc/{p.pid}/comm") as f:
            comm = f.read().strip()
        ticks = os.sysconf("SC_CLK_TCK")
        begin_cpu, begin = read_cpu_ticks(p.pid), time.monotonic()
        rss_max = read_status_kb(p.pid, "VmRSS")
        end = begin + args.idle_seconds
        while time.monotonic() < end:
            time.sleep(min(0.25, max(0, end - time.monotonic())))  # the sampling period
            rss_max = max(rss_max, read_status_kb(p.pid, "VmRSS"))
        cpu = (read_cpu_ticks(p.pid) - begin_cpu) / ticks
        elapsed = time.monotonic() - begin
        hwm = read_status_kb(p.pid, "VmHWM")
        return {"comm": comm, "cpu_percent": 100 * cpu / elapsed, "cpu_seconds": cpu, "seconds": elapsed,
                "rss_mb": rss_max / 1024, "hwm_mb": hwm / 1024}
    finally:
        p.stop()
        listener.stop()


# ---------------------------------------------------------------------------------------------


class Lab:
    """A netlab lab of `hosts` hosts with a unique name; `down()` removes it (safe to repeat)."""

    def __init__(self, hosts):
        self.name = "bench%d" % os.getpid()
        subprocess.run([NETLAB, "up", self.name, str(hosts)], check=True, preexec_fn=clean_child_signals)

    def namespace(self, host):
        return f"{self.name}-h{host}"

    def down(self):
        subprocess.run([NETLAB, "down", self.name], check=False)


def machine():
    model = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {model}, Linux {platform.release()}"


def row(name, figure, target, ok):
    mark = "" if ok is None else ("ok" if ok else "MISSED")
    return f"| {name} | {figure} | {target} | {mark} |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=os.path.join(REPO, ".build", "release"),
                        help="folder with baton and baton-peer (default: .build/release)")
    parser.add_argument("--presses", type=int, default=1000, help="key presses for key-to-peer (1000)")
    parser.add_argument("--gap-ms", type=float, default=20, help="milliseconds between presses (20)")
    parser.add_argument("--continues", type=int, default=20, help="runs of --continue-activity and --version (20)")
    parser.add_argument("--idle-seconds", type=float, default=30, help="idle period (30)")
    parser.add_argument("--skip-key-to-peer", action="store_true")
    parser.add_argument("--skip-continue", action="store_true")
    parser.add_argument("--skip-idle", action="store_true")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    if os.geteuid() != 0:
        sys.exit("app_bench.py: needs root (network namespaces); run it with sudo")
    if not shutil.which("ip"):
        sys.exit("app_bench.py: 'ip' (iproute2) not found")
    args.baton = os.path.join(args.bin_dir, "baton")
    args.peer = os.path.join(args.bin_dir, "baton-peer")
    for path in (args.baton, args.peer):
        if not os.access(path, os.X_OK):
            sys.exit(f"app_bench.py: {path} is missing; run `swift build -c release` first (or pass --bin-dir)")

    scratch = tempfile.mkdtemp(prefix="baton-bench-")
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": scratch, "XDG_CONFIG_HOME": os.path.join(scratch, "config"),
        "TERM": "xterm-256color", "LANG": "C.UTF-8",
        "BATON_KEY": base64.b64encode(os.urandom(32)).decode(),
    }
    # SIGTERM/SIGHUP end the run through the finally blocks, so the lab is always removed.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signo, _: sys.exit(128 + signo))

    lab = Lab(2)
    results = {"machine": machine(), "bin_dir": args.bin_dir}
    table = ["| measure | figure | target | |", "| --- | --- | --- | --- |"]
    try:
        a = listener = None
        count = 0
        if not args.skip_key_to_peer or not args.skip_continue:
            # The continue runs need A's counter: with key-to-peer skipped, 5 presses set it up.
            count = 5 if args.skip_key_to_peer else args.presses
            a, listener, keys = key_to_peer(lab, args, env, count)
            if not args.skip_key_to_peer:
                results["key_to_peer"] = keys
                s, r = keys["stamped"], keys["arrived"]
                p99 = percentile(s, 0.99)
                table.append(row(f"key → peer, p50 / p99 / max ({len(s)} presses, {args.gap_ms:g} ms apart)",
                                 f"{percentile(s, 0.5):.1f} / {p99:.1f} / {max(s):.1f} ms",
                                 f"p99 ≤ {TARGETS['key_p99_ms']:g} ms", p99 <= TARGETS["key_p99_ms"]))
                table.append(row("  same, at this script (pipe included)",
                                 f"{percentile(r, 0.5):.1f} / {percentile(r, 0.99):.1f} / {max(r):.1f} ms", "", None))
                table.append(row("  presses never seen / JSON lines for them",
                                 f"{keys['missed']} / {keys['lines']}", "0 / —", keys["missed"] == 0))
        try:
            if not args.skip_continue:
                cont = continue_latency(lab, args, env, count)
                results["continue"] = cont
                cm = statistics.median(cont["continue"]) if cont["continue"] else float("nan")
                vm = statistics.median(cont["version"]) if cont["version"] else float("nan")
                table.append(row(f"--continue-activity, spawn → count on screen, median ({len(cont['continue'])} runs)",
                                 f"{cm:.1f} ms (min {min(cont['continue'], default=float('nan')):.1f}, "
                                 f"max {max(cont['continue'], default=float('nan')):.1f})",
                                 f"≤ {TARGETS['continue_median_ms']:g} ms", cm <= TARGETS["continue_median_ms"]))
                table.append(row(f"--version, spawn → exit, median ({len(cont['version'])} runs)",
                                 f"{vm:.1f} ms", "", None))
                table.append(row("continue − version (medians)", f"{cm - vm:.1f} ms",
                                 f"≤ {TARGETS['continue_over_version_ms']:g} ms",
                                 cm - vm <= TARGETS["continue_over_version_ms"]))
                for failure in cont["failures"]:
                    print("continue failure:", failure, file=sys.stderr)
        finally:
            if a:
                a.stop()
            if listener:
                listener.stop()
        if not args.skip_idle:
            idle_result = idle(lab, args, env)
            results["idle"] = idle_result
            table.append(row(f"idle CPU over {idle_result['seconds']:.0f} s",
                             f"{idle_result['cpu_percent']:.2f} % of a core ({idle_result['cpu_seconds']:.2f} s CPU, "
                             f"counted in {1000 / os.sysconf('SC_CLK_TCK'):g} ms ticks)",
                             f"≤ {TARGETS['idle_cpu_percent']:g} %",
                             idle_result["cpu_percent"] <= TARGETS["idle_cpu_percent"]))
            table.append(row("idle RSS, max VmRSS (VmHWM)",
                             f"{idle_result['rss_mb']:.1f} MB ({idle_result['hwm_mb']:.1f} MB)",
                             f"≤ {TARGETS['idle_rss_mb']:g} MB", idle_result["rss_mb"] <= TARGETS["idle_rss_mb"]))
    finally:
        lab.down()
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"machine: {results['machine']}")
    print(f"programs: {args.bin_dir}")
    print("\n".join(table))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
