"""What the benchmarks hear: `baton peer listen --json` in a host, and datagrams on the bridge.

`Listener` is the peer a figure waits for: it notes when each peer was first heard, the
counts each counter was heard at, what it forgot and its rejection statistics.
`Sniffer` times every Baton datagram one host puts on the bridge (a packet socket on the
host's bridge port) and opens them with the run's group key: HKDF-SHA256 and
ChaCha20-Poly1305 from `cryptography`, the PROTOCOL.md layout, as scripts/check-vectors.py.

Run as `python3 -m batonlab.listener PORT SECONDS UDP_PORT` (in the bridge namespace) it is
the sniffer's capture process.
"""

import datetime
import json
import os
import plistlib
import socket
import struct
import subprocess
import sys
import threading
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .lab import COUNTER, Proc

BATON_PORT = 47788
HEADER = 34  # magic "BTN3", kind, flags, key id (4), sender id (16), sequence (8)
SIGNATURE = 64  # the Ed25519 signature sealed before the payload
ANNOUNCE = 1


def parse_time(text):
    """ISO 8601 with fractions and `Z` → seconds since the epoch."""
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.datetime.fromisoformat(text).timestamp()


class Listener(Proc):
    """`baton peer listen --json` in a lab host, read line by line in a thread.

    first: peer name → (its "time", arrival here) of the first appeared/changed line
    counts: peer name → [(count, its "time", arrival here)] of the counters' lines
    gone: [(peer name, its "time")]; statistics: the last statistics line.
    "time" is the listener's CLOCK_REALTIME (ms resolution); arrival is this script's."""

    def __init__(self, name, namespace, peer, env, scratch, duration=None):
        """`peer` is the headless peer's command, `[baton, "peer"]` (`lab.programs`)."""
        argv = [*peer, "listen", "--json", "--name", name]
        if duration is not None:
            argv += ["--duration", "%d" % duration]
        super().__init__("listener", name, namespace, argv, env, scratch, stdout=subprocess.PIPE)
        self.condition = threading.Condition()
        self.first, self.counts, self.highest, self.gone = {}, {}, {}, []
        self.statistics = None
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
                if kind == "statistics":
                    self.statistics = event
                    continue
                name = (event.get("peer") or {}).get("name", "")
                stamped = parse_time(event["time"]) if "time" in event else arrived
                if kind in ("appeared", "changed"):
                    self.first.setdefault(name, (stamped, arrived))
                    count = (event.get("userInfo") or {}).get("count")
                    if event.get("type") == COUNTER and isinstance(count, int):
                        self.counts.setdefault(name, []).append((count, stamped, arrived))
                        self.highest[name] = max(count, self.highest.get(name, count))
                elif kind == "gone":
                    self.gone.append((name, stamped))
                self.condition.notify_all()
        with self.condition:
            self.condition.notify_all()

    def _wait(self, done, deadline):
        with self.condition:
            while not done():
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self.alive():
                    return False
                self.condition.wait(min(remaining, 0.5))
            return True

    def wait_count(self, name, count, timeout):
        """Waits until the counter of peer `name` was heard at `count` or more; True when it was."""
        return self._wait(lambda: self.highest.get(name, -1) >= count, time.monotonic() + timeout)

    def wait_all(self, names, deadline):
        """Waits until every peer in `names` was heard; True when they were."""
        return self._wait(lambda: all(n in self.first for n in names), deadline)

    def heard(self, name):
        with self.condition:
            return list(self.counts.get(name, []))

    def latencies(self, name, writes, base=0):
        """For presses written at `writes` on peer `name`'s counter, which stood at `base`: ms from each
        write to the first line showing its count or more, by that line's "time" and by its arrival
        here; and how many presses were never heard."""
        heard = [line for line in self.heard(name) if line[0] > base]
        stamped, arrived, i = [], [], 0
        for k, written in enumerate(writes, start=1):
            while i < len(heard) and heard[i][0] < base + k:
                i += 1
            if i == len(heard):
                break
            stamped.append((heard[i][1] - written) * 1000)
            arrived.append((heard[i][2] - written) * 1000)
        return stamped, arrived, len(writes) - len(stamped)

    def missing(self, names):
        with self.condition:
            return [n for n in names if n not in self.first]

    def snapshot(self):
        """(first, gone, statistics), copied."""
        with self.condition:
            return dict(self.first), list(self.gone), self.statistics


class SenderKeys:
    """PROTOCOL.md section 3: the key id of a group key, and each sender's key,
    HKDF-SHA256(ikm: groupKey, salt: "baton-handoff", info: "v3 datagram" ‖ sender id, length: 32)."""

    def __init__(self, group_key):
        self.group_key = group_key
        self.key_id = self._hkdf(b"v3 key id")[:4]
        self._keys = {}

    def _hkdf(self, info):
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"baton-handoff", info=info).derive(self.group_key)

    def sender_key(self, sender):
        key = self._keys.get(sender)
        if key is None:
            if len(self._keys) > 4096:
                self._keys.clear()
            key = self._keys[sender] = self._hkdf(b"v3 datagram" + sender)
        return key


def aead_key(group_key):
    """What `open_datagram` opens with: the group key's key id and sender keys."""
    return SenderKeys(group_key)


def open_datagram(keys, datagram):
    """The payload of a Baton datagram: ChaCha20-Poly1305 under the sender's key, nonce 00000000 ‖
    sequence, the header as associated data; the signature before the payload is dropped unchecked
    (a bench reads its own lab's datagrams: the receivers count bad signatures).

    Raises ValueError when it is not a version 3 Baton datagram of this group key, InvalidTag when
    it was not sealed with it."""
    if len(datagram) < HEADER + SIGNATURE + 16 or datagram[:4] != b"BTN3":
        raise ValueError("not a Baton datagram")
    header = datagram[:HEADER]
    if header[6:10] != keys.key_id:
        raise ValueError("sealed under another group key")
    nonce = bytes(4) + header[26:34]
    return ChaCha20Poly1305(keys.sender_key(header[10:26])).decrypt(nonce, datagram[HEADER:], header)[SIGNATURE:]


def capture(port, seconds, udp_port):
    """Prints `kernel time, kind, datagram hex` for each Baton datagram that bridge port `port`
    receives from its host, for `seconds`. Runs in the bridge namespace, as a process of its own."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
    s.setsockopt(socket.SOL_SOCKET, 35, 1)  # SO_TIMESTAMPNS: the kernel's receive time
    try:
        s.setsockopt(263, 23, 1)  # SOL_PACKET, PACKET_IGNORE_OUTGOING: not what the bridge floods to the host
    except OSError:
        pass
    s.bind((port, 0))
    s.settimeout(1)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data, ancillary, _, address = s.recvmsg(2048, 64)
        except socket.timeout:
            continue
        if address[2] == 4 or len(data) < 72 or data[12:14] != b"\x08\x00" or data[23] != 17:
            continue  # sent out of the port (to the host), or not IPv4 UDP
        udp = 14 + (data[14] & 15) * 4
        if data[udp + 2:udp + 4] != struct.pack(">H", udp_port) or data[udp + 8:udp + 12] != b"BTN3":
            continue
        stamp = time.time()
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == 35:
                seconds_, nanoseconds = struct.unpack("qq", value[:16])
                stamp = seconds_ + nanoseconds / 1e9
        print("%.6f %d %s" % (stamp, data[udp + 12], data[udp + 8:].hex()), flush=True)


class Sniffer(Proc):
    """Times every Baton datagram host `host` puts on the bridge: `capture` on its port, logged to a file."""

    def __init__(self, lab, host, scratch, duration, udp_port=BATON_PORT):
        self.path = os.path.join(scratch, f"sniff-p{host}.log")
        bench = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(self.path, "w") as out:
            super().__init__("sniffer", f"sniff-p{host}", lab.bridge,
                             [sys.executable, "-B", "-m", "batonlab.listener", f"p{host}", "%d" % duration,
                              str(udp_port)], dict(os.environ, PYTHONPATH=bench), scratch, stdout=out)

    def frames(self, key, since=0):
        """(kernel time, sequence, count) of the counter ANNOUNCEs caught so far, in order."""
        frames = []
        with open(self.path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 3 or parts[1] != str(ANNOUNCE) or float(parts[0]) < since:
                    continue
                datagram = bytes.fromhex(parts[2])
                try:
                    count = plistlib.loads(open_datagram(key, datagram))["userInfo"]["count"]
                except Exception:  # noqa: BLE001 — not ours to judge here; the listeners count rejections
                    continue
                frames.append((float(parts[0]), int.from_bytes(datagram[26:34], "big"), count))
        return frames


if __name__ == "__main__":
    capture(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))
