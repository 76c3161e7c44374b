#!/usr/bin/env python3
"""hostile.py: a hostile Baton sender, for fault and attack tests inside a netlab host.

Builds version 3 datagrams (docs/PROTOCOL.md sections 2 and 3) that break section 7's receiving
rules on purpose (or that follow them with hostile content) and sends them to the group, paced at
--rate per second:

    hostile.py KIND --count N [--rate PER_SECOND] [--key BASE64] [--identity SEED_BASE64 [--unlisted]]
               [--group G --port P] [--interface IF] [--seed S] [--quiet]

Every datagram is signed by one device identity: --identity's seed (a listed device: an insider,
such as the end-to-end lab's one device), or, without it, a new random identity that nobody lists (an
outsider). --unlisted says the --identity given is not listed either. The reasons below are a
listed identity's; an unlisted one's datagrams that get past the key id (step 5) are all dropped
at step 6 as `unknownDevice`, and the JSON line counts them so.

KIND is one of:

  wrong-key      a valid datagram sealed under a random group key        -> authenticationFailed
                 (step 5: a key id the receiver does not hold)
  bit-flip       a valid datagram with one random bit flipped anywhere   -> authenticationFailed
                 (a flip in the magic gives badMagic, or oldProtocol when it makes BTN1; in the
                 kind byte unknownKind unless it stays 1-7; in the device tag unknownDevice; each
                 datagram's expected reason is worked out and reported)
  truncated-tag  a valid datagram missing 1-15 bytes of its tag           -> authenticationFailed
  short          1-113 bytes (shorter than header, signature and tag)     -> tooShort
  bad-magic      a valid-length datagram whose magic is neither BTN3 nor BTN1 -> badMagic
  unknown-kind   a sealed datagram whose kind byte is not 1-7             -> unknownKind
  v2             a version 2 datagram (magic BTN1, the group's one key)   -> oldProtocol
                 (what a peer not yet updated sends; doctor and monitor name it)
  replay         one valid WITHDRAW (of an activity nobody has) sealed once with sequence 1,
                 then one with sequence 1,000, then the first again verbatim N-2 times: the
                 first two are accepted, the others (64 or more below the highest) -> replay
                 (A copy of a datagram among the 64 sequences up to the highest counts as
                 `duplicate` instead: the same datagram heard by multicast and unicast.)
  skew           valid ANNOUNCEs whose sentAt is two minutes off          -> clockSkew
  oversize       a payload of 60,100-65,393 bytes (a valid ANNOUNCE padded) -> tooLarge
  not-dict       a sealed plist whose root is an array                    -> notADictionary
  wrong-types    valid envelopes; an ANNOUNCE with a field of the wrong plist type -> wrongType
  undeclared     valid ANNOUNCEs of type com.evil.undeclared              -> accepted (never continuable)
  escapes        valid ANNOUNCEs of dev.baton.counter whose title, peer name and userInfo
                 hold ESC sequences, NULs, bidi overrides and 10,000-character lines -> accepted
  flood          datagrams from 100,000 different sender ids (the identity's tag, random
                 instances): sealed under a WRONG key (-> authenticationFailed), or, with --key,
                 valid ANNOUNCEs of com.evil.flood (-> accepted; undeclared, so never continuable;
                 from an unlisted identity -> unknownDevice)
  unlisted       valid ANNOUNCEs of dev.baton.counter under the right group key from a new random
                 identity whatever --identity says: a copied group.key without a listed
                 device                                                    -> unknownDevice

Kinds of a key holder (issue 9: an insider, or a buggy peer). Each states the reason a receiver
that follows issue 9 gives to a listed identity (section 7, "What a listed device can do"); the
tests of issue 9 check what the victim still does, not only counts:

  expand-shared  ANNOUNCEs of dev.baton.counter whose userInfo holds an array of 7,500
                 references to ONE 29,000-byte string: a 36.9 KB plaintext that unfolds into
                 217.5 MB of string bytes. Each activity id twice in a row: news, then an
                 identical repeat (which receivers compare with what they hold)
                                                                      -> malformedPayload
                 (the reader's byte budget; before it: accepted)
  expand-nested  the same with 500 references to one array of 500 references to one
                 40,000-byte string: a 41.4 KB plaintext, 250,000 values, 10 GB unfolded
                                                                      -> malformedPayload
  forge-sender   WITHDRAWs of nothing that carry the VICTIM's sender id and sequence 2^64-1,
                 signed by --identity: when that is not the victim's device  -> badSignature
                 (the victim's tag is listed and any key holder can seal for its sender id, but
                 only its device can sign; the window moves only on a verified datagram, so the
                 victim is not silenced). Signed by the victim's own device (the lab's one device
                 is every lab program's)                                   -> accepted
  hijack-revision ANNOUNCEs from another sender that carry the VICTIM's activity id: first a
                 takeover (the victim's revision + 1; 10 datagrams, or half of a smaller count),
                 then revision 2^63-1 (Int64.max) for the rest; userInfo count 666, peer
                 mallory@evil, title Hijacked; at a receiver that has heard the victim
                                                                      -> notOwner
                 (ownership is per sender id: another instance of the victim's own device
                 gets notOwner too.) The entry stays the owner's: the victim's own revisions are still heard,
                 and its WITHDRAW still removes it. (Before issue 9: accepted, and taken.)
  future-savedat ANNOUNCEs of dev.baton.counter (count 666) whose savedAt is 365 days ahead,
                 sentAt now (within the skew)                        -> accepted
                 After issue 9 savedAt is clamped to arrival + the allowed skew (60 s).
  query-flood    QUERYs (no types: every peer with a published activity answers), from a new
                 sender id each, or from --senders N ids in turn      -> accepted
                 After issue 9 answers are rate-limited per asker and in total.
  escapes-all    ESC ] 52 (clipboard), CSI, 8-bit CSI U+009B, NUL, DEL, C1, CR LF TAB, bidi
                 overrides and isolates, U+2028/2029, U+200B, U+2060, U+FEFF, tag characters
                 (U+E0041) and the Hangul filler U+3164 in EVERY peer-controlled field, one
                 sender and activity per field, taking turns:
                   type         the activity type                   -> invalidValue (not reverse-DNS)
                   title        the title                          -> accepted
                   peer         peer name, host, app, appVersion   -> accepted
                   activityID   the activity id                    -> invalidValue (not a UUID)
                   userInfo     userInfo keys and values, nested   -> accepted
                   required     requiredUserInfoKeys, keywords     -> accepted
                   webpageURL   a javascript: URL                  -> invalidValue (not http(s))
                   offer        an OFFER's title, summary and peer name (port 1: a fetch fails)
                                                                   -> accepted
                   impostor     a counter whose peer name is --victim-name + U+200B -> accepted
                   continued    with --victim-activity: a CONTINUED of it from a hostile
                                peer name                          -> accepted
                 (The three invalidValue ones are accepted before issue 9's receive checks.)
                 Names that `--from` must match carry no NUL (an argument cannot).

The victim of forge-sender and hijack-revision is named with --victim-sender HEX,
--victim-activity ID and --victim-revision N; whatever is not given is sniffed: hostile.py
listens on the group (with the key) and takes the first ANNOUNCE or OFFER it hears (from
--victim-name NAME, when given), for up to --sniff-timeout seconds, before sending.
escapes-all sniffs the activity of --victim-name when it is given without --victim-activity.
SIGTERM or SIGINT end the sending early; the JSON line then counts what was sent.

Kinds that need a valid seal take the group key from --key or BATON_KEY; the key id, each
sender's key and the signature follow section 3. Datagrams go
out with multicast TTL 1 and loop off, on --interface (default v0, the lab interface;
SO_BINDTODEVICE and IP_MULTICAST_IF). It refuses to run outside a named network namespace
(`ip netns`, as netlab makes) unless --allow-host-namespace is given, so that what it sends
stays in a lab and cannot leave the machine.

At the end it prints one JSON line on stdout, e.g.
    {"kind": "bit-flip", "sent": 10000, "seconds": 5.0, "expected": {"authenticationFailed": 9812, ...},
     "accepted": 0, "senders": 1, "device": "<the signing device's tag, hex>", "listed": true}
where "expected" counts the receiving rule each datagram breaks (or "accepted"), and a
sentence on stderr. With a sniffed victim the line also has "victim": {"sender", "activityID",
"name", "type", "revision"}. As a library: `datagrams(kind, count, key, rng, victim=None,
senders=0, identity=None)` yields (bytes, expected reason), `sniff(...)` finds a victim, and
`Sender(...).send(iterable, rate)` sends them.
"""
import argparse
import base64
import dataclasses
import datetime
import errno
import json
import os
import plistlib
import random
import select
import signal
import socket
import struct
import sys
import time
import uuid

import hashlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

MAGIC = b"BTN3"
OLD_MAGIC = b"BTN1"  # protocol versions 1 and 2
ANNOUNCE, WITHDRAW, QUERY, CONTINUED, OFFER, DEVICES, STORE = 1, 2, 3, 4, 5, 6, 7
HEADER = 34      # magic, kind, flags, key id (4), sender id (16), sequence (8)
SIGNATURE = 64   # Ed25519, sealed before the payload
TAG = 16
MINIMUM = HEADER + SIGNATURE + TAG  # 114
OLD_HEADER = 42  # version 2: magic, kind, flags, sender id (16), sequence (8), nonce (12)
MAX_PLAINTEXT = 60_000  # the largest payload (after the signature)
MAX_UDP = 65_507
GROUP = "239.255.77.88"
PORT = 47788
FLOOD_SENDERS = 100_000

ACCEPTED = "accepted"
INSIDER_KINDS = ["expand-shared", "expand-nested", "forge-sender", "hijack-revision", "future-savedat", "query-flood",
                 "escapes-all"]
KINDS = ["wrong-key", "bit-flip", "truncated-tag", "short", "bad-magic", "unknown-kind", "replay", "skew",
         "oversize", "not-dict", "wrong-types", "undeclared", "escapes", "flood", "unlisted", "v2"] + INSIDER_KINDS
# Kinds whose datagrams must be sealed with the group key.
NEEDS_KEY = {"bit-flip", "truncated-tag", "bad-magic", "unknown-kind", "replay", "skew", "oversize", "not-dict",
             "wrong-types", "undeclared", "escapes", "unlisted", "v2"} | set(INSIDER_KINDS)
# Kinds that act on a victim: what is not given is sniffed (see `sniff`).
NEEDS_VICTIM = {"forge-sender": ("sender",), "hijack-revision": ("activity", "revision")}
INT64_MAX = (1 << 63) - 1
HIJACK_TAKEOVERS = 10  # hijack-revision's takeover datagrams before those of Int64.max
UINT64_MAX = (1 << 64) - 1

# expand-shared: 7,500 references to one 29,000-byte string (H1 of issue 9: 37 KB that took a
# monitor from 31 to 100 MB); expand-nested: 500 references to one array of 500 references to
# one 40,000-byte string (250,000 values: under the reader's 262,144 expanded values).
SHARED_REFERENCES, SHARED_STRING = 7_500, 29_000
NESTED_OUTER, NESTED_INNER, NESTED_STRING = 500, 500, 40_000

# escapes-all: every kind of character a peer could use against a terminal, a log or a reader.
OSC52 = "\x1b]52;c;SGVsbG8=\x07"            # sets the clipboard of whoever shows it
HOSTILE_NO_NUL = (OSC52 + "osc" + "\x1b[2J\x1b[31mcsi" + "\x9b31mc1csi" + "\x7fdel" + "\x85\x9d0;t\x9cc1"
                  + "\u202eedir\u202c" + "\u2066iso\u2069" + "ls\u2028ps\u2029" + "z\u200bw\u2060j\ufeff"
                  + "tag\U000E0041\U000E007F" + "hangul\u3164" + "\r\n\tend")
HOSTILE = HOSTILE_NO_NUL + "\x00nul"

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


def hkdf(ikm: bytes, info: bytes) -> bytes:
    """HKDF-SHA256 with salt "baton-handoff", 32 bytes (docs/PROTOCOL.md section 3)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"baton-handoff", info=info).derive(ikm)


def derive_v2(group_key: bytes) -> bytes:
    """Version 2's one AEAD key of a group: HKDF-SHA256(groupKey, "baton-handoff", "v1 datagram")."""
    return hkdf(group_key, b"v1 datagram")


class Identity:
    """A device identity from its 32-byte seed (docs/PROTOCOL.md section 3, "Device identity"):
    its Ed25519 signing key, device id and tag. `listed` says whether the receivers list it, which
    decides the reason a datagram that gets past step 5 is dropped for."""

    def __init__(self, seed: bytes, listed: bool):
        if len(seed) != 32:
            raise ValueError("an identity seed is 32 bytes")
        self.signing = Ed25519PrivateKey.from_private_bytes(hkdf(seed, b"v3 identity signing"))
        agreement = X25519PrivateKey.from_private_bytes(hkdf(seed, b"v3 identity agreement"))
        public = b"".join(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
                          for key in (self.signing, agreement))
        self.device_id = hashlib.sha256(b"baton device" + public).digest()[:16]
        self.tag = self.device_id[:8]
        self.listed = listed

    def sender(self, rng: random.Random) -> bytes:
        """A sender id of this device: its tag ‖ a new instance."""
        return self.tag + rng.randbytes(8)

    def reason(self, reason: str) -> str:
        """What a receiver counts a datagram that passes steps 1-5 for: `reason` when this device is
        listed, `unknownDevice` (step 6) when it is not."""
        return reason if self.listed else "unknownDevice"


class Sealer:
    """Seals version 3 datagrams under one group key, signed by one identity (sections 2 and 3)."""

    def __init__(self, group_key: bytes, identity: Identity):
        self.group_key = group_key
        self.key_id = hkdf(group_key, b"v3 key id")[:4]
        self.identity = identity
        self.keys: dict[bytes, ChaCha20Poly1305] = {}

    def aead(self, sender: bytes) -> ChaCha20Poly1305:
        aead = self.keys.get(sender)
        if aead is None:
            if len(self.keys) >= 4096:  # a flood's 100,000 sender ids: keep the table small
                self.keys.clear()
            aead = self.keys[sender] = ChaCha20Poly1305(hkdf(self.group_key, b"v3 datagram" + sender))
        return aead

    def seal(self, kind: int, sender: bytes, sequence: int, payload: bytes, magic: bytes = MAGIC) -> bytes:
        head = magic + bytes([kind, 0]) + self.key_id + sender + struct.pack(">Q", sequence)
        signature = self.identity.signing.sign(b"baton v3 datagram" + head + payload)
        return head + self.aead(sender).encrypt(bytes(4) + head[26:34], signature + payload, head)


def random_identity(rng: random.Random) -> Identity:
    """A device nobody listed: an outsider, whatever key it holds."""
    return Identity(rng.randbytes(32), listed=False)


def utc_now(offset: float = 0.0) -> datetime.datetime:
    """Now in UTC as a naive datetime (what plistlib writes as a date), plus `offset` seconds."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return now + datetime.timedelta(seconds=offset)


def seal_v2(aead: ChaCha20Poly1305, kind: int, sender: bytes, sequence: int, plaintext: bytes,
            rng: random.Random) -> bytes:
    """A version 2 datagram: BTN1, a random nonce in the header, the group's one key, no signature."""
    nonce = rng.randbytes(12)
    head = OLD_MAGIC + bytes([kind, 0]) + sender + struct.pack(">Q", sequence) + nonce
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


@dataclasses.dataclass
class Victim:
    """Who forge-sender and hijack-revision aim at: given on the command line, or sniffed."""
    sender: bytes | None = None
    activity: str | None = None
    name: str | None = None
    type: str = "dev.baton.counter"
    revision: int | None = None

    def summary(self) -> dict:
        return {"sender": self.sender.hex() if self.sender else None, "activityID": self.activity,
                "name": self.name, "type": self.type, "revision": self.revision}


def new_id(rng: random.Random) -> str:
    return str(uuid.UUID(bytes=rng.randbytes(16), version=4)).upper()


def patched(template: bytes, placeholder: str, count: int, make_id):
    """`count` copies of `template` with `placeholder` (same length as every id) replaced by make_id(i)."""
    body = bytearray(template)
    at = body.index(placeholder.encode())
    for i in range(count):
        body[at:at + len(placeholder)] = make_id(i).encode()
        yield bytes(body)


def escapes_specimens(rng: random.Random, victim: Victim | None, identity: Identity | None = None):
    """escapes-all: (label, kind, sender, payload, expected reason) for each peer-controlled field."""
    saved = utc_now()
    victim_name = (victim.name if victim and victim.name else None) or "alice@laptop"

    def counter(label, count, **extra):
        name = extra.pop("name", f"escapes-{label}")
        info = extra.pop("user_info", {"count": count})
        peer_info = extra.pop("peer_info", peer(name))
        payload = announce_payload(extra.pop("activity", None) or new_id(rng), extra.pop("type", "dev.baton.counter"),
                                   1, info, title=extra.pop("title", f"escapes {label}"), peer_info=peer_info,
                                   saved_at=saved)
        payload.update(extra)
        return payload

    everything = {"name": "escapes-peer " + HOSTILE_NO_NUL, "host": HOSTILE, "app": HOSTILE, "appVersion": HOSTILE}
    specimens = [
        ("type", ANNOUNCE, counter("type", 1, type="dev.\x1b]52;c;SGVsbG8=\x07evil\x1b[2J\u202e"), "invalidValue"),
        ("title", ANNOUNCE, counter("title", 2, title=HOSTILE), ACCEPTED),
        ("peer", ANNOUNCE, counter("peer", 3, peer_info=everything), ACCEPTED),
        ("activityID", ANNOUNCE, counter("activityID", 4, activity="\x1b[2J" + new_id(rng) + "\u202e\x00"), "invalidValue"),
        ("userInfo", ANNOUNCE, counter("userInfo", 5, user_info={
            "count": 5, HOSTILE + "key": HOSTILE, "nested": [HOSTILE, {HOSTILE: HOSTILE, "n": [HOSTILE]}]}), ACCEPTED),
        ("required", ANNOUNCE, counter("required", 6, requiredUserInfoKeys=[HOSTILE_NO_NUL + "missing"],
                                       keywords=[HOSTILE, "k" + HOSTILE]), ACCEPTED),
        ("webpageURL", ANNOUNCE, counter("webpageURL", 7, webpageURL="javascript:" + HOSTILE), "invalidValue"),
        ("impostor", ANNOUNCE, counter("impostor", 42, name=victim_name + "\u200b", title="Counter: 42"), ACCEPTED),
    ]
    offer = {
        "sentAt": utc_now(), "activityID": new_id(rng), "type": "dev.baton.editing", "revision": 1, "savedAt": saved,
        "summary": {"fileName": HOSTILE, "cursorLine": 0, "cursorColumn": 0, HOSTILE: HOSTILE}, "title": HOSTILE,
        "peer": {"name": "escapes-offer " + HOSTILE_NO_NUL, "host": HOSTILE, "app": HOSTILE, "appVersion": HOSTILE},
        "size": 1000, "digest": rng.randbytes(32), "port": 1,
    }
    specimens.append(("offer", OFFER, offer, ACCEPTED))
    if victim and victim.activity:
        continued = {"sentAt": utc_now(), "activityID": victim.activity,
                     "peer": {"name": "escapes-continued " + HOSTILE, "host": HOSTILE, "app": HOSTILE,
                              "appVersion": HOSTILE}}
        specimens.append(("continued", CONTINUED, continued, ACCEPTED))
    sender = identity.sender if identity else lambda rng: rng.randbytes(16)
    return [(label, kind, sender(rng), payload, expected) for label, kind, payload, expected in specimens]


def flipped_reason(position: int, datagram: bytes, identity: Identity) -> str:
    """The rule a sealed ANNOUNCE breaks once its byte `position` was flipped (`datagram` as flipped)."""
    if position < 4:
        return "oldProtocol" if datagram[:4] == OLD_MAGIC else "badMagic"
    kind = datagram[4]
    if not ANNOUNCE <= kind <= STORE:
        return "unknownKind"
    if 6 <= position < 10:
        return "authenticationFailed"  # step 5: a key id this group does not have
    if kind != DEVICES and (10 <= position < 18 or not identity.listed):
        return "unknownDevice"  # step 6: a tag nobody listed (DEVICES skips it)
    return "authenticationFailed"  # step 8


def datagrams(kind: str, count: int, key: bytes | None, rng: random.Random, victim: Victim | None = None,
              senders: int = 0, identity: Identity | None = None):
    """Yields `count` (datagram, expected reason) pairs of `kind`, signed by `identity` (default: a
    new one nobody listed). `victim` names whom forge-sender, hijack-revision and escapes-all aim at;
    `senders` is query-flood's number of sender ids (0: a new one per datagram)."""
    if kind in NEEDS_KEY and key is None:
        raise SystemExit(f"hostile.py: {kind} needs the group key (--key or BATON_KEY)")
    identity = identity or random_identity(rng)
    sealer = Sealer(key, identity) if key is not None else None
    if kind in INSIDER_KINDS:
        yield from insider_datagrams(kind, count, sealer, rng, victim or Victim(), senders)
        return
    sender = identity.sender(rng)
    activity = str(uuid.UUID(bytes=rng.randbytes(16), version=4)).upper()
    counter = lambda n: {"count": n}
    listed = identity.reason

    if kind == "wrong-key":
        wrong = Sealer(rng.randbytes(32), identity)
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield wrong.seal(ANNOUNCE, sender, i + 1, body), "authenticationFailed"

    elif kind == "bit-flip":
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            datagram = bytearray(sealer.seal(ANNOUNCE, sender, i + 1, body))
            position = rng.randrange(len(datagram))
            datagram[position] ^= 1 << rng.randrange(8)
            yield bytes(datagram), flipped_reason(position, datagram, identity)

    elif kind == "truncated-tag":
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            datagram = sealer.seal(ANNOUNCE, sender, i + 1, body)
            yield datagram[:len(datagram) - rng.randint(1, TAG - 1)], listed("authenticationFailed")

    elif kind == "short":
        for _ in range(count):
            length = rng.randint(1, MINIMUM - 1)
            yield (MAGIC + bytes([ANNOUNCE]) + rng.randbytes(MINIMUM))[:length], "tooShort"

    elif kind == "bad-magic":
        for i in range(count):
            magic = rng.randbytes(4)
            while magic in (MAGIC, OLD_MAGIC):
                magic = rng.randbytes(4)
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield sealer.seal(ANNOUNCE, sender, i + 1, body, magic=magic), "badMagic"

    elif kind == "v2":
        # What a peer of protocol version 2 sends: a sealed ANNOUNCE under the group's one key.
        aead = ChaCha20Poly1305(derive_v2(key))
        old_sender = rng.randbytes(16)
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield seal_v2(aead, ANNOUNCE, old_sender, i + 1, body, rng), "oldProtocol"

    elif kind == "unknown-kind":
        for i in range(count):
            bad = rng.choice([0] + list(range(STORE + 1, 256)))
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            yield sealer.seal(bad, sender, i + 1, body), "unknownKind"

    elif kind == "replay":
        body = plist({"sentAt": utc_now(), "activityID": activity})
        datagram = sealer.seal(WITHDRAW, sender, 1, body)
        for i in range(count):
            if i == 1:
                yield sealer.seal(WITHDRAW, sender, 1_000, body), listed(ACCEPTED)
            else:
                yield datagram, listed(ACCEPTED if i == 0 else "replay")

    elif kind == "skew":
        for i in range(count):
            offset = rng.choice([-120.0, 120.0])
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666), sent_offset=offset))
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed("clockSkew")

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
            # Receivers drop it by its size (step 7), before trying to open it.
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed("tooLarge")

    elif kind == "not-dict":
        for i in range(count):
            body = plist(["sentAt", utc_now(), "activityID", activity, i])
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed("notADictionary")

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
            yield sealer.seal(ANNOUNCE, sender, i + 1, plist(payload)), listed("wrongType")

    elif kind == "undeclared":
        saved = utc_now()
        for i in range(count):
            body = plist(announce_payload(activity, "com.evil.undeclared", 1, {"payload": "rm -rf /", "count": 1},
                                          title="Totally safe", saved_at=saved))
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed(ACCEPTED)

    elif kind == "unlisted":
        # The group key without a listed identity (a copied group.key): a device nobody listed,
        # whatever --identity says.
        outsider = Sealer(key, random_identity(rng))
        outsider_sender = outsider.identity.sender(rng)
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666), title="Unlisted"))
            yield outsider.seal(ANNOUNCE, outsider_sender, i + 1, body), "unknownDevice"

    elif kind == "escapes":
        # One sender and activity per hostile text; they take turns.
        senders = [identity.sender(rng) for _ in ESCAPES]
        activities = [str(uuid.UUID(bytes=rng.randbytes(16), version=4)).upper() for _ in ESCAPES]
        saved = [utc_now() for _ in ESCAPES]
        for i in range(count):
            j = i % len(ESCAPES)
            text = ESCAPES[j]
            name = ("\x1b]0;pwned\x07mallory\x00\u202e" + text)[:200]
            body = plist(announce_payload(activities[j], "dev.baton.counter", 1, {"count": 7, "note": text},
                                          title=text, peer_info=peer(name), saved_at=saved[j]))
            yield sealer.seal(ANNOUNCE, senders[j], i // len(ESCAPES) + 1, body), listed(ACCEPTED)

    elif kind == "flood":
        ids = [identity.sender(rng) for _ in range(min(count, FLOOD_SENDERS))]
        if sealer is None:
            wrong = Sealer(rng.randbytes(32), identity)
            body = plist(announce_payload(activity, "dev.baton.counter", 1, counter(666)))
            for i in range(count):
                yield wrong.seal(ANNOUNCE, ids[i % len(ids)], i // len(ids) + 1, body), "authenticationFailed"
        else:
            # One plaintext, made once; each datagram patches its own activity id into it (same
            # length, so the plist stays valid).
            template_id = "F" * 36
            body = bytearray(plist(announce_payload(template_id, "com.evil.flood", 1, {"n": 0})))
            at = body.index(template_id.encode())
            for i in range(count):
                body[at:at + 36] = str(uuid.UUID(int=i % len(ids), version=4)).upper().encode()
                yield sealer.seal(ANNOUNCE, ids[i % len(ids)], i // len(ids) + 1, bytes(body)), listed(ACCEPTED)
    else:
        raise SystemExit(f"hostile.py: unknown kind {kind!r}; one of {', '.join(KINDS)}")


def insider_datagrams(kind: str, count: int, sealer: Sealer, rng: random.Random, victim: Victim, senders: int):
    """The kinds of a key holder (issue 9); see the module's docstring."""
    identity = sealer.identity
    listed = identity.reason
    sender = identity.sender(rng)
    placeholder = "F" * 36  # an activity id's length; each datagram patches its own id in

    if kind in ("expand-shared", "expand-nested"):
        if kind == "expand-shared":
            blob = ["S" * SHARED_STRING] * SHARED_REFERENCES  # plistlib writes the equal strings once
        else:
            inner = ["N" * NESTED_STRING] * NESTED_INNER      # and the same list object once
            blob = [inner] * NESTED_OUTER
        template = plist(announce_payload(placeholder, "dev.baton.counter", 1, {"count": 1, "blob": blob},
                                          title=f"{kind}"))
        assert len(template) <= MAX_PLAINTEXT, len(template)
        # Each activity twice in a row: the first is news (held, listed, printed), the second an
        # identical repeat, which a receiver compares with what it holds.
        ids = [new_id(rng) for _ in range((count + 1) // 2)]
        for i, body in enumerate(patched(template, placeholder, count, lambda i: ids[i // 2])):
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed("malformedPayload")

    elif kind == "forge-sender":
        # A WITHDRAW of an activity nobody has is enough: what counts is the sequence. The victim's
        # tag is listed, so the datagram opens (any key holder can derive any sender's key), and
        # the signature decides: only the victim's own device can sign for its tag.
        own = victim.sender[:8] == identity.tag
        for i in range(count):
            body = plist({"sentAt": utc_now(), "activityID": new_id(rng)})
            yield sealer.seal(WITHDRAW, victim.sender, UINT64_MAX, body), ACCEPTED if own else "badSignature"

    elif kind == "hijack-revision":
        takeover = (victim.revision or 0) + 1
        for i in range(count):
            revision = takeover if i < min(HIJACK_TAKEOVERS, (count + 1) // 2) else INT64_MAX
            body = plist(announce_payload(victim.activity, victim.type, revision, {"count": 666}, title="Hijacked"))
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed("notOwner")

    elif kind == "future-savedat":
        activity, saved = new_id(rng), utc_now(365 * 24 * 3600)
        for i in range(count):
            body = plist(announce_payload(activity, "dev.baton.counter", 1, {"count": 666}, title="From the future",
                                          saved_at=saved))
            yield sealer.seal(ANNOUNCE, sender, i + 1, body), listed(ACCEPTED)

    elif kind == "query-flood":
        ids = [identity.sender(rng) for _ in range(senders)] if senders > 0 else None
        sequences: dict[bytes, int] = {}
        for i in range(count):
            asker = ids[i % len(ids)] if ids else identity.sender(rng)
            sequences[asker] = sequences.get(asker, 0) + 1
            yield sealer.seal(QUERY, asker, sequences[asker], plist({"sentAt": utc_now()})), listed(ACCEPTED)

    elif kind == "escapes-all":
        specimens = escapes_specimens(rng, victim, identity)
        for i in range(count):
            label, message_kind, specimen_sender, payload, expected = specimens[i % len(specimens)]
            payload = dict(payload, sentAt=utc_now())
            yield (sealer.seal(message_kind, specimen_sender, i // len(specimens) + 1, plist(payload)),
                   listed(expected))


def open_v3(key: bytes, datagram: bytes):
    """(sender id, payload) of a version 3 datagram sealed under `key`, or None. The signature is
    not checked: a sniffed victim is only a target."""
    if len(datagram) < MINIMUM or datagram[:4] != MAGIC:
        return None
    head = datagram[:HEADER]
    if head[6:10] != hkdf(key, b"v3 key id")[:4]:
        return None
    sender = head[10:26]
    try:
        opened = ChaCha20Poly1305(hkdf(key, b"v3 datagram" + sender)).decrypt(bytes(4) + head[26:34],
                                                                             datagram[HEADER:], head)
    except Exception:  # noqa: BLE001 - not sealed with this key
        return None
    return sender, opened[SIGNATURE:]


def sniff(key: bytes, group: str = GROUP, port: int = PORT, interface: str = "v0", name: str | None = None,
          timeout: float = 10.0) -> Victim:
    """The first ANNOUNCE or OFFER heard on the group (from peer `name`, when given), opened with the
    group key: its sender id, activity id, peer name, type and revision. Exits when none comes in time."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, interface.encode())
    listener.bind(("", port))
    index = socket.if_nametoindex(interface)
    listener.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                        struct.pack("4s4si", socket.inet_aton(group), socket.inet_aton("0.0.0.0"), index))
    deadline = time.monotonic() + timeout
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([listener], [], [], remaining)
            if not ready:
                break
            datagram = listener.recv(65536)
            opened = open_v3(key, datagram) if datagram[4:5] in (bytes([ANNOUNCE]), bytes([OFFER])) else None
            if opened is None:
                continue
            try:
                payload = plistlib.loads(opened[1])
                found = Victim(sender=opened[0], activity=payload["activityID"], name=payload["peer"]["name"],
                               type=payload["type"], revision=payload["revision"])
            except Exception:  # noqa: BLE001 - not a datagram of this group, or not a record
                continue
            if name is None or found.name == name:
                return found
    finally:
        listener.close()
    raise SystemExit(f"hostile.py: heard no ANNOUNCE or OFFER{' from ' + name if name else ''} within {timeout:g} s "
                     "to take a victim from")


def lab_namespace() -> str | None:
    """The name of the `ip netns` namespace this process runs in (a netlab host), or None.

    Other labs make and remove their namespaces meanwhile (the lab tests run side by side): an
    entry removed between the listing and its `stat` is passed over, not taken for an answer.
    One such removal used to end the search, and a run inside its own lab was refused."""
    try:
        own = os.stat("/proc/self/ns/net")
        entries = list(os.scandir("/var/run/netns"))
    except OSError:
        return None
    for entry in entries:
        try:
            info = os.stat(entry.path)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (own.st_dev, own.st_ino):
            return entry.name
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
        self.stopping = False

    def stop(self, *_):
        """Ends `send` after the datagram in hand (a signal handler)."""
        self.stopping = True

    def send(self, items, rate: float | None):
        """Sends every (datagram, reason) of `items`, at most `rate` per second; returns (sent, expected, seconds)."""
        expected: dict[str, int] = {}
        sent = 0
        start = time.monotonic()
        for datagram, reason in items:
            if self.stopping:
                break
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
    parser.add_argument("--identity", metavar="SEED_BASE64",
                        help="the 32-byte identity seed of the device that signs, base64: a listed device's makes an "
                             "insider (default: a new random identity, which nobody lists: an outsider)")
    parser.add_argument("--unlisted", action="store_true",
                        help="the --identity given is not a listed device (the expected reasons then say unknownDevice)")
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
    victim = parser.add_argument_group("the victim (forge-sender, hijack-revision, escapes-all)")
    victim.add_argument("--victim-sender", metavar="HEX", help="its 16-byte sender id, 32 hex digits (default: sniffed)")
    victim.add_argument("--victim-activity", metavar="ID",
                        help="its activity id (default: sniffed); escapes-all sends it a hostile CONTINUED")
    victim.add_argument("--victim-revision", type=int, metavar="N", help="its revision (default: sniffed)")
    victim.add_argument("--victim-name", metavar="NAME",
                        help="sniff only this peer name; escapes-all's impostor imitates it (default: alice@laptop)")
    victim.add_argument("--sniff-timeout", type=float, default=10, metavar="S",
                        help="seconds to listen for the victim (10)")
    parser.add_argument("--senders", type=int, default=0, metavar="N",
                        help="query-flood: sender ids taking turns (default 0: a new one per datagram)")
    parser.add_argument("--describe", action="store_true",
                        help="escapes-all: print its specimens as one JSON line (label, message kind, peer name, "
                             "type, expected reason) and exit without sending")
    args = parser.parse_args()

    if args.count < 0:
        parser.error("--count must be 0 or more")
    if args.describe:
        if args.kind != "escapes-all":
            parser.error("--describe is for escapes-all")
        victim = Victim(name=args.victim_name, activity=args.victim_activity)
        specimens = [{"label": label, "kind": kind, "name": (payload.get("peer") or {}).get("name"),
                      "type": payload.get("type"), "expected": expected}
                     for label, kind, _, payload, expected in escapes_specimens(random.Random(0), victim)]
        print(json.dumps({"specimens": specimens}))  # ASCII: every hostile character as \u escape
        return 0
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
    if args.identity:
        seed = base64.b64decode(args.identity, validate=True)
        if len(seed) != 32:
            parser.error("the identity seed must be 32 bytes of base64 (44 characters)")
        identity = Identity(seed, listed=not args.unlisted)
    else:
        identity = random_identity(rng)
    sender = Sender(args.group, args.port, args.interface)
    target = Victim(sender=bytes.fromhex(args.victim_sender) if args.victim_sender else None,
                    activity=args.victim_activity, name=args.victim_name, revision=args.victim_revision)
    if args.victim_sender is not None and len(target.sender) != 16:
        parser.error("--victim-sender must be 16 bytes (32 hex digits)")
    sniffed = None
    wanted = NEEDS_VICTIM.get(args.kind, ())
    if args.kind == "escapes-all" and args.victim_name and not args.victim_activity:
        wanted = ("activity",)
    if any(getattr(target, field) is None for field in wanted):
        sniffed = sniff(key, args.group, args.port, args.interface, args.victim_name, args.sniff_timeout)
        target = Victim(sender=target.sender or sniffed.sender, activity=target.activity or sniffed.activity,
                        name=target.name or sniffed.name, type=sniffed.type,
                        revision=target.revision if target.revision is not None else sniffed.revision)
    for signo in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signo, sender.stop)
    items = datagrams(args.kind, args.count, key, rng, victim=target, senders=args.senders, identity=identity)
    distinct = set()
    if args.kind in INSIDER_KINDS:
        def noting(pairs):
            for datagram, reason in pairs:
                distinct.add(datagram[10:26])
                yield datagram, reason
        items = noting(items)
    if args.prepare:
        items = list(items)
        print(json.dumps({"event": "sending"}), flush=True)
    sent, expected, seconds = sender.send(items, args.rate)
    senders = min(args.count, FLOOD_SENDERS) if args.kind == "flood" else len(ESCAPES) if args.kind == "escapes" \
        else len(distinct) if args.kind in INSIDER_KINDS else 1
    summary = {"kind": args.kind, "sent": sent, "seconds": round(seconds, 3), "expected": expected,
               "accepted": expected.get(ACCEPTED, 0), "senders": senders, "device": identity.tag.hex(),
               "listed": identity.listed}
    if wanted or sniffed:
        summary["victim"] = target.summary()
    print(json.dumps(summary, sort_keys=True), flush=True)
    if not args.quiet:
        print(f"hostile.py: sent {sent} {args.kind} datagrams in {seconds:.1f} s "
              f"({sent / seconds if seconds else 0:.0f}/s) to {args.group}:{args.port} on {args.interface}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
