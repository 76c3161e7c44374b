import Foundation
import Handoff
import Logging
import Synchronization
import Testing

@testable import HandoffRelay
@testable import HandoffWire

/// Private mosquittos on 127.0.0.1 that refuse anonymous clients: one with a `password_file`,
/// one asking every client for a certificate (`require_certificate true`). Each refusal is
/// told apart, in the relay path's reason and in `refusal`, and the password is never logged.
@Suite(
    "The relay's login and client certificate",
    .serialized,
    .enabled(
        if: Broker.isUsable && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd"),
        "needs mosquitto, mosquitto_passwd and openssl"),
    .timeLimit(.minutes(1))
)
struct RelayCredentialTests {
    static let key = GroupKey.random()
    static let password = "correct horse battery staple ☃"

    /// A peer that logs everything it says into `log`, started against `configuration`.
    static func peer(_ configuration: RelayConfiguration, log: LogLines = LogLines()) throws -> RelayPeer {
        try RelayPeer(configuration: configuration, key: key, logger: log.logger)
    }

    /// Waits until the peer's path is down, and returns its reason.
    static func downReason(_ peer: RelayPeer) async -> String? {
        _ = await peer.statuses.wait { $0.contains { if case .down = $0 { true } else { false } } }
        for case .down(let reason) in peer.statuses.items { return reason }
        return nil
    }

    /// Waits until a try of the peer's went down refused, and returns that try's reason. In TLS
    /// 1.3 the broker judges the client's certificate after the client has finished its side of
    /// the handshake and sent CONNECT; when that CONNECT reaches the broker after it closed, the
    /// broker's reset can reach the client before its alert is read, and the alert is lost with
    /// it. That try ends "connection reset", which tells nothing; the client tries again 0.5 s
    /// later, and a try whose alert arrives says why.
    static func refusedReason(_ peer: RelayPeer) async -> String? {
        _ = await peer.statuses.wait(within: .seconds(20)) { items in
            guard case .down? = items.last else { return false }
            return peer.transport.refusal != nil
        }
        for case .down(let reason) in peer.statuses.items.reversed() { return reason }
        return nil
    }

    @Test("The right user name and password connect and carry datagrams; a wrong password and none are refused, each in its words")
    func login() async throws {
        let broker = try await Broker.start(passwords: ["alice": Self.password])
        defer { broker.stop() }
        let log = LogLines()
        let good = try RelayConfiguration(broker.url, login: RelayLogin(user: "alice", password: RelayPassword(Self.password)))
        let (a, b) = (try Self.peer(good, log: log), try Self.peer(good, log: log))
        #expect(await a.statuses.wait { $0.last == .up })
        #expect(await b.statuses.wait { $0.last == .up })
        let datagram = a.datagram(.query, sequence: 1)
        a.transport.send(datagram)
        #expect(await b.heardBytes(datagram))
        #expect(a.transport.refusal == nil)

        let wrong = try Self.peer(
            RelayConfiguration(broker.url, login: RelayLogin(user: "alice", password: RelayPassword("not it"))), log: log)
        #expect(await Self.downReason(wrong) == "the broker refused the user name or password")
        #expect(wrong.transport.refusal == .login)
        let anonymous = try Self.peer(RelayConfiguration(broker.url), log: log)
        #expect(await Self.downReason(anonymous) == "the broker refuses clients without a user name and password")
        #expect(anonymous.transport.refusal == .loginRequired)
        #expect(!wrong.statuses.items.contains(.up) && !anonymous.statuses.items.contains(.up))
        for peer in [a, b, wrong, anonymous] { await peer.transport.close() }

        // Everything said at trace level, connected and refused: not the password, in any form.
        let said = log.lines.joined(separator: "\n")
        #expect(said.contains("relay \(broker.url) connected"), "\(said)")
        #expect(said.contains("refused the user name or password"), "\(said)")
        #expect(!said.contains(Self.password) && !said.contains("not it"), "\(said)")
    }

    @Test("require_certificate: no certificate, a stranger's, and a key of another certificate are each refused as such; the CA's certificate connects")
    func clientCertificate() async throws {
        let broker = try await Broker.start(requireCertificate: true)
        defer { broker.stop() }
        func configuration(_ certificate: String?, _ key: String?) throws -> RelayConfiguration {
            try RelayConfiguration(
                broker.url, caFile: broker.caFile,
                clientCertificate: certificate.map { RelayClientCertificate(certificateFile: $0, keyFile: key!) })
        }
        let (a, b) = (
            try Self.peer(configuration(broker.clientCertificate, broker.clientKey)),
            try Self.peer(configuration(broker.clientCertificate, broker.clientKey))
        )
        #expect(await a.statuses.wait { $0.last == .up })
        #expect(await b.statuses.wait { $0.last == .up })
        let datagram = a.datagram(.query, sequence: 1)
        a.transport.send(datagram)
        #expect(await b.heardBytes(datagram))

        let none = try Self.peer(configuration(nil, nil))
        let noneReason = await Self.refusedReason(none)
        #expect(noneReason == "the broker asks for a client certificate", "statuses: \(none.statuses.items)")
        #expect(none.transport.refusal == .certificateRequired)

        let stranger = try Self.peer(configuration(broker.strangerCertificate, broker.strangerKey))
        let strangerReason = await Self.refusedReason(stranger)
        #expect(strangerReason?.hasPrefix("the broker refused the client certificate") == true, "\(strangerReason ?? "none")")
        guard case .certificate = stranger.transport.refusal else {
            Issue.record("a stranger's certificate: \(String(describing: stranger.transport.refusal))")
            return
        }

        let mismatched = try Self.peer(configuration(broker.clientCertificate, broker.strangerKey))
        let mismatchReason = await Self.refusedReason(mismatched)
        #expect(mismatchReason?.hasPrefix("the client certificate or its key cannot be used") == true, "\(mismatchReason ?? "none")")
        print("HandoffRelayTests: refused: \(none.statuses.items), \(strangerReason ?? ""), \(mismatchReason ?? "")")
        for peer in [none, stranger, mismatched] { #expect(!peer.statuses.items.contains(.up)) }
        for peer in [a, b, none, stranger, mismatched] { await peer.transport.close() }
    }

    @Test("A certificate or key that cannot be read is refused when the relay is made, naming the file and its option")
    func unreadableFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let present = folder.appendingPathComponent("present.pem").path
        try "not a certificate\n".write(toFile: present, atomically: true, encoding: .utf8)
        for (certificate, key, option) in [
            ("/nonexistent/c.pem", present, "--relay-cert"), (present, "/nonexistent/k.pem", "--relay-cert-key"),
            (present, folder.path, "--relay-cert-key"),
        ] {
            let configuration = try RelayConfiguration(
                "mqtts://127.0.0.1:8883", clientCertificate: RelayClientCertificate(certificateFile: certificate, keyFile: key))
            #expect {
                try RelayTransport(configuration: configuration, groupKey: Self.key, senderID: .random())
            } throws: { error in
                guard case .tls(let reason) = error as? RelayError else { return false }
                return reason.contains(option) && (reason.contains("/nonexistent/") || reason.contains("not a regular file"))
            }
        }
    }
}

/// Every message and its metadata, at trace level, as text.
final class LogLines: Sendable {
    private let kept = Mutex<[String]>([])

    var lines: [String] { kept.withLock { $0 } }

    func append(_ line: String) { kept.withLock { $0.append(line) } }

    var logger: Logger {
        var logger = Logger(label: "baton.relay.test") { [self] _ in Handler(owner: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let owner: LogLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            owner.append("\(event.level): \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
        }
    }
}
