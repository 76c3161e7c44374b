"""The lab: a scripts/netlab LAN of network namespaces on one bridge, and Baton's programs in it.

Nothing in a lab is attached to this machine's interfaces, so no datagram leaves the machine.
Programs run in a host through `ip netns exec`, which execs them: the pid this script holds is
the program's own, for /proc. `Proc` is a headless program, `PtyProgram` one on a pty of its
own whose output a terminal `Screen` replays, `Counter` the `baton` counter a person presses.
"""

import base64
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import termios
import threading
import time

from .terminal import Screen, shows_count

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NETLAB = os.path.join(REPO, "scripts", "netlab")
RELEASE = os.path.join(REPO, ".build", "release")
COUNTER = "dev.baton.counter"


def check_host(script):
    """Exits unless this runs as root with `ip` (iproute2) at hand."""
    if os.geteuid() != 0:
        sys.exit(f"{script}: needs root (network namespaces); run it with sudo")
    if not shutil.which("ip"):
        sys.exit(f"{script}: 'ip' (iproute2) not found")


def programs(script, bin_dir, build_missing=False):
    """The path of `baton` in `bin_dir`, and the command of its headless peer, `[baton, "peer"]`,
    to which a run adds `announce`, `listen` or `continue`. When `baton` is missing: exits, or,
    with `build_missing` and the default folder, builds it."""
    path = os.path.join(bin_dir, "baton")
    if not os.access(path, os.X_OK):
        if not build_missing:
            sys.exit(f"{script}: {path} is missing; run `swift build -c release` first (or pass --bin-dir)")
        if os.path.abspath(bin_dir) != RELEASE:
            sys.exit(f"{script}: {path} is missing")
        print(f"{path} is missing: swift build -c release --product baton", file=sys.stderr)
        subprocess.run(["swift", "build", "-c", "release", "--product", "baton"], cwd=REPO, check=True)
    return path, [path, "peer"]


def end_through_finally():
    """SIGTERM and SIGHUP end the run like Ctrl-C, through the finally blocks that remove the lab;
    SIGINT too, also when it came in ignored (a background job of a script)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signo, _: sys.exit(128 + signo))
    signal.signal(signal.SIGINT, signal.default_int_handler)


def baton_env(scratch, group_key):
    """The environment of every Baton program in a run: a scratch home, the run's group key."""
    return {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": scratch, "XDG_CONFIG_HOME": os.path.join(scratch, "config"),
        "TERM": "xterm-256color", "LANG": "C.UTF-8",
        "BATON_KEY": base64.b64encode(group_key).decode(),
    }


def netlab(*args, check=True):
    """`scripts/netlab ARGS…`, quietly."""
    subprocess.run([NETLAB, *args], check=check, stdout=subprocess.DEVNULL, preexec_fn=clean_child_signals)


def home_env(home):
    """The environment of a program that is a machine of its own: its home and config folder
    (so its identity and key files), and no group key from the environment."""
    return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"), "LANG": "C.UTF-8"}


def end_groups(procs, grace=5):
    """SIGTERM to each process group still running, then SIGKILL to those not gone after `grace` s."""
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def run_header(baton):
    """The line a run starts with: when, the CPUs, the load, and what `baton --version` says."""
    version = subprocess.run([baton, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    return (f"{time.strftime('%Y-%m-%d %H:%M:%S')}, {os.cpu_count()} CPUs, load average "
            + " ".join("%.2f" % x for x in os.getloadavg()) + f"; {baton}: {version}")


def median_row(label, seconds):
    """A Markdown row: `label`, then the median, min and max of `seconds`, in milliseconds."""
    xs = sorted(v * 1000 for v in seconds)
    return f"| {label} | {statistics.median(xs):.0f} ms | {xs[0]:.0f} ms | {xs[-1]:.0f} ms |"


def clean_child_signals():
    """In a child before exec: nothing blocked, SIGPIPE at its default (Python ignores it)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


class Lab:
    """A netlab lab named PREFIX<pid> of `hosts` hosts; `down()` removes it and is safe to repeat."""

    def __init__(self, prefix, hosts):
        self.name = f"{prefix}{os.getpid()}"
        self.hosts = hosts

    def up(self):
        subprocess.run([NETLAB, "up", self.name, str(self.hosts)], check=True, preexec_fn=clean_child_signals,
                       stdout=subprocess.DEVNULL)

    def namespace(self, host):
        return f"{self.name}-h{host}"

    @property
    def bridge(self):
        """The namespace of the bridge, br0, whose port pI leads to host I."""
        return f"{self.name}-lan"

    def bridge_ports(self):
        """{port: (rx packets, rx bytes, tx packets, tx bytes)} of the bridge's ports p1…pN."""
        out = subprocess.run(["ip", "-n", self.bridge, "-j", "-s", "link", "show"],
                             capture_output=True, text=True, check=True).stdout
        ports = {}
        for link in json.loads(out):
            name = link.get("ifname", "")
            if name.startswith("p") and name[1:].isdigit():
                s = link["stats64"]
                ports[name] = (s["rx"]["packets"], s["rx"]["bytes"], s["tx"]["packets"], s["tx"]["bytes"])
        return ports

    def frameloss(self, host, percent):
        """Host `host` drops `percent` % of the IPv4 frames arriving on its v0, before reassembly
        (`netlab frameloss`: each fragment and TCP segment on its own); 0 removes the rule."""
        subprocess.run([NETLAB, "frameloss", self.name, str(host), str(percent)], check=True,
                       preexec_fn=clean_child_signals)

    def framedrops(self, host):
        """How many frames host `host`'s frame-loss rule dropped so far."""
        out = subprocess.run([NETLAB, "framedrops", self.name, str(host)], capture_output=True, text=True,
                             check=True, preexec_fn=clean_child_signals).stdout
        return int(out.strip() or 0)

    def down(self):
        subprocess.run([NETLAB, "down", self.name], check=False, preexec_fn=clean_child_signals)


class Proc:
    """A headless program in a lab host; stderr goes to a file in `scratch`, for when it fails.

    It has a session of its own: Ctrl-C reaches only the benchmark, which then stops everything."""

    def __init__(self, kind, name, namespace, argv, env, scratch, stdout=subprocess.DEVNULL):
        self.kind, self.name = kind, name
        self.errpath = os.path.join(scratch, f"{name}.err")
        with open(self.errpath, "wb") as err:
            self.process = subprocess.Popen(["ip", "netns", "exec", namespace] + argv, stdin=subprocess.DEVNULL,
                                            stdout=stdout, stderr=err, env=env, preexec_fn=clean_child_signals,
                                            start_new_session=True)
        self.pid = self.process.pid

    def alive(self):
        return self.process.poll() is None

    def error_tail(self):
        try:
            with open(self.errpath, errors="replace") as f:
                return f.read()[-400:].strip()
        except OSError:
            return ""

    def terminate(self):
        if self.alive():
            try:
                self.process.terminate()
            except ProcessLookupError:
                pass

    def finish(self, deadline):
        """Waits for the end until `deadline` (monotonic), then kills."""
        try:
            self.process.wait(max(0.05, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def stop(self, grace=3):
        self.terminate()
        self.finish(time.monotonic() + grace)


class PtyProgram:
    """A program in a lab host on a pty of a fixed size; its output is replayed into a Screen.

    With `drain_thread` a thread reads the output as it comes; without, the caller reads it with
    `read_some` (one thread fewer when timing the program's start)."""

    def __init__(self, namespace, argv, env, cols=80, rows=24, drain_thread=True, kind="pty", name=None):
        self.kind, self.name = kind, name or os.path.basename(argv[0])
        self.screen = Screen(cols, rows)
        self.lock = threading.Lock()
        self.output_bytes = 0
        self.read_at = None  # when `read_some` last read bytes (perf_counter)
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
        self.read_at = time.perf_counter()  # before the replay into the screen, which is this script's time
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

    def alive(self):
        return self.poll() is None

    def error_tail(self):
        """What is on its screen, for when it fails."""
        return " / ".join(line for line in self.lines() if line.strip())[:400]

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

    def wait_shown(self, count, timeout):
        """Waits until the screen shows the counter at `count`; raises, with the screen, when it does not."""
        deadline = time.monotonic() + timeout
        while not shows_count(self.lines(), count):
            if time.monotonic() > deadline or self.poll() is not None:
                raise RuntimeError(f"the counter never showed {count}; screen:\n" + "\n".join(self.lines()))
            time.sleep(0.01)  # polling interval for the screen

    def terminate(self):
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def finish(self, deadline):
        """Waits for the end until `deadline` (monotonic), then kills; closes the pty."""
        if self.wait(max(0.05, deadline - time.monotonic())) is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.wait(3)
        if self.reader is None:
            try:
                os.close(self.fd)
            except OSError:
                pass

    def stop(self, grace=3):
        self.terminate()
        self.finish(time.monotonic() + grace)


class Counter(PtyProgram):
    """`baton counter --name NAME` in a pty: the app a person runs, pressed `+` by the benchmark."""

    def __init__(self, name, namespace, baton, env):
        super().__init__(namespace, [baton, "counter", "--name", name], env, kind="baton", name=name)
        self.presses = 0
        self.press_lock = threading.Lock()

    def press(self):
        with self.press_lock:
            self.write(b"+")
            self.presses += 1

    def press_paced(self, presses, gap):
        """Presses `+` `presses` times, `gap` s apart; returns when each was written (CLOCK_REALTIME)."""
        writes = []
        start = time.monotonic()
        for k in range(presses):
            delay = start + k * gap - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing the presses, not waiting for an event
            writes.append(time.time())
            self.press()
        return writes
