"""What Baton's processes cost, and what else the machine was doing, from /proc.

CPU is utime+stime of /proc/PID/stat in clock ticks (10 ms here), as % of one core; memory is
VmRSS (and VmHWM) of /proc/PID/status. `CpuMeter` splits the whole machine's CPU (/proc/stat)
into the lab's processes, interrupts (mostly the lab's multicast), the benchmark itself and
everything else, so a figure taken beside someone's build says so.
"""

import os
import platform
import resource
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
BUSY_PATTERN = r"swift-build|swift-test|xctest|app_bench\.py|scale_bench\.py"


def cpu_ticks(pid):
    """utime+stime of a process (fields 14 and 15 of /proc/PID/stat); None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


def status_kb(pid, key="VmRSS"):
    """A kB figure of /proc/PID/status (VmRSS, VmHWM); None when the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return 0


def cpu_ns(pid):
    """CPU time of every thread of a process so far, in nanoseconds (the first field of each
    /proc/PID/task/TID/schedstat): finer than the 10 ms ticks of /proc/PID/stat, so a 100 ms window
    can tell 2 % of a core from 0. None when the process is gone. (A thread that ended between two
    readings takes its time with it: a reading can be lower than the one before; callers clamp.)"""
    both = sched(pid)
    return None if both is None else both[0]


def sched(pid):
    """(CPU ns, time slices) of every thread of a process so far: schedstat's first and third
    fields. A time slice begins each time a thread is put on a core, so the slices between two
    readings count how often the process was woken, which the machine's speed does not move.
    None when the process is gone."""
    cpu = slices = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                fields = f.read().split()
            cpu += int(fields[0])
            slices += int(fields[2])
        except (OSError, ValueError, IndexError):
            continue
    return cpu, slices


class Sampler:
    """Samples processes every `period` s on a thread of its own: (time.monotonic(), VmRSS kB, VmHWM kB,
    CPU ns) per pid, until stopped. With `kill_above_kb`, a process whose VmRSS goes over it is
    SIGKILLed and noted in `killed` (a guard for the machine, when a receiver runs away with memory)."""

    def __init__(self, pids, period=0.05, kill_above_kb=None):
        import threading
        self.pids, self.period, self.kill_above_kb = list(pids), period, kill_above_kb
        self.samples = {pid: [] for pid in self.pids}
        self.killed = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        import signal
        while not self.stopping.is_set():
            for pid in self.pids:
                rss, hwm, cpu = status_kb(pid), status_kb(pid, "VmHWM"), cpu_ns(pid)
                if not rss or cpu is None:  # gone, or a zombie (no VmRSS) not reaped yet
                    continue
                with self.lock:
                    self.samples[pid].append((time.monotonic(), rss, hwm, cpu))
                if self.kill_above_kb and rss > self.kill_above_kb and pid not in self.killed:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    self.killed[pid] = (time.monotonic(), rss)
            self.stopping.wait(self.period)  # the sampling period

    def series(self, pid, since=None, until=None):
        with self.lock:
            return [s for s in self.samples[pid] if (since is None or s[0] >= since) and (until is None or s[0] <= until)]

    def stop(self):
        self.stopping.set()
        self.thread.join(2)


def cpu_percent(series):
    """% of one core between the first and last sample of a series from Sampler."""
    if len(series) < 2 or series[-1][0] <= series[0][0]:
        return float("nan")
    return 100 * max(0, series[-1][3] - series[0][3]) / 1e9 / (series[-1][0] - series[0][0])


def idle_from(series, start, baseline_kb, window=0.1, hold=0.5, cpu_limit=0.02, rss_margin_kb=10 * 1024):
    """The first time t ≥ `start` from which the process stays idle for `hold` seconds, or None.

    Idle: every `window` (100 ms, sliding from each sample) that starts in [t, t + hold − window]
    used at most `cpu_limit` (2 %) of one core — 2 ms of CPU per 100 ms — and VmRSS stayed within
    `rss_margin_kb` (10 MB) of `baseline_kb` at every sample in [t, t + hold]. `series` is a
    Sampler series, sampled every 50 ms or faster."""
    points = [s for s in series if s[0] >= start]
    n = len(points)
    busy = []
    for j in range(n):
        k = j
        while k < n - 1 and points[k][0] - points[j][0] < window:
            k += 1
        span = points[k][0] - points[j][0]
        used = max(0, points[k][3] - points[j][3]) / 1e9
        busy.append(span < window / 2 or used > cpu_limit * span)
    for i in range(n):
        t = points[i][0]
        if points[-1][0] < t + hold:
            return None
        quiet = all(not busy[j] for j in range(i, n) if points[j][0] <= t + hold - window)
        small = all(points[j][1] <= baseline_kb + rss_margin_kb for j in range(i, n) if points[j][0] <= t + hold)
        if quiet and small:
            return t
    return None


def system_cpu():
    """/proc/stat's first line: user nice system idle iowait irq softirq steal, in ticks."""
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def all_ticks():
    """{pid: (comm, utime+stime, starttime)} of every process now (for what else used the machine)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                head, tail = f.read().rsplit(")", 1)
            fields = tail.split()
            name = head.split("(", 1)[1]
            if name.startswith("kworker/"):
                name = "kworker"  # its name also tells the work it does now
            # starttime tells a reused pid apart
            out[int(entry)] = (name, int(fields[11]) + int(fields[12]), int(fields[19]))
        except (OSError, ValueError, IndexError):
            continue
    return out


class CpuMeter:
    """Where the machine's CPU went between its start and end(): `procs` (anything with a pid),
    the kernel's interrupt work, this script, and everything else (other people's work)."""

    NAMES = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]

    def __init__(self, procs):
        self.procs = list(procs)
        self.everyone = all_ticks()
        self.system = system_cpu()
        self.ticks = {p.pid: cpu_ticks(p.pid) for p in self.procs}
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.self_cpu = usage.ru_utime + usage.ru_stime
        self.begin = time.monotonic()

    def end(self):
        """% of one core over the period: machine (by /proc/stat field), ours, script, interrupts,
        others and the busiest of them; per_pid for each of `procs` (None when it ended)."""
        elapsed = time.monotonic() - self.begin
        d = [e - b for e, b in zip(system_cpu(), self.system)]
        total = sum(d) or 1
        machine = {n: 100 * v / total * os.cpu_count() for n, v in zip(self.NAMES, d)}
        per = {}
        for p in self.procs:
            a, b = self.ticks[p.pid], cpu_ticks(p.pid)
            per[p.pid] = None if a is None or b is None else 100 * (b - a) / HZ / elapsed
        usage = resource.getrusage(resource.RUSAGE_SELF)
        script = 100 * (usage.ru_utime + usage.ru_stime - self.self_cpu) / elapsed
        busy = sum(v for k, v in machine.items() if k not in ("idle", "iowait"))
        ours = sum(v for v in per.values() if v is not None)
        interrupts = machine["irq"] + machine["softirq"]
        # The busiest other processes (threads of all of them, kernel threads included), by name.
        mine = set(per) | {os.getpid()}
        by_name = {}
        for pid, (name, ticks, started) in all_ticks().items():
            if pid in mine:
                continue
            before = self.everyone.get(pid)
            used = ticks - before[1] if before and before[2] == started else ticks  # new since begin: all of it
            if used > 0:
                by_name[name] = by_name.get(name, 0) + 100 * used / HZ / elapsed
        top = sorted(by_name.items(), key=lambda item: -item[1])[:4]
        return {"seconds": elapsed, "machine": machine, "busy": busy, "ours": ours, "script": script,
                "interrupts": interrupts, "others": max(0.0, busy - ours - script - interrupts),
                "top_others": [(name, round(v, 1)) for name, v in top if v >= 1], "per_pid": per}


def watch(procs, seconds, period):
    """A CpuMeter over `seconds`, sampling each process's VmRSS every `period` s (at the start and
    end too); returns (the meter's end(), {pid: [kB, ...]})."""
    meter = CpuMeter(procs)
    rss = {p.pid: [] for p in procs}
    for _ in range(int(seconds / period) + 2):  # bounded; the deadline ends it first
        for p in procs:
            kb = status_kb(p.pid)
            if kb is not None:
                rss[p.pid].append(kb)
        remaining = meter.begin + seconds - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(period, remaining))  # the sampling period
    return meter.end(), rss


# ---------------------------------------------------------------------------------------------
# The machine.


def machine():
    """{cpus, model, kernel} of this machine."""
    model = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "model": model, "kernel": platform.release()}


def describe_machine(m):
    return f"{m['cpus']} CPUs, {m['model']}, Linux {m['kernel']}"


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


def wait_until_quiet(limit, poll=15, max_load=None):
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
