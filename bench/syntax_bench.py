#!/usr/bin/env python3
"""Editor benchmark (issue 38): colours for code and replace, `baton edit` against nano 7.2.

Run as root against a release build (`scripts/build-release --product baton`):

    sudo python3 bench/syntax_bench.py [--baton PATH ...] [--size-mb 16] [--runs 3]

Both programs colour with the same syntax file, the system's /usr/share/nano/c.nanorc: nano
reads an rc file that includes only it (`nano -f RC`), baton reads only that folder
(`BATON_NANORC_FOLDERS=/usr/share/nano`). The file is C made here, the same every run, about
--size-mb MB, its first line `BEGIN the first line`, and the word `total_count` in exactly
40,000 lines. Each program runs in a pty (80×24) in a one-host netlab lab, in turns.

  open     spawn → the first screen shows the first line, colours on.
  key      letters typed in front of BEGIN, 50 ms apart: write → the screen shows them
           (bench/editor_bench.py's measure, on this file). Also measured: the same baton on a
           copy of the file named big.txt, which no syntax takes ("plain"), for what the
           colours themselves cost.
  replace  Ctrl-\\, `total_count`, Enter, `n_total`, Enter, then `a` (all): from the `a` to
           the screen's count of replacements ("Replaced 40000 occurrences", in either's words).

Targets (issue 38): a key's p99 ≤ nano's with its C syntax on; replace all ≤ nano's time;
open ≤ 1.5 × nano's.
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonlab import lab, meters, report  # noqa: E402
import editor_bench  # noqa: E402

WORD = "total_count"
MATCHES = 40_000

TEMPLATES = [
    "    int value_{n} = compute(buffer, {n}); /* step {n} */",
    "    if (index > {n} && flags & 0x{n:x}) {{ return -1; }}",
    "    // the next line keeps count {n}",
    "    char *name = \"entry {n}\\t\\\"quoted\\\"\";",
    "static const unsigned long LIMIT_{n} = {n}UL;",
    "    for (size_t i = 0; i < {n}; i++) {{ sum += table[i]; }}",
    "/* a comment that spans",
    "   two lines, number {n} */",
]


def make_c_file(path, megabytes, seed=38):
    """About `megabytes` MB of C, `WORD` in exactly `MATCHES` lines spread through it."""
    rng = random.Random(seed)
    target = megabytes * 1_000_000
    lines = ["BEGIN the first line"]
    size = len(lines[0]) + 1
    while size < target:
        line = rng.choice(TEMPLATES).format(n=rng.randint(0, 99999))
        lines.append(line)
        size += len(line) + 1
    step = (len(lines) - 1) // MATCHES
    for k in range(MATCHES):
        index = 1 + k * step
        lines[index] = f"    {WORD} += {k};"
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return os.path.getsize(path)


def replace_all(run, label, argv, path, open_timeout):
    """Opens `path`, replaces every `WORD` with `n_total`; ms from `a` to the count on screen."""
    program, result = editor_bench.start(run, argv, path, open_timeout)
    try:
        if result["open_ms"] is None:
            return None
        editor_bench.settle([program], 1.0)
        program.write(b"\x1c")  # Ctrl-\
        if editor_bench.read_until(program, lambda: editor_bench.shows(program, "eplace"), time.perf_counter() + 10) is None:
            return None
        program.write(WORD.encode() + b"\r")
        if editor_bench.read_until(program, lambda: editor_bench.shows(program, "with"), time.perf_counter() + 10) is None:
            return None
        program.write(b"n_total\r")
        if editor_bench.read_until(program, lambda: editor_bench.shows(program, "instance"), time.perf_counter() + 30) is None:
            return None
        sent = time.perf_counter()
        program.write(b"a")
        done = editor_bench.read_until(
            program, lambda: any(f"eplaced {MATCHES} occurrences" in line for line in program.lines()), sent + 120)
        return None if done is None else (done - sent) * 1000
    finally:
        editor_bench.kill(program)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baton", action="append", default=[], metavar="[LABEL=]PATH",
                        help="a baton to measure (repeatable; default: .build/release/baton)")
    parser.add_argument("--size-mb", type=int, default=16)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3, help="opens and replaces of each program, in turns")
    parser.add_argument("--open-timeout", type=float, default=60)
    parser.add_argument("--keys-json", metavar="FILE",
                        help="write each program's key times, in the order typed (50 a turn), to FILE as JSON")
    args = parser.parse_args()

    lab.check_host("syntax_bench.py")
    nano = shutil.which("nano")
    if not nano:
        sys.exit("syntax_bench.py: nano not found (apt-get install -y nano)")
    c_syntax = "/usr/share/nano/c.nanorc"
    if not os.path.exists(c_syntax):
        sys.exit(f"syntax_bench.py: {c_syntax} not found (it comes with nano)")
    batons = []
    for given in args.baton or [os.path.join(lab.RELEASE, "baton")]:
        label, _, path = given.rpartition("=")
        batons.append((label or "baton", path))
    run = argparse.Namespace(lab=lab.Lab("syntax", 1), through="pty", servers=0)
    run.scratch = tempfile.mkdtemp(prefix="baton-syntax-bench-")
    run.env = lab.baton_env(run.scratch, os.urandom(32))
    run.env["BATON_NANORC_FOLDERS"] = "/usr/share/nano"
    rc = os.path.join(run.scratch, "nanorc")
    with open(rc, "w") as f:
        f.write(f'include "{c_syntax}"\n')
    lab.end_through_finally()
    print(meters.describe_machine(meters.machine()))
    print(f"nano: {nano} -f {rc} (which includes {c_syntax}); baton: BATON_NANORC_FOLDERS=/usr/share/nano")
    programs = [(label, [path, "edit"]) for label, path in batons] + [("nano", [nano, "-f", rc])]
    table = report.Table()
    try:
        run.lab.up()
        path = os.path.join(run.scratch, "big.c")
        size = make_c_file(path, args.size_mb)
        results = {label: {"open": [], "replace": []} for label, _ in programs}
        # Opens and replaces in turns, each program once a round.
        for _ in range(args.runs):
            for label, argv in programs:
                program, result = editor_bench.start(run, argv, path, args.open_timeout)
                editor_bench.kill(program)
                results[label]["open"].append(result["open_ms"])
            for label, argv in programs:
                results[label]["replace"].append(replace_all(run, label, argv, path, args.open_timeout))
        shutil.copyfile(path, os.path.join(run.scratch, "big.txt"))
        # The same baton on big.txt: sh replaces the .c it is given by .txt and execs baton.
        plain = [(f"{label}, plain (big.txt)", ["/bin/sh", "-c", 'exec "$0" edit "${1%.c}.txt"', p])
                 for label, p in batons]
        keys = editor_bench.measure(run, programs + plain, path, args.keys, 50, args.open_timeout)
        if args.keys_json:
            with open(args.keys_json, "w") as f:
                json.dump({label: {"keys_ms": r["keys_ms"], "first_ms": r["first_ms"], "sent_at": r.get("sent_at", [])}
                           for label, r in keys.items()}, f)
        nano_open = [o for o in results["nano"]["open"] if o is not None]
        nano_replace = [r for r in results["nano"]["replace"] if r is not None]
        nano_keys = [k for k in keys["nano"]["keys_ms"] if k is not None]
        nano_p99 = report.percentile(nano_keys, 0.99) if nano_keys else None
        mb = size / 1e6
        for label, _ in programs + plain:
            is_baton = label != "nano"
            if label not in results:
                typed = [k for k in keys[label]["keys_ms"] if k is not None]
                if typed:
                    table.row(f"{label}: key → screen p50 / p99 / max ({len(keys[label]['keys_ms'])} keys)",
                              f"{report.percentile(typed, 0.5):.1f} / {report.percentile(typed, 0.99):.1f} / {max(typed):.1f} ms",
                              "", None)
                if keys[label].get("cpu_keys"):
                    table.row(f"{label}: CPU per key", f"{keys[label]['cpu_ns'] / keys[label]['cpu_keys'] / 1000:.0f} µs", "", None)
                continue
            opens = [o for o in results[label]["open"] if o is not None]
            median_open = report.percentile(opens, 0.5) if opens else None
            table.row(f"{label}: open {mb:.1f} MB of C, colours on → first screen (median of {len(opens)})",
                      ", ".join("timed out" if o is None else f"{o:.0f}" for o in results[label]["open"]) + " ms",
                      "≤ 1.5× nano" if is_baton else "",
                      (median_open <= 1.5 * report.percentile(nano_open, 0.5)) if is_baton and opens and nano_open else None)
            replaces = [r for r in results[label]["replace"] if r is not None]
            table.row(f"{label}: replace all of {WORD} ({MATCHES:,} matches) → count shown",
                      ", ".join("failed" if r is None else f"{r:.0f}" for r in results[label]["replace"]) + " ms",
                      "≤ nano" if is_baton else "",
                      (report.percentile(replaces, 0.5) <= report.percentile(nano_replace, 0.5))
                      if is_baton and replaces and nano_replace and len(replaces) == args.runs else None)
            typed = [k for k in keys[label]["keys_ms"] if k is not None]
            if typed:
                p99 = report.percentile(typed, 0.99)
                missed = len(keys[label]["keys_ms"]) - len(typed)
                table.row(f"{label}: key → screen p50 / p99 / max ({len(keys[label]['keys_ms'])} keys, 50 ms apart"
                          + (f", {missed} never shown" if missed else "") + ")",
                          f"{report.percentile(typed, 0.5):.1f} / {p99:.1f} / {max(typed):.1f} ms",
                          "p99 ≤ nano" if is_baton else "", (p99 <= nano_p99 and missed == 0) if is_baton and nano_p99 else None)
            if keys[label].get("cpu_keys"):
                table.row(f"{label}: CPU per key", f"{keys[label]['cpu_ns'] / keys[label]['cpu_keys'] / 1000:.0f} µs", "", None)
        print(table)
    finally:
        run.lab.down()
        shutil.rmtree(run.scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
