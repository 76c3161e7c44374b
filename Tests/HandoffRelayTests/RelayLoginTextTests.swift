import Foundation
import Testing

@testable import HandoffRelay

/// The login and certificate settings as text: what is refused and why, the relay file's lines,
/// a password that never shows, and OpenSSL's and the broker's words sorted into refusals.
@Suite("Relay logins and certificates as text")
struct RelayLoginTextTests {
    static let secret = "s3cret-Pa55"

    @Test("The password shows in no description, interpolation, debug text or dump of the configuration")
    func passwordHidden() throws {
        let configuration = try RelayConfiguration(
            "mqtts://b", login: RelayLogin(user: "alice", password: RelayPassword(Self.secret)),
            clientCertificate: RelayClientCertificate(certificateFile: "c.pem", keyFile: "k.pem"))
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [
            "\(configuration)", String(describing: configuration), String(reflecting: configuration), dumped,
            "\(configuration.login!)", String(reflecting: configuration.login!), "\(configuration.login!.password!)",
        ] {
            #expect(!text.contains(Self.secret), "\(text)")
        }
        #expect(String(reflecting: configuration.login!) == "user alice, password (hidden)")
        #expect(dumped.contains("alice"))
    }

    @Test(
        "A login or certificate that cannot be sent is refused, saying what to give instead",
        arguments: [
            (RelayLogin(user: ""), RelayConfigurationError.emptyUser),
            (RelayLogin(user: "a\u{0}b"), .badUser),
            (RelayLogin(user: "alice", password: RelayPassword("")), .emptyPassword),
            (RelayLogin(user: "alice", password: RelayPassword(String(repeating: "x", count: 65_536))), .badPassword),
        ])
    func badLogins(_ login: RelayLogin, _ expected: RelayConfigurationError) {
        #expect(throws: expected) { try RelayConfiguration("mqtt://b", login: login) }
        #expect(expected.description.contains("--relay") || expected.description.contains("BATON_RELAY") || expected.description.contains("broker"))
    }

    @Test("A client certificate needs mqtts:// and two file names")
    func certificateNeedsTLS() {
        let pair = RelayClientCertificate(certificateFile: "c.pem", keyFile: "k.pem")
        #expect(throws: RelayConfigurationError.certificateWithoutTLS("c.pem")) { try RelayConfiguration("mqtt://b", clientCertificate: pair) }
        #expect(throws: RelayConfigurationError.emptyCertificateFile) {
            try RelayConfiguration("mqtts://b", clientCertificate: RelayClientCertificate(certificateFile: "c.pem", keyFile: ""))
        }
    }

    @Test("An address with a user name or password is quoted without them")
    func addressHidesUserInfo() {
        #expect(RelayConfiguration.hidingUserInfo("mqtts://alice:s3cret@b:8883") == "mqtts://…@b:8883")
        #expect(RelayConfiguration.hidingUserInfo("mqtt://b") == "mqtt://b")
        #expect(RelayConfiguration.hidingUserInfo("alice:s3cret@b") == "…@b")
        // Whatever else is wrong with the address, the password is not quoted back.
        for text in ["alice:\(Self.secret)@b", "mqtt://alice:\(Self.secret)@b/topic", "http://alice:\(Self.secret)@b",
                     "mqtt://alice:\(Self.secret)@b:x"] {
            let error = #expect(throws: RelayConfigurationError.self) { try RelayConfiguration(text) }
            #expect(error?.description.contains(Self.secret) == false, "\(error?.description ?? "")")
        }
        let error = #expect(throws: RelayConfigurationError.self) { try RelayConfiguration("mqtt://alice:\(Self.secret)@b") }
        #expect(error?.description.contains(Self.secret) == false)
        #expect(error?.description.contains("BATON_RELAY_PASSWORD") == true)
    }

    @Test("The relay file's settings, with their lines; what it does not take is refused, naming the line")
    func relayFileSettings() throws {
        let file = try RelayFile(parsing: "mqtts://b\n# who\nUser alice smith\npassword-file  pw.txt \ncert-key k.pem\n", path: "relay")
        #expect(file.address == RelayFile.Entry(value: "mqtts://b", line: 1))
        #expect(file.settings[.user] == RelayFile.Entry(value: "alice smith", line: 3))
        #expect(file.settings[.passwordFile] == RelayFile.Entry(value: "pw.txt", line: 4))
        #expect(file.settings[.certKey]?.value == "k.pem")
        for (text, expected) in [
            ("mqtt://b\npassword hunter2\n", RelayFileError.password("relay:2")),
            ("mqtt://b\nusername alice\n", .unknown("relay:2", "username")),
            ("user\n", .noValue("relay:1", "user")),
            ("ca a.pem\nca b.pem\n", .twice("relay:2", "ca")),
        ] {
            #expect(throws: expected) { try RelayFile(parsing: text, path: "relay") }
            #expect(!expected.description.contains("hunter2"))
        }
    }

    @Test("The broker's CONNACK and OpenSSL's words sort into refusals; an unreachable broker is none")
    func refusals() {
        #expect(RelayRefusal.connack(5, login: nil) == .loginRequired)
        #expect(RelayRefusal.connack(4, login: RelayLogin(user: "a")) == .login)
        #expect(RelayRefusal.connack(5, login: RelayLogin(user: "a")) == .login)
        #expect(RelayRefusal.connack(3, login: RelayLogin(user: "a")) == nil)
        func sorted(_ lines: [String], certificate: Bool = false, protocolError: Bool = false) -> RelayRefusal? {
            RelayRefusal.classify(errors: lines, tls: true, certificate: certificate, protocolError: protocolError)
        }
        #expect(sorted(["OpenSSL Error[0]: error:0A00045C:SSL routines::tlsv13 alert certificate required"]) == .certificateRequired)
        #expect(sorted(["OpenSSL Error[0]: error:0A000418:SSL routines::tlsv1 alert unknown ca"], certificate: true)
            == .certificate("tlsv1 alert unknown ca"))
        #expect(sorted(["OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed"])
            == .untrustedBroker("certificate verify failed"))
        #expect(sorted(
            ["Error: Unable to load client key file \"k.pem\".", "OpenSSL Error[0]: error:05800074:x509 certificate routines::key values mismatch"],
            certificate: true) == .clientFiles("unable to load client key file \"k.pem\": key values mismatch"))
        #expect(sorted([], certificate: true, protocolError: true) == .certificate("the broker closed the connection during the TLS handshake"))
        #expect(sorted([], certificate: false, protocolError: true) == nil)
        #expect(RelayRefusal.classify(errors: ["OpenSSL Error[0]: x::tlsv13 alert certificate required"], tls: false, certificate: false,
            protocolError: false) == nil)
    }
}
