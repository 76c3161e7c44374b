import BatonDoctor
import HandoffRelay
import Testing

/// What `baton doctor` says of a relay that refused this client, told apart from one it could
/// not reach, each with a fix in the options that set what was refused.
@Suite("baton doctor: the relay's refusals")
struct RelayCheckTests {
    static let login = RelayLogin(user: "alice", password: RelayPassword("s3cret"))

    @Test("A refused login names the user, never the password, and says where the two come from")
    func refusedLogin() throws {
        let configuration = try RelayConfiguration("mqtts://broker.test", login: Self.login)
        let finding = RelayCheck.finding(.refused(.login), configuration: configuration)
        #expect(finding.status == .problem)
        #expect(finding.detail == "mqtts://broker.test:8883 over TLS (the system's CAs): the broker refused the user name or password (user alice)")
        #expect(finding.fix?.contains("baton config") == true && finding.fix?.contains("mosquitto_passwd") == true)
        #expect(!finding.detail.contains("s3cret") && finding.fix?.contains("s3cret") == false)
    }

    @Test("No login where one is needed, no certificate where one is asked for: each says which options give it")
    func missing() throws {
        let plain = try RelayConfiguration("mqtt://broker.test")
        let login = RelayCheck.finding(.refused(.loginRequired), configuration: plain)
        #expect(login.detail == "mqtt://broker.test:1883: the broker refuses clients without a user name and password")
        #expect(login.fix?.contains("--relay-user NAME") == true && login.fix?.contains("BATON_RELAY_PASSWORD") == true)
        let tls = try RelayConfiguration("mqtts://broker.test", caFile: "ca.pem")
        let certificate = RelayCheck.finding(.refused(.certificateRequired), configuration: tls)
        #expect(certificate.detail == "mqtts://broker.test:8883 over TLS (CA ca.pem): the broker asks for a client certificate")
        #expect(certificate.fix?.contains("--relay-cert FILE --relay-cert-key FILE") == true)
    }

    @Test("A refused certificate names it; an unreachable broker is still its own finding")
    func certificateAndUnreachable() throws {
        let configuration = try RelayConfiguration(
            "mqtts://broker.test", clientCertificate: RelayClientCertificate(certificateFile: "me.pem", keyFile: "me.key"))
        let refused = RelayCheck.finding(.refused(.certificate("tlsv1 alert unknown ca")), configuration: configuration)
        #expect(refused.detail.hasSuffix(": the broker refused the client certificate (tlsv1 alert unknown ca) (client certificate me.pem)"))
        #expect(refused.fix?.contains("the broker does not accept me.pem") == true)
        let unreachable = RelayCheck.finding(.unreachable(reason: "connection refused", seconds: 3), configuration: configuration)
        #expect(unreachable.detail == "could not connect to mqtts://broker.test:8883 within 3 s: connection refused")
        #expect(unreachable.fix?.contains("runs with TLS on port 8883") == true)
    }

    @Test("A password sent without TLS works, and is worth a warning")
    func passwordInTheClear() throws {
        let configuration = try RelayConfiguration("mqtt://broker.test", login: Self.login)
        let finding = RelayCheck.finding(.passed(connect: 0.01, roundTrip: 0.002), configuration: configuration)
        #expect(finding.status == .warning)
        #expect(finding.detail.contains("as alice") && finding.detail.contains("unencrypted"))
        #expect(finding.fix?.hasPrefix("use TLS, mqtts://broker.test (port 8883") == true)
    }
}
