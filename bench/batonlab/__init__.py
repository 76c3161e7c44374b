"""Shared pieces of Baton's benchmarks (bench/app_bench.py, bench/scale_bench.py, bench/large_bench.py).

  lab       a scripts/netlab lab, and Baton's programs in its hosts (headless, or in a pty)
  terminal  a small xterm emulator that replays a pty's output, to see what a person sees
  listener  `baton peer listen --json` as a witness; datagrams caught on the bridge, opened
            with the group key
  wire      every UDP datagram and IP fragment on the bridge (largest payload, fragments), a UDP
            probe by size, and plain TCP as the state stream's yardstick; stdlib only
  meters    CPU and RSS from /proc, per process and for the whole machine
  report    percentiles and the Markdown table of figures beside targets
"""
