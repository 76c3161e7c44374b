// libFuzzer target: the state stream's two connection machines, fed bytes from the network.
//
// The first byte of an input picks the mode (its value modulo 4); the second is the size of
// the chunks the rest arrives in (1…64 bytes), as TCP may split bytes anywhere.
//
//   0  server, raw:           the rest is what a client sends, from its first byte.
//   1  server, authenticated: a valid handshake by the listed client first; then the rest is a
//                             list of frame plaintexts (each a length byte and that many
//                             bytes), sealed with the client key, so every input reaches GET
//                             parsing and the shelf. The shelf holds one small state.
//   2  client, raw:           the rest is what a server sends after the ClientHello.
//   3  client, authenticated: a valid ServerHello (signed by the expected server) first; then
//                             frame plaintexts as in mode 1,
//                             sealed with the server key, reach START/DATA/ERROR handling.
//
// The devices, instances and ephemeral keys are those of the stream vector (stream.json): the
// client seed 00…1f, the server seed 20…3f. Besides "no trap", each mode checks what the protocol
// promises: nothing is authenticated or handed on without a valid signature; the server streams only a kept state, and never past its
// end; the client never holds more than it asked for, and hands on bytes only after START.
import Crypto
import Foundation
import Handoff
import HandoffWire

private let key = FuzzFixtures.key
private let clientEphemeral: [UInt8] = Array(0xD0...0xEF)
private let serverEphemeral: [UInt8] = Array(0x10...0x2F)
private let clientIdentity = StreamIdentity(device: DeviceIdentity(seed: Array(0x00...0x1F))!, instance: Array(0xB0...0xB7))
private let serverIdentity = StreamIdentity(device: DeviceIdentity(seed: Array(0x20...0x3F))!, instance: Array(0xB8...0xBF))
private let trust = StreamTrust(groupKeys: [key], devices: [clientIdentity.device.publicIdentity])
/// The handshake of the fixed inputs, and its keys.
private let clientHello = StateStreamHandshake.ClientHello(
    keyID: Array(HKDF<SHA256>.deriveKey(
        inputKeyMaterial: SymmetricKey(data: key.bytes), salt: Array("baton-handoff".utf8), info: Array("v3 key id".utf8),
        outputByteCount: 32
    ).withUnsafeBytes { Array($0) }.prefix(4)),
    senderID: clientIdentity.senderID, ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: clientEphemeral)
).bytes
private let serverHello = StateStreamHandshake.ServerHello(
    answering: clientHello, identity: serverIdentity, ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: serverEphemeral)
).bytes
private let keys = StateStreamKeys(
    groupKey: key,
    secret: StateStreamHandshake.sharedSecret(
        privateKey: clientEphemeral, publicKey: StateStreamHandshake.publicKey(ofEphemeral: serverEphemeral))!,
    clientHello: clientHello, serverHello: serverHello)

private func serverMachine() -> StateServerConnection {
    StateServerConnection(identity: serverIdentity, trust: trust, shelf: shelf, ephemeralKey: serverEphemeral)
}

private func clientMachine(offset: Int) -> StateClientConnection {
    StateClientConnection(
        identity: clientIdentity, groupKey: key, source: serverIdentity.asSource, request: request, offset: offset,
        ephemeralKey: clientEphemeral)
}
private let state: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
private let digest = Array(SHA256.hash(data: state))
private let activityID = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"
private let request = StateRequest(activityID: activityID, revision: 3, digest: digest, size: state.count)

private let shelf: StateShelf = {
    let shelf = StateShelf()
    shelf.put(activityID: activityID, revision: 3, digest: digest, bytes: state)
    return shelf
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func streamFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size >= 2 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let chunk = Int(input[1] % 64) + 1
    let body = Array(input.dropFirst(2))
    switch input[0] % 4 {
    case 0: serverRaw(body, chunk: chunk)
    case 1: serverAuthenticated(body, chunk: chunk)
    case 2: clientRaw(body, chunk: chunk)
    default: clientAuthenticated(body, chunk: chunk)
    }
    return 0
}

/// `bytes` in pieces of `size`.
private func chunks(_ bytes: [UInt8], _ size: Int) -> [ArraySlice<UInt8>] {
    stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
}

/// Frame plaintexts from `body`: a length byte, then that many bytes (cut short at the end).
/// Empty ones are left out: a frame carries at least its type byte, and the sealer insists.
private func plaintexts(_ body: [UInt8]) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var i = 0
    while i < body.count {
        let length = Int(body[i])
        i += 1
        let plaintext = Array(body[min(i, body.count)..<min(i + length, body.count)])
        if !plaintext.isEmpty { out.append(plaintext) }
        i += length
    }
    return out
}

private func serverRaw(_ body: [UInt8], chunk: Int) {
    var server = serverMachine()
    for piece in chunks(body, chunk) where !server.isClosed { _ = server.receive(piece) }
    _ = server.receiveEnd()
    // A proof is the listed client's signature over this connection's hellos: bytes never pass it.
    guard !server.isAuthenticated, server.nextDataFrame() == nil else {
        fatalError("a client without the listed device's key was authenticated or served")
    }
}

private func serverAuthenticated(_ body: [UInt8], chunk: Int) {
    var server = serverMachine()
    var written: [UInt8] = []
    for case .write(let bytes) in server.receive(clientHello) { written += bytes }
    guard written == serverHello else { fatalError("not the fixed ServerHello for the fixed ClientHello") }
    _ = server.receive(clientIdentity.device.sign(StateStreamHandshake.clientSigned(clientHello: clientHello, serverHello: serverHello)))
    guard server.isAuthenticated else { fatalError("a valid proof was refused") }
    var sealer = StreamFrameSealer(key: keys.client)
    var frames: [UInt8] = []
    for plaintext in plaintexts(body) { frames += sealer.seal(plaintext) }
    for piece in chunks(frames, chunk) where !server.isClosed { _ = server.receive(piece) }
    // Whatever was asked, what streams is the kept state, whole frames, never past its end.
    var streamed = 0
    while let frame = server.nextDataFrame() {
        streamed += frame.count
        guard streamed <= state.count + 1024 * 17 else { fatalError("streamed past the end of the state") }
    }
}

private func clientRaw(_ body: [UInt8], chunk: Int) {
    var client = clientMachine(offset: 0)
    _ = client.start()
    for piece in chunks(body, chunk) {
        for output in client.receive(piece) {
            if case .data = output { fatalError("a server without the expected device's key handed on data") }
        }
        if client.isDone { break }
    }
}

private func clientAuthenticated(_ body: [UInt8], chunk: Int) {
    let offset = body.first.map { Int($0) * 10 } ?? 0
    var client = clientMachine(offset: offset)
    guard client.start() == clientHello else { fatalError("not the fixed ClientHello") }
    _ = client.receive(serverHello)
    guard !client.isDone else { fatalError("a valid ServerHello was refused") }
    var sealer = StreamFrameSealer(key: keys.server)
    var frames: [UInt8] = []
    for plaintext in plaintexts(Array(body.dropFirst())) { frames += sealer.seal(plaintext) }
    var held = offset
    for piece in chunks(frames, chunk) {
        for output in client.receive(piece) {
            if case .data(let bytes) = output { held += bytes.count }
        }
        guard held <= request.size, client.held == held else { fatalError("held \(held) of \(request.size), machine says \(client.held)") }
        if client.isDone { break }
    }
}
