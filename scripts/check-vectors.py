#!/usr/bin/env python3
"""Checks Baton's golden vectors with an independent implementation of docs/PROTOCOL.md.

Opens every version 3 datagram in Tests/HandoffWireTests/Vectors/golden with Python's
`cryptography` (HKDF-SHA256, ChaCha20-Poly1305, Ed25519, X25519) and `plistlib`: derives the
identity, key id and sender key, decrypts, verifies the signature and signs again (Ed25519 is
deterministic, so the bytes must match), re-seals and compares the bytes. For DEVICES
(devices.json) it checks every statement's signature and fields, opens the sealed group key
and seals it again, and recomputes the digest. For STORE (store.json) it rebuilds every version from
its clock and its writer's seed, recomputes the 16 bucket digests from the entries, and reads the
entries, their values and `took` back from the plaintext. For the state stream (stream.json) it rebuilds both
devices from their seeds, checks the hellos' layout, verifies both Ed25519 signatures and re-makes
them byte for byte, computes the X25519 secret from both ends and derives the two keys, re-seals
every frame and reads its fields, and hashes the state; for a continuation stream
(continuation.json) it opens and re-seals every frame with stream.json's keys, checks each type's body and
limits, and joins the MESSAGE frames back into the message. For pairing (pair.json) it rebuilds the identities, every frame,
the code, the keys and both Ed25519 signatures, the introductions the sharer sends in STATEMENT
frames before KEY (signatures and fields) and the joiner's, and checks the page's identity check values.
For a shell session's messages (shell.json) it reads each binary plist, checks its kind, who may
send it, its keys, their types and ranges, and for the two screens the styles and every row's runs
(split into graphemes, each cell's width, the row covered exactly), applies them, and compares the
rows' text.
Exits non-zero on any mismatch.
"""
import base64, hashlib, hmac, json, pathlib, plistlib, struct, sys, unicodedata
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

KINDS = {"announce": 1, "withdraw": 2, "query": 3, "continued": 4, "offer": 5, "devices": 6, "store": 7}
REQUIRED = {"announce": ["activityID", "type", "revision", "savedAt", "userInfo", "peer"],
            "withdraw": ["activityID"], "query": [], "continued": ["activityID", "peer"],
            "offer": ["activityID", "type", "revision", "savedAt", "summary", "peer", "size", "digest", "port"],
            "devices": ["statements", "digest"], "store": ["store", "digests", "entries"]}

def check_offer(offer, state):
    """The OFFER's size and digest describe `state`, which reads as the ANNOUNCE payload of the
    same activity and revision with sentAt equal to savedAt (docs/PROTOCOL.md, "OFFER")."""
    problems = []
    if offer.get("size") != len(state): problems.append("size is not the state's length")
    if offer.get("digest") != hashlib.sha256(state).digest(): problems.append("digest is not SHA-256 of the state")
    if not 1 <= offer.get("port", 0) <= 65535: problems.append("port")
    record = plistlib.loads(state, fmt=plistlib.FMT_BINARY)
    for k in ["activityID", "type", "revision", "savedAt"]:
        if record.get(k) != offer.get(k): problems.append(f"state's {k} differs")
    if record.get("sentAt") != record.get("savedAt"): problems.append("state's sentAt is not its savedAt")
    for k, value in offer["summary"].items():
        if record["userInfo"].get(k) != value: problems.append(f"summary's {k} is not the state's")
    return problems

def hkdf(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(ikm)

def raw_public(key) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

def device_keys(seed: bytes):
    """docs/PROTOCOL.md section 3, "Device identity": the Ed25519 and X25519 private keys of a
    seed, its public identity (64 bytes) and its device id (16)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    signing = Ed25519PrivateKey.from_private_bytes(hkdf(seed, b"baton-handoff", b"v3 identity signing"))
    agreement = X25519PrivateKey.from_private_bytes(hkdf(seed, b"baton-handoff", b"v3 identity agreement"))
    public = raw_public(signing) + raw_public(agreement)
    return signing, agreement, public, hashlib.sha256(b"baton device" + public).digest()[:16]

def key_id(group_key: bytes) -> bytes:
    return hkdf(group_key, b"baton-handoff", b"v3 key id")[:4]

def check_datagram(v: dict) -> list:
    """docs/PROTOCOL.md sections 2 and 3: header, key id, sender key, nonce, AEAD, signature."""
    problems = []
    group_key = base64.b64decode(v["groupKey"])
    signing, _, public, device_id = device_keys(bytes.fromhex(v["identitySeed"]))
    if public.hex() != v["publicIdentity"]: problems.append("public identity")
    sender = bytes.fromhex(v["senderID"])
    if sender[:8] != device_id[:8]: problems.append("sender id's tag is not the device's")
    if key_id(group_key).hex() != v["keyID"]: problems.append("key id")
    sender_key = hkdf(group_key, b"baton-handoff", b"v3 datagram" + sender)
    if sender_key.hex() != v["senderKey"]: problems.append("sender key")
    datagram = bytes.fromhex(v["datagram"])
    header, sealed = datagram[:34], datagram[34:]
    if header[:4] != b"BTN3": problems.append("magic")
    if header[4] != KINDS[v["kind"]]: problems.append("kind")
    if header[5] != 0: problems.append("flags")
    if header[6:10].hex() != v["keyID"]: problems.append("header's key id")
    if header[10:26] != sender: problems.append("sender id")
    if int.from_bytes(header[26:34], "big") != v["sequence"]: problems.append("sequence")
    nonce = bytes(4) + header[26:34]
    opened = ChaCha20Poly1305(sender_key).decrypt(nonce, sealed, header)
    signature, plaintext = opened[:64], opened[64:]
    if plaintext.hex() != v["plaintext"]: problems.append("plaintext")
    if signature.hex() != v["signature"]: problems.append("signature")
    signing.public_key().verify(signature, b"baton v3 datagram" + header + plaintext)  # raises when it does not verify
    if signing.sign(b"baton v3 datagram" + header + plaintext) != signature: problems.append("signed again differs")
    if header + ChaCha20Poly1305(sender_key).encrypt(nonce, signature + plaintext, header) != datagram:
        problems.append("re-sealed bytes")
    payload = plistlib.loads(plaintext, fmt=plistlib.FMT_BINARY)
    if not isinstance(payload, dict): problems.append("root is not a dictionary")
    for k in ["sentAt"] + REQUIRED[v["kind"]]:
        if k not in payload: problems.append(f"missing {k}")
    if v["kind"] == "offer":
        problems += check_offer(payload, bytes.fromhex(v.get("state", "")))
    return problems

def check_devices(v: dict) -> list:
    """docs/PROTOCOL.md section 17: the three statements, the sealed key and the digest."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    import datetime
    problems = []
    signing, _, public, issuer_id = device_keys(bytes.fromhex(v["identitySeed"]))
    payload = plistlib.loads(bytes.fromhex(v["plaintext"]), fmt=plistlib.FMT_BINARY)
    statements = payload["statements"]
    if [s.hex() for s in statements] != [s["bytes"] for s in v["statements"]]: problems.append("statements in the payload")
    hashes = sorted({hashlib.sha256(s).digest() for s in statements})
    digest = hashlib.sha256(b"".join(hashes)).digest()[:8]
    if digest.hex() != v["digest"] or payload["digest"] != digest: problems.append("digest")
    at = datetime.datetime.fromtimestamp(v["at"], datetime.timezone.utc).replace(tzinfo=None)
    _, _, bob_public, bob_id = device_keys(bytes.fromhex(v["introduced"]["seed"]))
    _, bob_agreement, _, _ = device_keys(bytes.fromhex(v["introduced"]["seed"]))
    _, _, carol_public, carol_id = device_keys(bytes.fromhex(v["removed"]["seed"]))
    if bob_public.hex() != v["introduced"]["publicIdentity"] or bob_id.hex() != v["introduced"]["deviceID"]: problems.append("introduced device")
    if carol_public.hex() != v["removed"]["publicIdentity"] or carol_id.hex() != v["removed"]["deviceID"]: problems.append("removed device")
    new = v["newKey"]
    new_key = base64.b64decode(new["groupKey"])
    if key_id(new_key).hex() != new["keyID"]: problems.append("new key's id")
    ephemeral = X25519PrivateKey.from_private_bytes(bytes.fromhex(new["ephemeralPrivateKey"]))
    if raw_public(ephemeral).hex() != new["ephemeral"]: problems.append("ephemeral public key")
    bob_agreement_public = bob_public[32:]
    secret = ephemeral.exchange(X25519PublicKey.from_public_bytes(bob_agreement_public))
    if secret != bob_agreement.exchange(X25519PublicKey.from_public_bytes(raw_public(ephemeral))): problems.append("X25519")
    k = hkdf(secret, raw_public(ephemeral) + bob_agreement_public, b"v3 group key")
    ad = bob_id + key_id(new_key)
    if ChaCha20Poly1305(k).decrypt(bytes(12), bytes.fromhex(new["sealed"]), ad) != new_key: problems.append("sealed key opens to another key")
    if ChaCha20Poly1305(k).encrypt(bytes(12), new_key, ad).hex() != new["sealed"]: problems.append("sealed key re-sealed")
    if new["to"] != bob_id.hex(): problems.append("key statement's recipient")
    expected = {
        "introduce": {"identity": bob_public, "name": v["introducedName"]},
        "remove": {"device": carol_id},
        "key": {"to": bob_id, "keyID": key_id(new_key), "ephemeral": raw_public(ephemeral), "sealed": bytes.fromhex(new["sealed"])},
    }
    for entry, whole in zip(v["statements"], statements):
        signature, body = whole[:64], whole[64:]
        if not 64 <= len(whole) <= 1024: problems.append(f"{entry['statement']} size")
        if body.hex() != entry["body"] or signature.hex() != entry["signature"]: problems.append(f"{entry['statement']} split")
        signing.public_key().verify(signature, b"baton v3 statement" + body)  # raises when it does not verify
        if signing.sign(b"baton v3 statement" + body) != signature: problems.append(f"{entry['statement']} signed again differs")
        fields = plistlib.loads(body, fmt=plistlib.FMT_BINARY)
        kind = fields.get("statement")
        if kind != entry["statement"] or kind not in expected: problems.append(f"{kind} kind"); continue
        want = {"statement": kind, "by": issuer_id, "at": at, **expected[kind]}
        if fields != want: problems.append(f"{kind} fields")
    if [e["statement"] for e in v["statements"]] != ["introduce", "remove", "key"]: problems.append("statement order")
    return problems

def check_store(v: dict) -> list:
    """docs/PROTOCOL.md section 18: versions (clock ‖ device id), buckets, digests, and the
    entries as the plaintext carries them."""
    problems = []
    payload = plistlib.loads(bytes.fromhex(v["plaintext"]), fmt=plistlib.FMT_BINARY)
    _, _, _, sender_id = device_keys(bytes.fromhex(v["identitySeed"]))
    if sender_id.hex() != v["deviceID"]: problems.append("sender's device id")
    sent_ms = int(v["sentAt"] * 1000)

    def version(described: dict, what: str) -> bytes:
        """The 24 bytes of a version, rebuilt from its clock and its writer's seed (section 3)
        and compared with the committed bytes."""
        _, _, _, writer = device_keys(bytes.fromhex(described["writerSeed"]))
        # The writer is a sender id: the device's tag (the first 8 bytes of its id) ‖ the instance.
        if described["writer"][:16] != writer.hex()[:16] or len(described["writer"]) != 32:
            problems.append(f"{what}: writer does not begin with its seed's device tag")
        writer = bytes.fromhex(described["writer"])
        if not 0 <= described["counter"] < 65536: problems.append(f"{what}: counter out of its millisecond")
        clock = described["milliseconds"] * 65536 + described["counter"]
        built = clock.to_bytes(8, "big") + writer
        if built.hex() != described["bytes"]: problems.append(f"{what}: bytes are not clock (8, big-endian) ‖ writer (16)")
        if described["milliseconds"] > sent_ms + 60_000: problems.append(f"{what}: clock more than 60 s past sentAt")
        return built

    # The entries: versions, buckets, and what the plaintext holds for each.
    if not isinstance(payload.get("entries"), list) or len(payload["entries"]) != len(v["entries"]) or not v["entries"]:
        problems.append("entries: not the vector's entries")
        return problems
    held = []
    for described, read in zip(v["entries"], payload["entries"]):
        key = described["key"]
        if not 1 <= len(key.encode("utf-8")) <= 64: problems.append(f"{key}: key length")
        built = version(described["version"], key)
        replaces = version(described["replaces"], key + " replaces") if "replaces" in described else None
        key_hash = hashlib.sha256(key.encode("utf-8")).digest()
        if key_hash.hex() != described["keyHash"]: problems.append(f"{key}: keyHash")
        if key_hash[0] >> 4 != described["bucket"]: problems.append(f"{key}: bucket")
        held.append((key_hash, built))
        if not isinstance(read, dict): problems.append(f"{key}: not a dictionary"); continue
        want = {"key": key, "version": built}
        if "value" in described: want["value"] = described["value"]
        if replaces is not None: want["replaces"] = replaces
        if described["kept"]: want["kept"] = True  # Baton omits kept when false
        if read != want: problems.append(f"{key}: the plaintext's entry is not the inputs'")
        if "value" in read and isinstance(read["value"], bool) != isinstance(described.get("value"), bool):
            problems.append(f"{key}: value's type")

    # The digests: 16 buckets by the high 4 bits of SHA-256(key)[0]; each the first 8 bytes of
    # SHA-256 over SHA-256(key) ‖ version for its entries ordered by SHA-256(key); empty: SHA-256(b"").
    if len({h for h, _ in held}) != len(held): problems.append("a key appears twice")
    buckets = [[] for _ in range(16)]
    for key_hash, built in held:
        buckets[key_hash[0] >> 4].append((key_hash, built))
    digests = b"".join(hashlib.sha256(b"".join(h + b for h, b in sorted(bucket))).digest()[:8] for bucket in buckets)
    if hashlib.sha256(b"").digest()[:8].hex() != "e3b0c44298fc1c14": problems.append("empty bucket digest")
    if len(digests) != 128 or digests.hex() != v["digests"]: problems.append("digests are not the entries' digests")
    if payload.get("digests") != bytes.fromhex(v["digests"]): problems.append("the plaintext's digests")

    # The rest of the payload.
    if payload.get("store") != v["store"]: problems.append("store name")
    name = v["store"]
    if not 1 <= len(name.encode("utf-8")) <= 64 or name.startswith(".") or "/" in name or "\0" in name:
        problems.append("store name not valid")
    took = [version(described, f"took {i}") for i, described in enumerate(v["took"])]
    if payload.get("took", []) != took: problems.append("took")
    if set(payload) - {"sentAt", "store", "digests", "entries", "took"}: problems.append("unexpected payload keys")
    return problems

def check_stream(v: dict) -> list:
    """docs/PROTOCOL.md section 10: handshake (version 03), keys, frames."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from cryptography.exceptions import InvalidSignature
    problems = []
    raw = lambda key: key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    group_key = base64.b64decode(v["groupKey"])
    prefix = b"BTNS" + bytes([3, 0, 0, 0])
    key_id = hkdf(group_key, b"baton-handoff", b"v3 key id")[:4]
    if key_id.hex() != v["keyID"]: problems.append("key id")

    # The two devices, from their seeds (section 3), and their sender ids: tag (8) ‖ instance (8).
    devices = {}
    for side in ("client", "server"):
        signing, public, device_id, _ = identity(bytes.fromhex(v[side + "Seed"]))
        sender = bytes.fromhex(v[side + "SenderID"])
        if public.hex() != v[side + "PublicIdentity"]: problems.append(f"{side} public identity")
        if len(sender) != 16 or sender[:8] != device_id[:8]: problems.append(f"{side} sender id is not its tag and an instance")
        ephemeral = X25519PrivateKey.from_private_bytes(bytes.fromhex(v[side + "EphemeralPrivateKey"]))
        if raw(ephemeral.public_key()).hex() != v[side + "EphemeralPublicKey"]: problems.append(f"{side} ephemeral public key")
        devices[side] = (signing, Ed25519PublicKey.from_public_bytes(public[:32]), sender, ephemeral)
    c_sign, c_verify, c_sender, c_eph = devices["client"]
    s_sign, s_verify, s_sender, s_eph = devices["server"]

    client_hello, server_hello = bytes.fromhex(v["clientHello"]), bytes.fromhex(v["serverHello"])
    if client_hello != prefix + key_id + c_sender + raw(c_eph.public_key()) or len(client_hello) != 60:
        problems.append("ClientHello layout")
    if server_hello[:56] != prefix + s_sender + raw(s_eph.public_key()) or len(server_hello) != 120:
        problems.append("ServerHello layout")

    # Signatures: each verifies with the device's public key, and (Ed25519 being deterministic)
    # is exactly what signing the same bytes with the seed's key gives.
    server_signed = b"baton v3 stream server" + client_hello + server_hello[:56]
    client_signed = b"baton v3 stream client" + client_hello + server_hello
    client_proof = bytes.fromhex(v["clientProof"])
    for name, verify, sign, signature, signed in (
            ("server signature", s_verify, s_sign, server_hello[56:], server_signed),
            ("client proof", c_verify, c_sign, client_proof, client_signed)):
        try:
            verify.verify(signature, signed)
        except InvalidSignature:
            problems.append(name + " does not verify")
        if sign.sign(signed) != signature or len(signature) != 64: problems.append(name + " bytes")
    # Each is bound to its own message: the client's does not verify as the server's, nor over another hello.
    try:
        s_verify.verify(client_proof, client_signed)
        problems.append("the client proof verifies with the server's key")
    except InvalidSignature:
        pass

    # Keys: X25519 from both ends, HKDF over group key ‖ secret, salt SHA-256(ClientHello ‖ ServerHello).
    secret = c_eph.exchange(X25519PublicKey.from_public_bytes(server_hello[24:56]))
    if s_eph.exchange(X25519PublicKey.from_public_bytes(client_hello[28:60])) != secret: problems.append("X25519 secrets differ")
    if secret.hex() != v["sharedSecret"] or secret == bytes(32): problems.append("shared secret")
    salt = hashlib.sha256(client_hello + server_hello).digest()
    if salt.hex() != v["salt"]: problems.append("salt")
    keys = {"client": hkdf(group_key + secret, salt, b"v3 stream client"),
            "server": hkdf(group_key + secret, salt, b"v3 stream server")}
    if keys["client"].hex() != v["clientKey"]: problems.append("client key")
    if keys["server"].hex() != v["serverKey"]: problems.append("server key")

    state = bytes.fromhex(v["state"])
    request = v["request"]
    data = b""
    for f in v["frames"]:
        name, frame, plaintext = f["name"], bytes.fromhex(f["frame"]), bytes.fromhex(f["plaintext"])
        length = struct.unpack(">I", frame[:4])[0]
        if length != len(frame) - 4 or not 17 <= length <= 65552: problems.append(f"{name} length")
        nonce = bytes(4) + struct.pack(">Q", f["counter"])
        aead = ChaCha20Poly1305(keys[f["direction"]])
        if aead.decrypt(nonce, frame[4:], frame[:4]) != plaintext: problems.append(f"{name} plaintext")
        if frame[:4] + aead.encrypt(nonce, plaintext, frame[:4]) != frame: problems.append(f"{name} re-sealed bytes")
        kind, body = plaintext[0], plaintext[1:]
        if name == "GET":
            revision, offset = struct.unpack(">qQ", body[:16])
            fields = (kind, revision, offset, body[16:48].hex(), body[48:].decode("utf-8"))
            if fields != (1, request["revision"], request["offset"], request["digest"], request["activityID"]):
                problems.append("GET fields")
        elif name == "START":
            if (kind, struct.unpack(">QQ", body)) != (2, (request["size"], request["offset"])): problems.append("START fields")
        elif name == "DATA":
            if kind != 3 or not 1 <= len(body) <= 65535: problems.append("DATA fields")
            data += body
        elif name == "ERROR":
            if kind != 4 or body[0] != 1 or len(body) > 201: problems.append("ERROR fields")
            body[1:].decode("utf-8")
    if data != state: problems.append("DATA frames do not carry the state")
    if hashlib.sha256(state).hexdigest() != request["digest"] or len(state) != request["size"]:
        problems.append("state digest or size")
    record = plistlib.loads(state, fmt=plistlib.FMT_BINARY)
    if record.get("sentAt") != record.get("savedAt") or record.get("activityID") != request["activityID"] \
            or record.get("revision") != request["revision"]:
        problems.append("state is not the record's state encoding")
    return problems

def identity(seed: bytes):
    """docs/PROTOCOL.md section 3, "Device identity": the Ed25519 key, the public identity, the
    device id and the fingerprint of a 32-byte seed."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    derive = lambda info: HKDF(algorithm=hashes.SHA256(), length=32, salt=b"baton-handoff", info=info).derive(seed)
    signing = Ed25519PrivateKey.from_private_bytes(derive(b"v3 identity signing"))
    agreement = X25519PrivateKey.from_private_bytes(derive(b"v3 identity agreement"))
    public = signing.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) \
        + agreement.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    device_id = hashlib.sha256(b"baton device" + public).digest()[:16]
    fingerprint = " ".join(device_id.hex()[i:i + 4] for i in range(0, 32, 4))
    return signing, public, device_id, fingerprint

def check_identity() -> list:
    """The page's check values for the seed 00 01 ... 1f."""
    _, public, device_id, fingerprint = identity(bytes(range(32)))
    problems = []
    if public.hex() != "3f3fa6694f3a01416b7be8d6132c4cd476640815ab47e089036157e708d7e50f" \
            "75ee552094ded41e223f42497aa03cc24ed215e3ea3c61525b1547e0a2c7da4c": problems.append("public identity")
    if device_id.hex() != "2614dcb96a1b161f024a218624342e1b": problems.append("device id")
    if fingerprint != "2614 dcb9 6a1b 161f 024a 2186 2434 2e1b": problems.append("fingerprint")
    return problems

def check_pair(v: dict) -> list:
    """docs/PROTOCOL.md section 15 (pairing version 2): HELLO, identities, commitment, X25519,
    code and keys, signatures, sealed frames."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    problems = []
    h = lambda k: bytes.fromhex(v[k])
    raw = lambda key: key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    sharer, joiner = X25519PrivateKey.from_private_bytes(h("sharerPrivateKey")), X25519PrivateKey.from_private_bytes(h("joinerPrivateKey"))
    if h("sharerIdentitySeed") != bytes(range(0xc0, 0xe0)) or h("joinerIdentitySeed") != bytes(range(0xe0, 0x100)):
        problems.append("identity seeds")
    sharer_signing, sharer_identity, _, sharer_fingerprint = identity(h("sharerIdentitySeed"))
    joiner_signing, joiner_identity, _, joiner_fingerprint = identity(h("joinerIdentitySeed"))
    if sharer_identity != h("sharerPublicIdentity") or sharer_fingerprint != v["sharerFingerprint"]: problems.append("sharer identity")
    if joiner_identity != h("joinerPublicIdentity") or joiner_fingerprint != v["joinerFingerprint"]: problems.append("joiner identity")
    hello = h("hello")
    if hello[:6] != b"BTNP\x02\x00" or len(hello) != 24 or int.from_bytes(hello[6:8], "big") != 47790: problems.append("hello")
    commitment = hashlib.sha256(b"baton pair v2 commit" + raw(joiner) + h("joinerNonce") + joiner_identity).digest()
    if commitment != h("commitment"): problems.append("commitment")
    frame = lambda t, body: bytes([t]) + len(body).to_bytes(2, "big") + body
    commit = frame(1, b"\x02" + commitment + v["joinerName"].encode())
    public = frame(2, b"\x02" + raw(sharer) + h("sharerNonce") + sharer_identity + v["sharerName"].encode())
    reveal = frame(3, raw(joiner) + h("joinerNonce") + joiner_identity)
    if len(reveal) != 3 + 128: problems.append("reveal length")
    for name, built in [("commit", commit), ("publicFrame", public), ("reveal", reveal)]:
        if built != h(name): problems.append(name)
    secret = sharer.exchange(X25519PrivateKey.from_private_bytes(h("joinerPrivateKey")).public_key())
    if secret != joiner.exchange(sharer.public_key()) or secret != h("sharedSecret"): problems.append("shared secret")
    salt = hashlib.sha256(commit + public + reveal).digest()
    if salt != h("transcriptHash"): problems.append("transcript hash")
    derive = lambda info, n: HKDF(algorithm=hashes.SHA256(), length=n, salt=salt, info=info).derive(secret)
    if derive(b"baton pair v2 code", 8) != h("codeBytes"): problems.append("code bytes")
    number = int.from_bytes(derive(b"baton pair v2 code", 8), "big") % 1_000_000
    if f"{number:06d}"[:3] + " " + f"{number:06d}"[3:] != v["code"]: problems.append("code")
    sharer_key, joiner_key = derive(b"baton pair v2 sharer", 32), derive(b"baton pair v2 joiner", 32)
    if sharer_key != h("sharerKey") or joiner_key != h("joinerKey"): problems.append("keys")
    # Ed25519 (RFC 8032) is deterministic: the signatures are rebuilt byte for byte, and verified
    # against the public keys the frames carry.
    confirm_signature = joiner_signing.sign(b"baton pair v2 confirm" + salt)
    key_signature = sharer_signing.sign(b"baton pair v2 key" + salt)
    if confirm_signature != h("confirmSignature"): problems.append("confirm signature")
    if key_signature != h("keySignature"): problems.append("key signature")
    Ed25519PublicKey.from_public_bytes(reveal[3 + 64:3 + 96]).verify(h("confirmSignature"), b"baton pair v2 confirm" + salt)
    Ed25519PublicKey.from_public_bytes(public[3 + 65:3 + 97]).verify(h("keySignature"), b"baton pair v2 key" + salt)
    def sealed(key, counter, plain):
        header = bytes([4]) + (len(plain) + 16).to_bytes(2, "big")
        return header + ChaCha20Poly1305(key).encrypt(b"\0" * 4 + counter.to_bytes(8, "big"), plain, header)
    if sealed(joiner_key, 0, b"\x01" + confirm_signature) != h("confirm"): problems.append("confirm")
    # Section 17, "Introductions": what the sharer keeps (its introduction of carol), then its
    # introduction of the joiner, one SEALED STATEMENT (04) each, numbered before KEY.
    import datetime
    at = datetime.datetime.fromtimestamp(v["statementAt"], datetime.timezone.utc).replace(tzinfo=None)
    _, carol_identity, _, _ = identity(h("carolIdentitySeed"))
    sharer_id = hashlib.sha256(b"baton device" + sharer_identity).digest()[:16]
    joiner_id = hashlib.sha256(b"baton device" + joiner_identity).digest()[:16]
    def check_statement(whole, signing, by, introduced, name, what):
        signature, body = whole[:64], whole[64:]
        if not 64 <= len(whole) <= 1024: problems.append(f"{what} size")
        Ed25519PublicKey.from_public_bytes(signing.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)) \
            .verify(signature, b"baton v3 statement" + body)  # raises when it does not verify
        if signing.sign(b"baton v3 statement" + body) != signature: problems.append(f"{what} signed again differs")
        fields = plistlib.loads(body, fmt=plistlib.FMT_BINARY)
        want = {"statement": "introduce", "by": by, "at": at, "identity": introduced, "name": name}
        if fields != want: problems.append(f"{what} fields")
    statements = [bytes.fromhex(s) for s in v["statements"]]
    if len(statements) != 2 or len(v["statementFrames"]) != 2: problems.append("statement count")
    check_statement(statements[0], sharer_signing, sharer_id, carol_identity, v["carolName"], "carol's introduction")
    check_statement(statements[1], sharer_signing, sharer_id, joiner_identity, v["joinerName"], "the joiner's introduction")
    check_statement(h("joinerStatement"), joiner_signing, joiner_id, sharer_identity, v["sharerName"], "the sharer's introduction")
    for counter, (statement, frame_hex) in enumerate(zip(statements, v["statementFrames"])):
        frame_bytes = bytes.fromhex(frame_hex)
        if not 1 <= len(frame_bytes) - 3 <= 1 + 1024 + 16: problems.append("statement frame length")
        if sealed(sharer_key, counter, b"\x04" + statement) != frame_bytes: problems.append(f"statement frame {counter}")
    key_counter = len(statements)
    if sealed(sharer_key, key_counter, b"\x02" + base64.b64decode(v["groupKey"]) + key_signature) != h("key"): problems.append("key")
    if sealed(joiner_key, 1, b"\x03") != h("stored"): problems.append("stored")
    return problems

def check_continuation(v: dict, stream: dict) -> list:
    """docs/PROTOCOL.md section 10, "Continuation streams": the frames after the handshake, on a
    connection with stream.json's inputs (its keys, which stream.json's own check derives)."""
    problems = []
    for field in ("groupKey", "clientKey", "serverKey"):
        if v[field] != stream[field]: problems.append(f"{field} is not stream.json's")
    keys = {"client": bytes.fromhex(v["clientKey"]), "server": bytes.fromhex(v["serverKey"])}
    counters = {"client": 0, "server": 0}
    joined, messages, refusal = b"", [], None
    window = 1 << 20
    for f in v["frames"]:
        name, frame, plaintext, direction = f["name"], bytes.fromhex(f["frame"]), bytes.fromhex(f["plaintext"]), f["direction"]
        length = struct.unpack(">I", frame[:4])[0]
        if length != len(frame) - 4 or not 17 <= length <= 65552: problems.append(f"{name} length")
        nonce = bytes(4) + struct.pack(">Q", f["counter"])
        aead = ChaCha20Poly1305(keys[direction])
        if aead.decrypt(nonce, frame[4:], frame[:4]) != plaintext: problems.append(f"{name} plaintext")
        if frame[:4] + aead.encrypt(nonce, plaintext, frame[:4]) != frame: problems.append(f"{name} re-sealed bytes")
        kind, body = plaintext[0], plaintext[1:]
        if name == "ERROR":
            # The other answer to the OPEN: the server's first frame, code 03 (not held).
            if (direction, f["counter"], kind) != ("server", 0, 4) or body[0] != 3 or len(body) > 201: problems.append("ERROR fields")
            body[1:].decode("utf-8")
            continue
        if f["counter"] != counters[direction]: problems.append(f"{name} counter")
        counters[direction] += 1
        expected = {"OPEN": 5, "ACCEPT": 6, "MESSAGE": 7, "CREDIT": 8, "KEEPALIVE": 9, "CLOSE": 10}[name]
        if kind != expected: problems.append(f"{name} type")
        if name == "OPEN" and (direction != "client" or body.decode("utf-8") != v["activityID"]): problems.append("OPEN fields")
        if name == "ACCEPT" and (direction != "server" or body): problems.append("ACCEPT fields")
        if name in ("KEEPALIVE", "CLOSE") and body: problems.append(f"{name} body")
        if name == "CREDIT" and (len(body) != 4 or not 1 <= struct.unpack(">I", body)[0] <= window): problems.append("CREDIT fields")
        if name == "MESSAGE":
            if body[0] not in (0, 1) or len(body) - 1 > 65534: problems.append("MESSAGE fields")
            joined += body[1:]
            if body[0] == 0:
                messages.append(joined)
                joined = b""
    if messages[:1] != [bytes.fromhex(v["message"])] or messages[1:] != [b""]: problems.append("messages")
    if counters != {"client": 5, "server": 4}: problems.append("frame counts")
    return problems

# docs/PROTOCOL.md section 20: each kind, who sends it, and its keys with their types
# (int: an integer of 0 or more; size: rows 1-500 or columns 1-1,000; text: a string with no control).
SHELL_TERMINAL = {"hello": {"role": str, "peerName": "text", "rows": "rows", "columns": "columns"},
                  "text": {"text": "text", "mods": "mods"}, "key": {"key": str, "mods": "mods"},
                  "paste": {"text": str}, "resize": {"rows": "rows", "columns": "columns"},
                  "mouse": {"row": int, "column": int, "button": int, "pressed": bool, "mods": "mods"},
                  "take": {}, "answer": {"allow": bool}, "shown": {"revision": int}}
SHELL_KEEPER = {"role": {"drives": bool, "driver": "text"}, "ask": {"peerName": "text"}, "withdrawn": {},
                "refused": {"reason": str}, "ended": {"status": int},
                "screen": {"revision": int, "full": bool, "rows": "rows", "columns": "columns", "cursorRow": int,
                           "cursorColumn": int, "cursorVisible": bool, "altScreen": bool, "mouse": int,
                           "title": "text", "styles": list, "lines": list}}
SHELL_OPTIONAL = {"mods"}

def shell_text_ok(text) -> bool:
    return isinstance(text, str) and not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)

def shell_value_ok(value, kind) -> bool:
    if kind in (bool, str, list): return type(value) is kind
    if kind == "text": return shell_text_ok(value)
    if type(value) is not int: return False
    return {"rows": 1 <= value <= 500, "columns": 1 <= value <= 1000, "mods": 0 <= value <= 7}.get(kind, value >= 0)

def graphemes(text: str) -> list:
    """Extended grapheme clusters, for what the vectors hold: combining marks, emoji modifiers,
    variation selectors, ZWJ sequences and regional indicator pairs join the cluster before."""
    out = []
    for c in text:
        cp = ord(c)
        regional = 0x1F1E6 <= cp <= 0x1F1FF
        if out and (unicodedata.category(c) in ("Mn", "Me") or 0x1F3FB <= cp <= 0x1F3FF or 0xFE00 <= cp <= 0xFE0F
                    or cp == 0x200D or out[-1][-1] == "\u200d"):
            out[-1] += c
        elif out and regional and len(out[-1]) == 1 and 0x1F1E6 <= ord(out[-1]) <= 0x1F1FF:
            out[-1] += c
        else:
            out.append(c)
    return out

def apply_screen(d: dict, before) -> list:
    """The screen `d` leaves, as rows of (grapheme, width, style) cells; `before` for a screen
    that changes rows only."""
    rows, columns, styles = d["rows"], d["columns"], d["styles"]
    for style in styles:
        fg, bg, attributes = style
        for colour in (fg, bg):
            if not (colour == -1 or 0 <= colour <= 255 or 0x1000000 <= colour <= 0x1FFFFFF): raise ValueError(f"colour {colour}")
        if not 0 <= attributes <= 63: raise ValueError(f"attributes {attributes}")
    if d["full"]:
        screen = [[(" ", 1, None)] * columns for _ in range(rows)]
    else:
        if before is None or len(before) != rows or len(before[0]) != columns: raise ValueError("rows changed on another size")
        screen = [list(row) for row in before]
    seen = set()
    for line in d["lines"]:
        row = line["row"]
        if not 0 <= row < rows or row in seen: raise ValueError(f"row {row}")
        seen.add(row)
        cells = []
        for run in line["runs"]:
            if len(run) not in (3, 4) or run[2] not in (1, 2) or not 0 <= run[1] < len(styles) or not run[0]:
                raise ValueError(f"run {run}")
            if not shell_text_ok(run[0]) or (len(run) == 4 and run[3] != 1): raise ValueError(f"run {run}")
            for grapheme in ([run[0]] if len(run) == 4 else graphemes(run[0])):
                cells.append((grapheme, run[2], run[1]))
                if run[2] == 2: cells.append(("", 0, run[1]))
        if len(cells) != columns: raise ValueError(f"row {row} covers {len(cells)} columns of {columns}")
        screen[row] = cells
    if not (0 <= d["cursorRow"] < rows and 0 <= d["cursorColumn"] < columns): raise ValueError("cursor outside")
    if d["mouse"] > 3 or len(d["title"].encode("utf-8")) > 1024: raise ValueError("mouse or title")
    return screen

def check_shell(v: dict) -> list:
    """docs/PROTOCOL.md section 20: every message's binary plist, its kind, keys and values, and
    the two screens applied one after the other."""
    problems, screen, kinds = [], None, set()
    for m in v["messages"]:
        name, raw = m["name"], bytes.fromhex(m["bytes"])
        if raw[:8] != b"bplist00": problems.append(f"{name}: not a binary plist"); continue
        d = plistlib.loads(raw, fmt=plistlib.FMT_BINARY)
        table = SHELL_TERMINAL if m["from"] == "terminal" else SHELL_KEEPER
        kind = d.get("kind")
        kinds.add(kind)
        if kind not in table: problems.append(f"{name}: kind {kind!r} is not sent by the {m['from']}"); continue
        keys = table[kind]
        for key, value in d.items():
            if key == "kind": continue
            if key not in keys or not shell_value_ok(value, keys[key]): problems.append(f"{name}: {key} = {value!r}")
        for key in keys:
            if key not in d and key not in SHELL_OPTIONAL: problems.append(f"{name}: no {key}")
        for key, value in m["fields"].items():
            if d.get(key) != value or type(d.get(key)) is not type(value): problems.append(f"{name}: {key} is {d.get(key)!r}, not {value!r}")
        if set(d) - {"styles", "lines"} != set(m["fields"]): problems.append(f"{name}: keys {sorted(d)}")
        if kind == "hello" and d["role"] not in ("drive", "follow"): problems.append(f"{name}: role")
        if kind == "mouse" and not 0 <= d["button"] <= 5: problems.append(f"{name}: button")
        if kind == "screen":
            screen = apply_screen(d, screen)
            if ["".join(cell[0] for cell in row) for row in screen] != m["screen"]: problems.append(f"{name}: the rows' text")
    if kinds != set(SHELL_TERMINAL) | set(SHELL_KEEPER): problems.append(f"kinds covered: {sorted(k for k in kinds if k)}")
    return problems

def main() -> int:
    folder = pathlib.Path(__file__).resolve().parent.parent / "Tests/HandoffWireTests/Vectors/golden"
    files = sorted(folder.glob("*.json"))
    failures = 0
    for path in files:
        v = json.loads(path.read_text())
        if path.name in ("stream.json", "pair.json", "continuation.json", "shell.json"):
            try:
                if path.name == "shell.json":
                    problems = check_shell(v)
                elif path.name == "continuation.json":
                    problems = check_continuation(v, json.loads((folder / "stream.json").read_text()))
                else:
                    problems = (check_stream if path.name == "stream.json" else check_pair)(v)
            except Exception as error:  # a frame that does not open, a state that does not parse
                problems = [f"{type(error).__name__} {error}".strip()]
            print(f"{path.name}: {'ok' if not problems else 'FAILED: ' + ', '.join(problems)}")
            failures += bool(problems)
            continue
        try:
            problems = check_datagram(v)
            if v["kind"] == "devices":
                problems += check_devices(v)
            if v["kind"] == "store":
                problems += check_store(v)
        except Exception as error:  # a datagram that does not open, a plist that does not parse
            problems = [f"{type(error).__name__} {error}".strip()]
        print(f"{path.name}: {'ok' if not problems else 'FAILED: ' + ', '.join(problems)}")
        failures += bool(problems)
    problems = check_identity()
    print(f"identity check values: {'ok' if not problems else 'FAILED: ' + ', '.join(problems)}")
    failures += bool(problems)
    print(f"{len(files) - failures} passed, {failures} failed")
    return 1 if failures or not files else 0

if __name__ == "__main__":
    sys.exit(main())
