"""What goes over the lab's bridge: every UDP datagram and every IP fragment, and a probe of frame loss.

Issue 8 says no datagram Baton sends relies on IP fragmentation: at most 1,200 bytes of UDP
payload, and none over 1,472 (what fits one 1,500-byte Ethernet frame). `BridgeSniffer` checks
it from outside the programs: a packet socket in the lab's bridge namespace sees every frame a
host puts on the bridge (on its port pN, incoming), whatever the group, port or program. A
classic BPF filter passes only IPv4 UDP and IP fragments (TCP, the state stream, stays in the
kernel), cut to their headers. Per datagram it notes the UDP payload size (the UDP length
field, which a first fragment carries for the whole datagram) and whether it was fragmented.

The probe (`probe-send`, `probe-recv`) shows that `scripts/netlab frameloss` drops frames and
not datagrams: a 20 KB datagram leaves as 14 fragments and arrives only when all of them do.

Standard library only, so the Swift end-to-end tests run it too (PYTHONPATH=bench):

    python3 -m batonlab.wire capture [--seconds S] [--frames]      # in the NAME-lan namespace
    python3 -m batonlab.wire probe-recv --port P [--seconds S]       # in the receiving host
    python3 -m batonlab.wire probe-send --to ADDR --port P --sizes 1000,20000 --count N [--gap-ms G]
    python3 -m batonlab.wire tcp-serve --port P --bytes N            # plain TCP, the stream's yardstick
    python3 -m batonlab.wire tcp-fetch --to ADDR --port P

`capture` prints `ready` once its socket is bound, then (with `--frames`) one line per frame,
and on SIGTERM, SIGINT or after `--seconds` a last line: a JSON object with `"event": "summary"`
(`byPortKind` counts Baton datagrams by bridge port and kind: what each host sent, e.g. the
ANNOUNCEs a peer sent in answer to a QUERY flood).
`probe-recv` prints `ready`, and a JSON object `{"event": "probe", "received": {size: count}}`
when the sender's end marker arrives (or on a signal, or after `--seconds`).
"""

import argparse
import ctypes
import json
import os
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_IGNORE_OUTGOING = 23
PACKET_STATISTICS = 6
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
SNAP = 96  # Ethernet 14 + IP 20..60 + UDP 8 + Baton's magic and kind

# The largest UDP payload that fits one 1,500-byte frame (1,500 − 20 IP − 8 UDP), and Baton's own limit.
ONE_FRAME = 1472
BATON_LIMIT = 1200
# Version 3 datagrams, and version 1 and 2 ones (BTN1) from older peers.
MAGICS = {b"BTN3", b"BTN1"}


def bpf_program():
    """Classic BPF: accept IPv4 frames that are UDP or a fragment (MF set or an offset), SNAP bytes."""
    code = [
        (0x28, 0, 0, 12),       # ldh [12]            ethertype
        (0x15, 0, 5, 0x0800),   # jeq #IPv4, next, drop
        (0x30, 0, 0, 23),       # ldb [23]            IP protocol
        (0x15, 2, 0, 17),       # jeq #UDP, accept, next
        (0x28, 0, 0, 20),       # ldh [20]            flags and fragment offset
        (0x45, 0, 1, 0x3FFF),   # jset #MF|offset, accept, drop
        (0x06, 0, 0, SNAP),     # accept: ret #SNAP
        (0x06, 0, 0, 0),        # drop: ret #0
    ]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in code), len(code)


def attach_filter(sock):
    program, count = bpf_program()
    buffer = ctypes.create_string_buffer(program)
    fprog = struct.pack("HL", count, ctypes.addressof(buffer))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    return buffer  # keep it alive while attaching (the kernel copies it)


def parse_frame(data):
    """The IPv4 fields of an Ethernet frame cut to SNAP bytes, or None when it is not IPv4."""
    if len(data) < 34 or data[12:14] != b"\x08\x00":
        return None
    ihl = (data[14] & 15) * 4
    total, ident, frag = struct.unpack(">HHH", data[16:22])
    frame = {
        "src": socket.inet_ntoa(data[26:30]), "dst": socket.inet_ntoa(data[30:34]),
        "proto": data[23], "ipLength": total, "id": ident,
        "moreFragments": bool(frag & 0x2000), "offset": (frag & 0x1FFF) * 8,
    }
    udp = 14 + ihl
    if frame["proto"] == 17 and frame["offset"] == 0 and len(data) >= udp + 8:
        sport, dport, length = struct.unpack(">HHH", data[udp:udp + 6])
        frame.update(sport=sport, dport=dport, payload=length - 8)
        head = data[udp + 8:udp + 13]
        if len(head) == 5 and head[:4] in MAGICS:
            frame["baton"] = head[:4].decode()
            frame["kind"] = head[4]
    return frame


class Tally:
    """The summary of a capture: datagrams, the largest, fragments, by port and by Baton kind."""

    def __init__(self):
        self.frames = 0
        self.datagrams = 0
        self.fragments = 0
        self.fragmented_datagrams = 0
        self.largest = None          # the frame dict of the datagram with the largest UDP payload
        self.over_one_frame = 0
        self.over_baton_limit = 0
        self.by_kind = {}
        self.by_port = {}
        self.by_port_kind = {}       # {port: {kind: datagrams}}: who sent which Baton messages
        self.examples = []           # a few datagrams over one frame, for messages

    def add(self, port, frame):
        self.frames += 1
        fragment = frame["moreFragments"] or frame["offset"] > 0
        if fragment:
            self.fragments += 1
        if "payload" not in frame:   # a later fragment: counted above, its datagram at the first
            return
        self.datagrams += 1
        if fragment:
            self.fragmented_datagrams += 1
        self.by_port[port] = self.by_port.get(port, 0) + 1
        if "kind" in frame:
            key = str(frame["kind"])
            self.by_kind[key] = self.by_kind.get(key, 0) + 1
            kinds = self.by_port_kind.setdefault(port, {})
            kinds[key] = kinds.get(key, 0) + 1
        if self.largest is None or frame["payload"] > self.largest["payload"]:
            self.largest = dict(frame, port=port)
        if frame["payload"] > BATON_LIMIT:
            self.over_baton_limit += 1
        if frame["payload"] > ONE_FRAME:
            self.over_one_frame += 1
            if len(self.examples) < 5:
                self.examples.append(dict(frame, port=port))

    def summary(self, stats=None):
        largest = self.largest or {}
        return {
            "event": "summary", "frames": self.frames, "datagrams": self.datagrams,
            "largestPayload": largest.get("payload", 0),
            "largest": {k: largest[k] for k in ("port", "src", "dst", "dport", "kind", "payload") if k in largest},
            "fragments": self.fragments, "fragmentedDatagrams": self.fragmented_datagrams,
            "overOneFrame": self.over_one_frame, "overBatonLimit": self.over_baton_limit,
            "oneFrameLimit": ONE_FRAME, "batonLimit": BATON_LIMIT,
            "byKind": self.by_kind, "byPort": self.by_port, "byPortKind": self.by_port_kind, "examples": self.examples,
            "socketPackets": (stats or (0, 0))[0], "socketDrops": (stats or (0, 0))[1],
        }


class Stop(Exception):
    pass


def _raise_stop(signo, _frame):
    raise Stop()


def capture(seconds, frames_out=False, out=sys.stdout):
    """Counts what hosts put on the bridge, in the bridge namespace, until a signal or `seconds`."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
    keep = attach_filter(sock)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    try:
        sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)  # the copies the bridge sends out of ports
    except OSError:
        pass
    # Unbound, a packet socket of ETH_P_ALL hears every interface of the namespace: p1…pN and br0.
    sock.settimeout(0.25)
    del keep
    tally = Tally()
    for signo in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signo, _raise_stop)
    print("ready", file=out, flush=True)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            try:
                data, ancillary, _, address = sock.recvmsg(SNAP, 64)
            except socket.timeout:
                continue
            port, pkttype = address[0], address[2]
            # Frames a host sends arrive on its port; br0 sees multicast a second time, and copies
            # going out of ports are ignored above (or here, on kernels without the option).
            if pkttype == PACKET_OUTGOING or not (port.startswith("p") and port[1:].isdigit()):
                continue
            frame = parse_frame(data)
            if frame is None:
                continue
            tally.add(port, frame)
            if frames_out:
                stamp = time.time()
                for level, kind, value in ancillary:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                        sec, nsec = struct.unpack("qq", value[:16])
                        stamp = sec + nsec / 1e9
                print(json.dumps(dict(frame, port=port, time=round(stamp, 6))), file=out, flush=True)
    except Stop:
        pass
    finally:
        for signo in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signo, signal.SIG_IGN)
        raw = sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
        stats = struct.unpack("II", raw)  # reading resets them; tp_packets counts drops too
        print(json.dumps(tally.summary(stats)), file=out, flush=True)
        sock.close()


def probe_recv(port, seconds, out=sys.stdout):
    """Counts UDP datagrams by size on `port` until the sender's end marker, a signal or `seconds`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.bind(("0.0.0.0", port))
    sock.settimeout(0.25)
    for signo in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signo, _raise_stop)
    received = {}
    ended = False
    print("ready", file=out, flush=True)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            if data.startswith(b"END"):
                ended = True
                break
            received[str(len(data))] = received.get(str(len(data)), 0) + 1
    except Stop:
        pass
    print(json.dumps({"event": "probe", "received": received, "ended": ended}), file=out, flush=True)


def probe_send(to, port, sizes, count, gap):
    """Sends `count` rounds of one datagram of each size (interleaved), `gap` s apart, then 20 end markers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payloads = [bytes([65 + i % 26]) * size for i, size in enumerate(sizes)]
    start = time.monotonic()
    sent = 0
    for round_ in range(count):
        for payload in payloads:
            delay = start + sent * gap - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing, so that no socket buffer overflows: only the rule drops
            sock.sendto(payload, (to, port))
            sent += 1
    for _ in range(20):  # at 30 % frame loss all 20 are lost with a chance of 1e-10
        time.sleep(gap)
        sock.sendto(b"END", (to, port))
    print(json.dumps({"event": "sent", "sizes": sizes, "count": count}), flush=True)


def tcp_serve(port, size, out=sys.stdout):
    """Serves `size` bytes (from memory) to every connection on TCP `port`, one at a time, until a signal."""
    payload = os.urandom(size)
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", port))
    server.listen(8)
    for signo in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signo, _raise_stop)
    print("ready", file=out, flush=True)
    try:
        while True:
            connection, _ = server.accept()
            with connection:
                connection.sendall(payload)
                connection.shutdown(socket.SHUT_WR)
                connection.recv(1)  # until the client closes: its last byte is in
    except Stop:
        pass


def tcp_fetch(to, port, out=sys.stdout):
    """Connects to a `tcp-serve`, reads to the end; prints bytes and ms from connect to the last byte."""
    started = time.perf_counter()
    sock = socket.create_connection((to, port), timeout=60)
    received = 0
    buffer = bytearray(1 << 20)
    while True:
        count = sock.recv_into(buffer)
        if not count:
            break
        received += count
    elapsed = time.perf_counter() - started
    sock.close()
    print(json.dumps({"event": "tcp", "bytes": received, "ms": round(elapsed * 1000, 3)}), file=out, flush=True)


def summarize(path):
    """The summary line of a capture's output file (the last JSON line with "event": "summary")."""
    summary = None
    with open(path) as f:
        for line in f:
            if line.startswith("{") and '"summary"' in line:
                try:
                    summary = json.loads(line)
                except ValueError:
                    pass
    return summary


def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m batonlab.wire", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("capture", help="count UDP datagrams and IP fragments hosts put on the bridge")
    c.add_argument("--seconds", type=float, default=3600)
    c.add_argument("--frames", action="store_true", help="also print one JSON line per frame")
    r = commands.add_parser("probe-recv", help="count UDP datagrams by size")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--seconds", type=float, default=60)
    s = commands.add_parser("probe-send", help="send datagrams of some sizes, then end markers")
    s.add_argument("--to", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--sizes", default="1000,20000")
    s.add_argument("--count", type=int, default=200)
    s.add_argument("--gap-ms", type=float, default=2)
    t = commands.add_parser("tcp-serve", help="serve N bytes to every TCP connection")
    t.add_argument("--port", type=int, required=True)
    t.add_argument("--bytes", type=int, required=True)
    f = commands.add_parser("tcp-fetch", help="read a tcp-serve to the end, print the time")
    f.add_argument("--to", required=True)
    f.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    if args.command == "capture":
        capture(args.seconds, args.frames)
    elif args.command == "probe-recv":
        probe_recv(args.port, args.seconds)
    elif args.command == "tcp-serve":
        tcp_serve(args.port, args.bytes)
    elif args.command == "tcp-fetch":
        tcp_fetch(args.to, args.port)
    else:
        probe_send(args.to, args.port, [int(x) for x in args.sizes.split(",")], args.count, args.gap_ms / 1000)


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    main(sys.argv[1:])
