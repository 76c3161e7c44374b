import Foundation
import HandoffTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A private mosquitto for one test, listening on 127.0.0.1 only, at a port nobody else uses.
///
/// `start` returns once the broker says it runs (its "running" log line, after its listener
/// opened), or throws when it exits or says nothing within the deadline.
final class Broker: Sendable {
    static let binary = "/usr/sbin/mosquitto"

    /// Whether the tests that need a broker can run; when not, why is printed once.
    static let isUsable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("HandoffRelayTests: skipping the broker tests: \(binary) is missing (apt-get install mosquitto)")
            return false
        }
        return true
    }()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int
    let folder: URL
    /// Whether it speaks TLS, with a certificate for 127.0.0.1 from the CA in `caFile`.
    let tls: Bool
    /// The users it lets in, by name, with their passwords; empty lets anyone in.
    let passwords: [String: String]
    /// Whether it asks every client for a certificate its CA issued (TLS only).
    let requireCertificate: Bool
    private let process = Mutex<Process?>(nil)

    private init(port: Int, folder: URL, tls: Bool, passwords: [String: String], requireCertificate: Bool) {
        self.port = port
        self.folder = folder
        self.tls = tls
        self.passwords = passwords
        self.requireCertificate = requireCertificate
    }

    /// A broker on a free port of 127.0.0.1; with `tls`, over TLS with a certificate made for it.
    /// With `passwords`, it refuses anonymous clients and lets in these users (a `password_file`
    /// made by mosquitto_passwd); with `requireCertificate`, it asks every client for a
    /// certificate its CA issued (`clientCertificate` and `clientKey` are one).
    static func start(tls: Bool = false, passwords: [String: String] = [:], requireCertificate: Bool = false) async throws -> Broker {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let broker = Broker(
            port: TestPorts.free(), folder: folder, tls: tls || requireCertificate, passwords: passwords,
            requireCertificate: requireCertificate)
        if broker.tls { try broker.makeCertificates() }
        if !passwords.isEmpty { try broker.makePasswordFile() }
        try await broker.run()
        return broker
    }

    var url: String { "\(tls ? "mqtts" : "mqtt")://127.0.0.1:\(port)" }

    /// The PEM file of the CA that signed a TLS broker's certificate.
    var caFile: String { folder.appendingPathComponent("ca.pem").path }
    /// A client certificate the CA issued, and its key.
    var clientCertificate: String { folder.appendingPathComponent("client.pem").path }
    var clientKey: String { folder.appendingPathComponent("client.key").path }
    /// A certificate no CA of the broker's issued (self-signed), and its key.
    var strangerCertificate: String { folder.appendingPathComponent("stranger.pem").path }
    var strangerKey: String { folder.appendingPathComponent("stranger.key").path }

    /// Starts the broker again on the same port (after `kill`).
    func run() async throws {
        let config = folder.appendingPathComponent("mosquitto.conf")
        var settings = [
            "listener \(port) 127.0.0.1", "allow_anonymous \(passwords.isEmpty)", "persistence false", "log_dest stderr",
        ]
        if !passwords.isEmpty { settings.append("password_file \(folder.path)/passwords") }
        if tls {
            settings += ["cafile \(caFile)", "certfile \(folder.path)/server.pem", "keyfile \(folder.path)/server.key"]
        }
        if requireCertificate { settings.append("require_certificate true") }
        try settings.joined(separator: "\n").appending("\n").write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-c", config.path]
        let output = Pipe()
        process.standardError = output
        process.standardOutput = FileHandle.nullDevice
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let log = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                continuation.finish()
                return
            }
            continuation.yield(log.withLock { log in
                log += String(decoding: data, as: UTF8.self)
                return log
            })
        }
        process.terminationHandler = { _ in continuation.finish() }
        try process.run()
        self.process.withLock { $0 = process }
        let running = await within(.seconds(10)) {
            for await text in lines where text.contains(" running") { return true }
            return false
        }
        guard running == true else {
            kill()
            throw Failure(description: "mosquitto did not start on 127.0.0.1:\(port): \(log.withLock { $0 })")
        }
    }

    /// Ends the broker at once (SIGKILL): its clients see their connections drop.
    func kill() {
        guard let process = process.withLock({ $0.take() }) else { return }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The broker's `password_file`: the users and passwords, hashed by mosquitto_passwd.
    private func makePasswordFile() throws {
        let path = folder.appendingPathComponent("passwords").path
        try passwords.map { "\($0):\($1)\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
        try Self.run("/usr/bin/mosquitto_passwd", ["-U", path], in: folder)
        // Read by mosquitto as the user `mosquitto` once started as root; it guards only this test.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    }

    /// A CA and a certificate it signed for 127.0.0.1, made with the openssl command; with
    /// `requireCertificate`, also a client certificate it signed and a stranger's self-signed one.
    private func makeCertificates() throws {
        let ext = folder.appendingPathComponent("san.cnf")
        try "subjectAltName=IP:127.0.0.1,DNS:127.0.0.1\n".write(to: ext, atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for arguments in [
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=baton relay test CA"],
            ["req"] + key + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
             "-days", "1", "-extfile", ext.path],
        ] + (requireCertificate ? [
            ["req"] + key + ["-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=baton test client"],
            ["x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.pem", "-days", "1"],
            ["req", "-x509"] + key + ["-keyout", "stranger.key", "-out", "stranger.pem", "-days", "1", "-subj", "/CN=a stranger"],
        ] : []) {
            try Self.run("/usr/bin/openssl", arguments, in: folder)
        }
        // mosquitto started as root reads its files as the user `mosquitto`; this key guards nothing.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.appendingPathComponent("server.key").path)
    }

    /// Runs `tool` with `arguments` in `folder`, and throws unless it succeeded.
    private static func run(_ tool: String, _ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "\(tool) \(arguments.first ?? "") failed") }
    }
}

/// Runs `operation` until it returns or `timeout` passes (then nil).
func within<Value: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Value) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)  // wait-ok: the deadline, cancelled once the operation returns
            return nil
        }
        defer { group.cancelAll() }
        return await group.next() ?? nil
    }
}
