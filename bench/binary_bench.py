#!/usr/bin/env python3
"""The installed program: size and start-up, Swift's libraries linked in (as scripts/install
and scripts/package build them) against loaded from the toolchain, in the same run.

Run as root from the checkout (about 3 minutes; it relinks the release program twice and
leaves it linked static, as scripts/test does):

    sudo python3 bench/binary_bench.py
    sudo python3 bench/binary_bench.py --runs 100

  size       baton as built, and stripped as scripts/install installs it; for the dynamic
             build also the Swift libraries it loads from the toolchain (ldd), which a machine
             without Swift would need beside it.
  version    `baton --version`, spawn to exit, --runs times, the two builds alternating.
  listen     `baton peer listen` to its first line on standard output (the transport is up),
             --runs times alternating, in a namespace of its own with only loopback
             (`netlab single`): nothing leaves the machine.
"""

import argparse
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NETLAB = os.path.join(ROOT, "scripts", "netlab")
PROGRAMS = ["baton"]


def build(static, into):
    flags = ["--static-swift-stdlib"] if static else []
    for product in PROGRAMS:
        subprocess.run(["swift", "build", "-c", "release", *flags, "--product", product], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bin_dir = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
    os.makedirs(into)
    for product in PROGRAMS:
        shutil.copy2(os.path.join(bin_dir, product), os.path.join(into, product))
        stripped = os.path.join(into, product + ".stripped")
        shutil.copy2(os.path.join(bin_dir, product), stripped)
        subprocess.run(["strip", stripped], check=True)


def swift_libraries(binary):
    """The toolchain libraries ldd resolves for `binary`: (count, total bytes)."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    paths = [line.split("=>")[1].split("(")[0].strip() for line in out.splitlines() if "=>" in line]
    swift = [p for p in paths if "swift" in p.lower() or "/opt/" in p]
    return len(swift), sum(os.path.getsize(os.path.realpath(p)) for p in swift)


def mb(n):
    return f"{n / 1_000_000:.1f} MB"


def time_version(binary):
    started = time.perf_counter()
    subprocess.run([binary, "--version"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def time_listen(namespace, binary, env):
    started = time.perf_counter()
    proc = subprocess.Popen(["ip", "netns", "exec", namespace, binary, "peer", "listen", "--name", "bench"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        if not ready or not proc.stdout.readline():
            raise SystemExit(f"{binary} peer listen printed nothing in 10 s: {proc.stderr.read1(2000)!r}")
        return time.perf_counter() - started
    finally:
        proc.kill()  # its first line is all that is measured
        proc.wait(10)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("binary_bench.py needs root (ip netns for the listen figure)")
    scratch = tempfile.mkdtemp(prefix="baton-binary-bench-")
    lab = f"bin{os.getpid()}"
    try:
        builds = {"dynamic": os.path.join(scratch, "dynamic"), "static": os.path.join(scratch, "static")}
        build(False, builds["dynamic"])
        build(True, builds["static"])  # last: the release folder is left as scripts/test leaves it

        print("size (bytes on disk)")
        for product in PROGRAMS:
            for kind, folder in builds.items():
                binary = os.path.join(folder, product)
                line = (f"  {product:<10} {kind:<7} {mb(os.path.getsize(binary)):>9} as built, "
                        f"{mb(os.path.getsize(binary + '.stripped')):>9} stripped")
                if kind == "dynamic":
                    count, total = swift_libraries(binary)
                    line += f", + {count} Swift libraries from the toolchain, {mb(total)}"
                print(line)

        subprocess.run([NETLAB, "single", lab], check=True, stdout=subprocess.DEVNULL)
        namespace = f"{lab}-h1"
        env = dict(os.environ, BATON_KEY="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", HOME=scratch)
        times = {(figure, kind): [] for figure in ("version", "listen") for kind in builds}
        for _ in range(args.runs):
            for kind, folder in builds.items():
                times[("version", kind)].append(time_version(os.path.join(folder, "baton.stripped")))
                times[("listen", kind)].append(time_listen(namespace, os.path.join(folder, "baton.stripped"), env))
        print(f"start-up, median of {args.runs} (p90), the two builds alternating")
        for figure, label in (("version", "baton --version, spawn to exit"),
                              ("listen", "baton peer listen, spawn to its first line")):
            for kind in builds:
                samples = sorted(times[(figure, kind)])
                p90 = samples[int(len(samples) * 0.9) - 1]
                print(f"  {label:<44} {kind:<7} {statistics.median(samples) * 1000:6.1f} ms ({p90 * 1000:.1f})")
        load = open("/proc/loadavg").read().split()[:3]
        print(f"machine: {os.cpu_count()} cores, load average {' '.join(load)}")
    finally:
        subprocess.run([NETLAB, "down", lab], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
