// libFuzzer target: datagrams from the network, from the envelope down to the payload.
//
// Every sender is the group key's shared device (`FuzzFixtures.device`), the one device the
// receiver lists, as in the tests: the target signs as it, so inputs get past the signature.
// The first byte of an input picks the mode (its value modulo 4):
//
//   0  raw datagram:  bytes 1… are a whole version 3 datagram for `DatagramCodec.decode`, which
//                     runs the page's steps in order (header, listed device, size, key id and
//                     tag, signature, plist, keys, clock) with the shared device listed;
//                     mutations rarely pass the tag.
//   1  sealed:        byte 1 is the kind (1…6, others folded onto them), bytes 2… are the
//                     plaintext. The target seals it with the fuzz key and signs it as the
//                     shared device, so every input reaches the binary-plist reader and
//                     `HandoffMessage.decode` (DEVICES included).
//   2  plist:         bytes 1… go straight to `BinaryPropertyListReader().read`.
//   3  center:        byte 1 is the kind, byte 2 picks one of 16 senders of the shared device
//                     (0xFF: the center's own `senderID`), bytes 3… are the plaintext; the
//                     sealed and signed datagram goes through `ActivityCenter.receive` (the
//                     receive gate, replay state, the peer directory and its eviction, the
//                     message handlers, DEVICES statements). The center is the shared device
//                     and has a current activity (so QUERY is answered), and
//                     `FuzzFixtures.currentActivityPlaceholder` in the plaintext is replaced by
//                     its ID (so CONTINUED finds it).
//
// Besides "no trap", each mode checks what an accepted input promises: a decoded message
// re-encodes to a canonical payload that decodes to the same bytes; a read plist's
// canonical bytes read back to the same value; what a plist or payload decodes to holds no
// more string and data bytes, counted at every use, than the reader's budget for its size
// (the memory a datagram can cost a receiver); the center counts every datagram once.
// `scripts/fuzz` also runs this target with a per-allocation limit (`-malloc_limit_mb`), so
// an input that makes any one buffer balloon stops the run.
import Foundation
import Handoff
import PropertyList
import HandoffWire

private let codec = FuzzFixtures.codec()
private let reader = BinaryPropertyListReader()
private let writer = BinaryPropertyListWriter()

@MainActor private var center: ActivityCenter?
@MainActor private var currentActivity: UserActivity?
@MainActor private var centerInputs = 0
@MainActor private var centerSequence: UInt64 = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func datagramFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let body = Array(input.dropFirst())
    switch input[0] % 4 {
    case 0:
        decodeRaw(body)
    case 1:
        guard let (kind, plaintext) = split(body) else { return 0 }
        decodeSealed(kind: kind, plaintext: plaintext)
    case 2:
        readPlist(body)
    default:
        guard let (kind, rest) = split(body), let (sender, plaintext) = splitByte(rest) else { return 0 }
        MainActor.assumeIsolated { receive(kind: kind, sender: sender, plaintext: plaintext) }
    }
    return 0
}

private func split(_ body: [UInt8]) -> (DatagramKind, [UInt8])? {
    guard let first = body.first else { return nil }
    return (FuzzFixtures.kind(first), Array(body.dropFirst()))
}

private func splitByte(_ body: [UInt8]) -> (UInt8, [UInt8])? {
    guard let first = body.first else { return nil }
    return (first, Array(body.dropFirst()))
}

/// `plaintext` as a datagram of `kind` from `sender` (a sender of the shared device), sealed
/// with the fuzz key and signed as the shared device; nil when it is over 60,000 bytes.
private func seal(
    kind: DatagramKind, plaintext: [UInt8], sender: SenderID = FuzzFixtures.sender, sequence: UInt64 = 1
) -> [UInt8]? {
    try? codec.seal(kind: kind, payload: plaintext, identity: FuzzFixtures.device, senderID: sender, sequence: sequence)
}

/// Mode 0: the page's steps in order, with the shared device listed.
private func decodeRaw(_ datagram: [UInt8]) {
    let decoded: DecodedDatagram
    do {
        decoded = try codec.decode(datagram, now: FuzzFixtures.now, identity: FuzzFixtures.listed)
    } catch {
        _ = error.description
        return
    }
    guard decoded.message.kind == decoded.header.kind else {
        fatalError("decoded a \(decoded.message.kind) message from a \(decoded.header.kind) datagram")
    }
}

private func decodeSealed(kind: DatagramKind, plaintext: [UInt8]) {
    guard let datagram = seal(kind: kind, plaintext: plaintext) else { return }
    let decoded: DecodedDatagram
    do {
        decoded = try codec.decode(datagram, now: FuzzFixtures.now, identity: FuzzFixtures.listed)
    } catch {
        _ = error.description
        return
    }
    if let record = decoded.message.published?.record {
        checkBudget(.dictionary(record.userInfo), input: plaintext.count)
    }
    if case .devices(let statements, _) = decoded.message {
        checkBudget(.array(statements.map { .data(Data($0)) }), input: plaintext.count)
    }
    guard decoded.message.kind == kind, decoded.header.kind == kind,
        decoded.header.senderID == FuzzFixtures.sender, decoded.header.sequence == 1
    else {
        fatalError("decoded a \(decoded.message.kind) message from a \(kind) datagram, header \(decoded.header)")
    }
    // The canonical payload of what was accepted decodes to itself.
    let canonical = DatagramCodec.plaintext(decoded.message, sentAt: decoded.sentAt)
    guard canonical.count <= reader.limits.maxBytes else { return }
    do {
        guard case .dictionary(let payload) = try reader.read(canonical) else { fatalError("canonical payload is not a dictionary") }
        let (message, sentAt) = try HandoffMessage.decode(kind: kind, payload: payload)
        guard DatagramCodec.plaintext(message, sentAt: sentAt) == canonical else {
            fatalError("the canonical payload of \(decoded.message) does not decode to itself")
        }
    } catch {
        fatalError("accepted \(decoded.message), but its canonical payload is refused: \(error)")
    }
}

private func readPlist(_ bytes: [UInt8]) {
    let value: PropertyListValue
    do {
        value = try reader.read(bytes)
    } catch {
        _ = error.description
        return
    }
    checkBudget(value, input: bytes.count)
    // What was accepted is within the limits, so its canonical bytes (when small enough) read back the same.
    let canonical = writer.write(value)
    guard canonical.count <= reader.limits.maxBytes else { return }
    do {
        guard writer.write(try reader.read(canonical)) == canonical else {
            fatalError("the canonical bytes of \(value) read back as something else")
        }
    } catch {
        fatalError("accepted \(value), but its canonical bytes are refused: \(error)")
    }
}

/// Fails when `value`, read from `input` bytes, unfolds to more string and data bytes than the reader allows.
private func checkBudget(_ value: PropertyListValue, input: Int) {
    let budget = reader.limits.expandedByteBudget(forInputOf: input)
    let unfolded = unfoldedBytes(value)
    guard unfolded <= budget else {
        fatalError("\(input) bytes decoded to \(unfolded) bytes of strings and data, over the budget of \(budget)")
    }
}

/// The UTF-8 bytes of every string (dictionary keys included) and the bytes of every data in `value`, at every use.
private func unfoldedBytes(_ value: PropertyListValue) -> Int {
    switch value {
    case .string(let string): string.utf8.count
    case .data(let data): data.count
    case .array(let elements): elements.reduce(0) { $0 + unfoldedBytes($1) }
    case .dictionary(let entries): entries.reduce(0) { $0 + $1.key.utf8.count + unfoldedBytes($1.value) }
    case .integer, .real, .boolean, .date: 0
    }
}

@MainActor private func receive(kind: DatagramKind, sender: UInt8, plaintext: [UInt8]) {
    let center = center ?? makeCenter()
    // A fresh sequence for every input, so no input is refused as a replay of an earlier one.
    centerSequence += 1
    // 0xFF is the center's own sender id (a multicast loop); otherwise one of 16 other
    // instances of the shared device, the center's own device.
    let senderID = sender == 0xFF
        ? center.senderID : SenderID(tag: FuzzFixtures.tag, instance: FuzzFixtures.sender.instance.dropLast() + [sender & 0x0F])!
    let plaintext = replacing(FuzzFixtures.currentActivityPlaceholder, with: currentActivity?.activityID, in: plaintext)
    guard let datagram = seal(kind: kind, plaintext: plaintext, sender: senderID, sequence: centerSequence) else { return }
    center.receive(ReceivedDatagram(bytes: datagram, source: "192.0.2.7:47788"), now: FuzzFixtures.now)
    centerInputs += 1
    let statistics = center.statistics
    guard statistics.accepted + statistics.own + statistics.duplicate + statistics.totalRejected == centerInputs else {
        fatalError("the center counted \(statistics) for \(centerInputs) datagrams")
    }
    _ = center.directory.activities
}

/// One center for the whole run, the shared device alone in its list: its tasks never run
/// (nothing drains the main queue here), and with a fixed clock nothing expires. A small
/// directory (8 senders, 8 activities) keeps each input cheap and sends the fuzzer through
/// eviction often.
@MainActor private func makeCenter() -> ActivityCenter {
    let registry = ActivityTypeRegistry(
        declaredTypes: ["dev.baton.counter", "dev.baton.editing"],
        schemas: [
            "dev.baton.counter": ActivitySchema(keyTypes: ["count": .integer], requiredKeys: ["count"]),
            "dev.baton.editing": ActivitySchema(
                keyTypes: ["text": .string, "cursorLine": .integer, "cursorColumn": .integer, "fileName": .string],
                requiredKeys: ["text", "cursorLine", "cursorColumn"]),
        ])
    var configuration = ActivityCenter.Configuration(peer: FuzzFixtures.peer, senderID: FuzzFixtures.sender(0x5A))
    configuration.directoryLimits = PeerDirectory.Limits(maxSenders: 8, maxActivities: 8)
    let made = ActivityCenter(
        registry: registry, membership: Membership(identity: FuzzFixtures.device, groupKey: FuzzFixtures.key),
        transport: OfflineTransport(reason: "fuzzing"), configuration: configuration)
    center = made
    // A published current activity: the first save runs on the main queue, so run it once here.
    let activity = UserActivity(activityType: "dev.baton.counter", center: made)
    activity.title = "Counting"
    activity.userInfo = ["count": .integer(7)]
    do {
        try activity.becomeCurrent()
    } catch {
        fatalError("the fuzz center's activity cannot become current: \(error)")
    }
    let deadline = Date().addingTimeInterval(10)
    while made.lastPublished == nil, Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
    guard made.lastPublished != nil else { fatalError("the fuzz center did not publish its activity") }
    currentActivity = activity
    return made
}

/// `bytes` with every occurrence of the ASCII `placeholder` replaced by `replacement` (same length).
private func replacing(_ placeholder: String, with replacement: String?, in bytes: [UInt8]) -> [UInt8] {
    let needle = Array(placeholder.utf8)
    guard let replacement, replacement.utf8.count == needle.count, bytes.count >= needle.count else { return bytes }
    var out = bytes
    var index = 0
    while index <= out.count - needle.count {
        if out[index] == needle[0], out[index..<(index + needle.count)].elementsEqual(needle) {
            out.replaceSubrange(index..<(index + needle.count), with: replacement.utf8)
            index += needle.count
        } else {
            index += 1
        }
    }
    return out
}
