#!/usr/bin/env python3
"""hostile.py: a hostile Baton sender, for fault and attack tests inside a netlab host.

Builds datagrams that break docs/PROTOCOL.md's receiving rules on purpose (or that follow
them with hostile content) and sends them to the group, paced at --rate per second:

    hostile.py KIND --count N [--rate PER_SECOND] [--key BASE64] [--group G --port P]
               [--interface IF] [--seed S] [--quiet]

KIND is one of:

  wrong-key      a valid datagram sealed under a random key            -> authenticationFailed
  bit-flip       a valid datagram with one random bit flipped anywhere -> authenticationFailed
                 (a flip in the magic gives badMagic, in the kind byte unknownKind; each
                 datagram's expected reason is worked out and reported)
  truncated-tag  a valid datagram missing 1-15 bytes of its tag         -> authenticationFailed
  short          1-57 bytes (shorter than header and tag)               -> tooShort
  bad-magic      a valid-length datagram whose magic is not BTN1        -> badMagic
  unknown-kind   a sealed datagram whose kind byte is not 1-5           -> unknownKind
  replay         one valid WITHDRAW (of an activity nobody has) sealed once, sent N times
                 verbatim: the first is accepted, the others            -> replay
  skew           valid ANNOUNCEs whose sentAt is two minutes off        -> clockSkew
  oversize       a sealed plaintext of 60,100-65,449 bytes (a valid ANNOUNCE padded) -> tooLarge
  not-dict       a sealed plist whose root is an array                  -> notADictionary
  wrong-types    valid envelopes; an ANNOUNCE with a field of the wrong plist type -> wrongType
  undeclared     valid ANNOUNCEs of type com.evil.undeclared            -> accepted (never continuable)
  escapes        valid ANNOUNCEs of dev.baton.counter whose title, peer name and userInfo
                 hold ESC sequences, NULs, bidi overrides and 10,000-character lines -> accepted
  flood          datagrams from 100,000 different random sender ids: sealed under a WRONG
                 key (-> authenticationFailed), or, with --key, valid ANNOUNCEs of
                 com.evil.flood (-> accepted; undeclared, so never continuable)

Kinds that need a valid seal take the group key from --key or BATON_KEY. Datagrams go
out with multicast TTL 1 and loop off, on --interface (default v0, the lab interface;
SO_BINDTODEVICE and IP_MULTICAST_IF). It refuses to run outside a named network namespace
(`ip netns`, as netlab makes) unless --allow-host-namespace is given, so that what it sends
stays in a lab and cannot leave the machine.

At the end it prints one JSON line on stdout, e.g.
    {"kind": "bit-flip", "sent": 10000, "seconds": 5.0, "expected": {"authenticationFailed": 9812, ...},
     "accepted": 0, "senders": 1}
where "expected" counts the receiving rule each datagram breaks (or "accepted"), and a
sentence on stderr. As a library: `datagrams(kind, count, key, rng)` yields
(bytes, expected reason) and `Sender(...).send(iterable, rate)` sends them.
"""
import argparse
import base64
import datetime
import errno
import json
import os
import plistlib
import random
import socket
import struct
import sys
import time
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"BTN1"
ANNOUNCE, WITHDRAW, QUERY, CONTINUED, OFFER = 1, 2, 3, 4, 5
HEADER = 42
TAG = 16
MINIMUM = HEADER + TAG
MAX_PLAINTEXT = 60_000
MAX_UDP = 65_507
GROUP = "239.255.77.88"
PORT = 47788
FLOOD_SENDERS = 100_000

ACCEPTED = "accepted"
KINDS = ["wrong-key", "bit-flip", "truncated-tag", "short", "bad-magic", "unknown-kind", "replay", "skew",
         "oversize", "not-dict", "wrong-types", "undeclared", "escapes", "flood"]
# Kinds whose datagrams must be sealed with the group key.
NEEDS_KEY = {"bit-flip", "truncated-tag", "bad-magic", "unknown-kind", "replay", "skew", "oversize", "not-dict",
             "wrong-types", "undeclared", "escapes"}

# Hostile text for the escapes kind: each is a title, a peer name and a userInfo string.
ESCAPES = [
    "\x1b[2J\x1b[H\x1b]0;pwned\x07CLEARED",
    "nul\x00in\x00the\x00middle\x00",
    "\u202eevil\u202c-bidi.txt \u2066isolate\u2069",
    "\x1b[31mred\x1b[0m\r\nnext line\x1b[24;1Hbottom\x1b[?1049l",
    "\x9b2J\x9d0;c1-title\x9c\x7fdel",
    "L" * 10_000,
    "\x1b]2;pwned-too\x1b\\" + "W" * 9_990,
]


def derive(group_key: bytes) -> bytes:
    """The AEAD key of docs/PROTOCOL.md: HKDF-SHA256(groupKey, "baton-handoff", "v1 datagram")."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"baton-handoff", info=b"v1 datagram").derive(group_key)


def utc_now(offset: float = 0.0) -> datetime.datetime:
    """Now in UTC as a naive datetime (what plistlib writes as a date), plus `offset` seconds."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return now + datetime.timedelta(seconds=offset)


def header(kind: int, sender: bytes, sequence: int, nonce: bytes, magic: bytes = MAGIC, flags: int = 0) -> bytes:
    return magic + bytes([kind, flags]) + sender + struct.pack(">Q", sequence) + nonce


def seal(aead: ChaCha20Poly1305, kind: int, sender: bytes, sequence: int, plaintext: bytes, rng: random.Random,
         magic: bytes = MAGIC) -> bytes:
    nonce = rng.randbytes(12)
    head = header(kind, sender, sequence, nonce, magic)
    return head + aead.encrypt(nonce, plaintext, head)


def peer(name: str = "mallory@evil") -> dict:
    return {"name": name, "host": "evil.example", "app": "hostile.py", "appVersion": "6.6.6"}


def announce_payload(activity_id: str, activity_type: str, revision: int, user_info: dict, *, title=None,
                     peer_info=None, sent_offset: float = 0.0, saved_at=None) -> dict:
    payload = {
        "sentAt": utc_now(sent_offset), "activityID": activity_id, "type": activity_type, "revision": revision,
        "savedAt": saved_at or utc_now(), "userInfo": user_info, "peer": peer_info or peer(),
    }
    if title is not None:
        payload["title"] = title
    return payload


def plist(value) -> bytes:
    return plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=True)


def flipped_reason(position: int, flipped_byte: int) -> str:
    """The rule a sealed ANNOUNCE breaks once its byte `position` became `flipped_byte`."""
    if position < 4:
        return "badMagic"
    if position == 4 and flipped_byte not in (ANNOUNCE, WITHDRAW, QUERY, CONTINUED, OFFER):
        return "unknownKind"
    return "authenticationFailed"


def datagrams(kind: str, count: int, key: bytes | None, rng: random.Random):
    """Yields `count` (datagram, expected reason) pairs of `kind`."""
    aead = ChaCha20Poly1305(derive(key)) if key is not None else None
    if kind in NEEDS_KEY and aead is None:
        raise SystemExit(f"hostile.py: {kind} needs the group key (--key or BATON_KEY)")
    sender = rng.randbytes(16)
    activity = str(uuid.UUID(bytes=rng.randbytes(16), version=4)).upper()
    counter = lambda n: {"count": n}

    if kind == "wrong-key":
        wrong = ChaCha20Poly1305(derive(rng.randbytes(32)))
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield seal(wrong, ANNOUNCE, sender, i + 1, body, rng), "authenticationFailed"

    elif kind == "bit-flip":
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            datagram = bytearray(seal(aead, ANNOUNCE, sender, i + 1, body, rng))
            position = rng.randrange(len(datagram))
            datagram[position] ^= 1 << rng.randrange(8)
            yield bytes(datagram), flipped_reason(position, datagram[position])

    elif kind == "truncated-tag":
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            datagram = seal(aead, ANNOUNCE, sender, i + 1, body, rng)
            yield datagram[:len(datagram) - rng.randint(1, TAG - 1)], "authenticationFailed"

    elif kind == "short":
        for _ in range(count):
            length = rng.randint(1, MINIMUM - 1)
            yield (MAGIC + bytes([ANNOUNCE]) + rng.randbytes(MINIMUM))[:length], "tooShort"

    elif kind == "bad-magic":
        for i in range(count):
            magic = rng.randbytes(4)
            while magic == MAGIC:
                magic = rng.randbytes(4)
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield seal(aead, ANNOUNCE, sender, i + 1, body, rng, magic=magic), "badMagic"

    elif kind == "unknown-kind":
        for i in range(count):
            bad = rng.choice([0] + list(range(6, 256)))
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield seal(aead, bad, sender, i + 1, body, rng), "unknownKind"

    elif kind == "replay":
        body = plist({"sentAt": utc_now(), "activityID": activity})
        datagram = seal(aead, WITHDRAW, sender, 1, body, rng)
        for i in range(count):
            yield datagram, ACCEPTED if i == 0 else "replay"

    elif kind == "skew":
        for i in range(count):
            offset = rng.choice([-120.0, 120.0])
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666), sent_offset=offset))
            yield seal(aead, ANNOUNCE, sender, i + 1, body, rng), "clockSkew"

    elif kind == "oversize":
        for i in range(count):
            size = rng.randint(MAX_PLAINTEXT + 100, MAX_UDP - MINIMUM)
            # A valid payload padded with an unknown key up to `size` bytes.
            base = announce_payload(activity, "dev.baton.counter", 1, counter(666))
            base["padding"] = b""
            padding = size - len(plist(base))
            base["padding"] = b"\x00" * padding
            body = plist(base)
            while len(body) > size:  # the length prefix of a long data object grows
                padding -= len(body) - size
                base["padding"] = b"\x00" * padding
                body = plist(base)
            assert MAX_PLAINTEXT < len(body) <= MAX_UDP - MINIMUM, len(body)
            # Receivers drop it by its size, before trying to open it.
            yield seal(aead, ANNOUNCE, sender, i + 1, body, rng), "tooLarge"

    elif kind == "not-dict":
        for i in range(count):
            body = plist(["sentAt", utc_now(), "activityID", activity, i])
            yield seal(aead, ANNOUNCE, sender, i + 1, body, rng), "notADictionary"

    elif kind == "wrong-types":
        wrong = [
            ("sentAt", "yesterday"), ("activityID", 42), ("type", ["dev.baton.counter"]), ("revision", "1"),
            ("revision", 1.5), ("savedAt", 0), ("userInfo", "count=666"), ("peer", ["mallory"]),
            ("peer", {"name": 7, "host": "h", "app": "a", "appVersion": "v"}), ("title", b"bytes"),
            ("requiredUserInfoKeys", [1, 2]), ("keywords", "not-an-array"), ("expiresAt", "never"),
            ("webpageURL", 80),
        ]
        for i in range(count):
            field, value = wrong[i % len(wrong)]
            payload = announce_payload(activity, "dev.baton.counter", 1, counter(666))
            if field == "peer" and isinstance(value, dict):
                payload["peer"] = value
            else:
                payload[field] = value
            yield seal(aead, ANNOUNCE, sender, i + 1, plist(payload), rng), "wrongType"

    elif kind == "undeclared":
        saved = utc_now()
        for i in range(count):
            body = plist(announce_payload(activity, "com.evil.undeclared", 1, {"payload": "rm -rf /", "count": 1},
                                          title="Totally safe", saved_at=saved))
            yield seal(aead, ANNOUNCE, sender, i + 1, body, rng), ACCEPTED

    elif kind == "escapes":
        # One sender and activity per hostile text; they take turns.
        senders = [rng.randbytes(16) for _ in ESCAPES]
        activities = [str(uuid.UUID(bytes=rng.randbytes(16), version=4)).upper() for _ in ESCAPES]
        saved = [utc_now() for _ in ESCAPES]
        for i in range(count):
            j = i % len(ESCAPES)
            text = ESCAPES[j]
            name = ("\x1b]0;pwned\x07mallory\x00\u202e" + text)[:200]
            body = plist(announce_payload(activities[j], "dev.baton.counter", 1, {"count": 7, "note": text},
                                          title=text, peer_info=peer(name), saved_at=saved[j]))
            yield seal(aead, ANNOUNCE, senders[j], i // len(ESCAPES) + 1, body, rng), ACCEPTED

    elif kind == "flood":
        ids = [rng.randbytes(16) for _ in range(min(count, FLOOD_SENDERS))]
        if aead is None:
            wrong = ChaCha20Poly1305(derive(rng.randbytes(32)))
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            for i in range(count):
                yield seal(wrong, ANNOUNCE, ids[i % len(ids)], i // len(ids) + 1, body, rng), "authenticationFailed"
        else:
            # One plaintext, made once; each datagram patches its own activity id into it (same
            # length, so the plist stays valid), which keeps up with 10,000 a second.
            template_id = "F" * 36
            body = bytearray(plist(announce_payload(template_id, "com.evil.flood", 1, {"n": 0})))
            at = body.index(template_id.encode())
            for i in range(count):
                body[at:at + 36] = str(uuid.UUID(int=i % len(ids), version=4)).upper().encode()
                yield seal(aead, ANNOUNCE, ids[i % len(ids)], i // len(ids) + 1, bytes(body), rng), ACCEPTED
    else:
        raise SystemExit(f"hostile.py: unknown kind {kind!r}; one of {', '.join(KINDS)}")


def lab_namespace() -> str | None:
    """The name of the `ip netns` namespace this process runs in (a netlab host), or None."""
    try:
        own = os.stat("/proc/self/ns/net")
        for entry in os.scandir("/var/run/netns"):
            info = os.stat(entry.path)
            if (info.st_dev, info.st_ino) == (own.st_dev, own.st_ino):
                return entry.name
    except OSError:
        pass
    return None


class Sender:
    """A UDP socket that sends to the group on one interface, TTL 1, multicast loop off."""

    def __init__(self, group: str = GROUP, port: int = PORT, interface: str = "v0", ttl: int = 1):
        try:
            index = socket.if_nametoindex(interface)
        except OSError:
            raise SystemExit(f"hostile.py: there is no interface {interface!r} here (run it inside a netlab host)")
        self.destination = (group, port)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, interface.encode())
        self.socket.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, ttl)
        self.socket.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        self.socket.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
                               struct.pack("4s4si", socket.inet_aton(group), socket.inet_aton("0.0.0.0"), index))
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)

    def send(self, items, rate: float | None):
        """Sends every (datagram, reason) of `items`, at most `rate` per second; returns (sent, expected, seconds)."""
        expected: dict[str, int] = {}
        sent = 0
        start = time.monotonic()
        for datagram, reason in items:
            if rate:
                due = start + sent / rate
                ahead = due - time.monotonic()
                if ahead > 0.002:
                    time.sleep(ahead)  # pacing, not waiting for an event
            while True:
                try:
                    self.socket.sendto(datagram, self.destination)
                    break
                except OSError as error:
                    if error.errno not in (errno.ENOBUFS, errno.EAGAIN):
                        raise
                    time.sleep(0.001)
            sent += 1
            expected[reason] = expected.get(reason, 0) + 1
        return sent, expected, time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--count", type=int, required=True, help="datagrams to send")
    parser.add_argument("--rate", type=float, default=1000, help="datagrams per second (0: as fast as possible)")
    parser.add_argument("--key", help="the group key, base64 (default: BATON_KEY)")
    parser.add_argument("--group", default=GROUP)
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--interface", default="v0", help="interface to send on (default: v0, the lab's)")
    parser.add_argument("--seed", type=int, help="seed for everything random (default: random)")
    parser.add_argument("--allow-host-namespace", action="store_true",
                        help="run even outside a netlab namespace (datagrams may leave the machine)")
    parser.add_argument("--quiet", action="store_true", help="no sentence on stderr")
    parser.add_argument("--prepare", action="store_true",
                        help="seal every datagram before sending the first, then print {\"event\": \"sending\"}: "
                             "the rate then holds on a busy machine")
    args = parser.parse_args()

    if args.count < 0:
        parser.error("--count must be 0 or more")
    if lab_namespace() is None and not args.allow_host_namespace:
        print("hostile.py: refusing to send outside a named network namespace (a netlab host); run it with "
              "`scripts/netlab exec LAB I scripts/hostile.py …`, or pass --allow-host-namespace", file=sys.stderr)
        return 2
    text_key = args.key or os.environ.get("BATON_KEY")
    if args.kind == "flood":
        text_key = args.key  # flood uses the right key only when --key is given
    key = None
    if text_key:
        key = base64.b64decode(text_key, validate=True)
        if len(key) != 32:
            parser.error("the key must be 32 bytes of base64 (44 characters)")
    # One stream per kind, so that two kinds sent with the same seed do not share a sender id.
    rng = random.Random(f"{args.seed}:{args.kind}") if args.seed is not None else random.Random()
    sender = Sender(args.group, args.port, args.interface)
    items = datagrams(args.kind, args.count, key, rng)
    if args.prepare:
        items = list(items)
        print(json.dumps({"event": "sending"}), flush=True)
    sent, expected, seconds = sender.send(items, args.rate)
    senders = min(args.count, FLOOD_SENDERS) if args.kind == "flood" else len(ESCAPES) if args.kind == "escapes" else 1
    summary = {"kind": args.kind, "sent": sent, "seconds": round(seconds, 3), "expected": expected,
               "accepted": expected.get(ACCEPTED, 0), "senders": senders}
    print(json.dumps(summary, sort_keys=True), flush=True)
    if not args.quiet:
        print(f"hostile.py: sent {sent} {args.kind} datagrams in {seconds:.1f} s "
              f"({sent / seconds if seconds else 0:.0f}/s) to {args.group}:{args.port} on {args.interface}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
