#!/usr/bin/env python3
"""Baton at scale: many peers on one bridge — convergence, traffic, cost per peer, key latency.

Run as root against release builds (`swift build -c release`):

    sudo python3 bench/scale_bench.py                  # 50 peers, about 2 minutes
    sudo python3 bench/scale_bench.py --peers 6 --window 5 --presses 50

It makes its own netlab lab (network namespaces on one bridge, nothing attached to this
machine's interfaces, so no datagram leaves the machine) of --peers hosts plus one observer
host, and always removes it, also on Ctrl-C, SIGTERM and SIGHUP.

  peers        host i runs one peer: `baton-peer announce --type dev.baton.counter
               --user-info '{"count":0}' --tick count --every 1` on most hosts, and a real
               `baton` counter in a pty on --batons of them, each pressed (`+`) once a second by
               this script; so every peer's activity changes once a second. Started in host
               order, --stagger-ms apart.
  convergence  a `baton-peer listen --json` beside the peer on --listeners sampled hosts (the
               last host started among them; each listener starts with its host's peer, as its
               directory), plus one on the observer host, started first. Converged when every one
               of them has heard every peer; the time is counted from the start of the last peer.
  traffic      the bridge's port counters (`ip -s link` in the lab's bridge namespace) over a
               steady --window after --settle seconds: datagrams and bytes per second put on
               the bridge (frames, Ethernet header included) and copies delivered to hosts.
  cost         utime+stime (/proc/PID/stat) of every process over the same window, as % of one
               core, and VmRSS sampled every second; announcers, batons, listeners apart, and
               the whole machine from /proc/stat (user, system, softirq) beside them.
  key → peer   `+` written --presses times, --gap-ms apart, to the pty of the `baton` on host 1;
               from each write to the observer's JSON line showing that count (its `time`
               field). First with only that baton and the observer on the bridge (two peers),
               then with all the peers chattering. A packet socket on the baton's bridge port
               (in the lab's bridge namespace) splits it at the first ANNOUNCE on the bridge
               that carries the count (read with the run's key: ChaCha20 and plistlib below).

Before starting it waits (up to --quiet-wait seconds, polling every 15 s) until no
swift-build, swift-test or xctest, and no other benchmark, is running, and prints the load
average. Python 3 standard library only; the pty and terminal helpers come from app_bench.py.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import plistlib
import resource
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree from importing app_bench
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import app_bench as ab  # noqa: E402  (Screen, PtyProgram, clean_child_signals, netlab path, ...)

COUNTER = ab.COUNTER
BUSY_PATTERN = r"swift-build|swift-test|xctest|app_bench\.py|scale_bench\.py"
QUIET_POLL_SECONDS = 15
PHASE_QUIET_WAIT = 120  # s, at most, before each measuring phase (the peers keep chattering meanwhile)
OTHERS_LIMIT = 10  # % of one core used by processes not ours before a phase counts as disturbed

TARGETS = {
    "convergence_s": 2.0,
    "cpu_percent": 2.0,
    "key_p99_factor": 2.0,
}


# ---------------------------------------------------------------------------------------------
# The machine.


def ancestors():
    """This process and its ancestors (sudo, the shell), which match BUSY_PATTERN themselves."""
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def busy_processes():
    """Builds, tests and benchmarks running now, as 'pid command' lines (not this one)."""
    out = subprocess.run(["pgrep", "-af", BUSY_PATTERN], capture_output=True, text=True).stdout
    mine = ancestors()
    return [line[:160] for line in out.splitlines() if line.split()[0].isdigit() and int(line.split()[0]) not in mine]


def wait_until_quiet(limit, poll=QUIET_POLL_SECONDS, max_load=None):
    """Polls until nothing in BUSY_PATTERN runs (and, with `max_load`, the 1-minute load average is
    at most that), for at most `limit` s; returns what still ran (or the load, when that was too high)."""
    deadline = time.monotonic() + limit
    for _ in range(int(limit // poll) + 2):  # bounded; the deadline ends it first
        busy = busy_processes()
        load = os.getloadavg()
        if max_load is not None and load[0] > max_load:
            busy = busy + [f"load average {load[0]:.2f} > {max_load:g}"]
        if not busy or time.monotonic() >= deadline:
            return busy
        print(f"waiting for a quiet machine ({len(busy)} busy: {busy[0][:80]}…); "
              f"load {' '.join('%.2f' % x for x in load)}", file=sys.stderr)
        time.sleep(min(poll, max(0, deadline - time.monotonic())))  # polling period
    return busy_processes()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def system_cpu():
    """/proc/stat's first line: user nice system idle iowait irq softirq steal, in ticks."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:9]
    return [int(x) for x in fields]


def read_ticks(pid):
    try:
        return ab.read_cpu_ticks(pid)
    except (OSError, ValueError, IndexError):
        return None


def all_ticks():
    """{pid: (comm, utime+stime, starttime)} of every process now (for what else used the machine)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                raw = f.read()
            head, tail = raw.rsplit(")", 1)
            fields = tail.split()
            name = head.split("(", 1)[1]
            if name.startswith("kworker/"):
                name = "kworker"  # its name also tells the work it does now
            # starttime tells a reused pid apart
            out[int(entry)] = (name, int(fields[11]) + int(fields[12]), int(fields[19]))
        except (OSError, ValueError, IndexError):
            continue
    return out


def read_rss_kb(pid):
    try:
        return ab.read_status_kb(pid, "VmRSS")
    except (OSError, ValueError):
        return None


class CpuMeter:
    """Where the machine's CPU went between begin() and end(): our processes, this script, the
    kernel's interrupt work (mostly our multicast), and everything else (other people's work)."""

    NAMES = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]

    def __init__(self, procs):
        self.procs = list(procs)
        self.ticks = {p.pid: read_ticks(p.pid) for p in self.procs}
        self.everyone = all_ticks()
        self.system = system_cpu()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.self_cpu = usage.ru_utime + usage.ru_stime
        self.begin = time.monotonic()

    def end(self):
        """% of one core over the period: machine (by /proc/stat field), ours, script, interrupts, others."""
        elapsed = time.monotonic() - self.begin
        hz = os.sysconf("SC_CLK_TCK")
        d = [e - b for e, b in zip(system_cpu(), self.system)]
        total = sum(d) or 1
        machine = {n: 100 * v / total * os.cpu_count() for n, v in zip(self.NAMES, d)}
        per = {}
        for p in self.procs:
            a, b = self.ticks[p.pid], read_ticks(p.pid)
            per[p.pid] = None if a is None or b is None else 100 * (b - a) / hz / elapsed
        usage = resource.getrusage(resource.RUSAGE_SELF)
        script = 100 * (usage.ru_utime + usage.ru_stime - self.self_cpu) / elapsed
        busy = sum(v for k, v in machine.items() if k not in ("idle", "iowait"))
        ours = sum(v for v in per.values() if v is not None)
        interrupts = machine["irq"] + machine["softirq"]
        # The busiest other processes (threads of all of them, kernel threads included), by name.
        mine = set(per) | {os.getpid()}
        now, by_name = all_ticks(), {}
        for pid, (name, ticks, started) in now.items():
            if pid in mine:
                continue
            before = self.everyone.get(pid)
            used = ticks - before[1] if before and before[2] == started else ticks  # new since begin: all of it
            if used > 0:
                by_name[name] = by_name.get(name, 0) + 100 * used / hz / elapsed
        top = sorted(by_name.items(), key=lambda item: -item[1])[:4]
        return {"seconds": elapsed, "machine": machine, "busy": busy, "ours": ours, "script": script,
                "interrupts": interrupts, "others": max(0.0, busy - ours - script - interrupts),
                "top_others": [(name, round(v, 1)) for name, v in top if v >= 1], "per_pid": per}


# ---------------------------------------------------------------------------------------------
# The lab and its processes.


class Lab:
    """A netlab lab named scale<pid>; `down()` removes it and is safe to repeat."""

    def __init__(self, hosts):
        self.name = "scale%d" % os.getpid()
        self.hosts = hosts

    def up(self):
        subprocess.run([ab.NETLAB, "up", self.name, str(self.hosts)], check=True, preexec_fn=ab.clean_child_signals,
                       stdout=subprocess.DEVNULL)

    def namespace(self, host):
        return f"{self.name}-h{host}"

    def bridge_ports(self):
        """{port: (rx packets, rx bytes, tx packets, tx bytes)} of the bridge's ports p1…pN."""
        out = subprocess.run(["ip", "-n", f"{self.name}-lan", "-j", "-s", "link", "show"],
                             capture_output=True, text=True, check=True).stdout
        ports = {}
        for link in json.loads(out):
            name = link.get("ifname", "")
            if name.startswith("p") and name[1:].isdigit():
                s = link["stats64"]
                ports[name] = (s["rx"]["packets"], s["rx"]["bytes"], s["tx"]["packets"], s["tx"]["bytes"])
        return ports

    def down(self):
        subprocess.run([ab.NETLAB, "down", self.name], check=False, preexec_fn=ab.clean_child_signals)


class Proc:
    """A headless program in a lab host; stderr goes to a file for when it fails."""

    def __init__(self, kind, name, namespace, argv, env, scratch, stdout=subprocess.DEVNULL):
        self.kind, self.name = kind, name
        self.errpath = os.path.join(scratch, f"{name}.err")
        with open(self.errpath, "wb") as err:
            # A session of its own: Ctrl-C reaches only this script, which then stops everything.
            self.process = subprocess.Popen(["ip", "netns", "exec", namespace] + argv, stdin=subprocess.DEVNULL,
                                            stdout=stdout, stderr=err, env=env, preexec_fn=ab.clean_child_signals,
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
        try:
            self.process.wait(max(0.05, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Listener(Proc):
    """`baton-peer listen --json`: when it first heard each peer, what it forgot, one peer's counts."""

    def __init__(self, name, namespace, peer_bin, env, scratch, duration, watch=None):
        super().__init__("listener", name, namespace,
                         [peer_bin, "listen", "--json", "--name", name, "--duration", "%d" % duration],
                         env, scratch, stdout=subprocess.PIPE)
        self.watch = watch
        self.condition = threading.Condition()
        self.first = {}  # peer name -> (its "time", arrival here)
        self.gone = []  # (peer name, its "time")
        self.counts = []  # the watched peer: (count, its "time", arrival here)
        self.statistics = None  # the last statistics line
        self.lines = 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for raw in self.process.stdout:
            arrived = time.time()
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            kind = event.get("event")
            with self.condition:
                self.lines += 1
                if kind == "statistics":
                    self.statistics = event
                    continue
                name = (event.get("peer") or {}).get("name", "")
                stamped = ab.parse_time(event["time"]) if "time" in event else arrived
                if kind in ("appeared", "changed"):
                    self.first.setdefault(name, (stamped, arrived))
                    if name == self.watch and event.get("type") == COUNTER:
                        count = (event.get("userInfo") or {}).get("count")
                        if isinstance(count, int):
                            self.counts.append((count, stamped, arrived))
                elif kind == "gone":
                    self.gone.append((name, stamped))
                self.condition.notify_all()
        with self.condition:
            self.condition.notify_all()

    def has_all(self, names):
        with self.condition:
            return all(n in self.first for n in names)

    def missing(self, names):
        with self.condition:
            return [n for n in names if n not in self.first]

    def wait_all(self, names, deadline):
        with self.condition:
            while not all(n in self.first for n in names):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self.alive():
                    return False
                self.condition.wait(min(remaining, 0.5))
            return True

    def wait_count(self, count, timeout):
        """Waits until the watched peer was heard at `count` or more; True when it was."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while not (self.counts and max(c for c, _, _ in self.counts[-50:]) >= count):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self.alive():
                    return False
                self.condition.wait(min(remaining, 0.5))
            return True

    def snapshot(self):
        with self.condition:
            return dict(self.first), list(self.gone), list(self.counts), self.statistics


class Baton:
    """A `baton` counter in a pty in a lab host (app_bench's PtyProgram), pressed by this script."""

    def __init__(self, name, namespace, baton_bin, env):
        self.kind, self.name = "baton", name
        self.program = ab.PtyProgram(namespace, [baton_bin, "counter", "--name", name], env)
        self.pid = self.program.pid
        self.presses = 0
        self.lock = threading.Lock()

    def press(self):
        with self.lock:
            self.program.write(b"+")
            self.presses += 1

    def alive(self):
        return self.program.poll() is None

    def error_tail(self):
        return " / ".join(line for line in self.program.lines() if line.strip())[:400]

    def terminate(self):
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def finish(self, deadline):
        if self.program.wait(max(0.05, deadline - time.monotonic())) is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.program.wait(3)
        self.program.stop()


SNIFFER = r"""
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
s.setsockopt(socket.SOL_SOCKET, 35, 1)  # SO_TIMESTAMPNS: the kernel's receive time
try:
    s.setsockopt(263, 23, 1)  # SOL_PACKET, PACKET_IGNORE_OUTGOING: not what the bridge floods to the host
except OSError:
    pass
s.bind((sys.argv[1], 0))
s.settimeout(1)
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        data, ancillary, _, address = s.recvmsg(2048, 64)
    except socket.timeout:
        continue
    if address[2] == 4 or len(data) < 72 or data[12:14] != b"\x08\x00" or data[23] != 17:
        continue  # sent out of the port (to the host), or not IPv4 UDP
    udp = 14 + (data[14] & 15) * 4
    if data[udp + 2:udp + 4] != struct.pack(">H", int(sys.argv[3])) or data[udp + 8:udp + 12] != b"BTN1":
        continue
    stamp = time.time()
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == 35:
            seconds, nanoseconds = struct.unpack("qq", value[:16])
            stamp = seconds + nanoseconds / 1e9
    print("%.6f %d %s" % (stamp, data[udp + 12], data[udp + 8:].hex()), flush=True)
"""


def aead_key(group_key):
    """PROTOCOL.md: HKDF-SHA256(ikm: groupKey, salt: "baton-handoff", info: "v1 datagram", length: 32)."""
    prk = hmac.new(b"baton-handoff", group_key, hashlib.sha256).digest()
    return hmac.new(prk, b"v1 datagram\x01", hashlib.sha256).digest()


def chacha20_xor(key, nonce, counter, data):
    """RFC 8439 ChaCha20 (in Python: slow, only for a few hundred captured datagrams)."""
    def rotl(v, c):
        return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))

    def quarter(x, a, b, c, d):
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 16)  # noqa: E702
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 12)  # noqa: E702
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 8)  # noqa: E702
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 7)  # noqa: E702

    constants = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    key_words = list(struct.unpack("<8I", key))
    nonce_words = list(struct.unpack("<3I", nonce))
    out = bytearray()
    for block in range((len(data) + 63) // 64):
        state = constants + key_words + [(counter + block) & 0xFFFFFFFF] + nonce_words
        x = list(state)
        for _ in range(10):
            quarter(x, 0, 4, 8, 12); quarter(x, 1, 5, 9, 13); quarter(x, 2, 6, 10, 14); quarter(x, 3, 7, 11, 15)  # noqa: E702
            quarter(x, 0, 5, 10, 15); quarter(x, 1, 6, 11, 12); quarter(x, 2, 7, 8, 13); quarter(x, 3, 4, 9, 14)  # noqa: E702
        stream = struct.pack("<16I", *((a + b) & 0xFFFFFFFF for a, b in zip(x, state)))
        chunk = data[block * 64:(block + 1) * 64]
        out += bytes(a ^ b for a, b in zip(chunk, stream))
    return bytes(out)


def open_datagram(key, datagram):
    """The plaintext of a datagram (PROTOCOL.md layout), without checking its tag: we only read our own."""
    if len(datagram) < 58 or datagram[:4] != b"BTN1":
        raise ValueError("not a Baton datagram")
    return chacha20_xor(key, datagram[30:42], 1, datagram[42:-16])


class Sniffer:
    """Times every Baton datagram a host puts on the bridge: an AF_PACKET socket on its port."""

    def __init__(self, lab, host, scratch, duration, port=47788):
        self.kind, self.name = "sniffer", f"sniff-p{host}"
        self.path = os.path.join(scratch, self.name + ".log")
        with open(self.path, "w") as out:
            self.process = subprocess.Popen(
                ["ip", "netns", "exec", f"{lab.name}-lan", sys.executable, "-c", SNIFFER, f"p{host}", "%d" % duration,
                 str(port)], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.DEVNULL,
                preexec_fn=ab.clean_child_signals, start_new_session=True)
        self.pid = self.process.pid

    def frames(self, key, since=0):
        """(kernel time, sequence, count) of the counter ANNOUNCEs seen so far, in order."""
        frames = []
        with open(self.path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 3 or parts[1] != "1" or float(parts[0]) < since:
                    continue
                datagram = bytes.fromhex(parts[2])
                try:
                    payload = plistlib.loads(open_datagram(key, datagram))
                    count = payload["userInfo"]["count"]
                except Exception:  # noqa: BLE001 — not ours to judge here; the listeners count rejections
                    continue
                frames.append((float(parts[0]), int.from_bytes(datagram[22:30], "big"), count))
        return frames

    alive = Proc.alive
    terminate = Proc.terminate
    finish = Proc.finish


class Presser:
    """Presses `+` on some batons once a second, in a thread, until stopped (bounded in count)."""

    def __init__(self, batons, limit_seconds):
        self.batons = list(batons)
        self.stopped = threading.Event()
        self.limit = int(limit_seconds) + 1
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()

    def _run(self):
        start = time.monotonic()
        for tick in range(self.limit):
            for baton in list(self.batons):
                try:
                    baton.press()
                except OSError:
                    pass
            if self.stopped.wait(max(0, start + tick + 1 - time.monotonic())):  # once a second
                return

    def remove(self, baton):
        self.batons = [b for b in self.batons if b is not baton]

    def add(self, baton):
        self.batons = self.batons + [baton]

    def stop(self):
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(2)


# ---------------------------------------------------------------------------------------------
# The measurements.


def press_latency(baton, observer, presses, gap, procs, sniffer=None, key=None):
    """Presses `+` `presses` times `gap` s apart; ms from each write to the observer's line with that count.

    With a sniffer on the baton's bridge port (and the AEAD key to read what it caught), also split at
    the first ANNOUNCE on the bridge that carries each count."""
    base = baton.presses
    if not observer.wait_count(base, 10):
        raise RuntimeError(f"the observer never heard {baton.name} at {base} before the presses")
    writes = []
    begin_load, meter = os.getloadavg(), CpuMeter(procs)
    start = time.monotonic()
    for k in range(presses):
        delay = start + k * gap - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # pacing the presses, not waiting for an event
        writes.append(time.time())
        baton.press()
    cpu = meter.end()
    del cpu["per_pid"]
    observer.wait_count(base + presses, 10)
    time.sleep(0.2)  # the sniffer's last lines
    _, _, counts, _ = observer.snapshot()
    stamped, arrived, missed, i = [], [], 0, 0
    heard = [(c, s, r) for c, s, r in counts if c > base]
    for k, written in enumerate(writes, start=1):
        while i < len(heard) and heard[i][0] < base + k:
            i += 1
        if i == len(heard):
            missed += len(writes) - k + 1
            break
        stamped.append((heard[i][1] - written) * 1000)
        arrived.append((heard[i][2] - written) * 1000)
    result = {"stamped": stamped, "arrived": arrived, "missed": missed, "presses": presses, "gap_ms": gap * 1000,
              "load_before": begin_load, "cpu": cpu}
    if sniffer:
        # The first ANNOUNCE on the bridge carrying each count, and the observer's line for it.
        frames = sniffer.frames(key, since=writes[0] - 1)
        to_wire, from_wire, j = [], [], 0
        for k, written in enumerate(writes, start=1):
            while j < len(frames) and frames[j][2] < base + k:
                j += 1
            if j == len(frames):
                break
            to_wire.append((frames[j][0] - written) * 1000)
            seen = next((s for c, s, _ in heard if c >= base + k), None)
            if seen is not None:
                from_wire.append((seen - frames[j][0]) * 1000)
        sequences = [f[1] for f in frames]
        result["to_wire"], result["from_wire"] = to_wire, from_wire
        result["frames"] = len(frames)
        result["frames_missed"] = sum(b - a - 1 for a, b in zip(sequences, sequences[1:]) if b > a)
    return result


def summary(values):
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": ab.percentile(values, 0.5), "p99": ab.percentile(values, 0.99),
            "max": max(values), "mean": statistics.fmean(values)}


def describe(values, unit, digits=1):
    s = summary(values)
    if not s["n"]:
        return "—"
    return f"mean {s['mean']:.{digits}f}, median {s['p50']:.{digits}f}, max {s['max']:.{digits}f} {unit}"


def measure_window(lab, procs, seconds):
    """CPU (utime+stime), RSS (sampled every second) and bridge counters over `seconds`."""
    begin_ports = lab.bridge_ports()
    begin_output = {p.pid: p.program.output_bytes for p in procs if isinstance(p, Baton)}
    meter = CpuMeter(procs)
    rss = {p.pid: [] for p in procs}
    for _ in range(int(seconds) + 2):  # bounded: one sample per second
        for p in procs:
            kb = read_rss_kb(p.pid)
            if kb is not None:
                rss[p.pid].append(kb)
        remaining = meter.begin + seconds - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(1.0, remaining))  # the sampling period
    cpu = meter.end()
    end_ports = lab.bridge_ports()
    elapsed = cpu["seconds"]
    per = []
    for p in procs:
        samples = rss[p.pid]
        per.append({"kind": p.kind, "name": p.name, "pid": p.pid, "cpu_percent": cpu["per_pid"][p.pid],
                    "rss_mb": max(samples) / 1024 if samples else None,
                    "rss_mb_last": samples[-1] / 1024 if samples else None})
        if p.pid in begin_output:  # what a baton draws on its terminal
            per[-1]["terminal_bytes_per_s"] = (p.program.output_bytes - begin_output[p.pid]) / elapsed
    del cpu["per_pid"]
    delta = [sum(end_ports[k][f] - begin_ports[k][f] for k in end_ports if k in begin_ports) for f in range(4)]
    return {"seconds": elapsed, "processes": per, "cpu": cpu,
            "bridge": {"datagrams_per_s": delta[0] / elapsed, "bytes_per_s": delta[1] / elapsed,
                       "delivered_per_s": delta[2] / elapsed, "delivered_bytes_per_s": delta[3] / elapsed}}


# ---------------------------------------------------------------------------------------------


def row(name, figure, target="", ok=None):
    return ab.row(name, figure, target, ok)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=os.path.join(ab.REPO, ".build", "release"),
                        help="folder with baton and baton-peer (default: .build/release; built when missing)")
    parser.add_argument("--peers", type=int, default=50, help="peers, one per host (50; 2-98)")
    parser.add_argument("--batons", type=int, default=3, help="of them real `baton` counters in ptys (3)")
    parser.add_argument("--listeners", type=int, default=5, help="sampled hosts with a listener beside the peer (5)")
    parser.add_argument("--stagger-ms", type=float, default=100, help="between peer starts (100)")
    parser.add_argument("--converge-timeout", type=float, default=20, help="seconds to wait for convergence (20)")
    parser.add_argument("--settle", type=float, default=3, help="seconds after convergence before the window (3)")
    parser.add_argument("--window", type=float, default=15, help="steady window for traffic and cost, seconds (15)")
    parser.add_argument("--presses", type=int, default=300, help="key presses for key-to-peer, each phase (300)")
    parser.add_argument("--gap-ms", type=float, default=20, help="milliseconds between presses (20, as app_bench)")
    parser.add_argument("--skip-baseline", action="store_true", help="no two-peer key-to-peer run")
    parser.add_argument("--quiet-wait", type=float, default=600,
                        help="seconds to wait for no build/test/benchmark running (600; 0: do not wait)")
    parser.add_argument("--max-load", type=float, default=float(os.cpu_count() or 1),
                        help="before starting, also wait until the 1-minute load average is at most this "
                             "(default: the number of CPUs; a previous run's 50 peers leave it high for minutes)")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    args = parser.parse_args()

    if os.geteuid() != 0:
        sys.exit("scale_bench.py: needs root (network namespaces); run it with sudo")
    if not shutil.which("ip"):
        sys.exit("scale_bench.py: 'ip' (iproute2) not found")
    if not 2 <= args.peers <= 98:
        sys.exit("scale_bench.py: --peers must be 2-98 (netlab has 99 hosts, one is the observer)")
    args.batons = max(1, min(args.batons, args.peers))
    args.listeners = max(1, min(args.listeners, args.peers))
    if args.presses < 1 or args.gap_ms <= 0 or args.window < 1 or args.stagger_ms < 0:
        sys.exit("scale_bench.py: --presses ≥ 1, --gap-ms > 0, --window ≥ 1 and --stagger-ms ≥ 0, please")
    args.baton = os.path.join(args.bin_dir, "baton")
    args.peer = os.path.join(args.bin_dir, "baton-peer")
    for product, path in (("baton", args.baton), ("baton-peer", args.peer)):
        if not os.access(path, os.X_OK):
            if os.path.abspath(args.bin_dir) != os.path.abspath(os.path.join(ab.REPO, ".build", "release")):
                sys.exit(f"scale_bench.py: {path} is missing")
            print(f"{path} is missing: swift build -c release --product {product}", file=sys.stderr)
            subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=ab.REPO, check=True)

    # SIGTERM/SIGHUP end the run through the finally blocks (like Ctrl-C), so the lab always goes;
    # SIGINT too, also when it came in ignored (a background job of a script).
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signo, _: sys.exit(128 + signo))
    signal.signal(signal.SIGINT, signal.default_int_handler)

    busy = wait_until_quiet(args.quiet_wait, max_load=args.max_load) if args.quiet_wait > 0 else busy_processes()
    load_before = os.getloadavg()
    if busy:
        print("warning: still busy, measuring anyway: " + "; ".join(busy), file=sys.stderr)

    n = args.peers
    observer_host = n + 1
    interactive_host = 1
    # Batons spread over the hosts, the interactive one first; sampled listeners evenly, the last host among them.
    baton_hosts = sorted({1 + (i * n) // args.batons for i in range(args.batons)})
    sampled_hosts = sorted({max(1, round(n * (k + 1) / args.listeners)) for k in range(args.listeners)})
    peer_names = {i: (f"baton-{i}" if i in baton_hosts else f"peer-{i}") for i in range(1, n + 1)}
    names = list(peer_names.values())

    stagger = args.stagger_ms / 1000
    gap = args.gap_ms / 1000
    planned = (2 * args.presses * gap + n * stagger + args.converge_timeout + args.settle + args.window + 60)
    if args.quiet_wait > 0:
        planned += 3 * min(args.quiet_wait, PHASE_QUIET_WAIT)
    lifetime = int(planned * 2 + 120)  # every headless peer ends by itself after this, whatever happens here

    scratch = tempfile.mkdtemp(prefix="baton-scale-")
    group_key = os.urandom(32)
    key = aead_key(group_key)
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": scratch, "XDG_CONFIG_HOME": os.path.join(scratch, "config"),
        "TERM": "xterm-256color", "LANG": "C.UTF-8",
        "BATON_KEY": base64.b64encode(group_key).decode(),
    }
    results = {"machine": {"cpus": os.cpu_count(), "model": cpu_model(), "kernel": os.uname().release,
                           "load_before": load_before, "busy_before": busy},
               "config": {k: v for k, v in vars(args).items() if k not in ("baton", "peer")},
               "baton_hosts": baton_hosts, "sampled_hosts": sampled_hosts}
    lab = Lab(n + 1)
    everything = []  # every process started, for the teardown
    presser = None
    began = time.monotonic()

    def quiet_before(phase):
        """Before a measuring phase: waits (bounded) for other people's builds and tests to end."""
        if args.quiet_wait > 0:
            busy_now = wait_until_quiet(min(args.quiet_wait, PHASE_QUIET_WAIT), poll=5)
        else:
            busy_now = busy_processes()
        results.setdefault("busy_at", {})[phase] = busy_now

    try:
        print(f"lab {lab.name}: {n} peers + observer host; batons on hosts {baton_hosts}, "
              f"listeners on {sampled_hosts} + {observer_host}", file=sys.stderr)
        lab.up()

        # 1. Two peers: the interactive baton and the observer.
        observer = Listener("observer", lab.namespace(observer_host), args.peer, env, scratch, lifetime,
                            watch=peer_names[interactive_host])
        everything.append(observer)
        time.sleep(0.3)  # let the observer join before the first announce (not needed for correctness)
        sniffer = Sniffer(lab, interactive_host, scratch, lifetime)
        everything.append(sniffer)
        interactive = Baton(peer_names[interactive_host], lab.namespace(interactive_host), args.baton, env)
        everything.append(interactive)
        if not observer.wait_count(0, 15):
            raise RuntimeError("the observer never heard the interactive baton: " + interactive.error_tail()
                               + " | " + observer.error_tail())
        for _ in range(50):  # up to 5 s for the sniffer to catch the baton's first repeats
            if sniffer.frames(key):
                break
            time.sleep(0.1)  # polling its log
        else:
            print("warning: the sniffer caught nothing; no split of key → peer", file=sys.stderr)
        if not args.skip_baseline:
            quiet_before("key_two_peers")
            print(f"two peers: {args.presses} presses {args.gap_ms:g} ms apart", file=sys.stderr)
            results["key_two_peers"] = press_latency(interactive, observer, args.presses, gap, everything,
                                                     sniffer, key)

        # 2. The other peers, in host order; sampled hosts get a listener started with their peer.
        print(f"starting {n - 1} more peers, {args.stagger_ms:g} ms apart", file=sys.stderr)
        listeners = []
        starts = {}
        presser = Presser([], lifetime)
        presser.start()
        previous = time.monotonic() - stagger
        for i in range(2, n + 1):
            delay = previous + stagger - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # the stagger
            previous = time.monotonic()
            starts[i] = time.time()
            if i in sampled_hosts:
                listener = Listener(f"listen-{i}", lab.namespace(i), args.peer, env, scratch, lifetime)
                everything.append(listener)
                listeners.append(listener)
            if i in baton_hosts:
                b = Baton(peer_names[i], lab.namespace(i), args.baton, env)
                everything.append(b)
                presser.add(b)
            else:
                everything.append(Proc("announcer", peer_names[i], lab.namespace(i),
                                       [args.peer, "announce", "--type", COUNTER, "--user-info", '{"count":0}',
                                        "--tick", "count", "--every", "1", "--name", peer_names[i],
                                        "--duration", "%d" % lifetime], env, scratch))
        if 1 in sampled_hosts:  # host 1 (the interactive baton) started before everything else
            listener = Listener("listen-1", lab.namespace(1), args.peer, env, scratch, lifetime)
            everything.append(listener)
            listeners.append(listener)
        last_start = starts.get(n, time.time())
        presser.add(interactive)  # it changes once a second too, until the loaded key run

        # 3. Convergence: every listener has heard every peer.
        watchers = listeners + [observer]
        deadline = time.monotonic() + args.converge_timeout
        converged = all([w.wait_all(names, deadline) for w in watchers])
        dead = [p for p in everything if not p.alive()]
        if dead:
            raise RuntimeError("ended early: " + "; ".join(f"{p.name}: {p.error_tail()}" for p in dead[:5]))
        conv = {"converged": converged, "last_start": last_start, "per_listener": {}}
        for w in watchers:
            first, _, _, _ = w.snapshot()
            latest = max((first[x][0] for x in names if x in first), default=float("nan"))
            conv["per_listener"][w.name] = {
                "complete_s": latest - last_start if w.has_all(names) else None,
                "heard_last_peer_s": first[peer_names[n]][0] - last_start if peer_names[n] in first else None,
                "missing": w.missing(names)}
        fulls = [v["complete_s"] for v in conv["per_listener"].values()]
        conv["convergence_s"] = max(fulls) if converged and all(f is not None for f in fulls) else None
        # Heard by the others: its own listener, started with it, may well miss its first ANNOUNCE.
        others = [v["heard_last_peer_s"] for k, v in conv["per_listener"].items() if k != f"listen-{n}"]
        conv["last_peer_heard_by_all_s"] = max(others) if others and None not in others else None
        own = conv["per_listener"].get(f"listen-{n}", {})
        conv["last_peer_directory_s"] = own.get("complete_s")
        results["convergence"] = conv
        if not converged:
            print("warning: not converged: " + "; ".join(f"{k} misses {len(v['missing'])} ({', '.join(v['missing'][:4])})"
                                                        for k, v in conv["per_listener"].items() if v["missing"]),
                  file=sys.stderr)

        # 4. Steady window: traffic and cost.
        time.sleep(args.settle)  # start-up work of the last peers done
        quiet_before("window")
        print(f"steady window, {args.window:g} s", file=sys.stderr)
        load_window = os.getloadavg()
        window = measure_window(lab, everything, args.window)
        window["load_before"] = load_window
        results["window"] = window

        # 5. Key → peer with everyone chattering (the other batons still pressed once a second).
        presser.remove(interactive)
        time.sleep(1.2)  # the presser's last press on it has landed
        quiet_before("key_loaded")
        print(f"{n} peers: {args.presses} presses {args.gap_ms:g} ms apart", file=sys.stderr)
        results["key_loaded"] = press_latency(interactive, observer, args.presses, gap, everything, sniffer, key)

        # What the listeners forgot (activities not heard for 3.5 s) and rejected, over the whole run.
        results["gone"] = {w.name: len(w.snapshot()[1]) for w in watchers}
        results["rejected"] = {w.name: (w.snapshot()[3] or {}).get("rejectedTotal") for w in watchers}
        results["accepted"] = {w.name: (w.snapshot()[3] or {}).get("accepted") for w in watchers}
    finally:
        # No signal may cut the teardown short; it is bounded (5 s for the processes, then netlab down).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        if presser:
            presser.stop()
        for p in everything:
            p.terminate()
        deadline = time.monotonic() + 5
        for p in everything:
            p.finish(deadline)
        lab.down()
        shutil.rmtree(scratch, ignore_errors=True)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    results["seconds"] = time.monotonic() - began
    report(results, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def cpu_split(cpu, cpus):
    mc = cpu["machine"]
    top = ", ".join(f"{name} {v:g}" for name, v in cpu.get("top_others", []))
    return (f"{cpu['busy']:.0f} % busy of {100 * cpus}: lab processes {cpu['ours']:.0f}, interrupts {cpu['interrupts']:.0f}, "
            f"this script {cpu['script']:.0f}, others {cpu['others']:.0f}" + (f" ({top})" if top else "")
            + f"; user {mc['user']:.0f}, system {mc['system']:.0f}, steal {mc['steal']:.0f}")


def disturbed(results):
    """Phases where other people's work took more than a tenth of a core."""
    phases = [("the steady window", results["window"]["cpu"])]
    phases += [(name, results[k]["cpu"]) for k, name in (("key_two_peers", "the two-peer key run"),
                                                         ("key_loaded", "the loaded key run")) if k in results]
    return [f"{name}: {cpu['others']:.0f} %" for name, cpu in phases if cpu["others"] > OTHERS_LIMIT]


def report(results, args):
    m = results["machine"]
    n = args.peers
    print(f"machine: {m['cpus']} CPUs, {m['model']}, Linux {m['kernel']}")
    print("load average before start: " + " ".join("%.2f" % x for x in m["load_before"])
          + (" (busy: " + "; ".join(m["busy_before"]) + ")" if m["busy_before"] else " (no build, test or benchmark running)"))
    w = results["window"]
    print("load average before the window: " + " ".join("%.2f" % x for x in w["load_before"]))
    for phase, busy in results.get("busy_at", {}).items():
        if busy:
            print(f"still running before {phase}: " + "; ".join(busy))
    print(f"programs: {args.bin_dir}; run took {results['seconds']:.0f} s")
    print(f"{n} peers: {n - len(results['baton_hosts'])} `baton-peer announce --tick count --every 1`, "
          f"{len(results['baton_hosts'])} `baton` counters pressed once a second; listeners on hosts "
          f"{results['sampled_hosts']} + an observer host")
    print()
    table = ["| measure | figure | target | |", "| --- | --- | --- | --- |"]
    c = results["convergence"]
    conv = c["convergence_s"]
    table.append(row(f"full convergence from the start of the last peer ({len(c['per_listener'])} listeners × {n} peers)",
                     "not converged" if conv is None else f"{conv:.2f} s",
                     f"≤ {TARGETS['convergence_s']:g} s", conv is not None and conv <= TARGETS["convergence_s"]))
    lp = c["last_peer_heard_by_all_s"]
    table.append(row("  the last peer heard by every other host's listener", "—" if lp is None else f"{lp:.2f} s"))
    ld = c["last_peer_directory_s"]
    table.append(row("  the last peer's own listener heard every peer (its own too)", "—" if ld is None else f"{ld:.2f} s"))
    gone = sum(results["gone"].values())
    rejected = sum(v or 0 for v in results["rejected"].values())
    table.append(row("  activities forgotten / datagrams rejected, all listeners, whole run", f"{gone} / {rejected}",
                     "0 / 0", gone == 0 and rejected == 0))
    b = w["bridge"]
    table.append(row(f"datagrams put on the bridge ({w['seconds']:.0f} s window)",
                     f"{b['datagrams_per_s']:.1f} /s ({b['datagrams_per_s'] / n:.2f} per peer)",
                     f"≈ {2 * n} /s: a tick and a repeat per peer", None))
    size = b["bytes_per_s"] / b["datagrams_per_s"] if b["datagrams_per_s"] else 0
    table.append(row("bytes put on the bridge (Ethernet frames)",
                     f"{b['bytes_per_s'] / 1000:.1f} kB/s ({size:.0f} B per frame)", "", None))
    table.append(row("copies delivered to hosts", f"{b['delivered_per_s']:.0f} /s, {b['delivered_bytes_per_s'] / 1e6:.2f} MB/s",
                     f"≈ {n} × datagrams", None))
    procs = w["processes"]
    for kind, label in (("announcer", "baton-peer announce"), ("baton", "baton counter"), ("listener", "baton-peer listen --json")):
        cpu = [p["cpu_percent"] for p in procs if p["kind"] == kind and p["cpu_percent"] is not None]
        rss = [p["rss_mb"] for p in procs if p["kind"] == kind and p["rss_mb"] is not None]
        if not cpu:
            continue
        target = f"≤ {TARGETS['cpu_percent']:g} %" if kind != "listener" else ""
        ok = max(cpu) <= TARGETS["cpu_percent"] if kind != "listener" else None
        table.append(row(f"CPU per {label} ({len(cpu)})", f"{describe(cpu, '% of a core', 2)}", target, ok))
        table.append(row(f"RSS per {label}", describe(rss, "MB"), "", None))
        if kind == "baton":
            drawn = [p["terminal_bytes_per_s"] for p in procs if "terminal_bytes_per_s" in p]
            table.append(row("  terminal output per baton", describe(drawn, "B/s", 0), "", None))
    table.append(row("whole machine over the window, % of one core", cpu_split(w["cpu"], m["cpus"]), "", None))
    base = results.get("key_two_peers")
    loaded = results["key_loaded"]
    bs = summary(base["stamped"]) if base else {"n": 0}
    for label, run in (("two peers", base), (f"{n} peers", loaded)):
        if not run:
            continue
        s = summary(run["stamped"])
        if not s["n"]:
            table.append(row(f"key → peer, {label}", "no press seen", "", False))
            continue
        target, ok = "", None
        if run is loaded and bs["n"]:
            limit = TARGETS["key_p99_factor"] * bs["p99"]
            target, ok = f"p99 ≤ {TARGETS['key_p99_factor']:g} × two-peer = {limit:.1f} ms", s["p99"] <= limit
        table.append(row(f"key → peer, {label}: p50 / p99 / max ({s['n']} presses, {run['gap_ms']:g} ms apart)",
                         f"{s['p50']:.1f} / {s['p99']:.1f} / {s['max']:.1f} ms", target, ok))
        for key, what in (("to_wire", "key → on the bridge"), ("from_wire", "bridge → observer's line"),
                          ("arrived", "key → line at this script")):
            part = summary(run.get(key) or [])
            if part["n"]:
                table.append(row(f"  {what}", f"{part['p50']:.1f} / {part['p99']:.1f} / {part['max']:.1f} ms"))
        table.append(row("  machine during the presses, % of one core", cpu_split(run["cpu"], m["cpus"])))
    missed = loaded["missed"] + (base["missed"] if base else 0)
    table.append(row("presses never seen", f"{missed}", "0", missed == 0))
    print("\n".join(table))
    noise = disturbed(results)
    if noise:
        print(f"\nwarning: other work on this machine took more than {OTHERS_LIMIT:g} % of a core during "
              + "; ".join(noise) + " — these figures are not clean; run again on a quiet machine.")


if __name__ == "__main__":
    main()
