#!/usr/bin/env python3
"""Checks Baton's golden vectors with an independent implementation of docs/PROTOCOL.md.

Opens every datagram in Tests/HandoffTests/Vectors/golden with Python's `cryptography`
(HKDF-SHA256, ChaCha20-Poly1305) and `plistlib`, re-seals the plaintext with the same
nonce and compares the bytes. Exits non-zero on any mismatch.
"""
import base64, hashlib, json, pathlib, plistlib, sys
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

KINDS = {"announce": 1, "withdraw": 2, "query": 3, "continued": 4, "offer": 5}
REQUIRED = {"announce": ["activityID", "type", "revision", "savedAt", "userInfo", "peer"],
            "withdraw": ["activityID"], "query": [], "continued": ["activityID", "peer"],
            "offer": ["activityID", "type", "revision", "savedAt", "summary", "peer", "size", "digest", "port"]}

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

def main() -> int:
    folder = pathlib.Path(__file__).resolve().parent.parent / "Tests/HandoffTests/Vectors/golden"
    files = sorted(folder.glob("*.json"))
    failures = 0
    for path in files:
        v = json.loads(path.read_text())
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"baton-handoff",
                   info=b"v1 datagram").derive(base64.b64decode(v["groupKey"]))
        datagram = bytes.fromhex(v["datagram"])
        header, sealed = datagram[:42], datagram[42:]
        problems = []
        if header[:4] != b"BTN1": problems.append("magic")
        if header[4] != KINDS[v["kind"]]: problems.append("kind")
        if header[6:22].hex() != v["senderID"]: problems.append("sender id")
        if int.from_bytes(header[22:30], "big") != v["sequence"]: problems.append("sequence")
        if header[30:42].hex() != v["nonce"]: problems.append("nonce")
        plaintext = ChaCha20Poly1305(key).decrypt(header[30:42], sealed, header)
        if plaintext.hex() != v["plaintext"]: problems.append("plaintext")
        resealed = header + ChaCha20Poly1305(key).encrypt(header[30:42], plaintext, header)
        if resealed != datagram: problems.append("re-sealed bytes")
        payload = plistlib.loads(plaintext, fmt=plistlib.FMT_BINARY)
        if not isinstance(payload, dict): problems.append("root is not a dictionary")
        for k in ["sentAt"] + REQUIRED[v["kind"]]:
            if k not in payload: problems.append(f"missing {k}")
        if v["kind"] == "offer":
            problems += check_offer(payload, bytes.fromhex(v.get("state", "")))
        print(f"{path.name}: {'ok' if not problems else 'FAILED: ' + ', '.join(problems)}")
        failures += bool(problems)
    print(f"{len(files) - failures} passed, {failures} failed")
    return 1 if failures or not files else 0

if __name__ == "__main__":
    sys.exit(main())
